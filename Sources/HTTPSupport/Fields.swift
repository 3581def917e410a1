import AuthCore
import Foundation

/// The JSON types a body field is read as, by their JSON Schema names (which Identity Toolkit's messages use).
public enum FieldType: String, Sendable {
    case string, bool = "boolean", int = "integer", object, array

    /// The type with its article, as in "expected a string" and "expected an object".
    public var withArticle: String { (self == .int || self == .object || self == .array ? "an " : "a ") + rawValue }
}

/// What makes one reader of request fields its own: the values it takes for a type beyond that JSON type
/// (the Firebase emulator reads a number where a string is expected), and the error it answers in its
/// vendor's words for a value it refuses. Every method has a strict default but `wrongType`.
public protocol FieldRules {
    /// A value of another JSON type read as a string field, or nil to refuse it.
    static func string(from value: JSON) -> String?
    /// A value of another JSON type read as a boolean field, or nil to refuse it.
    static func bool(from value: JSON) -> Bool?
    /// A value of another JSON type read as an integer field, or nil to refuse it.
    static func int(from value: JSON) -> Int?
    /// An element of a list of strings that is not a string, read as one, or nil to refuse it.
    static func stringElement(from value: JSON) -> String?
    /// The error for a field holding a value of the wrong type.
    static func wrongType(_ key: String, expected: FieldType, got value: JSON) -> any Error
    /// The error for the element at `index` of a list of strings that is not one.
    static func wrongElement(of key: String, at index: Int, got value: JSON) -> any Error
}

extension FieldRules {
    public static func string(from value: JSON) -> String? { nil }
    public static func bool(from value: JSON) -> Bool? { nil }
    public static func int(from value: JSON) -> Int? { nil }
    public static func stringElement(from value: JSON) -> String? { nil }
    public static func wrongElement(of key: String, at index: Int, got value: JSON) -> any Error { wrongType(key, expected: .string, got: value) }
}

/// A request's fields (a JSON object body, or a form read as one) with a typed accessor per JSON type. As
/// every vendor reads a body, an absent field and a `null` one are the same: nil. A value of another type
/// is taken or refused as `Rules` says; each dialect's reader is this with its own rules.
public struct Fields<Rules: FieldRules>: Sendable {
    public var fields: [String: JSON]

    public init(fields: [String: JSON]) { self.fields = fields }

    /// The field's value, nil when absent or `null`.
    public subscript(_ key: String) -> JSON? {
        if case .null? = fields[key] { return nil }
        return fields[key]
    }

    public func string(_ key: String) throws -> String? { try field(key, as: .string) { $0.stringValue ?? Rules.string(from: $0) } }

    public func bool(_ key: String) throws -> Bool? { try field(key, as: .bool) { $0.boolValue ?? Rules.bool(from: $0) } }

    public func int(_ key: String) throws -> Int? { try field(key, as: .int) { $0.intValue ?? Rules.int(from: $0) } }

    public func object(_ key: String) throws -> [String: JSON]? { try field(key, as: .object) { $0.objectValue } }

    public func array(_ key: String) throws -> [JSON]? { try field(key, as: .array) { $0.arrayValue } }

    /// A list of strings; the list itself is read as `array` is.
    public func strings(_ key: String) throws -> [String]? {
        try array(key)?.enumerated().map { index, item in
            guard let text = item.stringValue ?? Rules.stringElement(from: item) else { throw Rules.wrongElement(of: key, at: index, got: item) }
            return text
        }
    }

    private func field<T>(_ key: String, as type: FieldType, _ read: (JSON) -> T?) throws -> T? {
        guard let value = self[key] else { return nil }
        guard let typed = read(value) else { throw Rules.wrongType(key, expected: type, got: value) }
        return typed
    }
}
