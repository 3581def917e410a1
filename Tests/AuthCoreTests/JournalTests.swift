import Foundation
import Testing
@testable import AuthCore

/// The hot path's journal (`Database.deferWrite`) and reads kept until the store changes (`ReadCache`): a sign-in
/// writes without taking the store, and nothing that reads the store or copies it can tell.
@Suite struct JournalTests {
    private func signIn(_ emulator: Emulator, password: String = "pw-alice") throws -> IssuedSession {
        let user = try emulator.authenticate(in: "proj", PasswordSignIn(identifier: .email("alice@example.com"), password: password,
                                                                        requireVerified: true))
        return try emulator.startSession(for: user, method: "password") { $0.lowerAlphanumeric(12) }
    }

    /// A sign-in's session, refresh token, stamp and event are there for the very next read, with the id and time
    /// drawn at the sign-in, not when the journal was made (which no test can predict).
    @Test func aJournaledSignInIsThereForTheNextRead() throws {
        let emulator = try makeEmulator()
        let issued = try signIn(emulator)
        let signedInAt = emulator.clock.now
        emulator.clock.advance(by: 60)
        #expect(try emulator.sessions(in: "proj", userId: "u-alice").map(\.id) == [issued.session.id])
        #expect(try emulator.user(in: "proj", id: "u-alice")?.lastSignInAt == signedInAt)
        let event = try #require(try emulator.events(type: "signin.succeeded").first)
        #expect(event.createdAt == signedInAt)
        #expect(event.detail["session_id"] == .string(issued.session.id))
        let refreshed = try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil)
        #expect(refreshed.session.id == issued.session.id)
    }

    /// A named snapshot and a saved file are cuts taken after every journaled write: a sign-in just made is in them.
    @Test func snapshotsAndSavesHoldJournaledSignIns() throws {
        let emulator = try makeEmulator()
        let issued = try signIn(emulator)
        try emulator.takeSnapshot(named: "after")
        let path = temporaryPath("journal.sqlite")
        try emulator.saveSnapshot(to: path)
        try emulator.reset()
        #expect(try emulator.sessions(in: "proj", userId: "u-alice").isEmpty)
        try emulator.restoreSnapshot(named: "after")
        #expect(try emulator.sessions(in: "proj", userId: "u-alice").map(\.id) == [issued.session.id])
        try emulator.reset()
        try emulator.loadSnapshot(from: path)
        #expect(try emulator.sessions(in: "proj", userId: "u-alice").map(\.id) == [issued.session.id])
    }

    /// A sign-in whose user is deleted before its writes are made keeps nothing: no session without its user, as if
    /// the deletion had come right after it.
    @Test func aSignInWhoseUserIsGoneLeavesNoSession() throws {
        let emulator = try makeEmulator()
        let alice = try #require(try emulator.user(in: "proj", id: "u-alice"))
        try emulator.deleteUser(in: "proj", id: "u-alice")
        let issued = try emulator.startSession(for: alice, method: "password") { $0.lowerAlphanumeric(12) }
        #expect(try emulator.activeSessions(in: "proj").isEmpty)
        #expect(throws: AuthError.self) { try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil) }
        #expect(try emulator.events(type: "signin.succeeded").isEmpty)
    }

    /// One write that fails leaves the batch's others made: the batch is made again, each write on its own.
    @Test func aFailingWriteLeavesTheOthersOfItsBatch() throws {
        let database = try Database()
        try database.withConnection { c in try c.execute("CREATE TABLE t (v INTEGER PRIMARY KEY)") }
        let announced = Locked<[Int]>([])
        for value in [1, 2, 1, 3] {
            database.deferWrite { (c: borrowing Connection) throws -> (@Sendable () -> Void)? in
                try c.run("INSERT INTO t VALUES (?)", [.int(Int64(value))])
                return { announced.withLock { $0.append(value) } }
            }
        }
        let values = try database.withConnection { c in try c.query("SELECT v FROM t ORDER BY v").compactMap { $0.int("v") } }
        #expect(values == [1, 2, 3])
        #expect(announced.withLock { $0 } == [1, 2, 3])
    }

    /// Writes left in the journal are made within about a millisecond when nobody takes the store: the live feed
    /// hears of a sign-in without waiting for the next request.
    @Test func aQuietStoreMakesItsJournalSoon() async throws {
        let database = try Database()
        try database.withConnection { c in try c.execute("CREATE TABLE t (v INTEGER)") }
        let announced = Locked<Bool>(false)
        database.deferWrite { (c: borrowing Connection) throws -> (@Sendable () -> Void)? in
            try c.run("INSERT INTO t VALUES (1)")
            return { announced.withLock { $0 = true } }
        }
        // Bounded: the flush is due after 1 ms; this waits up to 5 s for a loaded machine.
        for _ in 0..<5_000 where !announced.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        #expect(announced.withLock { $0 })
    }

    /// The timer's journal does not wait for a connection somebody holds (its event loop would wait with every request
    /// on it): it is tried again later, and made once the connection is free.
    @Test func theTimersJournalDoesNotWaitForAHeldConnection() throws {
        let timers = Locked<[@Sendable () -> Void]>([])
        let database = try Database(journalScheduler: { _, work in timers.withLock { $0.append(work) } })
        try database.withConnection { c in try c.execute("CREATE TABLE t (v INTEGER)") }
        let announced = Locked<Bool>(false)
        let ranInTime = try whileHeld(database, inside: { _ in
            // Queued while the connection is held: the timer it starts finds it taken.
            database.deferWrite { (c: borrowing Connection) throws -> (@Sendable () -> Void)? in
                try c.run("INSERT INTO t VALUES (1)")
                return { announced.withLock { $0 = true } }
            }
        }) { () -> Bool in
            guard let first = timers.withLock({ $0.popLast() }) else { return false }
            first()
            return true
        }
        #expect(ranInTime == true)
        #expect(!announced.withLock { $0 })
        let again = try #require(timers.withLock { $0.popLast() })
        again()
        #expect(announced.withLock { $0 })
        #expect(timers.withLock { $0.isEmpty })
    }

    /// What a sign-in reads is kept only while nothing changed: a new password, a ban, a deletion or a reset are
    /// seen by the next sign-in.
    @Test func keptSignInReadsFollowEveryChange() throws {
        let emulator = try makeEmulator()
        _ = try signIn(emulator)
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(password: "pw-new-1"))
        #expect(throws: AuthError.invalidCredentials) { try signIn(emulator) }
        _ = try signIn(emulator, password: "pw-new-1")
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(bannedUntil: .some(emulator.clock.now.addingTimeInterval(3_600))))
        #expect(throws: AuthError.userBanned) { try signIn(emulator, password: "pw-new-1") }
        try emulator.reset()
        _ = try signIn(emulator)
        try emulator.deleteUser(in: "proj", id: "u-alice")
        #expect(throws: AuthError.invalidCredentials) { try signIn(emulator) }
    }

    /// A refresh of a token that does not rotate (Firebase's) reads what it kept and journals its stamp and event; a
    /// revocation, a ban or a deletion after it is seen by the next refresh at once.
    @Test func aRefreshThatDoesNotRotateIsJournaledAndFollowsEveryChange() throws {
        let emulator = try makeEmulator()
        let issued = try signIn(emulator)
        emulator.clock.advance(by: 30)
        _ = try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil)
        let refreshedAt = emulator.clock.now
        emulator.clock.advance(by: 30)
        _ = try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil)
        #expect(try emulator.events(type: "token.refreshed").count == 2)
        #expect(try emulator.events(type: "token.refreshed").last?.createdAt == refreshedAt)
        #expect(try emulator.session(in: "proj", id: issued.session.id)?.refreshedAt == emulator.clock.now)
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(disabled: true))
        #expect(throws: AuthError.userDisabled) { try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil) }
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(disabled: false))
        _ = try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil)
        try emulator.revokeSessions(in: "proj", userId: "u-alice", .all, reason: "test")
        #expect(throws: AuthError.sessionNotFound) { try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil) }
        try emulator.deleteUser(in: "proj", id: "u-alice")
        #expect(throws: AuthError.userNotFound) { try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil) }
    }

    /// A refresh that rotates (GoTrue's) keeps the user it read while no account changes, a sign-in's journaled stamp
    /// counting as a change: the next refresh shows the newest `last_sign_in_at`, and refuses at once a user banned since.
    @Test func aRotatingRefreshShowsTheNewestSignInAndFollowsEveryChange() throws {
        let emulator = try makeEmulator()
        func refresh(_ token: String) throws -> (user: User, issued: IssuedSession) {
            try emulator.refresh(in: "proj", token: token, policy: RefreshPolicy()) { $0.lowerAlphanumeric(12) }
        }
        let first = try signIn(emulator)
        let firstSignIn = emulator.clock.now
        emulator.clock.advance(by: 30)
        var (user, issued) = try refresh(first.refreshToken)
        #expect(user.lastSignInAt == firstSignIn)
        emulator.clock.advance(by: 30)
        _ = try signIn(emulator)
        let secondSignIn = emulator.clock.now
        emulator.clock.advance(by: 30)
        (user, issued) = try refresh(issued.refreshToken)
        #expect(user.lastSignInAt == secondSignIn)
        // Identities keep the stamp they were made with, as GoTrue's do.
        #expect(!user.identities.isEmpty && user.identities.allSatisfy { $0.lastSignInAt == $0.createdAt })
        #expect(try emulator.events(type: "token.refreshed").count == 2)
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(disabled: true))
        #expect(throws: AuthError.userDisabled) { try refresh(issued.refreshToken) }
    }

    /// Kept reads go stale only with the tables they depend on: an event recorded (a history) leaves every generation
    /// as it is, a session revoked moves only the sessions' one, a user changed moves both, a whole table emptied
    /// (which SQLite's update hook does not report row by row) moves both, and a credential changed alone moves the
    /// accounts' one.
    @Test func generationsFollowTheTablesThatChanged() throws {
        let emulator = try makeEmulator()
        let issued = try signIn(emulator)
        _ = try emulator.events()
        /// The accounts' generation and the sessions' (the combined one less the accounts').
        func generations() -> (accounts: UInt64, sessions: UInt64) {
            let accounts = emulator.db.generation(of: .accounts)
            return (accounts, emulator.db.generation(of: .accountsAndSessions) &- accounts)
        }
        var before = generations()
        emulator.record(.signInFailed, tenant: "proj", userId: "u-alice", detail: ["reason": "wrong_password"])
        #expect(generations() == before)
        try emulator.revokeSessions(in: "proj", userId: "u-alice", .only(issued.session.id), reason: "test")
        #expect(generations().accounts == before.accounts)
        #expect(generations().sessions != before.sessions)
        before = generations()
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(userMetadata: ["name": "Al"]))
        #expect(generations().accounts != before.accounts)
        before = generations()
        // The trail emptied at once: a history, but the hook hears of no row, so everything counts as changed.
        try emulator.db.withConnection { c in try c.execute("DELETE FROM events") }
        #expect(generations().accounts != before.accounts && generations().sessions != before.sessions)
        before = generations()
        // A password hash alone: credentials are a `WITHOUT ROWID` table, whose rows the hook never reports, and a
        // kept sign-in read holds the hash, so the change must still count.
        try emulator.db.withConnection { c in
            try Credentials.replace(c, tenant: "proj", userId: "u-alice", with: ["password": "not-a-hash"], at: emulator.clock.now)
        }
        #expect(generations().accounts != before.accounts)
    }

    /// A copy into the store changes no row through a statement, yet it replaces every row: it moves the generation.
    @Test func aCopyIntoTheStoreMovesItsGeneration() throws {
        let emulator = try makeEmulator()
        _ = try signIn(emulator)
        try emulator.takeSnapshot(named: "before")
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(password: "pw-new-2"))
        _ = try signIn(emulator, password: "pw-new-2")
        try emulator.restoreSnapshot(named: "before")
        #expect(throws: AuthError.invalidCredentials) { try signIn(emulator, password: "pw-new-2") }
        _ = try signIn(emulator)
    }
}
