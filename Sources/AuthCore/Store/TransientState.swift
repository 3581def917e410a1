import Foundation

/// The `transient_state` table: what lives beside the database (lockouts, rate-limit windows, fault rules)
/// written in just before a snapshot is taken and read back when one is restored, as rows of a kind, a key
/// and a JSON value. What each kind holds is `Emulator+TransientSnapshot`'s.
enum TransientState {
    struct Entry {
        var kind: String
        var key: String
        var value: JSON
    }

    /// Replaces every entry with `entries`.
    static func replace(_ c: borrowing Connection, with entries: [Entry]) throws {
        try c.run("DELETE FROM transient_state")
        for entry in entries {
            try c.run("INSERT INTO transient_state (kind, key, value) VALUES (?, ?, ?)", [.text(entry.kind), .text(entry.key), SQLValue(entry.value)])
        }
    }

    /// Every entry, by kind and key.
    static func all(_ c: borrowing Connection) throws -> [Entry] {
        try c.query("SELECT kind, key, value FROM transient_state ORDER BY kind, key").map {
            Entry(kind: $0.string("kind") ?? "", key: $0.string("key") ?? "", value: $0.json("value"))
        }
    }
}
