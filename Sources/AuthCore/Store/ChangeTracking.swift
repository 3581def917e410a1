import Foundation

/// The families of tables a use of the connection changed (`ChangeTracker`).
struct ChangedTables: OptionSet {
    let rawValue: UInt8
    /// Sessions and refresh tokens (and the hashes kept of spent ones).
    static let sessions = ChangedTables(rawValue: 1)
    /// Every other table but the histories (events, the outbox, deep links), which no kept read depends on.
    static let accounts = ChangedTables(rawValue: 2)
    static let all: ChangedTables = [.sessions, .accounts]
}

/// Which tables a connection's statements changed since `start`: SQLite's update hook names the table of each row
/// changed (`note`), but not the rows a `DELETE` without `WHERE` empties at once, nor any row of a `WITHOUT ROWID`
/// table (credentials, spent refresh tokens), so the rows it heard of are compared with SQLite's own count, and a
/// difference counts as every table changed.
struct ChangeTracker {
    private var changed: ChangedTables = []
    private var heard: Int64 = 0
    private var countAtStart: Int64 = 0

    /// Starts over, with SQLite's count of changes so far (`sqlite3_total_changes64`).
    mutating func start(at count: Int64) {
        changed = []
        heard = 0
        countAtStart = count
    }

    /// What changed since `start`, given SQLite's count now.
    func tracked(at count: Int64) -> ChangedTables {
        let counted = count - countAtStart
        if counted == 0 { return [] }
        return counted == heard ? changed : .all
    }

    /// Called by the update hook for every row inserted, updated or deleted.
    mutating func note(_ table: UnsafePointer<CChar>) {
        heard += 1
        if strcmp(table, "events") == 0 || strcmp(table, "messages") == 0 || strcmp(table, "deeplinks") == 0 { return }
        // `spent_refresh_tokens` never comes here: it is a `WITHOUT ROWID` table, which the hook does not report.
        if strcmp(table, "sessions") == 0 || strcmp(table, "refresh_tokens") == 0 {
            changed.insert(.sessions)
        } else {
            changed.insert(.accounts)
        }
    }
}
