/// Answers to one kind of read, kept while the tables they depend on have not changed since they were read
/// (`Database.generation(of:)`): a sign-in under load reads the same user, password hash and factors again and again,
/// and each read took the store's lock and ran statements while nothing had changed. Any change through the connection
/// to those tables (SQLite names each row's table to an update hook), and any copy or exchange into the store, makes
/// every kept answer of the cache stale at once, so no rule of what invalidates what is written anywhere else. The
/// journal's writes (sign-in stamps, sessions, refresh tokens, events) move no generation but `accountsAsStamped`: a
/// kept answer of another cache must not be used for what they change (a kept user's `last_sign_in_at` is older than
/// the row's).
final class ReadCache<Value: Sendable>: Sendable {
    private let entries = Locked<[String: (generation: UInt64, value: Value)]>([:])
    /// The tables the reads depend on: only a change to those makes a kept answer stale.
    private let dependency: Database.Dependency
    /// Enough for every user a test suite or a load signs in; past it the cache starts over rather than track age.
    private let capacity: Int

    init(_ dependency: Database.Dependency, capacity: Int = 10_000) {
        self.dependency = dependency
        self.capacity = capacity
    }

    /// `read`'s answer for `key`, from memory while the store is at the generation it was read at. An answer `keep`
    /// refuses is answered, not kept.
    func value(_ key: String, in db: Database, keep: (Value) -> Bool = { _ in true },
               read: (borrowing Connection) throws -> Value) throws -> Value {
        let generation = db.generation(of: dependency)
        if let kept = entries.withLock({ $0[key] }), kept.generation == generation { return kept.value }
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
        if let kept = entries.withLock({ $0[key] }), kept.generation == generation { return kept.value }
        let value = try read(c)
        guard keep(value) else { return value }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (generation, value)
        }
        return value
    }
}
