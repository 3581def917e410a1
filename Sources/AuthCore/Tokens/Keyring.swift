import Crypto
import Foundation
import Synchronization

/// The emulator's own RSA signing keys (Firebase's RS256 ID tokens, Cognito pools, fake identity
/// providers), one per scope, made on first use.
///
/// They live in memory, not in the store: a reset or a restored snapshot must not cost a fresh 2048-bit
/// key (about a tenth of a second each), and a client that meets a new `kid` after a restart fetches the
/// JWKS again, as it would after a real key rotation.
public final class Keyring: Sendable {
    private let keys = Mutex<[String: SigningKey]>([:])

    public init() {}

    /// The HS256 key of `scope` (opaque tokens only the emulator reads back), drawn from `generator` so
    /// deterministic runs stay reproducible.
    public func hmacKey(_ scope: String, generator: Generator) -> SigningKey {
        keys.withLock { existing in
            if let key = existing[scope] { return key }
            let key = SigningKey.hmac(secret: generator.bytes(32), kid: nil)
            existing[scope] = key
            return key
        }
    }

    /// A 256-bit secret of `scope` as a key for symmetric encryption (opaque state handed to clients).
    public func symmetricKey(_ scope: String, generator: Generator) -> SymmetricKey {
        guard case .hmac(let key) = hmacKey(scope, generator: generator).material else { return SymmetricKey(size: .bits256) }
        return key
    }

    /// The RS256 key of `scope`, generated the first time it is asked for.
    ///
    /// Generated under the lock, so once: a client's first requests arrive together (16 connections at
    /// once under load), and each made its own key, 0.1-0.2 s of arithmetic apiece on two cores, all but
    /// one thrown away. Those requests, and others asking meanwhile, now wait for the one key instead
    /// (still a first-request stall, once per scope and process; scripts/bench warms up past it).
    public func rsaKey(_ scope: String) throws -> SigningKey {
        try keys.withLock { existing in
            if let key = existing[scope] { return key }
            let fresh = try SigningKey.generate(.RS256, generator: Generator())
            existing[scope] = fresh
            return fresh
        }
    }
}
