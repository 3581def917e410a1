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
        if request.hasFormBody {
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
        guard key.utf8.contains(UInt8(ascii: "_")) else { return key }
        // ASCII names (every field the API has) in one pass over the bytes; Unicode case mapping only for the rest.
        if key.utf8.allSatisfy({ $0 < 0x80 }) {
            var out: [UInt8] = []
            out.reserveCapacity(key.utf8.count)
            var capitalize = false
            for byte in key.utf8 {
                if byte == UInt8(ascii: "_") {
                    capitalize = !out.isEmpty
                } else {
                    out.append(capitalize && byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte)
                    capitalize = false
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
        let parts = key.split(separator: "_")
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The generic reader with the emulator's leniency; `object`, `array` and `strings` keep this type's
    /// own answers (a nested body, and an empty list for an absent one).
    private var reader: Fields<FirebaseFieldRules> { Fields(fields: fields) }

    subscript(_ key: String) -> JSON? { reader[key] }

    /// A string field; numbers and booleans are accepted and turned into their text, as the emulator does.
    func string(_ key: String) throws -> String? { try reader.string(key) }

    /// A boolean field; `"true"`/`"false"` strings are accepted.
    func bool(_ key: String) throws -> Bool? { try reader.bool(key) }

    /// An integer field; a string of digits is accepted.
    func int(_ key: String) throws -> Int? { try reader.int(key) }

    func object(_ key: String) throws -> FirebaseBody? { try reader.object(key).map(FirebaseBody.init(fields:)) }

    func array(_ key: String) throws -> [JSON] { try reader.array(key) ?? [] }

    /// A list of strings; integers are accepted and turned into their text.
    func strings(_ key: String) throws -> [String] { try reader.strings(key) ?? [] }
}

/// The Firebase emulator's reading of a field (its OpenAPI validator, then `coerceToString`-style
/// conversions): numbers and booleans as strings, `"true"`/`"false"` as booleans, digits as integers,
/// and its schema complaint for the rest.
enum FirebaseFieldRules: FieldRules {
    static func string(from value: JSON) -> String? {
        switch value {
        case .int(let i): String(i)
        // Whole numbers as digits (JavaScript's `String(5)`), within the range a Double holds every integer of; beyond
        // it (1e300) as Swift writes a Double, never converted to `Int`, which traps past `Int.max`.
        case .double(let d): d == d.rounded() && abs(d) < 9e15 ? String(Int(d)) : String(d)
        case .bool(let b): String(b)
        default: nil
        }
    }

    static func bool(from value: JSON) -> Bool? {
        switch value {
        case .string("true"): true
        case .string("false"): false
        default: nil
        }
    }

    static func int(from value: JSON) -> Int? { value.stringValue.flatMap { Int($0) } }

    /// In a list only an integer (not a fraction, not a boolean) passes for a string.
    static func stringElement(from value: JSON) -> String? { if case .int(let i) = value { String(i) } else { nil } }

    static func wrongType(_ key: String, expected: FieldType, got value: JSON) -> any Error {
        FirebaseError.badBody("Invalid JSON payload received. /\(key) should be \(expected.rawValue), got \(value.typeName)")
    }

    static func wrongElement(of key: String, at index: Int, got value: JSON) -> any Error {
        FirebaseError.badBody("Invalid JSON payload received. /\(key)/\(index) should be string")
    }
}

extension FirebaseBody {
    /// An `int64` field, which Identity Toolkit takes as a string of digits (`validSince` in seconds, an import's
    /// `createdAt` in milliseconds); anything else is Google's refusal of the value, not a number read loosely (a
    /// `validSince` of `1e300` was kept, and ended the process at the next read of the user).
    static func int64(_ text: String, field: String) throws -> Int64 {
        guard let value = Int64(text) else { throw FirebaseError.badBody("Invalid value at '\(field)' (TYPE_INT64), \"\(text)\"") }
        return value
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
