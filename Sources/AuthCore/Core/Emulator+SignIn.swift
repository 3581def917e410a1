import Crypto
import Foundation

/// Rules a dialect sets for a password sign-in.
public struct PasswordSignIn: Sendable {
    public var identifier: Identifier
    public var password: String
    /// Refuse users whose email (or phone, for a phone sign-in) is not verified (GoTrue, Cognito).
    public var requireVerified: Bool

    public init(identifier: Identifier, password: String, requireVerified: Bool) {
        self.identifier = identifier; self.password = password; self.requireVerified = requireVerified
    }
}

extension Emulator {
    /// Checks a password sign-in and returns the user. Unknown user and wrong password are the same
    /// `invalidCredentials` to the caller; the audit trail records which it was.
    public func authenticate(in tenant: String, _ attempt: PasswordSignIn, origin: RequestOrigin = RequestOrigin()) throws -> User {
        let found = try userAndPasswordHash(in: tenant, attempt.identifier)
        let (user, hash) = (found?.user, found?.hash)
        let matches: Bool
        if let user, let hash {
            matches = try self.attempt(.password, in: tenant, subject: user.id, userId: user.id, origin: origin) {
                verifyPassword(attempt.password, against: hash)
            }
        } else {
            // An unknown user still costs one hash, so response time does not reveal which emails exist.
            _ = passwordHasher.verify(attempt.password, against: Emulator.decoyHash)
            matches = false
        }
        guard let user, hash != nil, matches else {
            let reason = user == nil ? "unknown_user" : (hash == nil ? "no_password" : "wrong_password")
            record(.signInFailed, tenant: tenant, userId: user?.id, origin: origin, detail: ["reason": .string(reason), "method": "password"])
            throw AuthError.invalidCredentials
        }
        try checkCanSignIn(user, requireVerified: attempt.requireVerified ? attempt.identifier : nil, origin: origin)
        return user
    }

    /// Refuses disabled, banned and (when asked) unverified users, recording why.
    public func checkCanSignIn(_ user: User, requireVerified identifier: Identifier?, origin: RequestOrigin) throws {
        let refusal: (AuthError, String)? =
            if user.disabled { (.userDisabled, "disabled") }
            else if user.isBanned(at: clock.now) { (.userBanned, "banned") }
            else if case .email? = identifier, user.emailVerifiedAt == nil { (.emailNotConfirmed, "email_not_confirmed") }
            else if case .phone? = identifier, user.phoneVerifiedAt == nil { (.phoneNotConfirmed, "phone_not_confirmed") }
            else { nil }
        if let (error, reason) = refusal {
            record(.signInFailed, tenant: user.tenant, userId: user.id, origin: origin, detail: ["reason": .string(reason)])
            throw error
        }
    }

    /// Whether `password` is the user's current password.
    public func checkPassword(_ password: String, in tenant: String, userId: String) throws -> Bool {
        guard let hash = try passwordHash(in: tenant, userId: userId) else { return false }
        return verifyPassword(password, against: hash)
    }

    /// Checks a password against a stored hash, remembering the pairs that matched: a test suite signs
    /// the same users in again and again, and the hash (PBKDF2, or an imported bcrypt) was the largest
    /// single cost of a sign-in under load. Only matches are kept, as a SHA-256 of hash and password,
    /// in memory (never in snapshots); a changed password has a new hash, so an old pair never matches it.
    func verifyPassword(_ password: String, against hash: String) -> Bool {
        let key = SHA256.hash(data: Array((hash + "\u{0}" + password).utf8)).hex
        if verifiedPasswords.withLock({ $0.contains(key) }) { return true }
        guard passwordHasher.verify(password, against: hash) else { return false }
        verifiedPasswords.withLock { remembered in
            if remembered.count >= 10_000 { remembered.removeAll() }
            remembered.insert(key)
        }
        return true
    }

    /// The stored password hash of a user, if it has one.
    func passwordHash(in tenant: String, userId: String) throws -> String? {
        try credential(in: tenant, userId: userId, kind: "password")
    }

    /// A well-formed hash nobody's password matches, for timing-safe misses.
    static let decoyHash = PasswordHasher().hash("decoy", generator: Generator(seed: 0))
}
