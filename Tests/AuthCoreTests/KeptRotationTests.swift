import Foundation
import Testing
@testable import AuthCore

/// A refresh answered from what the session's last rotation kept (`KeptRotation`): without the store, and with the
/// same answers, writes and refusals as the store's path.
@Suite struct KeptRotationTests {
    private let policy = RefreshPolicy()

    /// A session whose first refresh (through the store) kept its rotation: `first` is its live token.
    private func keptSession(_ emulator: Emulator) throws -> (issued: IssuedSession, first: String) {
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        let issued = try emulator.startSession(for: alice, method: "password") { _ in "token-zero-aaaa" }
        let first = try emulator.refresh(in: "proj", token: issued.refreshToken, policy: policy) { _ in "token-one-aaaaa" }
        return (issued, first.issued.refreshToken)
    }

    private func tokenRow(_ emulator: Emulator, _ token: String) throws -> (session: String?, parent: String?, revoked: Bool)? {
        try emulator.db.withConnection { c in
            try c.first("SELECT session_id, parent_hash, revoked_at FROM refresh_tokens WHERE tenant = 'proj' AND token_hash = ?",
                        [.text(Emulator.tokenHash(token))]).map { ($0.string("session_id"), $0.string("parent_hash"), $0.date("revoked_at") != nil) }
        }
    }

    /// The second refresh of a session rotates without the store's connection; what it wrote is there for the next
    /// reader (the token, its parent retired, the stamp, the event), with the time of the refresh.
    @Test func aKeptRotationAnswersWithoutTheStore() throws {
        let emulator = try makeEmulator()
        let (issued, first) = try keptSession(emulator)
        emulator.clock.advance(by: 30)
        let refreshedAt = emulator.clock.now
        let second = try #require(try whileHeld(emulator.db) {
            try emulator.refresh(in: "proj", token: first, policy: self.policy) { _ in "token-two-aaaaa" }
        })
        #expect(second.issued.refreshToken == "token-two-aaaaa")
        #expect(second.issued.session.id == issued.session.id)
        #expect(second.issued.session.refreshedAt == refreshedAt)
        #expect(second.user.id == "u-alice")
        emulator.clock.advance(by: 30)
        #expect(try tokenRow(emulator, first)?.revoked == true)
        let row = try #require(try tokenRow(emulator, "token-two-aaaaa"))
        #expect(row.session == issued.session.id && row.parent == Emulator.tokenHash(first) && !row.revoked)
        #expect(try emulator.session(in: "proj", id: issued.session.id)?.refreshedAt == refreshedAt)
        let events = try emulator.events(type: "token.refreshed")
        #expect(events.count == 2)
        #expect(events.first?.createdAt == refreshedAt)
        #expect(events.first?.detail["session_id"] == .string(issued.session.id))
    }

    /// A lost answer's retry (the live token's parent) gets the live token back, kept or not; the token before that is
    /// reuse, however the rotations after it were answered: it ends the session.
    @Test func aRetryGetsTheLiveTokenAndAnOlderTokenIsReuse() throws {
        let emulator = try makeEmulator()
        let (issued, first) = try keptSession(emulator)
        let second = try emulator.refresh(in: "proj", token: first, policy: policy) { _ in "token-two-aaaaa" }
        let retried = try #require(try whileHeld(emulator.db) {
            try emulator.refresh(in: "proj", token: first, policy: self.policy) { _ in "token-unused-aa" }
        })
        #expect(retried.issued.refreshToken == second.issued.refreshToken)
        #expect(try tokenRow(emulator, "token-unused-aa") == nil)
        #expect(throws: AuthError.refreshTokenReused) {
            try emulator.refresh(in: "proj", token: issued.refreshToken, policy: policy) { _ in "token-three-aaa" }
        }
        #expect(throws: AuthError.sessionNotFound) {
            try emulator.refresh(in: "proj", token: second.issued.refreshToken, policy: policy) { _ in "token-four-aaaa" }
        }
        #expect(try emulator.session(in: "proj", id: issued.session.id)?.revokedAt != nil)
    }

    /// A retry is answered from the kept rotation only where the policy lets the parent through.
    @Test func aRetryWithoutTheParentRuleIsNotAnsweredFromTheKeptRotation() throws {
        let emulator = try makeEmulator()
        let strict = RefreshPolicy(parentOfLiveAllowed: false)
        let (issued, first) = try keptSession(emulator)
        _ = try emulator.refresh(in: "proj", token: first, policy: strict) { _ in "token-two-aaaaa" }
        #expect(throws: AuthError.refreshTokenReused) {
            try emulator.refresh(in: "proj", token: first, policy: strict) { _ in "token-three-aaa" }
        }
        #expect(try emulator.session(in: "proj", id: issued.session.id)?.revokedAt != nil)
    }

    /// Whatever changes the session or its user after a rotation was kept is seen by the next refresh: the end of the
    /// session, a ban, a new sign-in's stamp.
    @Test func theNextRefreshSeesWhatChangedSince() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        let (_, first) = try keptSession(emulator)
        emulator.clock.advance(by: 60)
        let later = try emulator.startSession(for: alice, method: "password") { _ in "token-other-aaa" }
        let second = try emulator.refresh(in: "proj", token: first, policy: policy) { _ in "token-two-aaaaa" }
        #expect(second.user.lastSignInAt == later.session.createdAt)
        try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(bannedUntil: .some(emulator.clock.now.addingTimeInterval(3600))))
        #expect(throws: AuthError.userBanned) {
            try emulator.refresh(in: "proj", token: "token-two-aaaaa", policy: policy) { _ in "token-three-aaa" }
        }
        try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(bannedUntil: .some(nil)))
        _ = try emulator.refresh(in: "proj", token: "token-two-aaaaa", policy: policy) { _ in "token-three-aaa" }
        try emulator.revokeSessions(in: "proj", userId: "u-alice", .all, reason: "logout")
        #expect(throws: AuthError.sessionNotFound) {
            try emulator.refresh(in: "proj", token: "token-three-aaa", policy: policy) { _ in "token-four-aaaa" }
        }
    }

    /// A rotation decided from the kept one while the session ends (its end not yet released) came first: its new token
    /// ends with the session, rather than stay live in an ended session.
    @Test func aRotationDecidedWhileTheSessionEndsEndsWithIt() throws {
        let emulator = try makeEmulator()
        let (issued, first) = try keptSession(emulator)
        let sessionId = issued.session.id
        let now = emulator.clock.now
        let second = try #require(try whileHeld(emulator.db, inside: { c in
            try Sessions.revoke(c, tenant: "proj", id: sessionId, reason: "logout", at: now)
        }) {
            try emulator.refresh(in: "proj", token: first, policy: self.policy) { _ in "token-two-aaaaa" }
        })
        #expect(second.issued.refreshToken == "token-two-aaaaa")
        #expect(try tokenRow(emulator, "token-two-aaaaa")?.revoked == true)
        #expect(throws: AuthError.sessionNotFound) {
            try emulator.refresh(in: "proj", token: "token-two-aaaaa", policy: policy) { _ in "token-three-aaa" }
        }
    }

    /// A snapshot restored puts back the sessions it holds: a token rotated since is not answered from memory.
    @Test func aRestoredSnapshotIsNotAnsweredFromMemory() throws {
        let emulator = try makeEmulator()
        let (_, first) = try keptSession(emulator)
        try emulator.takeSnapshot(named: "before")
        _ = try emulator.refresh(in: "proj", token: first, policy: policy) { _ in "token-two-aaaaa" }
        try emulator.restoreSnapshot(named: "before")
        #expect(throws: AuthError.refreshTokenNotFound) {
            try emulator.refresh(in: "proj", token: "token-two-aaaaa", policy: policy) { _ in "token-three-aaa" }
        }
        #expect(try emulator.refresh(in: "proj", token: first, policy: policy) { _ in "token-three-aaa" }.issued.refreshToken == "token-three-aaa")
    }
}
