import Foundation

/// The `tenants` table (projects, pools, Supabase projects, with their settings as JSON), and what removing or
/// resetting one does to the per-tenant tables. Which settings are valid, the tenant cache and the events are
/// `Emulator+Tenants`'.
enum Tenants {
    /// Every tenant, in creation order.
    static func all(_ c: borrowing Connection) throws -> [Tenant] {
        try c.query("SELECT * FROM tenants ORDER BY rowid").map(Tenant.init(row:))
    }

    /// The Supabase projects whose settings ask for a `port`, with it, in creation order: only that setting is read,
    /// not every tenant's settings decoded, as the run-time ports follow every reset and restore. A port is a JSON
    /// number without a fraction, as `JSON.intValue` takes one. Numbers only, by `json_type`: `json_extract` gives
    /// `true` as the integer 1.
    static func supabasePorts(_ c: borrowing Connection) throws -> [(tenant: String, port: Int)] {
        try c.query("""
            SELECT id, json_extract(settings, '$.port') AS port FROM tenants
            WHERE dialect = 'supabase' AND json_type(settings, '$.port') IN ('integer', 'real') ORDER BY rowid
            """).compactMap { row in
            let port: Int? = switch row["port"] {
            case .int(let value): Int(value)
            case .double(let value): JSON.double(value).intValue
            default: nil
            }
            guard let tenant = row.string("id"), let port else { return nil }
            return (tenant, port)
        }
    }

    static func find(_ c: borrowing Connection, id: String) throws -> Tenant? {
        try c.first("SELECT * FROM tenants WHERE id = ?", [.text(id)]).map(Tenant.init(row:))
    }

    /// Adds a tenant; a constraint violation when the id is taken.
    static func insert(_ c: borrowing Connection, _ tenant: Tenant) throws {
        try c.run("INSERT INTO tenants (id, dialect, name, settings, created_at) VALUES (?,?,?,?,?)",
                  [.text(tenant.id), .text(tenant.dialect.rawValue), .text(tenant.name), SQLValue(JSON.object(tenant.settings)),
                   SQLValue(tenant.createdAt)])
    }

    static func update(_ c: borrowing Connection, id: String, name: String, settings: [String: JSON]) throws {
        try c.run("UPDATE tenants SET name = ?, settings = ? WHERE id = ?", [.text(name), SQLValue(JSON.object(settings)), .text(id)])
    }

    /// Removes a tenant and every row it owns, except its events (the audit trail keeps what happened);
    /// false when there was no such tenant.
    static func delete(_ c: borrowing Connection, id: String) throws -> Bool {
        for table in Schema.tenantTables where table != "events" {
            try c.run("DELETE FROM \(table) WHERE tenant = ?", [.text(id)])
        }
        return try c.run("DELETE FROM tenants WHERE id = ?", [.text(id)]) > 0
    }

    /// Puts back a tenant and every row it owns as the database at `uri` (the seed state) holds them, in one
    /// transaction. The database is attached for the copy (outside the transaction: SQLite attaches none inside).
    static func restore(_ c: borrowing Connection, id: String, from uri: String) throws {
        try c.run("ATTACH DATABASE ? AS seed", [.text(uri)])
        defer { _ = try? c.run("DETACH DATABASE seed") }
        try c.execute("BEGIN IMMEDIATE")
        do {
            try c.run("DELETE FROM tenants WHERE id = ?", [.text(id)])
            try c.run("INSERT INTO tenants SELECT * FROM seed.tenants WHERE id = ?", [.text(id)])
            for table in Schema.tenantTables {
                try c.run("DELETE FROM \(table) WHERE tenant = ?", [.text(id)])
                if Schema.sequencedTables.contains(table) {
                    // Numbered in arrival order: the snapshot's numbers may be taken since (by another tenant's rows, or
                    // after a reset numbered afresh), so its rows are numbered anew after the current ones, in their order.
                    let columns = try c.query("SELECT name FROM pragma_table_info(?)", [.text(table)])
                        .compactMap { $0.string("name") }.filter { $0 != "seq" }.joined(separator: ", ")
                    try c.run("INSERT INTO \(table) (\(columns)) SELECT \(columns) FROM seed.\(table) WHERE tenant = ? ORDER BY seq", [.text(id)])
                } else {
                    try c.run("INSERT INTO \(table) SELECT * FROM seed.\(table) WHERE tenant = ?", [.text(id)])
                }
            }
            try c.execute("COMMIT")
        } catch {
            try? c.execute("ROLLBACK")
            throw error
        }
    }
}

extension Tenant {
    /// A tenant from its `tenants` row.
    init(row: Row) {
        id = row.string("id") ?? ""
        dialect = row.string("dialect").flatMap(Dialect.init(rawValue:)) ?? .supabase
        name = row.string("name") ?? ""
        settings = row.json("settings").objectValue ?? [:]
        createdAt = row.date("created_at") ?? Date(timeIntervalSince1970: 0)
    }
}
