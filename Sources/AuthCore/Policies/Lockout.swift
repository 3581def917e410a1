import Foundation

/// What a lockout guards: a password, a code sent by email or SMS, or a second factor.
public enum LockoutKind: String, Sendable, Codable, CaseIterable {
    case password
    /// A one-time code typed back (email or SMS OTP, confirmation and reset codes).
    case code
    /// A second factor's code (TOTP, or an SMS or email MFA code).
    case mfa
}

/// How a locked account answers: the vendor's own lockout error, or the same answer as a wrong
/// password or code (so the lockout cannot be told apart from a typo).
public enum LockoutStyle: String, Sendable, Codable {
    case explicit, generic
}

/// When failed attempts lock an account, and for how long.
public struct LockoutPolicy: Sendable, Equatable {
    /// Failures within `window` that start a lockout.
    public var maxAttempts: Int
    /// Seconds a failure counts for.
    public var window: TimeInterval
    /// The lockout lengths in seconds, one per lockout in a row; the last repeats.
    public var durations: [TimeInterval]
    /// Seconds without a failure after which the escalation starts over.
    public var resetAfter: TimeInterval
    public var style: LockoutStyle
    /// Whether a lockout sends the user an email (kept in the outbox like any other).
    public var notify: Bool

    public init(maxAttempts: Int, window: TimeInterval, durations: [TimeInterval], resetAfter: TimeInterval,
                style: LockoutStyle = .explicit, notify: Bool = false) {
        self.maxAttempts = maxAttempts; self.window = window; self.durations = durations
        self.resetAfter = resetAfter; self.style = style; self.notify = notify
    }

    /// The lockout length after `level` lockouts in a row.
    func duration(level: Int) -> TimeInterval { durations[min(level, durations.count - 1)] }
}

/// One account's failed attempts under one lockout policy: a pure value, tested without HTTP or
/// storage. A lockout starts when `maxAttempts` failures fall within the window; while it lasts,
/// attempts are refused unchecked (and not counted, as Cognito ignores them). Failures stay in the
/// window after it ends, so the next failure locks again for the next duration (Cognito's doubling);
/// a quiet `resetAfter` or a success starts over.
public struct LockoutState: Sendable, Equatable {
    public private(set) var failures: [Date] = []
    /// Lockouts in a row so far: the next one lasts `durations[level]`.
    public private(set) var level = 0
    public private(set) var lockedUntil: Date?

    public init() {}

    /// A state as a snapshot kept it.
    init(failures: [Date], level: Int, lockedUntil: Date?) {
        self.failures = failures
        self.level = level
        self.lockedUntil = lockedUntil
    }

    public enum Decision: Sendable, Equatable {
        /// Counted; `remaining` more failures start a lockout.
        case counted(remaining: Int)
        /// This failure started a lockout.
        case locked(until: Date, duration: TimeInterval, level: Int)
    }

    /// When the current lockout ends, if one is on at `now`.
    public func lockedUntil(at now: Date) -> Date? {
        guard let lockedUntil, lockedUntil > now else { return nil }
        return lockedUntil
    }

    /// Counts a failure at `now`.
    public mutating func recordFailure(at now: Date, policy: LockoutPolicy) -> Decision {
        if let last = failures.last, now.timeIntervalSince(last) >= policy.resetAfter { self = LockoutState() }
        failures.removeAll { now.timeIntervalSince($0) >= policy.window }
        failures.append(now)
        guard failures.count >= max(1, policy.maxAttempts) else { return .counted(remaining: policy.maxAttempts - failures.count) }
        let duration = policy.duration(level: level)
        let until = now.addingTimeInterval(duration)
        lockedUntil = until
        level += 1
        // Only the newest attempts matter for the next lockout; older ones would never leave the window first.
        failures = Array(failures.suffix(policy.maxAttempts))
        return .locked(until: until, duration: duration, level: level)
    }

    /// Whether nothing is left to remember at `now` (no lockout on, no failure still counting).
    public func isSpent(at now: Date, policy: LockoutPolicy) -> Bool {
        if lockedUntil(at: now) != nil { return false }
        guard let last = failures.last else { return true }
        return now.timeIntervalSince(last) >= max(policy.window, policy.resetAfter)
    }
}
