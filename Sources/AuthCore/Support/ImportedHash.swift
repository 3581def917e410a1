import Crypto
import _CryptoExtras
import Foundation

/// A password hash brought from another system, kept as it is and checked in its own algorithm.
///
/// These are the algorithms Firebase's `accounts:batchCreate` (firebase-admin's `import_users`) takes.
/// Each is stored as one `$`-separated string in the credential, so snapshots hold no plaintext and
/// `PasswordHasher.verify` can recognise it by its prefix.
public enum ImportedHash: Sendable, Equatable {
    /// Which digest an HMAC, repeated digest or PBKDF2 uses.
    public enum Digest: String, Sendable, CaseIterable {
        case md5, sha1, sha256, sha512
    }

    /// Whether the salt goes before the password (Firebase's default) or after it.
    public enum Order: String, Sendable {
        case saltFirst = "salt-first", passwordFirst = "password-first"
    }

    /// HMAC(key, salt ‖ password) or HMAC(key, password ‖ salt).
    case hmac(Digest, key: [UInt8], order: Order, salt: [UInt8], hash: [UInt8])
    /// digest(salt ‖ password), digested again `rounds - 1` more times.
    case digest(Digest, rounds: Int, order: Order, salt: [UInt8], hash: [UInt8])
    /// PBKDF2 with SHA-1 or SHA-256.
    case pbkdf2(Digest, rounds: Int, salt: [UInt8], hash: [UInt8])
    /// Standard scrypt (RFC 7914).
    case scrypt(n: Int, r: Int, p: Int, salt: [UInt8], hash: [UInt8])
    /// Firebase's modified scrypt: scrypt(password, salt ‖ separator) as an AES-256-CTR key that
    /// encrypts the project's signer key.
    case firebaseScrypt(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int, salt: [UInt8], hash: [UInt8])

    /// The string kept in the credential.
    public var encoded: String {
        let b = { (bytes: [UInt8]) in Base64URL.encode(bytes) }
        switch self {
        case .hmac(let d, let key, let order, let salt, let hash):
            return "hmac-\(d.rawValue)$\(order.rawValue)$\(b(key))$\(b(salt))$\(b(hash))"
        case .digest(let d, let rounds, let order, let salt, let hash):
            return "digest-\(d.rawValue)$\(rounds)$\(order.rawValue)$\(b(salt))$\(b(hash))"
        case .pbkdf2(let d, let rounds, let salt, let hash):
            return "pbkdf2-\(d.rawValue)$\(rounds)$\(b(salt))$\(b(hash))"
        case .scrypt(let n, let r, let p, let salt, let hash):
            return "scrypt$\(n)$\(r)$\(p)$\(b(salt))$\(b(hash))"
        case .firebaseScrypt(let key, let separator, let rounds, let memoryCost, let salt, let hash):
            return "firebase-scrypt$\(b(key))$\(b(separator))$\(rounds)$\(memoryCost)$\(b(salt))$\(b(hash))"
        }
    }

    /// Parses a stored string; nil when it is not one of these formats (Fauxth's own PBKDF2-SHA256 hashes
    /// parse as `.pbkdf2(.sha256…)`).
    public init?(encoded: String) {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard let kind = parts.first else { return nil }
        let bytes = parts.dropFirst().map { Base64URL.decode($0) }
        func int(_ i: Int) -> Int? { parts.indices.contains(i) ? Int(parts[i]) : nil }
        func data(_ i: Int) -> [UInt8]? { bytes.indices.contains(i - 1) ? bytes[i - 1] : nil }
        let family = kind.split(separator: "-", maxSplits: 1).map(String.init)
        guard let name = family.first else { return nil }
        let digest = family.count == 2 ? Digest(rawValue: family[1]) : nil
        switch (name, parts.count) {
        case ("hmac", 5):
            guard let digest, let order = Order(rawValue: parts[1]), let key = data(2), let salt = data(3), let hash = data(4) else { return nil }
            self = .hmac(digest, key: key, order: order, salt: salt, hash: hash)
        case ("digest", 5):
            guard let digest, let rounds = int(1), let order = Order(rawValue: parts[2]), let salt = data(3), let hash = data(4) else { return nil }
            self = .digest(digest, rounds: rounds, order: order, salt: salt, hash: hash)
        case ("pbkdf2", 4):
            guard let digest, let rounds = int(1), let salt = data(2), let hash = data(3) else { return nil }
            self = .pbkdf2(digest, rounds: rounds, salt: salt, hash: hash)
        case ("scrypt", 6) where family.count == 1:
            guard let n = int(1), let r = int(2), let p = int(3), let salt = data(4), let hash = data(5) else { return nil }
            self = .scrypt(n: n, r: r, p: p, salt: salt, hash: hash)
        case ("firebase", 7) where family.count == 2 && family[1] == "scrypt":
            guard let key = data(1), let separator = data(2), let rounds = int(3), let memoryCost = int(4),
                  let salt = data(5), let hash = data(6) else { return nil }
            self = .firebaseScrypt(signerKey: key, saltSeparator: separator, rounds: rounds, memoryCost: memoryCost, salt: salt, hash: hash)
        default:
            return nil
        }
    }

    /// Whether `password` hashes to the stored value, compared in constant time. Parameters beyond what
    /// an honest import needs (rounds, memory) are refused rather than computed.
    public func matches(_ password: String) -> Bool {
        let pw = Array(password.utf8)
        let computed: [UInt8]?
        let expected: [UInt8]
        switch self {
        case .hmac(let d, let key, let order, let salt, let hash):
            expected = hash
            computed = Self.hmac(d, key: key, order == .saltFirst ? salt + pw : pw + salt)
        case .digest(let d, let rounds, let order, let salt, let hash):
            expected = hash
            guard (0...100_000).contains(rounds) else { return false }
            var h = Self.digest(d, order == .saltFirst ? salt + pw : pw + salt)
            for _ in 1..<max(rounds, 1) { h = Self.digest(d, h) }
            computed = h
        case .pbkdf2(let d, let rounds, let salt, let hash):
            expected = hash
            guard (1...10_000_000).contains(rounds), (1...64).contains(hash.count) else { return false }
            let function: KDF.Insecure.PBKDF2.HashFunction = d == .sha1 ? .insecureSHA1 : d == .sha512 ? .sha512 : .sha256
            computed = (try? KDF.Insecure.PBKDF2.deriveKey(from: pw, salt: salt, using: function, outputByteCount: hash.count,
                                                           unsafeUncheckedRounds: rounds)).map { $0.withUnsafeBytes { Array($0) } }
        case .scrypt(let n, let r, let p, let salt, let hash):
            expected = hash
            guard n > 1, n & (n - 1) == 0, n <= 1 << 20, (1...32).contains(r), (1...16).contains(p), (1...128).contains(hash.count) else { return false }
            computed = Self.scrypt(pw, salt: salt, n: n, r: r, p: p, length: hash.count)
        case .firebaseScrypt(let key, let separator, let rounds, let memoryCost, let salt, let hash):
            expected = hash
            guard (1...20).contains(memoryCost), (1...32).contains(rounds) else { return false }
            computed = Self.scrypt(pw, salt: salt + separator, n: 1 << memoryCost, r: rounds, p: 1, length: 32).flatMap { derived in
                guard let nonce = try? AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)) else { return nil }
                return (try? AES._CTR.encrypt(key, using: SymmetricKey(data: derived), nonce: nonce)).map { Array($0) }
            }
        }
        guard let computed else { return false }
        return constantTimeEquals(computed, expected)
    }

    private static func scrypt(_ password: [UInt8], salt: [UInt8], n: Int, r: Int, p: Int, length: Int) -> [UInt8]? {
        (try? KDF.Scrypt.deriveKey(from: password, salt: salt, outputByteCount: length, rounds: n, blockSize: r, parallelism: p))
            .map { $0.withUnsafeBytes { Array($0) } }
    }

    static func digest(_ d: Digest, _ data: [UInt8]) -> [UInt8] {
        switch d {
        case .md5: Array(Insecure.MD5.hash(data: data))
        case .sha1: Array(Insecure.SHA1.hash(data: data))
        case .sha256: Array(SHA256.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        }
    }

    static func hmac(_ d: Digest, key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let key = SymmetricKey(data: key)
        switch d {
        case .md5: return Array(HMAC<Insecure.MD5>.authenticationCode(for: data, using: key))
        case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: key))
        case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: data, using: key))
        case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: data, using: key))
        }
    }
}
