import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226 HOTP), as authenticator apps compute them:
/// HMAC-SHA1, 6 digits, 30-second steps. The time comes from the caller, so it is the emulator clock.
public struct TOTP: Sendable {
    public var secret: [UInt8]
    public var digits: Int
    public var period: TimeInterval

    public init(secret: [UInt8], digits: Int = 6, period: TimeInterval = 30) {
        self.secret = secret; self.digits = digits; self.period = period
    }

    /// The code for the time step containing `date`.
    public func code(at date: Date) -> String {
        code(step: UInt64(max(0, date.timeIntervalSince1970 / period).rounded(.down)))
    }

    /// RFC 4226 §5.3: HMAC the big-endian counter, take 31 bits at the offset the last nibble gives.
    func code(step: UInt64) -> String {
        let counter = withUnsafeBytes(of: step.bigEndian) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let value = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let modulus = (0..<digits).reduce(UInt32(1)) { acc, _ in acc * 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// Whether `code` is valid at `date`, allowing `window` steps of clock drift either way (GoTrue and
    /// Cognito accept one), compared in constant time.
    public func verify(_ code: String, at date: Date, window: Int = 1) -> Bool {
        matchingStep(code, at: date, window: window) != nil
    }

    /// The time step whose code `code` is, within `window` steps of `date`: what a verifier remembers so
    /// that the same code cannot be used twice (Cognito's "already been used once"). Every candidate
    /// is compared, in constant time.
    public func matchingStep(_ code: String, at date: Date, window: Int = 1) -> UInt64? {
        let step = Int64(max(0, date.timeIntervalSince1970 / period).rounded(.down))
        var matched: UInt64?
        for delta in -Int64(window)...Int64(window) where step + delta >= 0 {
            if constantTimeEquals(self.code(step: UInt64(step + delta)), code) { matched = UInt64(step + delta) }
        }
        return matched
    }

    /// The `otpauth://` URI authenticator apps scan, written as GoTrue's TOTP library (pquerna/otp)
    /// writes it: the label path-escaped, the parameters sorted.
    public func uri(issuer: String, account: String) -> String {
        var pathSafe = CharacterSet.alphanumerics
        pathSafe.insert(charactersIn: "-._~@:$&+,;=")
        var querySafe = CharacterSet.alphanumerics
        querySafe.insert(charactersIn: "-._~")
        let label = "\(issuer):\(account)".addingPercentEncoding(withAllowedCharacters: pathSafe) ?? account
        let query = [("algorithm", "SHA1"), ("digits", String(digits)), ("issuer", issuer), ("period", String(Int(period))),
                     ("secret", Base32.encode(secret))]
            .map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: querySafe) ?? $0.1)" }.joined(separator: "&")
        return "otpauth://totp/\(label)?\(query)"
    }
}

/// RFC 4648 base32 without padding: how TOTP secrets are shown and typed.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    public static func encode(_ bytes: [UInt8]) -> String {
        var out = ""
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return out
    }

    /// Decodes case-insensitively, ignoring padding and spaces; nil on any other character.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for char in text.uppercased() where char != "=" && char != " " {
            guard let index = alphabet.firstIndex(of: char) else { return nil }
            buffer = (buffer << 5) | index
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}
