import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// A JSON 1.1 request body with Cognito's PascalCase members, read strictly: a member of the wrong type
/// is a `SerializationException`, as the service answers malformed input.
struct CognitoBody: Sendable {
    var fields: [String: JSON]

    static func read(_ request: Request) async throws -> CognitoBody {
        do {
            return CognitoBody(fields: try await request.jsonObject(limit: 1 << 20))
        } catch .empty {
            return CognitoBody(fields: [:])
        } catch .tooLarge {
            throw CognitoError(.invalidParameter, "Request body too large")
        } catch .malformed, .notAnObject {
            throw CognitoError(.serialization, "Start of structure or map found where not expected.")
        }
    }

    subscript(_ key: String) -> JSON? {
        if case .null? = fields[key] { return nil }
        return fields[key]
    }

    func string(_ key: String) throws -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let s)?: return s
        case .some: throw CognitoError(.serialization, "STRING_VALUE can not be converted to a String for \(key)")
        }
    }

    /// A member the operation cannot do without; AWS's validation message names it.
    func required(_ key: String) throws -> String {
        let member = key.prefix(1).lowercased() + key.dropFirst()
        guard let value = try string(key) else {
            throw CognitoError.invalid("1 validation error detected: Value null at '\(member)' failed to satisfy constraint: Member must not be null")
        }
        guard !value.isEmpty else {
            throw CognitoError.invalid("1 validation error detected: Value '' at '\(member)' failed to satisfy constraint: Member must have length greater than or equal to 1")
        }
        return value
    }

    func bool(_ key: String) throws -> Bool? {
        switch self[key] {
        case nil: return nil
        case .bool(let b)?: return b
        case .some: throw CognitoError(.serialization, "Boolean value expected for \(key)")
        }
    }

    func int(_ key: String) throws -> Int? {
        switch self[key] {
        case nil: return nil
        case let value? where value.intValue != nil: return value.intValue
        case .some: throw CognitoError(.serialization, "Integer value expected for \(key)")
        }
    }

    func object(_ key: String) throws -> [String: JSON]? {
        switch self[key] {
        case nil: return nil
        case .object(let o)?: return o
        case .some: throw CognitoError(.serialization, "Structure expected for \(key)")
        }
    }

    func strings(_ key: String) throws -> [String]? {
        switch self[key] {
        case nil: return nil
        case .array(let items)?:
            return try items.map { item in
                guard let text = item.stringValue else { throw CognitoError(.serialization, "List of strings expected for \(key)") }
                return text
            }
        case .some: throw CognitoError(.serialization, "List expected for \(key)")
        }
    }

    /// A string map (`AuthParameters`, `ChallengeResponses`, `ClientMetadata`).
    func map(_ key: String) throws -> [String: String] {
        guard let object = try object(key) else { return [:] }
        return object.compactMapValues(\.stringValue)
    }

    /// `[{Name, Value}]` attribute lists.
    func attributes(_ key: String) throws -> [(name: String, value: String)] {
        switch self[key] {
        case nil: return []
        case .array(let items)?:
            return try items.map { item in
                guard let name = item["Name"]?.stringValue else { throw CognitoError.invalid("Attribute name is required") }
                return (name, item["Value"]?.stringValue ?? "")
            }
        case .some: throw CognitoError(.serialization, "List expected for \(key)")
        }
    }
}
