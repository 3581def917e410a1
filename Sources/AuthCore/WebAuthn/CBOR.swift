import Foundation

/// The part of CBOR (RFC 8949) WebAuthn uses: attestation objects and COSE keys are definite-length maps
/// of integers, byte strings, text, arrays and maps. Indefinite lengths, tags and floats never appear in
/// them (CTAP2's canonical encoding forbids them), so they are refused rather than half-supported.
public indirect enum CBOR: Sendable, Equatable {
    case unsigned(UInt64)
    /// A negative integer, as its value (`-1 - n` on the wire).
    case negative(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Entries in wire order; WebAuthn keys are unique, and order matters when re-encoding.
    case map([(CBOR, CBOR)])
    case bool(Bool)
    case null

    public static func == (a: CBOR, b: CBOR) -> Bool {
        switch (a, b) {
        case let (.unsigned(x), .unsigned(y)): x == y
        case let (.negative(x), .negative(y)): x == y
        case let (.bytes(x), .bytes(y)): x == y
        case let (.text(x), .text(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.map(x), .map(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.bool(x), .bool(y)): x == y
        case (.null, .null): true
        default: false
        }
    }

    /// An integer item, whichever sign it has.
    public static func int(_ value: Int64) -> CBOR { value >= 0 ? .unsigned(UInt64(value)) : .negative(value) }

    /// The item as a signed integer, when it is one that fits.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let v): v <= UInt64(Int64.max) ? Int64(v) : nil
        case .negative(let v): v
        default: nil
        }
    }

    public var bytesValue: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    public var textValue: String? { if case .text(let t) = self { t } else { nil } }

    /// The value under `key` in a map (text or integer keys, as WebAuthn and COSE use).
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }

    public subscript(text key: String) -> CBOR? { self[.text(key)] }
    public subscript(int key: Int64) -> CBOR? { self[.int(key)] }
}

/// Why bytes are not the CBOR WebAuthn sends.
public struct CBORError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { "CBOR: \(reason)" }
}

extension CBOR {
    /// Nesting deeper than any WebAuthn structure, refused so hostile input cannot exhaust the stack.
    static let maximumDepth = 16

    /// Decodes one item that must fill `bytes` exactly.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        var reader = CBORReader(bytes: bytes)
        let item = try reader.item(depth: 0)
        guard reader.offset == bytes.count else { throw CBORError(reason: "\(bytes.count - reader.offset) bytes after the item") }
        return item
    }

    /// Decodes the first item of `bytes` and says how many bytes it took: a COSE key inside
    /// authenticator data is followed by extensions, and only its own encoding says where it ends.
    public static func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (item: CBOR, length: Int) {
        var reader = CBORReader(bytes: Array(bytes))
        let item = try reader.item(depth: 0)
        return (item, reader.offset)
    }
}

private struct CBORReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func take(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw CBORError(reason: "truncated at byte \(offset)") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// The argument of a head byte (RFC 8949 §3): the low five bits, or the 1, 2, 4 or 8 bytes after.
    mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24, 25, 26, 27:
            let width = 1 << Int(info - 24)
            return try take(width).reduce(0) { $0 << 8 | UInt64($1) }
        default: throw CBORError(reason: "indefinite or reserved length at byte \(offset - 1)")
        }
    }

    mutating func length(_ info: UInt8) throws(CBORError) -> Int {
        let n = try argument(info)
        guard n <= UInt64(bytes.count - offset) else { throw CBORError(reason: "length \(n) runs past the end") }
        return Int(n)
    }

    mutating func item(depth: Int) throws(CBORError) -> CBOR {
        guard depth < CBOR.maximumDepth else { throw CBORError(reason: "nested too deeply") }
        let head = try take(1).first!
        let major = head >> 5, info = head & 0x1F
        switch major {
        case 0: return .unsigned(try argument(info))
        case 1:
            let n = try argument(info)
            guard n < UInt64(Int64.max) else { throw CBORError(reason: "negative integer out of range") }
            return .negative(-1 - Int64(n))
        case 2: return .bytes(Array(try take(try length(info))))
        case 3:
            guard let text = String(validating: try take(try length(info)), as: UTF8.self) else { throw CBORError(reason: "text is not UTF-8") }
            return .text(text)
        case 4:
            let count = try length(info)
            var items: [CBOR] = []
            for _ in 0..<count { items.append(try item(depth: depth + 1)) }
            return .array(items)
        case 5:
            let count = try length(info)
            var entries: [(CBOR, CBOR)] = []
            for _ in 0..<count {
                let key = try item(depth: depth + 1)
                guard !entries.contains(where: { $0.0 == key }) else { throw CBORError(reason: "duplicate map key") }
                entries.append((key, try item(depth: depth + 1)))
            }
            return .map(entries)
        case 7:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw CBORError(reason: "unsupported simple value or float \(info)")
            }
        default:
            throw CBORError(reason: "tags are not used by WebAuthn")
        }
    }
}

extension CBOR {
    /// The item's encoding, with the shortest heads (CTAP2 canonical form for what WebAuthn sends; map
    /// entries are written in the order given, which callers keep canonical).
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    private func append(to out: inout [UInt8]) {
        switch self {
        case .unsigned(let v): Self.head(0, v, &out)
        case .negative(let v): Self.head(1, UInt64(-1 - v), &out)
        case .bytes(let b): Self.head(2, UInt64(b.count), &out); out += b
        case .text(let t): Self.head(3, UInt64(t.utf8.count), &out); out += Array(t.utf8)
        case .array(let items): Self.head(4, UInt64(items.count), &out); for item in items { item.append(to: &out) }
        case .map(let entries):
            Self.head(5, UInt64(entries.count), &out)
            for (key, value) in entries { key.append(to: &out); value.append(to: &out) }
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }

    private static func head(_ major: UInt8, _ value: UInt64, _ out: inout [UInt8]) {
        let top = major << 5
        switch value {
        case 0..<24: out.append(top | UInt8(value))
        case 24...0xFF: out += [top | 24, UInt8(value)]
        case 0x100...0xFFFF: out += [top | 25] + (0..<2).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        case 0x1_0000...0xFFFF_FFFF: out += [top | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        default: out += [top | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
    }
}
