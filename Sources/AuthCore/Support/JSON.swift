import Foundation

/// A JSON value, for the parts of the model that are free-form in every vendor: user metadata,
/// custom claims, tenant settings, event details.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// The value at `key` when this is an object.
    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { o[key] } else { nil }
    }

    /// The element at `index` when this is an array and the index exists.
    public subscript(index: Int) -> JSON? {
        if case .array(let a) = self, a.indices.contains(index) { a[index] } else { nil }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var objectValue: [String: JSON]? { if case .object(let o) = self { o } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    public var intValue: Int? {
        switch self {
        case .int(let i): i
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: Int(d)
        default: nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    public var isNull: Bool { self == .null }

    /// The JSON type name, for error messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSON].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(Dictionary(elements, uniquingKeysWith: { $1 })) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSON {
    /// Parses JSON text; throws `JSONSyntaxError` (with the byte offset) on malformed input.
    public static func parse(_ data: some DataProtocol) throws -> JSON {
        if let value = try data.withContiguousStorageIfAvailable({ buffer throws(JSONSyntaxError) in
            try JSONCodec.parse(UnsafeRawBufferPointer(buffer))
        }) {
            return value
        }
        return try Array(data).withUnsafeBytes { buffer throws(JSONSyntaxError) in try JSONCodec.parse(buffer) }
    }

    /// Parses JSON text held in a string, reading its UTF-8 where it lies (a row's JSON columns, a token's part).
    public static func parse(text: String) throws -> JSON {
        var text = text
        return try text.withUTF8 { bytes throws(JSONSyntaxError) in try JSONCodec.parse(UnsafeRawBufferPointer(bytes)) }
    }

    /// Compact JSON text with sorted keys, so equal values serialise identically (snapshots, tests).
    public func serialized() -> String { JSONCodec.serialize(self) }

    /// `serialized()` as UTF-8 bytes, for a body or a token's part.
    public func serializedBytes() -> [UInt8] { JSONCodec.bytes(self) }

    /// An optional string as JSON, `null` when absent.
    public init(_ string: String?) { self = string.map(JSON.string) ?? .null }
}
