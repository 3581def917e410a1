import Foundation

/// Base64url without padding (RFC 7515 §2), the encoding of every JWS part and JWK member.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Written byte by byte: every token is encoded on every sign-in, and Foundation's encoder followed
    /// by three string replacements was a tenth of one (scripts/bench, perf).
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        encode(bytes, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the encoding of `bytes` to `out`: a token's parts go into one buffer, with no string per part.
    public static func encode(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
        if bytes.withContiguousStorageIfAvailable({ encode(buffer: $0, into: &out) }) == nil {
            Array(bytes).withUnsafeBufferPointer { encode(buffer: $0, into: &out) }
        }
    }

    private static func encode(buffer input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let start = out.count, length = (input.count * 4 + 2) / 3
        out.append(contentsOf: repeatElement(0, count: length))
        alphabet.withUnsafeBufferPointer { alphabet in
            out.withUnsafeMutableBufferPointer { out in
                var (index, at) = (0, start)
                // In bounds by construction (four out for three in), so the pointers' unchecked subscripts: this
                // runs over every byte of every token.
                func put(_ n: UInt32, _ shift: UInt32) {
                    out[at] = alphabet[Int(n >> shift & 63)]
                    at &+= 1
                }
                while index + 3 <= input.count {
                    let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    put(n, 18); put(n, 12); put(n, 6); put(n, 0)
                    index += 3
                }
                switch input.count - index {
                case 1:
                    let n = UInt32(input[index]) << 16
                    put(n, 18); put(n, 12)
                case 2:
                    let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                    put(n, 18); put(n, 12); put(n, 6)
                default: break
                }
            }
        }
    }

    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes base64url with or without padding; nil on any character outside the alphabet.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !s.contains("=") || text.hasSuffix("=") else { return nil }
        s = s.replacingOccurrences(of: "=", with: "")
        while s.count % 4 != 0 { s.append("=") }
        return Data(base64Encoded: s).map { Array($0) }
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

extension UInt8 {
    /// The value of an ASCII hex digit, either case; nil for any other byte.
    public var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Sequence where Element == UInt8 {
    /// Lowercase hex.
    public var hex: String {
        // Two appends per byte into one reserved buffer: `out += [high, low]` made an array per byte, and every
        // sign-in and refresh hashes a token and a password pair into hex.
        var out = [UInt8]()
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Compares secrets in time that depends only on their lengths, so a wrong guess leaks nothing about
/// how much of it was right.
public func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for (x, y) in zip(a, b) { diff |= x ^ y }
    return diff == 0
}

/// String form of `constantTimeEquals`.
public func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    constantTimeEquals(Array(a.utf8), Array(b.utf8))
}
