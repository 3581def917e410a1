import Foundation

/// How much history the emulator keeps, so that a long run (a test suite of thousands of tests, a soak)
/// stays flat in memory: the outbox, deep links and events keep their newest rows, and rows that can no
/// longer be used (expired or used codes, revoked sessions and refresh tokens, finished OAuth flows) are
/// swept a while after, on the emulator clock.
public struct Retention: Sendable, Equatable {
    /// Newest outbox messages kept (`--max-messages`).
    public var messages: Int
    /// Newest events kept (`--max-events`).
    public var events: Int
    /// Newest captured deep links kept (`--max-deeplinks`).
    public var deepLinks: Int
    /// Emulator seconds a spent row stays after it expired, was used or was revoked (`--keep-spent`):
    /// long enough for "already used" and reuse-detection answers in any flow, and for a tester to look.
    public var spentFor: TimeInterval
    /// Emulator seconds between two sweeps; a sweep runs on the next event after that.
    public var sweepEvery: TimeInterval

    public init(messages: Int = 10_000, events: Int = 100_000, deepLinks: Int = 10_000, spentFor: TimeInterval = 86_400,
                sweepEvery: TimeInterval = 60) {
        self.messages = messages; self.events = events; self.deepLinks = deepLinks
        self.spentFor = spentFor; self.sweepEvery = sweepEvery
    }

    /// Trimming a history table runs once per this many inserts (a one-row delete each time would cost
    /// more than a batch).
    static let trimBatch = 64
}

/// What one sweep removed, by kind.
public struct SweepReport: Sendable, Equatable {
    public var codes = 0
    public var authorizationCodes = 0
    public var flowStates = 0
    public var challenges = 0
    public var webAuthnChallenges = 0
    public var sessions = 0
    public var refreshTokens = 0
    public var rateWindows = 0
    public var lockouts = 0
}

extension Emulator {
    /// Drops spent rows older than `retention.spentFor` at `now` (the emulator clock by default), and the
    /// rate-limit windows and lockout states with nothing left to count.
    @discardableResult
    public func sweep(at now: Date? = nil) throws -> SweepReport {
        let now = now ?? clock.now
        let cutoffDate = now.addingTimeInterval(-retention.spentFor)
        var report = SweepReport()
        try db.transaction { c in
            // A used code goes when it would have expired: no code lives longer than a day or so.
            report.codes = try Codes.sweep(c, expiredBefore: cutoffDate)
            report.authorizationCodes = try Flows.sweepCodes(c, before: cutoffDate)
            report.authorizationCodes += try OAuthGrants.sweep(c, expiredBefore: cutoffDate)
            report.flowStates = try Flows.sweepFlows(c, before: cutoffDate)
            report.challenges = try Factors.sweepChallenges(c, openedBefore: cutoffDate)
            report.webAuthnChallenges = try Passkeys.sweepChallenges(c, before: cutoffDate)
            // An unanswered SAML request is a challenge; an accepted assertion id needs remembering only while
            // the assertion itself could still be accepted.
            report.challenges += try SSO.sweep(c, requestsBefore: cutoffDate, assertionsAt: now)
            // A revoked session's tokens go with it, and what was kept of its spent ones. A live session's
            // rotated tokens go once spent, leaving their hash and session behind, so replaying one that old
            // is still GoTrue's reuse (the family revoked), not "not found".
            // Sessions that went with their user leave nothing behind either.
            (report.sessions, report.refreshTokens) = try Sessions.sweep(c, endedBefore: cutoffDate)
        }
        report.rateWindows = rateLimiter.prune(at: now)
        report.lockouts = lockouts.prune { key, state in
            guard let policy = try? policies(in: key.tenant).lockouts[key.kind] else { return true }
            return state.isSpent(at: now, policy: policy)
        }
        return report
    }

    /// Sweeps when `retention.sweepEvery` emulator seconds have passed since the last sweep. Called on
    /// every event, so an idle emulator does no work and a frozen clock never sweeps by itself.
    func sweepIfDue(at now: Date) {
        let due = lastSweep.withLock { last -> Bool in
            guard let previous = last else { last = now; return false }
            guard now.timeIntervalSince(previous) >= retention.sweepEvery || now < previous else { return false }
            last = now
            return true
        }
        if due { _ = try? sweep(at: now) }
    }
}
