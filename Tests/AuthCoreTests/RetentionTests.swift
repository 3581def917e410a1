import Foundation
import Testing
@testable import AuthCore

/// History limits and the sweep of spent rows, on a frozen clock.
@Suite struct RetentionTests {
    func emulator(_ retention: Retention) throws -> Emulator {
        try Emulator(EmulatorOptions(clock: EmulatorClock(frozenAt: Date(timeIntervalSince1970: 1_767_225_600)),
                                     generator: Generator(seed: 7), passwordHasher: PasswordHasher(rounds: 1), seed: sampleSeed,
                                     retention: retention))
    }

    func count(_ emulator: Emulator, _ table: String) throws -> Int {
        try emulator.db.withConnection { try $0.first("SELECT count(*) FROM \(table)")?.int(0) ?? -1 }
    }

    func signIn(_ emulator: Emulator) throws -> IssuedSession {
        let user = try #require(try emulator.user(in: "proj", id: "u-alice"))
        return try emulator.startSession(for: user, method: "password") { $0.lowerAlphanumeric(24) }
    }

    @Test func theEventHistoryKeepsItsNewestRows() throws {
        let emulator = try emulator(Retention(events: 100))
        for i in 0..<500 { emulator.record(.clockChanged, detail: ["i": .int(i)]) }
        let kept = try count(emulator, "events")
        // Trimmed in batches: never more than the limit plus one batch, never fewer than the limit.
        #expect(kept >= 100 && kept < 100 + Retention.trimBatch)
        #expect(try emulator.events(filter: ListFilter(limit: 1)).first?.detail["i"] == .int(499))
        #expect(try emulator.events(filter: ListFilter(limit: 10_000)).allSatisfy { ($0.detail["i"]?.intValue ?? 0) >= 500 - kept })
    }

    @Test func theOutboxAndDeepLinksKeepTheirNewestRows() throws {
        let emulator = try emulator(Retention(messages: 10, deepLinks: 10))
        for i in 0..<200 {
            try emulator.deliver(OutgoingMessage(tenant: "proj", channel: .email, to: "m\(i)@example.com", from: "a@b", text: "hi",
                                                 purpose: .otp))
            try emulator.captureDeepLink("myapp://cb?i=\(i)", tenant: "proj", source: "test")
        }
        #expect(try (10..<10 + Retention.trimBatch).contains(count(emulator, "messages")))
        #expect(try (10..<10 + Retention.trimBatch).contains(count(emulator, "deeplinks")))
        #expect(try emulator.messages().first?.to == "m199@example.com")
    }

    @Test func noLimitKeepsEverything() throws {
        let emulator = try emulator(Retention(events: 0))
        let before = try count(emulator, "events")
        for _ in 0..<300 { emulator.record(.clockChanged) }
        #expect(try count(emulator, "events") == before + 300)
    }

    @Test func expiredCodesGoOnlyOnceTheyHaveBeenSpentForTheRetention() throws {
        let emulator = try emulator(Retention(spentFor: 3600))
        _ = try emulator.issueCode(in: "proj", CodeRequest(userId: "u-alice", purpose: .otp, channel: .email, target: "alice@example.com",
                                                           lifetime: 600))
        emulator.clock.advance(by: 600 + 3599)
        #expect(try emulator.sweep().codes == 0)
        emulator.clock.advance(by: 2)
        #expect(try emulator.sweep().codes == 1)
        #expect(try count(emulator, "codes") == 0)
    }

    /// A deleted user's token is still told apart from a made-up one for the retention (Firebase's
    /// USER_NOT_FOUND), then swept like any revoked token: kept for ever, they grew the store without
    /// bound under create-and-delete load (issue 30's soak).
    @Test func aDeletedUsersRefreshTokensAreKeptForTheRetentionThenSwept() throws {
        let emulator = try emulator(Retention(spentFor: 3600))
        let session = try signIn(emulator)
        try emulator.deleteUser(in: "proj", id: "u-alice")
        #expect(throws: AuthError.userNotFound) { try emulator.continueSession(in: "proj", token: session.refreshToken, maxAge: nil) }
        emulator.clock.advance(by: 3599)
        #expect(try emulator.sweep().refreshTokens == 0)
        #expect(throws: AuthError.userNotFound) { try emulator.continueSession(in: "proj", token: session.refreshToken, maxAge: nil) }
        emulator.clock.advance(by: 2)
        #expect(try emulator.sweep().refreshTokens == 1)
        #expect(try count(emulator, "refresh_tokens") == 0)
        #expect(try count(emulator, "spent_refresh_tokens") == 0)
        #expect(throws: AuthError.refreshTokenNotFound) { try emulator.continueSession(in: "proj", token: session.refreshToken, maxAge: nil) }
    }

    /// A snapshot saved before deleted users' tokens were retired holds them unretired; the migration
    /// retires them as of their issue, so the first sweep drops those older than the retention.
    @Test func aSnapshotsKeptTokensOfDeletedUsersAreRetiredOnLoad() throws {
        let emulator = try emulator(Retention(spentFor: 3600))
        let session = try signIn(emulator)
        _ = try signIn(emulator)
        try emulator.db.withConnection { c in
            try c.run("DELETE FROM sessions WHERE id = ?", [.text(session.session.id)])
            try c.execute("PRAGMA user_version = 18")
            try c.execute(Schema.migrations[18])
        }
        #expect(try count(emulator, "refresh_tokens") == 2)
        emulator.clock.advance(by: 3601)
        #expect(try emulator.sweep().refreshTokens == 1)
        #expect(try emulator.db.withConnection { try $0.first("SELECT count(*) FROM refresh_tokens WHERE revoked_at IS NULL")?.int(0) } == 1)
    }

    @Test func revokedSessionsGoWithTheirRefreshTokensAndLiveOnesStay() throws {
        let emulator = try emulator(Retention(spentFor: 60))
        let ended = try signIn(emulator)
        let live = try signIn(emulator)
        _ = try emulator.refresh(in: "proj", token: live.refreshToken, policy: RefreshPolicy()) { $0.lowerAlphanumeric(24) }
        try emulator.revokeSessions(in: "proj", userId: "u-alice", .only(ended.session.id), reason: "test")
        emulator.clock.advance(by: 61)
        let report = try emulator.sweep()
        #expect(report.sessions == 1)
        // The ended session's token and the live session's rotated one; the live token stays.
        #expect(report.refreshTokens == 2)
        #expect(try emulator.sessions(in: "proj", userId: "u-alice").map(\.id) == [live.session.id])
        #expect(try count(emulator, "refresh_tokens") == 1)
    }

    @Test func aSweepRunsOnTheFirstEventAfterTheClockMovesOn() throws {
        let emulator = try emulator(Retention(spentFor: 0, sweepEvery: 60))
        emulator.record(.clockChanged)
        _ = try emulator.issueCode(in: "proj", CodeRequest(userId: "u-alice", purpose: .otp, channel: .email, target: "alice@example.com",
                                                           lifetime: 10))
        emulator.clock.advance(by: 59)
        emulator.record(.clockChanged)
        #expect(try count(emulator, "codes") == 1)
        emulator.clock.advance(by: 1)
        emulator.record(.clockChanged)
        #expect(try count(emulator, "codes") == 0)
    }

    @Test func spentRateWindowsAndLockoutsAreForgotten() throws {
        let emulator = try emulator(Retention())
        try emulator.setPolicies(in: "proj", ["lockout": ["max_attempts": 5, "window": 600, "reset_after": 3600]])
        #expect(throws: AuthError.invalidCredentials) {
            try emulator.authenticate(in: "proj", PasswordSignIn(identifier: .email("alice@example.com"), password: "wrong", requireVerified: false))
        }
        try emulator.rateLimiter.consume("k", limit: RateLimit(count: 5, window: 60), at: emulator.clock.now)
        emulator.clock.advance(by: 60)
        var report = try emulator.sweep()
        #expect(report.rateWindows == 1 && report.lockouts == 0)
        emulator.clock.advance(by: 3600)
        report = try emulator.sweep()
        #expect(report.lockouts == 1)
    }
}

@Suite struct SweptRefreshTokenTests {
    /// GoTrue keeps a session's spent refresh tokens as long as the session: one presented long after its rotation
    /// (and after a sweep) is reuse, and revokes the family.
    @Test func aRotatedTokenSweptAwayIsStillReuse() throws {
        let emulator = try RetentionTests().emulator(Retention(spentFor: 60))
        let first = try RetentionTests().signIn(emulator)
        let second = try emulator.refresh(in: "proj", token: first.refreshToken, policy: RefreshPolicy()) { $0.lowerAlphanumeric(24) }
        emulator.clock.advance(by: 3600)
        _ = try emulator.sweep()
        #expect(try RetentionTests().count(emulator, "refresh_tokens") == 1)
        #expect(throws: AuthError.refreshTokenReused) {
            try emulator.refresh(in: "proj", token: first.refreshToken, policy: RefreshPolicy()) { $0.lowerAlphanumeric(24) }
        }
        // The family is revoked: the live token no longer refreshes.
        #expect(throws: (any Error).self) {
            try emulator.refresh(in: "proj", token: second.issued.refreshToken, policy: RefreshPolicy()) { $0.lowerAlphanumeric(24) }
        }
        #expect(try emulator.session(in: "proj", id: first.session.id)?.revokedAt != nil)
        // Once the revoked session itself is swept, nothing of its tokens is kept.
        emulator.clock.advance(by: 3600)
        _ = try emulator.sweep()
        #expect(try RetentionTests().count(emulator, "spent_refresh_tokens") == 0)
        #expect(throws: AuthError.refreshTokenNotFound) {
            try emulator.refresh(in: "proj", token: first.refreshToken, policy: RefreshPolicy()) { $0.lowerAlphanumeric(24) }
        }
    }
}
