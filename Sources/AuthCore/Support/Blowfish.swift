/// bcrypt (Provos and Mazières, 1999) over Blowfish's expensive key schedule, for checking password
/// hashes that users bring from elsewhere (GoTrue's and Firebase's imports). Fauxth never makes bcrypt
/// hashes of its own; new passwords use ``PasswordHasher``'s format.
public enum Bcrypt {
    /// A parsed `$2a$`, `$2b$` or `$2y$` hash: the variants differ only in bugs of other implementations
    /// that never touched passwords under 255 bytes, so they are checked the same way.
    public struct Hash: Sendable, Equatable {
        public var version: String
        public var cost: Int
        public var salt: [UInt8]
        public var digest: [UInt8]

        /// Nil unless `encoded` is `$2x$NN$` + 22 salt characters + 31 digest characters.
        public init?(_ encoded: String) {
            let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0].isEmpty, ["2a", "2b", "2y"].contains(parts[1]),
                  parts[2].count == 2, let cost = Int(parts[2]), (4...31).contains(cost), parts[3].count == 53,
                  let salt = Bcrypt.decode(parts[3].prefix(22), count: 16),
                  let digest = Bcrypt.decode(parts[3].suffix(31), count: 23) else { return nil }
            version = String(parts[1]); self.cost = cost; self.salt = salt; self.digest = digest
        }
    }

    /// Whether `password` matches `encoded`, compared in constant time. Malformed hashes never match.
    public static func verify(_ password: String, against encoded: String) -> Bool {
        guard let hash = Hash(encoded) else { return false }
        return constantTimeEquals(digest(password, salt: hash.salt, cost: hash.cost), hash.digest)
    }

    /// The 23-byte bcrypt digest: "OrpheanBeholderScryDoubt" enciphered 64 times under the eks-Blowfish state.
    static func digest(_ password: String, salt: [UInt8], cost: Int) -> [UInt8] {
        // The key is the password's bytes with a NUL terminator, at most 72 bytes.
        let key = Array((Array(password.utf8) + [0]).prefix(72))
        var cipher = Blowfish()
        cipher.expensiveKeySchedule(key: key, salt: salt, cost: cost)
        var words: [UInt32] = [0x4F72_7068, 0x6561_6E42, 0x6568_6F6C, 0x6465_7253, 0x6372_7944, 0x6F75_6274]
        for _ in 0..<64 {
            for i in stride(from: 0, to: 6, by: 2) {
                (words[i], words[i + 1]) = cipher.encrypt(words[i], words[i + 1])
            }
        }
        let bytes = words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
        return Array(bytes.prefix(23))
    }

    private static let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// bcrypt's base64: its own alphabet, no padding; `count` bytes from the characters.
    static func decode(_ text: Substring, count: Int) -> [UInt8]? {
        var bits: UInt32 = 0, held = 0, out: [UInt8] = []
        for character in text.utf8 {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            bits = (bits << 6) | UInt32(value)
            held += 6
            if held >= 8 {
                held -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(held)))
            }
        }
        return out.count >= count ? Array(out.prefix(count)) : nil
    }
}

/// The Blowfish cipher's state: 18 subkeys, then four 256-entry S-boxes, one flat array.
struct Blowfish {
    private var state: [UInt32] = Blowfish.piWords

    func encrypt(_ left: UInt32, _ right: UInt32) -> (UInt32, UInt32) {
        state.withUnsafeBufferPointer { Self.encrypt(left, right, $0) }
    }

    private static func encrypt(_ left: UInt32, _ right: UInt32, _ s: UnsafeBufferPointer<UInt32>) -> (UInt32, UInt32) {
        var l = left, r = right
        for i in stride(from: 0, to: 16, by: 2) {
            l ^= s[i]
            r ^= f(l, s)
            r ^= s[i + 1]
            l ^= f(r, s)
        }
        return (r ^ s[17], l ^ s[16])
    }

    @inline(__always)
    private static func f(_ x: UInt32, _ s: UnsafeBufferPointer<UInt32>) -> UInt32 {
        ((s[18 + Int(x >> 24)] &+ s[274 + Int((x >> 16) & 0xFF)]) ^ s[530 + Int((x >> 8) & 0xFF)]) &+ s[786 + Int(x & 0xFF)]
    }

    /// eks-Blowfish setup: the salted key expansion, then 2^cost rounds alternating key and salt.
    mutating func expensiveKeySchedule(key: [UInt8], salt: [UInt8], cost: Int) {
        expand(key: key, salt: salt)
        for _ in 0..<(1 << cost) {
            expand(key: key, salt: nil)
            expand(key: salt, salt: nil)
        }
    }

    /// Blowfish's key schedule, with bcrypt's salt folded into every block it enciphers.
    private mutating func expand(key: [UInt8], salt: [UInt8]?) {
        state.withUnsafeMutableBufferPointer { s in
            var keyPosition = 0
            for i in 0..<18 { s[i] ^= Self.word(key, &keyPosition) }
            var saltPosition = 0
            var l: UInt32 = 0, r: UInt32 = 0
            for i in stride(from: 0, to: s.count, by: 2) {
                if let salt {
                    l ^= Self.word(salt, &saltPosition)
                    r ^= Self.word(salt, &saltPosition)
                }
                (l, r) = Self.encrypt(l, r, UnsafeBufferPointer(s))
                s[i] = l
                s[i + 1] = r
            }
        }
    }

    /// The next four bytes of `data`, big-endian, wrapping round to its start.
    @inline(__always)
    private static func word(_ data: [UInt8], _ position: inout Int) -> UInt32 {
        var word: UInt32 = 0
        for _ in 0..<4 {
            word = (word << 8) | UInt32(data[position])
            position = (position + 1) % data.count
        }
        return word
    }
}
