import Foundation
import Synchronization

/// The store's journal and generations: how the hot path writes without taking the connection (`deferWrite`) and how
/// a kept read knows it is still what the store would answer (`generation(of:)`, `ReadCache`). Internals are
/// docs/internals.md's "Notes for the curious".
extension Database {
    /// Hands a write to the store without taking the connection: it is made, in order with the journal's other
    /// writes, before the next use of the connection by anyone (a read, a write, a copy, a save), so no
    /// reader and no snapshot can tell it was not made at once. A sign-in under load writes without waiting
    /// for the store's lock, and its writes are made in batches, one transaction for many sign-ins.
    ///
    /// What the write answers (an event to announce) runs once the connection is released. The journal is made
    /// by whoever takes the connection next, by the writer whose write fills a batch, or else within about a
    /// millisecond (`flushDelay`), so the live feed never waits on a quiet store. Not to be called while holding the
    /// connection (inside `withConnection`): a full batch takes it.
    func deferWrite(_ write: @escaping DeferredWrite) {
        scheduleJournal(afterQueuing: queue(write))
    }

    /// `deferWrite`'s first half: puts `write` in the journal and answers how many writes it holds now, for
    /// `scheduleJournal(afterQueuing:)`. For a caller that must queue while it holds a lock of its own that a
    /// journal made at once would wait for (`Emulator.refresh`'s kept rotations).
    ///
    /// A write that `stampsAccounts` (a sign-in's `last_sign_in_at`) moves `accountsAsStamped` on as it is queued, not
    /// only once made: a kept answer that shows stamps and is used without the connection (a kept rotation) must not
    /// outlive a sign-in that has answered.
    func queue(stampsAccounts: Bool = false, _ write: @escaping DeferredWrite) -> Int {
        journal.withLock { writes in
            if stampsAccounts { journaledAccountChanges.add(1, ordering: .releasing) }
            writes.append(write)
            return writes.count
        }
    }

    /// `deferWrite`'s second half: makes the journal now when `count` writes fill a batch, or has it made soon when
    /// the write was the first of one.
    func scheduleJournal(afterQueuing count: Int) {
        if count >= Self.journalBatch {
            _ = try? withConnection { _ in }
        } else if count == 1 {
            (journalScheduler ?? Self.onAQueue)(Self.flushDelay) { [weak self] in self?.makeJournalWhenFree() }
        }
    }

    /// The journal made by a timer (`scheduleJournal`), if the connection is free; if not, tried again a `flushDelay`
    /// later, unless its holder has made it meanwhile. Waiting for the connection would keep the timer's event loop, and
    /// every connection on it, from its requests while another loop writes: under sign-in load that wait was nine in
    /// ten of the store's waits (perf, `sched_yield` by stack).
    private func makeJournalWhenFree() {
        guard !journal.withLock({ $0.isEmpty }) else { return }
        if (try? withConnectionIfFree { _ in }) == nil {
            (journalScheduler ?? Self.onAQueue)(Self.flushDelay) { [weak self] in self?.makeJournalWhenFree() }
        }
    }

    /// Which tables a kept read depends on (`ReadCache`).
    enum Dependency: Sendable {
        /// Users, their identities, credentials and factors, tenants: every table but the sessions' and the histories'.
        case accounts
        /// Those and the sessions' tables (sessions, refresh tokens).
        case accountsAndSessions
        /// The account tables, the journal's changes to them included: what a read that shows a user's sign-in
        /// stamps (`last_sign_in_at`) depends on.
        case accountsAsStamped
        /// The account tables as stamped and the sessions' tables: what a kept rotation depends on (`Emulator.refresh`).
        case sessionsAsStamped
    }

    /// Moves on with every change made through the connection to the tables `dependency` names, except the journal's
    /// writes (but for `accountsAsStamped`), and with every copy or exchange into it: a read kept at one generation
    /// (`ReadCache`) is what the store would answer while the generation stays the same, as long as it does not depend
    /// on what journaled writes change. A refresh that rotates (it writes sessions' tables) or an event recorded (a
    /// history) leaves a kept user as it is.
    func generation(of dependency: Dependency) -> UInt64 {
        switch dependency {
        case .accounts: accountChanges.load(ordering: .acquiring)
        case .accountsAndSessions: accountChanges.load(ordering: .acquiring) &+ sessionChanges.load(ordering: .acquiring)
        case .accountsAsStamped: accountChanges.load(ordering: .acquiring) &+ journaledAccountChanges.load(ordering: .acquiring)
        case .sessionsAsStamped: generation(of: .accountsAsStamped) &+ sessionChanges.load(ordering: .acquiring)
        }
    }

    /// What to keep a read at that the caller made under the lock when `dependency` was at `read`, and that the same
    /// use of the connection then wrote to: its own changes move the generation once it releases the connection
    /// (`withConnection`), and nobody else's can meanwhile, but for a sign-in's stamp queued since (`queue`), which the
    /// read did not see and which the generation kept at then must not cover.
    func generation(_ read: UInt64, of dependency: Dependency, onRelease c: borrowing Connection) -> UInt64 {
        let pending = c.changes.tracked(at: c.totalChanges)
        let accounts: UInt64 = pending.contains(.accounts) ? 1 : 0, sessions: UInt64 = pending.contains(.sessions) ? 1 : 0
        return switch dependency {
        case .accounts, .accountsAsStamped: read &+ accounts
        case .accountsAndSessions, .sessionsAsStamped: read &+ accounts &+ sessions
        }
    }

    func moveOn(after changed: ChangedTables) {
        if changed.contains(.accounts) { accountChanges.add(1, ordering: .releasing) }
        if changed.contains(.sessions) { sessionChanges.add(1, ordering: .releasing) }
    }

    /// Marks the contents replaced from outside the connection's statements (a backup into it).
    func contentsReplaced() { moveOn(after: .all) }

    /// How many journaled writes make a batch that the writer makes at once rather than leave for later.
    static let journalBatch = 64
    static let flushDelay = Duration.milliseconds(1)
    /// Where the journal is made without a scheduler (tests of the core alone).
    private static let onAQueue: JournalScheduler = { delay, work in
        let (seconds, attoseconds) = delay.components
        flushing.asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18, execute: work)
    }
    private static let flushing = DispatchQueue(label: "fauxth.store.journal")

    /// Makes the journal's writes in one transaction. Should one fail (a constraint), the batch is undone and
    /// made again with each write on its own savepoint, so the failed one is left out without undoing the
    /// others; a savepoint per write always would cost two statements more per sign-in. Answers their
    /// announcements.
    func applyJournal(_ c: borrowing Connection) -> [@Sendable () -> Void] {
        let writes = journal.withLock { writes in
            defer { writes.removeAll(keepingCapacity: true) }
            return writes
        }
        guard !writes.isEmpty else { return [] }
        // Whether the batch stamped an account, for the reads that show stamps (`accountsAsStamped`).
        c.changes.start(at: c.totalChanges)
        defer { if c.changes.tracked(at: c.totalChanges).contains(.accounts) { journaledAccountChanges.add(1, ordering: .releasing) } }
        var announcements: [@Sendable () -> Void] = []
        announcements.reserveCapacity(writes.count)
        do {
            try c.run("BEGIN IMMEDIATE")
            for write in writes {
                if let announce = try write(c) { announcements.append(announce) }
            }
            try c.run("COMMIT")
            return announcements
        } catch {
            _ = try? c.execute("ROLLBACK")
        }
        announcements.removeAll()
        let inTransaction = (try? c.run("BEGIN IMMEDIATE")) != nil
        for write in writes {
            do {
                try c.run("SAVEPOINT journal")
                if let announce = try write(c) { announcements.append(announce) }
                try c.run("RELEASE journal")
            } catch {
                _ = try? c.run("ROLLBACK TO journal")
                _ = try? c.run("RELEASE journal")
            }
        }
        if inTransaction { _ = try? c.run("COMMIT") }
        return announcements
    }
}

/// Runs `work` once, `delay` from now, somewhere that may take the store: the server's event loops, whose timers cost
/// no thread of their own (on a queue, the timer's thread woke a thousand times a second under load and took a
/// twelfth of a Cognito sign-in's CPU).
public typealias JournalScheduler = @Sendable (_ delay: Duration, _ work: @escaping @Sendable () -> Void) -> Void

/// A write handed to the store's journal (`Database.deferWrite`): made on the connection later, in order; it
/// answers what to announce once the connection is released, if anything.
typealias DeferredWrite = @Sendable (borrowing Connection) throws -> (@Sendable () -> Void)?
