import Crypto
import Foundation

/// Rules a dialect sets for a password sign-in.
public struct PasswordSignIn: Sendable {
    public var identifier: Identifier
    public var password: String
    /// Refuse users whose email (or phone, for a phone sign-in) is not verified (GoTrue, Cognito).
    public var requireVerified: Bool
    /// Tell a disabled or banned account so before its password is checked, whatever password was typed: GoTrue's
    /// password grant (`user_banned` before `Authenticate`) and the Firebase emulator's `signInWithPassword`
    /// (`USER_DISABLED` before the hash). Otherwise the state is told only to the right password. Read from the one
    /// lookup the sign-in makes anyway: a dialect's own lookup first was a second pair of queries per sign-in.
    public var refusesStateFirst: Bool

    public init(identifier: Identifier, password: String, requireVerified: Bool, refusesStateFirst: Bool = false) {
        self.identifier = identifier; self.password = password; self.requireVerified = requireVerified
        self.refusesStateFirst = refusesStateFirst
    }
}

/// Which step of a sign-in the gate guards, as the audit trail records it.
public enum SignInStage: String, Sendable {
    /// A password, a code, a provider's token: the first factor.
    case firstFactor = "first_factor"
    /// The answer to a challenge after the first factor (a second factor, a new password).
    case challenge
    /// A refresh token exchanged for new tokens.
    case refresh
    /// A token presented to act as the user (an access or ID token).
    case token
    /// A password reset or another recovery started for the user.
    case recovery
}

extension Emulator {
    /// Checks a password sign-in and returns the user. Unknown user and wrong password are the same
    /// `invalidCredentials` to the caller; the audit trail records which it was.
    public func authenticate(in tenant: String, _ attempt: PasswordSignIn, origin: RequestOrigin = RequestOrigin()) throws -> User {
        let found = try userAndPasswordHash(in: tenant, attempt.identifier)
        // Confirmation is still told after the password (requireVerified is not passed here), as both vendors tell it.
        if attempt.refusesStateFirst, let user = found?.user { try checkCanSignIn(user, origin: origin) }
        return try passwordSignIn(in: tenant, user: found?.user, hash: found?.hash, password: attempt.password, method: "password",
                                  requireVerified: attempt.requireVerified ? attempt.identifier : nil, origin: origin)
    }

    /// Checks the password of a user the dialect has already found by its own rules (Cognito's
    /// usernames and aliases), under the same lockout, audit and sign-in gate as `authenticate`.
    public func authenticate(in tenant: String, user: User, password: String, origin: RequestOrigin = RequestOrigin()) throws -> User {
        try passwordSignIn(in: tenant, user: user, hash: try passwordHash(in: tenant, userId: user.id), password: password, method: "password",
                           requireVerified: nil, origin: origin)
    }

    /// A proof of the user's password that only the dialect can check (Cognito's SRP claim signature),
    /// under the password lockout, audit and sign-in gate every password sign-in passes: a lockout
    /// refuses it unchecked, a failure counts and is recorded with `method`, a success forgets the
    /// failures and meets the gate.
    public func authenticate(in tenant: String, user: User, method: String, origin: RequestOrigin = RequestOrigin(),
                             proof: () throws -> Bool) throws -> User {
        try authenticate(in: tenant, user: user, method: method, requireVerified: nil, origin: origin, proof: proof)
    }

    private func authenticate(in tenant: String, user: User, method: String, requireVerified: Identifier?, origin: RequestOrigin,
                              proof: () throws -> Bool) throws -> User {
        guard try attempt(.password, in: tenant, subject: user.id, userId: user.id, origin: origin, proof) else {
            record(.signInFailed, tenant: tenant, userId: user.id, origin: origin, detail: ["reason": "wrong_password", "method": .string(method)])
            throw AuthError.invalidCredentials
        }
        try checkCanSignIn(user, requireVerified: requireVerified, origin: origin)
        return user
    }

    private func passwordSignIn(in tenant: String, user: User?, hash: String?, password: String, method: String, requireVerified: Identifier?,
                                origin: RequestOrigin) throws -> User {
        guard let user, let hash else {
            // An unknown user still costs one hash, so response time does not reveal which emails exist.
            _ = passwordHasher.verify(password, against: Emulator.decoyHash)
            record(.signInFailed, tenant: tenant, userId: user?.id, origin: origin,
                   detail: ["reason": .string(user == nil ? "unknown_user" : "no_password"), "method": .string(method)])
            throw AuthError.invalidCredentials
        }
        return try authenticate(in: tenant, user: user, method: method, requireVerified: requireVerified, origin: origin) {
            verifyPassword(password, against: hash)
        }
    }

    /// The sign-in gate every dialect's sign-ins, challenge answers, refreshes and token uses pass:
    /// refuses disabled, banned and (when asked) unverified users, recording why as `signin.failed`.
    public func checkCanSignIn(_ user: User, requireVerified identifier: Identifier? = nil, stage: SignInStage = .firstFactor,
                               origin: RequestOrigin = RequestOrigin()) throws {
        guard let (error, reason) = signInRefusal(user, requireVerified: identifier, at: clock.now) else { return }
        recordRefusal(user, reason: reason, stage: stage, origin: origin)
        throw error
    }

    /// Why the gate refuses `user` at `now`, if it does: for callers inside a transaction, which record
    /// the refusal (`recordRefusal`) once it is over.
    func signInRefusal(_ user: User, requireVerified identifier: Identifier? = nil, at now: Date) -> (AuthError, String)? {
        if user.disabled { return (.userDisabled, "disabled") }
        if user.isBanned(at: now) { return (.userBanned, "banned") }
        if case .email? = identifier, user.emailVerifiedAt == nil { return (.emailNotConfirmed, "email_not_confirmed") }
        if case .phone? = identifier, user.phoneVerifiedAt == nil { return (.phoneNotConfirmed, "phone_not_confirmed") }
        return nil
    }

    func recordRefusal(_ user: User, reason: String, stage: SignInStage, origin: RequestOrigin) {
        record(.signInFailed, tenant: user.tenant, userId: user.id, origin: origin, detail: ["reason": .string(reason), "stage": .string(stage.rawValue)])
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
        var pair = Array(hash.utf8)
        pair.append(0)
        pair.append(contentsOf: password.utf8)
        let key = SHA256.hash(data: pair)
        if verifiedPasswords.withLock({ $0.contains(key) }) { return true }
        guard passwordHasher.verify(password, against: hash) else { return false }
        verifiedPasswords.withLock { remembered in
            if remembered.count >= 10_000 { remembered.removeAll() }
            remembered.insert(key)
        }
        return true
    }

    /// Whether the user has a password (GoTrue's `HasPassword`).
    public func hasPassword(in tenant: String, userId: String) throws -> Bool {
        try passwordHash(in: tenant, userId: userId) != nil
    }

    /// The stored password hash of a user, if it has one.
    func passwordHash(in tenant: String, userId: String) throws -> String? {
        try passwordReads.value("\(tenant)\u{0}\(userId)", in: db) { c in try credential(c, tenant: tenant, userId: userId, kind: "password") }
    }

    /// A well-formed hash nobody's password matches, for timing-safe misses.
    static let decoyHash = PasswordHasher().hash("decoy", generator: Generator(seed: 0))
}
