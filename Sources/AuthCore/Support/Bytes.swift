import Foundation

/// Base64url without padding (RFC 7515 §2), the encoding of every JWS part and JWK member.
public enum Base64URL {
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
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

extension Sequence where Element == UInt8 {
    /// Lowercase hex.
    public var hex: String { map { String(format: "%02x", $0) }.joined() }
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
