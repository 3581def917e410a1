import CSQLite
import Foundation
import Synchronization

/// A value bound to or read from SQLite.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
}

/// One SQLite connection, serialized: every use goes through `read`/`write` under one lock, as GRDB's
/// `SerializedDatabase` does. Statements are prepared once and kept in a bounded cache by SQL text.
public final class Database: Sendable {
    private let connection: Locked<Connection>
    /// Writes handed over by the hot path (`deferWrite`), applied in order before anything else uses the connection.
    let journal = Locked<[DeferredWrite]>([])
    /// Move on with every change made through the connection to the sessions' tables and to every other table but the
    /// histories, except the journal's own changes (see `generation(of:)`).
    let sessionChanges = Atomic<UInt64>(0)
    let accountChanges = Atomic<UInt64>(0)
    /// Moves on with every batch of the journal that changed an account table (a sign-in's `last_sign_in_at`).
    let journaledAccountChanges = Atomic<UInt64>(0)

    /// A private in-memory database on SQLite's `memdb` VFS (no leading `/`, so no other connection sees it).
    ///
    /// Not `:memory:`: that keeps every page in the page cache, and each commit's cache truncation scans
    /// the cache's whole hash table, so every write transaction cost time in proportion to the state's
    /// size (a one-row insert and commit: 9 µs at 1,500 pages, 40 µs at 47,000; every sign-in
    /// commits). On `memdb` the pages live in one buffer behind a bounded cache and a commit costs the same
    /// at any size.
    public static let inMemory = "file:fauxth-store?vfs=memdb"

    /// Where the journal is made when nothing else takes the connection soon (`deferWrite`).
    let journalScheduler: JournalScheduler?

    /// Opens `path` (a private in-memory database by default, or a `file:` URI).
    public init(path: String = Database.inMemory, readOnly: Bool = false, journalScheduler: JournalScheduler? = nil) throws(SQLiteError) {
        connection = Locked(try Connection(path: path, readOnly: readOnly))
        self.journalScheduler = journalScheduler
    }

    /// Runs `body` with exclusive use of the connection, after the journal's writes.
    public func withConnection<T>(_ body: (borrowing Connection) throws -> T) throws -> T {
        var announcements: [@Sendable () -> Void] = []
        // After the lock is released: an announcement may use the store again (the sweep it can start).
        defer { for announce in announcements { announce() } }
        return try connection.withLock { c in try use(c, body, announcing: &announcements) }
    }

    /// `withConnection`, if the connection is free now; nil without waiting if somebody holds it.
    func withConnectionIfFree<T>(_ body: (borrowing Connection) throws -> T) throws -> T? {
        var announcements: [@Sendable () -> Void] = []
        defer { for announce in announcements { announce() } }
        return try connection.withLockIfFree { c in try use(c, body, announcing: &announcements) }
    }

    /// One use of the connection, under its lock: the journal first, then `body`, its changes moving the generations.
    private func use<T>(_ c: borrowing Connection, _ body: (borrowing Connection) throws -> T,
                        announcing announcements: inout [@Sendable () -> Void]) rethrows -> T {
        announcements = applyJournal(c)
        c.changes.start(at: c.totalChanges)
        defer { moveOn(after: c.changes.tracked(at: c.totalChanges)) }
        return try body(c)
    }

    /// Takes `other`'s contents in place of this database's, by exchanging the two connections (each under
    /// its lock): loading a snapshot then costs one copy, not two. `other` is left with the old contents.
    public func exchange(with other: Database) {
        var announcements: [@Sendable () -> Void] = []
        defer { for announce in announcements { announce() } }
        connection.withLock { mine in
            // The journal's writes belong to the state being replaced, as they came before the exchange.
            announcements = applyJournal(mine)
            other.connection.withLock { theirs in swap(&mine, &theirs) }
            moveOn(after: .all)
            other.moveOn(after: .all)
        }
    }

    /// Runs `body` in a transaction, committed if it returns and rolled back if it throws.
    public func transaction<T>(_ body: (borrowing Connection) throws -> T) throws -> T {
        try withConnection { c in
            // Through the statement cache: sqlite3_exec would parse these two on every transaction.
            try c.run("BEGIN IMMEDIATE")
            do {
                let value = try body(c)
                try c.run("COMMIT")
                return value
            } catch {
                try? c.execute("ROLLBACK")
                throw error
            }
        }
    }
}

/// A raw SQLite connection. Only reachable inside `Database.withConnection`/`transaction`.
/// `@unchecked Sendable`: only ever used under `Database`'s lock, which serializes every call.
public final class Connection: @unchecked Sendable {
    let handle: OpaquePointer
    /// Prepared statements by SQL text, at most `statementCacheCapacity` of them (least recently used go
    /// first): every value is bound, so the texts are the code's own, but a text built from a varying
    /// number of clauses still makes new ones, and a cache that never evicts would hold them all.
    private var statements: [String: CachedStatement] = [:]
    /// Counts uses, to tell which cached statements were used least recently.
    private var uses: UInt64 = 0

    /// How many prepared statements a connection keeps. The code has a few hundred distinct texts at most,
    /// and a sign-in uses a dozen, so the hot ones stay prepared.
    static let statementCacheCapacity = 256

    /// SQLite's process-wide settings (`fauxth_sqlite3_configure`), made before the first connection opens:
    /// they are refused once the library is initialized.
    static let configured: Int32 = fauxth_sqlite3_configure()

    init(path: String, readOnly: Bool) throws(SQLiteError) {
        _ = Connection.configured
        var db: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let flags = access | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        isOnMemdb = path.contains("vfs=memdb")
        if isOnMemdb { try configureMemdb() }
        try TextMatch.register(on: db)
        sqlite3_update_hook(db, { context, _, _, table, _ in
            guard let context, let table else { return }
            Unmanaged<Connection>.fromOpaque(context).takeUnretainedValue().changes.note(table)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Which tables the connection's statements changed (SQLite's update hook reports every row to it).
    var changes = ChangeTracker()

    /// Whether the database is on the memdb VFS, all its bytes in one buffer (`withImage`).
    private(set) var isOnMemdb: Bool

    /// Settings for a database on memdb (at opening, and after `loadImage` or `replaceDatabase(withCopyOf:)` puts one there).
    func configureMemdb() throws(SQLiteError) {
        isOnMemdb = true
        // memdb caps a database at 1 GiB unless told otherwise; the store has no cap of its own.
        var limit: sqlite3_int64 = 1 << 40
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_SIZE_LIMIT, &limit)
        // memdb serves only the main file: journals and temporary files would go to disk unless kept
        // in memory, and there is nothing to sync.
        try execute("PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement.handle) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements without results (schema, pragmas, transactions).
    public func execute(_ sql: String) throws(SQLiteError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: lastMessage) }
    }

    /// Runs a statement with `arguments`; returns the number of changed rows.
    @discardableResult
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws(SQLiteError) -> Int {
        let statement = try prepared(sql, arguments).handle
        defer { sqlite3_reset(statement) }
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw SQLiteError(code: rc, message: lastMessage) }
        return Int(sqlite3_changes(handle))
    }

    /// All rows of a query.
    public func query(_ sql: String, _ arguments: [SQLValue] = []) throws(SQLiteError) -> [Row] {
        let cached = try prepared(sql, arguments)
        let statement = cached.handle
        defer { sqlite3_reset(statement) }
        var rows: [Row] = []
        var names: [String: Int]?
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw SQLiteError(code: rc, message: lastMessage) }
            if names == nil { names = cached.names() }
            rows.append(Row(statement, names: names ?? [:]))
        }
    }

    /// The first row of a query, if any.
    public func first(_ sql: String, _ arguments: [SQLValue] = []) throws(SQLiteError) -> Row? {
        try query(sql, arguments).first
    }

    /// Rows changed by every statement since the connection opened.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// The rowid of the last row inserted on this connection (an `INTEGER PRIMARY KEY` column's value).
    public var lastInsertRowID: Int { Int(sqlite3_last_insert_rowid(handle)) }

    /// `PRAGMA user_version`, the schema version.
    public var userVersion: Int {
        get { (try? first("PRAGMA user_version")?.int(0)).flatMap { $0 } ?? 0 }
    }

    private var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    private func prepared(_ sql: String, _ arguments: [SQLValue]) throws(SQLiteError) -> CachedStatement {
        uses &+= 1
        let cached: CachedStatement
        if let found = statements[sql] {
            cached = found
            // Every parameter is bound again below unless the call names fewer than the statement has; only
            // then could one keep the last call's value.
            if arguments.count < cached.parameterCount { sqlite3_clear_bindings(cached.handle) }
        } else {
            var raw: OpaquePointer?
            let rc = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
            guard rc == SQLITE_OK, let raw else { throw SQLiteError(code: rc, message: lastMessage) }
            if statements.count >= Self.statementCacheCapacity { evictLeastRecentlyUsed() }
            cached = CachedStatement(raw)
            statements[sql] = cached
        }
        cached.lastUse = uses
        bind(arguments, to: cached.handle)
        return cached
    }

    private static var emptyText: UnsafePointer<CChar> { UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self) }

    private func bind(_ arguments: [SQLValue], to statement: OpaquePointer) {
        for (index, value) in arguments.enumerated() {
            let i = Int32(index + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, i)
            case .int(let v): sqlite3_bind_int64(statement, i, v)
            case .double(let v): sqlite3_bind_double(statement, i, v)
            case .text(var v):
                // The string's own UTF-8, with its length: passing the String as a C string made a NUL-terminated
                // copy of each value (an allocation per bound text, some twenty per sign-in). An empty string
                // still gets a pointer: a null one would bind NULL.
                v.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { text in
                        _ = sqlite3_bind_text(statement, i, text.baseAddress ?? Self.emptyText, Int32(text.count), SQLITE_TRANSIENT)
                    }
                }
            }
        }
    }

    /// Finalizes the least recently used quarter of the cache, so a full cache sorts once per 64 new
    /// statements rather than on every one. No cached statement is ever mid-step here: `run` and `query`
    /// step theirs to the end before they return.
    private func evictLeastRecentlyUsed() {
        let victims = statements.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(Self.statementCacheCapacity / 4)
        for (sql, statement) in victims {
            sqlite3_finalize(statement.handle)
            statements[sql] = nil
        }
    }

    /// How many prepared statements the cache holds (tests check its bound).
    var cachedStatementCount: Int { statements.count }

    /// Drops cached statements; needed before the schema changes under them (restore).
    func clearStatementCache() {
        for statement in statements.values { sqlite3_finalize(statement.handle) }
        statements.removeAll()
    }
}

/// A prepared statement in `Connection`'s cache, with its last use (for eviction) and its column names.
private final class CachedStatement {
    let handle: OpaquePointer
    var lastUse: UInt64 = 0
    private var columnNames: [String: Int]?

    /// How many parameters the statement takes (`?`s).
    let parameterCount: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        parameterCount = Int(sqlite3_bind_parameter_count(handle))
    }

    /// The statement's columns by name, worked out once and shared by every row it returns. Asked after a
    /// step: SQLite re-prepares a statement whose schema changed during the step, and `SELECT *` then has
    /// the new columns (migrations only add columns, so the count tells).
    func names() -> [String: Int] {
        if let columnNames, columnNames.count == Int(sqlite3_column_count(handle)) { return columnNames }
        let names = Row.names(handle)
        columnNames = names
        return names
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound text before the call returns.
private let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// One result row, copied out of the statement.
public struct Row: Sendable {
    let values: [SQLValue]
    let names: [String: Int]

    /// A statement's columns by name.
    static func names(_ statement: OpaquePointer) -> [String: Int] {
        var names: [String: Int] = [:]
        for i in 0..<sqlite3_column_count(statement) { names[String(cString: sqlite3_column_name(statement, i))] = Int(i) }
        return names
    }

    init(_ statement: OpaquePointer, names: [String: Int]) {
        let count = sqlite3_column_count(statement)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for i in 0..<count {
            switch sqlite3_column_type(statement, i) {
            case SQLITE_INTEGER: values.append(.int(sqlite3_column_int64(statement, i)))
            case SQLITE_FLOAT: values.append(.double(sqlite3_column_double(statement, i)))
            case SQLITE_NULL: values.append(.null)
            default:
                // By its length, as it was bound: text after a NUL is the value's too, and no scan for the end.
                let text = sqlite3_column_text(statement, i)
                let length = Int(sqlite3_column_bytes(statement, i))
                values.append(.text(text.map { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""))
            }
        }
        self.values = values
        self.names = names
    }

    public subscript(column: String) -> SQLValue { names[column].map { values[$0] } ?? .null }

    public func string(_ column: String) -> String? { if case .text(let s) = self[column] { s } else { nil } }
    public func int(_ column: String) -> Int? {
        switch self[column] {
        case .int(let v): Int(v)
        // A REAL read as a whole number; one no Int holds (or not finite) is none, where converting it would trap.
        case .double(let v): v.isFinite && abs(v) < 9.2e18 ? Int(v) : nil
        default: nil
        }
    }
    public func int(_ index: Int) -> Int? { if index < values.count, case .int(let v) = values[index] { Int(v) } else { nil } }
    public func double(_ column: String) -> Double? {
        switch self[column] {
        case .int(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }
    public func bool(_ column: String) -> Bool { int(column) ?? 0 != 0 }
    public func date(_ column: String) -> Date? { double(column).map { Date(timeIntervalSince1970: $0) } }
    public func json(_ column: String) -> JSON { string(column).flatMap { try? JSON.parse(text: $0) } ?? .null }
}

/// A failed SQLite call: the result code and SQLite's message.
public struct SQLiteError: Error, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String

    public var isConstraintViolation: Bool { code & 0xFF == SQLITE_CONSTRAINT }
    public var description: String { "SQLite error \(code): \(message)" }
}

extension SQLValue {
    /// Dates are stored as Unix seconds with a fraction.
    public init(_ date: Date?) { self = date.map { .double($0.timeIntervalSince1970) } ?? .null }
    public init(_ string: String?) { self = string.map(SQLValue.text) ?? .null }
    public init(_ bool: Bool) { self = .int(bool ? 1 : 0) }
    public init(_ int: Int) { self = .int(Int64(int)) }
    public init(_ json: JSON) { self = .text(json.serialized()) }
}
