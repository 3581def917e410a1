import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// A JSON 1.1 request body with Cognito's PascalCase members, read strictly: a member of the wrong type
/// is a `SerializationException`, as the service answers malformed input.
typealias CognitoBody = Fields<CognitoFieldRules>

/// Cognito's reading of a member: strictly its JSON type, else `SerializationException` in the service's words.
enum CognitoFieldRules: FieldRules {
    static func wrongType(_ key: String, expected: FieldType, got value: JSON) -> any Error {
        let message = switch expected {
        case .string: "STRING_VALUE can not be converted to a String for \(key)"
        case .bool: "Boolean value expected for \(key)"
        case .int: "Integer value expected for \(key)"
        case .object: "Structure expected for \(key)"
        case .array: "List expected for \(key)"
        }
        return CognitoError(.serialization, message)
    }

    static func wrongElement(of key: String, at index: Int, got value: JSON) -> any Error {
        CognitoError(.serialization, "List of strings expected for \(key)")
    }
}

extension CognitoBody {
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

    /// AWS's validation error for a member the operation cannot do without, which it names in camel case.
    static func missing(_ key: String) -> CognitoError {
        CognitoError.invalid("1 validation error detected: Value null at '\(member(key))' failed to satisfy constraint: Member must not be null")
    }

    /// A member's name as AWS's validation messages write it (`MFAOptions` is `mFAOptions`).
    static func member(_ key: String) -> String { key.prefix(1).lowercased() + key.dropFirst() }

    /// A member the operation cannot do without; AWS's validation message names it.
    func required(_ key: String) throws -> String {
        let member = Self.member(key)
        guard let value = try string(key) else { throw Self.missing(key) }
        guard !value.isEmpty else {
            throw CognitoError.invalid("1 validation error detected: Value '' at '\(member)' failed to satisfy constraint: Member must have length greater than or equal to 1")
        }
        return value
    }

    /// A string map (`AuthParameters`, `ChallengeResponses`, `ClientMetadata`).
    func map(_ key: String) throws -> [String: String] {
        guard let object = try object(key) else { return [:] }
        return object.compactMapValues(\.stringValue)
    }

    /// `[{Name, Value}]` attribute lists.
    func attributes(_ key: String) throws -> [(name: String, value: String)] {
        try (array(key) ?? []).map { item in
            guard let name = item["Name"]?.stringValue else { throw CognitoError.invalid("Attribute name is required") }
            return (name, item["Value"]?.stringValue ?? "")
        }
    }
}
