import Foundation

/// The `identities` table: a user's accounts at providers (`email` and `phone` among them), each with what
/// the provider said (`data`). Which identities a user keeps, and what its email becomes when one goes, are
/// the core's rules (`Emulator+Identities`, `Emulator+UserUpdate`, `Emulator+Verify`).
enum Identities {
    static func insert(_ c: borrowing Connection, tenant: String, id: String, userId: String, provider: String, subject: String,
                       email: String?, data: [String: JSON], at now: Date) throws {
        try c.run("""
            INSERT INTO identities (tenant, id, user_id, provider, subject, email, data, created_at, updated_at, last_sign_in_at)
            VALUES (?,?,?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(id), .text(userId), .text(provider), .text(subject), SQLValue(email),
                  SQLValue(JSON.object(data)), SQLValue(now), SQLValue(now), SQLValue(now)])
    }

    /// A user's identities, oldest first.
    static func of(_ c: borrowing Connection, tenant: String, userId: String) throws -> [Identity] {
        try c.query("SELECT * FROM identities WHERE tenant = ? AND user_id = ? ORDER BY created_at, rowid", [.text(tenant), .text(userId)])
            .map(Identity.init(row:))
    }

    /// The identities of several users in one query, by user id.
    static func of(_ c: borrowing Connection, tenant: String, userIds: [String]) throws -> [String: [Identity]] {
        let ids = JSON.array(userIds.map(JSON.string)).serialized()
        return Dictionary(grouping: try c.query("""
            SELECT * FROM identities WHERE tenant = ? AND user_id IN (SELECT value FROM json_each(?))
            ORDER BY created_at, rowid
            """, [.text(tenant), .text(ids)]).map(Identity.init(row:)), by: \.userId)
    }

    /// The identity of a provider account, whoever's it is.
    static func find(_ c: borrowing Connection, tenant: String, provider: String, subject: String) throws -> Identity? {
        try c.first("SELECT * FROM identities WHERE tenant = ? AND provider = ? AND subject = ?",
                    [.text(tenant), .text(provider), .text(subject)]).map(Identity.init(row:))
    }

    /// A tenant's accounts at one provider, oldest first.
    static func at(_ c: borrowing Connection, tenant: String, provider: String, limit: Int) throws -> [Identity] {
        try c.query("SELECT * FROM identities WHERE tenant = ? AND provider = ? ORDER BY created_at, rowid LIMIT ?",
                    [.text(tenant), .text(provider), .int(Int64(clamping: max(1, limit)))]).map(Identity.init(row:))
    }

    /// Replaces what an identity carries: its email and the provider's data.
    static func update(_ c: borrowing Connection, tenant: String, id: String, email: String?, data: [String: JSON], at now: Date) throws {
        try c.run("UPDATE identities SET email = ?, data = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(email), SQLValue(JSON.object(data)), SQLValue(now), .text(tenant), .text(id)])
    }

    /// Replaces the provider's data an identity carries.
    static func update(_ c: borrowing Connection, tenant: String, id: String, data: [String: JSON], at now: Date) throws {
        try c.run("UPDATE identities SET data = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(JSON.object(data)), SQLValue(now), .text(tenant), .text(id)])
    }

    /// Sets the email a user's identities of `provider` carry (`at` nil keeps their `updated_at`); answers how
    /// many there were.
    @discardableResult
    static func setEmail(_ c: borrowing Connection, tenant: String, userId: String, provider: String, _ email: String?, at now: Date?) throws -> Int {
        try c.run("UPDATE identities SET email = ?, updated_at = coalesce(?, updated_at) WHERE tenant = ? AND user_id = ? AND provider = ?",
                  [SQLValue(email), SQLValue(now), .text(tenant), .text(userId), .text(provider)])
    }

    static func delete(_ c: borrowing Connection, tenant: String, id: String) throws {
        try c.run("DELETE FROM identities WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
    }

    /// Empties a soft-deleted user's identity: no data, no email, and a new subject so the provider's account no longer
    /// finds it (its `updated_at` kept, as GoTrue's raw update keeps it).
    static func retire(_ c: borrowing Connection, tenant: String, id: String, subject: String) throws {
        try c.run("UPDATE identities SET data = '{}', email = NULL, subject = ? WHERE tenant = ? AND id = ?", [.text(subject), .text(tenant), .text(id)])
    }

    /// Deletes a user's identities of `provider`.
    static func delete(_ c: borrowing Connection, tenant: String, userId: String, provider: String) throws {
        try c.run("DELETE FROM identities WHERE tenant = ? AND user_id = ? AND provider = ?", [.text(tenant), .text(userId), .text(provider)])
    }

}

extension Identity {
    /// An identity from an `identities` row.
    init(row: Row) {
        self.init(id: row.string("id") ?? "", userId: row.string("user_id") ?? "", provider: row.string("provider") ?? "",
                  subject: row.string("subject") ?? "", email: row.string("email"), data: row.json("data").objectValue ?? [:],
                  createdAt: row.date("created_at") ?? .distantPast, updatedAt: row.date("updated_at") ?? .distantPast,
                  lastSignInAt: row.date("last_sign_in_at"))
    }
}
