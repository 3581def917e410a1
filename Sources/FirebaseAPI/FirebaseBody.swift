import AuthCore
import Foundation
import HTTPSupport
import Hummingbird
import NIOCore

/// A request body read the way the Firebase emulator reads it: JSON (or a form, on the token endpoint),
/// keys in snake_case accepted as camelCase, numbers accepted where a string is expected (the Admin SDK
/// sends `validSince` as a number), and `null` as absent.
struct FirebaseBody: Sendable {
    var fields: [String: JSON]

    static let empty = FirebaseBody(fields: [:])

    static func read(_ request: Request) async throws -> FirebaseBody {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: 8 << 20) } catch is NIOTooManyBytesError {
            throw FirebaseError.badBody("Request payload size exceeds the limit: 8388608 bytes.")
        } catch {
            throw FirebaseError.badBody("Invalid JSON payload received. Unexpected token in JSON body, or not a JSON object.")
        }
        guard buffer.readableBytes > 0 else { return .empty }
        if request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            return FirebaseBody(fields: Self.normalized(Self.form(String(buffer: buffer))))
        }
        guard case .object(let object)? = try? JSON.parse(buffer.readableBytesView) else {
            throw FirebaseError.badBody("Invalid JSON payload received. Unexpected token in JSON body, or not a JSON object.")
        }
        return FirebaseBody(fields: Self.normalized(object))
    }

    /// `a=1&b=2`, decoded as a form (`+` is a space).
    static func form(_ text: String) -> [String: JSON] { FormBody.decode(text).mapValues(JSON.string) }

    /// snake_case keys become camelCase, at every depth.
    static func normalized(_ object: [String: JSON]) -> [String: JSON] {
        var result: [String: JSON] = [:]
        for (key, value) in object { result[camelCase(key)] = normalized(value) }
        return result
    }

    private static func normalized(_ value: JSON) -> JSON {
        switch value {
        case .object(let o): .object(normalized(o))
        case .array(let a): .array(a.map(normalized))
        default: value
        }
    }

    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        let parts = key.split(separator: "_")
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    subscript(_ key: String) -> JSON? {
        if case .null? = fields[key] { return nil }
        return fields[key]
    }

    /// A string field; numbers and booleans are accepted and turned into their text, as the emulator does.
    func string(_ key: String) throws -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .double(let d)?: return d == d.rounded() ? String(Int(d)) : String(d)
        case .bool(let b)?: return String(b)
        case let other?: throw FirebaseError.badBody("Invalid JSON payload received. /\(key) should be string, got \(other.typeName)")
        }
    }

    /// A boolean field; `"true"`/`"false"` strings are accepted.
    func bool(_ key: String) throws -> Bool? {
        switch self[key] {
        case nil: return nil
        case .bool(let b)?: return b
        case .string("true")?: return true
        case .string("false")?: return false
        case let other?: throw FirebaseError.badBody("Invalid JSON payload received. /\(key) should be boolean, got \(other.typeName)")
        }
    }

    func int(_ key: String) throws -> Int? {
        switch self[key] {
        case nil: return nil
        case let value? where value.intValue != nil: return value.intValue
        case .string(let s)? where Int(s) != nil: return Int(s)
        case let other?: throw FirebaseError.badBody("Invalid JSON payload received. /\(key) should be integer, got \(other.typeName)")
        }
    }

    func object(_ key: String) throws -> FirebaseBody? {
        switch self[key] {
        case nil: return nil
        case .object(let o)?: return FirebaseBody(fields: o)
        case let other?: throw FirebaseError.badBody("Invalid JSON payload received. /\(key) should be object, got \(other.typeName)")
        }
    }

    func array(_ key: String) throws -> [JSON] {
        switch self[key] {
        case nil: return []
        case .array(let a)?: return a
        case let other?: throw FirebaseError.badBody("Invalid JSON payload received. /\(key) should be array, got \(other.typeName)")
        }
    }

    func strings(_ key: String) throws -> [String] {
        try array(key).enumerated().map { index, item in
            switch item {
            case .string(let s): return s
            case .int(let i): return String(i)
            default: throw FirebaseError.badBody("Invalid JSON payload received. /\(key)/\(index) should be string")
            }
        }
    }
}

extension FirebaseError {
    /// The same error with a message that is not `CODE : detail` (schema and JSON complaints).
    func withMessage(_ text: String) -> FirebaseError {
        var copy = self
        copy.rawMessage = text
        return copy
    }
}
