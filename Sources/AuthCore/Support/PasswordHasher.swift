import Crypto
import _CryptoExtras
import Foundation

/// Salted password hashing.
///
/// Format `pbkdf2-sha256$<rounds>$<salt b64url>$<hash b64url>`. An emulator needs passwords kept out of
/// snapshots in the clear, not resistance to offline cracking, so the default round count is low
/// (1,000 rounds, well under a millisecond) to keep sign-in fast under load; `rounds` is settable.
/// Verification compares in constant time. Imported hashes (bcrypt `$2a$`/`$2b$`/`$2y$`, and the HMAC,
/// digest, PBKDF2 and scrypt variants of `ImportedHash`) are kept as they are and checked in their algorithm.
public struct PasswordHasher: Sendable {
    /// PBKDF2 rounds used for new hashes.
    public var rounds: Int

    public init(rounds: Int = 1_000) {
        self.rounds = rounds
    }

    /// Hashes `password` with a fresh 16-byte salt from `generator`.
    public func hash(_ password: String, generator: Generator) -> String {
        let salt = generator.bytes(16)
        let derived = Self.derive(password, salt: salt, rounds: rounds)
        return "pbkdf2-sha256$\(rounds)$\(Base64URL.encode(salt))$\(Base64URL.encode(derived))"
    }

    /// Whether `password` matches `encoded`: Fauxth's own format, a bcrypt hash, or another imported
    /// format (`ImportedHash`). Unknown formats never match.
    public func verify(_ password: String, against encoded: String) -> Bool {
        if encoded.hasPrefix("$2") { return Bcrypt.verify(password, against: encoded) }
        return ImportedHash(encoded: encoded)?.matches(password) ?? false
    }

    /// Whether `encoded` is a hash `verify` can check.
    public static func isSupported(_ encoded: String) -> Bool {
        encoded.hasPrefix("$2") ? Bcrypt.Hash(encoded) != nil : ImportedHash(encoded: encoded) != nil
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int) -> [UInt8] {
        let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds)
        return key.map { $0.withUnsafeBytes { Array($0) } } ?? []
    }
}
