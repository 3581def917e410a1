import Foundation

/// A lockout state as the control API lists it.
public struct LockoutRecord: Sendable, Equatable {
    public var kind: LockoutKind
    /// The user id (passwords, second factors) or the address a code went to (codes).
    public var subject: String
    public var userId: String?
    /// Failures still counting towards the next lockout.
    public var failures: Int
    /// Lockouts in a row so far.
    public var level: Int
    /// When the lockout on now ends; nil when none is on.
    public var lockedUntil: Date?
}

extension Emulator {
    /// Checks one attempt at a secret under the tenant's `kind` lockout: refuses it unchecked while a
    /// lockout is on (the vendor's lockout error, or, with the generic style, `false` so the caller
    /// answers as for a wrong secret); otherwise runs `check`, forgets the failures on success and
    /// counts a failure otherwise, starting a lockout when the policy says so.
    func attempt(_ kind: LockoutKind, in tenant: String, subject: String, userId: String?, origin: RequestOrigin = RequestOrigin(),
                        _ check: () throws -> Bool) throws -> Bool {
        guard try lockoutAllows(kind, in: tenant, subject: subject, userId: userId, origin: origin) else { return false }
        let passed = try check()
        try countAttempt(kind, in: tenant, subject: subject, userId: userId, passed: passed, origin: origin)
        return passed
    }

    /// Whether `subject` may try a `kind` secret now. While locked out: throws `lockedOut` with the
    /// explicit style, answers false with the generic one.
    func lockoutAllows(_ kind: LockoutKind, in tenant: String, subject: String, userId: String?, origin: RequestOrigin) throws -> Bool {
        let key = LockoutBook.Key(tenant: tenant, kind: kind, subject: subject.lowercased())
        let now = clock.now
        guard let until = lockouts.state(key)?.lockedUntil(at: now) else { return true }
        guard let policy = try policies(in: tenant).lockouts[kind] else {
            lockouts.clear(key, at: now) // the policy was turned off since
            return true
        }
        record(.signInFailed, tenant: tenant, userId: userId, origin: origin, detail: [
            "reason": "locked_out", "lockout": .string(kind.rawValue), "locked_until": .string(RFC3339.string(from: until)),
        ])
        guard policy.style == .explicit else { return false }
        throw AuthError.lockedOut(kind, until: until, retryAfter: max(1, until.timeIntervalSince(now)))
    }

    /// Counts the outcome of an attempt `lockoutAllows` let through.
    func countAttempt(_ kind: LockoutKind, in tenant: String, subject: String, userId: String?, passed: Bool, origin: RequestOrigin) throws {
        let key = LockoutBook.Key(tenant: tenant, kind: kind, subject: subject.lowercased())
        let now = clock.now
        if passed {
            lockouts.clear(key, at: now)
            return
        }
        guard let policy = try policies(in: tenant).lockouts[kind] else { return }
        guard case .locked(let until, let duration, let level) = lockouts.recordFailure(key, userId: userId, at: now, policy: policy) else { return }
        record(.lockoutStarted, tenant: tenant, userId: userId, origin: origin, detail: [
            "lockout": .string(kind.rawValue), "subject": .string(key.subject), "locked_until": .string(RFC3339.string(from: until)),
            "duration": .double(duration), "level": .int(level),
        ])
        if policy.notify { try sendLockoutNotice(kind, in: tenant, subject: key.subject, userId: userId, until: until) }
    }

    /// The tenant's lockout states that still matter: a lockout on, or failures still counting.
    public func lockoutRecords(in tenant: String) throws -> [LockoutRecord] {
        let policies = try policies(in: tenant)
        let now = clock.now
        return lockouts.entries(tenant: tenant).compactMap { key, entry -> LockoutRecord? in
            guard let policy = policies.lockouts[key.kind], !entry.state.isSpent(at: now, policy: policy) else { return nil }
            let counting = entry.state.failures.filter { now.timeIntervalSince($0) < policy.window }.count
            return LockoutRecord(kind: key.kind, subject: key.subject, userId: entry.userId, failures: counting, level: entry.state.level,
                                 lockedUntil: entry.state.lockedUntil(at: now))
        }.sorted { ($0.kind.rawValue, $0.subject) < ($1.kind.rawValue, $1.subject) }
    }

    /// Lifts lockouts and forgets failures: a tenant's (those of one user, or of one subject, when
    /// given), recording `lockout.cleared` for each lockout that was on. Answers how many were on.
    @discardableResult
    public func clearLockouts(in tenant: String, kinds: Set<LockoutKind> = Set(LockoutKind.allCases), userId: String? = nil,
                              subject: String? = nil, reason: String) -> Int {
        let now = clock.now
        let subject = subject?.lowercased()
        let lifted = lockouts.clear(at: now) { key, entry in
            key.tenant == tenant && kinds.contains(key.kind) && (subject == nil || key.subject == subject)
                && (userId == nil || entry.userId == userId || key.subject == userId)
        }
        for (key, entry) in lifted {
            record(.lockoutCleared, tenant: tenant, userId: entry.userId, detail: [
                "lockout": .string(key.kind.rawValue), "subject": .string(key.subject), "reason": .string(reason),
            ])
        }
        return lifted.count
    }

    /// The email a `notify` policy sends when a lockout starts. None of the vendors sends one; apps
    /// build it, so its wording is Fauxth's.
    private func sendLockoutNotice(_ kind: LockoutKind, in tenant: String, subject: String, userId: String?, until: Date) throws {
        let email = try userId.flatMap { try user(in: tenant, id: $0)?.email } ?? (subject.contains("@") ? subject : nil)
        guard let email else { return }
        let what = switch kind {
        case .password: "too many failed sign-in attempts"
        case .code: "too many wrong codes"
        case .mfa: "too many wrong second-factor codes"
        }
        let text = """
            Your account was locked after \(what).

            You can try again after \(RFC3339.string(from: until, fractionalDigits: 0)).
            If this was not you, reset your password.
            """
        try deliver(OutgoingMessage(tenant: tenant, channel: .email, to: email, from: "security@fauxth.local",
                                    subject: "Your account has been temporarily locked", text: text, purpose: .notification), userId: userId)
    }
}
