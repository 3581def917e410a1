/// Answers to one kind of read, kept while the tables they depend on have not changed since they were read
/// (`Database.generation(of:)`): a sign-in under load reads the same user, password hash and factors again and again,
/// and each read took the store's lock and ran statements while nothing had changed. Any change through the connection
/// to those tables (SQLite names each row's table to an update hook), and any copy or exchange into the store, makes
/// every kept answer of the cache stale at once, so no rule of what invalidates what is written anywhere else. The
/// journal's writes (sign-in stamps, sessions, refresh tokens, events) move no generation but `accountsAsStamped`: a
/// kept answer of another cache must not be used for what they change (a kept user's `last_sign_in_at` is older than
/// the row's).
final class ReadCache<Value: Sendable>: Sendable {
    /// The answers kept, all read at `generation`. Generations only grow, so once the store's has moved, no kept answer
    /// can be used again: they go as soon as an answer is kept at the new one. (Kept each with its own generation, the
    /// stale ones stayed until the cache was full, up to 10,000 users each, whose memory a test suite that resets
    /// before every test and signs in new users each time never got back.)
    private struct Kept {
        var generation: UInt64 = 0
        var answers: [String: Value] = [:]
    }

    private let kept = Locked<Kept>(Kept())
    /// The tables the reads depend on: only a change to those makes a kept answer stale.
    private let dependency: Database.Dependency
    /// Enough for every user a test suite or a load signs in; past it the cache starts over rather than track age.
    private let capacity: Int

    init(_ dependency: Database.Dependency, capacity: Int = 10_000) {
        self.dependency = dependency
        self.capacity = capacity
    }

    /// How many answers are kept (for tests).
    var count: Int { kept.withLock { $0.answers.count } }

    /// `read`'s answer for `key`, from memory while the store is at the generation it was read at. An answer `keep`
    /// refuses is answered, not kept.
    func value(_ key: String, in db: Database, keep: (Value) -> Bool = { _ in true },
               read: (borrowing Connection) throws -> Value) throws -> Value {
        if let answer = answer(key, at: db.generation(of: dependency)) { return answer }
        return try db.withConnection { c in try value(key, on: c, of: db, keep: keep, read: read) }
    }

    /// The same, for a caller that holds the connection already (in a transaction).
    func value(_ key: String, on c: borrowing Connection, of db: Database, keep: (Value) -> Bool = { _ in true },
               read: (borrowing Connection) throws -> Value) throws -> Value {
        // The caller's own changes so far move the generation only once it releases the connection: after them,
        // neither a kept answer nor the one read now is what the store holds at this generation.
        guard c.changes.tracked(at: c.totalChanges).isEmpty else { return try read(c) }
        // Under the lock, where no change can come between the generation and the read kept at it.
        let generation = db.generation(of: dependency)
        if let answer = answer(key, at: generation) { return answer }
        let value = try read(c)
        guard keep(value) else { return value }
        kept.withLock { kept in
            // An answer read at an older generation than the kept ones (a reader that lost a race) is not kept.
            guard generation >= kept.generation else { return }
            if generation > kept.generation || kept.answers.count >= capacity {
                kept.answers.removeAll(keepingCapacity: generation == kept.generation)
                kept.generation = generation
            }
            kept.answers[key] = value
        }
        return value
    }

    private func answer(_ key: String, at generation: UInt64) -> Value? {
        kept.withLock { $0.generation == generation ? $0.answers[key] : nil }
    }
}
