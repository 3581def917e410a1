import Foundation

/// The `pool_identities` and `pool_identity_logins` tables: Cognito identity pools' identities and the logins
/// linked to them. A login (provider and subject) is one identity's within a pool.
enum PoolIdentities {
    static func find(_ c: borrowing Connection, id: String) throws -> PoolIdentity? {
        guard let row = try c.first("SELECT * FROM pool_identities WHERE id = ?", [.text(id)]) else { return nil }
        var identity = PoolIdentity(row: row)
        identity.logins = try logins(c, identityId: id)
        return identity
    }

    /// The identity a login is linked to in a pool.
    static func identityId(_ c: borrowing Connection, tenant: String, poolId: String, provider: String, subject: String) throws -> String? {
        try c.first("SELECT identity_id FROM pool_identity_logins WHERE tenant = ? AND pool_id = ? AND provider = ? AND subject = ?",
                    [.text(tenant), .text(poolId), .text(provider), .text(subject)])?.string("identity_id")
    }

    static func insert(_ c: borrowing Connection, _ identity: PoolIdentity) throws {
        try c.run("INSERT INTO pool_identities (tenant, id, pool_id, created_at, updated_at) VALUES (?,?,?,?,?)",
                  [.text(identity.tenant), .text(identity.id), .text(identity.poolId), SQLValue(identity.createdAt), SQLValue(identity.updatedAt)])
        for (provider, subject) in identity.logins {
            try link(c, identity, provider: provider, subject: subject, at: identity.updatedAt)
        }
    }

    /// Links a login to an identity; a constraint violation when it is another identity's.
    static func link(_ c: borrowing Connection, _ identity: PoolIdentity, provider: String, subject: String, at now: Date) throws {
        try c.run("INSERT INTO pool_identity_logins (tenant, pool_id, provider, subject, identity_id) VALUES (?,?,?,?,?)",
                  [.text(identity.tenant), .text(identity.poolId), .text(provider), .text(subject), .text(identity.id)])
        try c.run("UPDATE pool_identities SET updated_at = ? WHERE id = ?", [SQLValue(now), .text(identity.id)])
    }

    /// Disables an identity (merged into another).
    static func disable(_ c: borrowing Connection, id: String, at now: Date) throws {
        try c.run("UPDATE pool_identities SET disabled = 1, updated_at = ? WHERE id = ?", [SQLValue(now), .text(id)])
    }

    /// A pool's identities in the order they were made, at most `limit`, after the one with id `after` (a page's last).
    static func list(_ c: borrowing Connection, tenant: String, poolId: String, limit: Int, after: String?, hideDisabled: Bool) throws
        -> [PoolIdentity] {
        let enabled = hideDisabled ? " AND disabled = 0" : ""
        let rows: [Row]
        if let after, let last = try c.first("SELECT created_at FROM pool_identities WHERE id = ?", [.text(after)])?.double("created_at") {
            rows = try c.query("""
                SELECT * FROM pool_identities WHERE tenant = ? AND pool_id = ?\(enabled) AND (created_at > ? OR (created_at = ? AND id > ?))
                ORDER BY created_at, id LIMIT ?
                """, [.text(tenant), .text(poolId), .double(last), .double(last), .text(after), .int(Int64(limit))])
        } else {
            rows = try c.query("SELECT * FROM pool_identities WHERE tenant = ? AND pool_id = ?\(enabled) ORDER BY created_at, id LIMIT ?",
                               [.text(tenant), .text(poolId), .int(Int64(limit))])
        }
        return try rows.map { row in
            var identity = PoolIdentity(row: row)
            identity.logins = try logins(c, identityId: identity.id)
            return identity
        }
    }

    /// Deletes identities by id; answers those there were.
    static func delete(_ c: borrowing Connection, ids: [String]) throws -> [String] {
        var deleted: [String] = []
        for id in ids where try c.run("DELETE FROM pool_identities WHERE id = ?", [.text(id)]) == 1 {
            try c.run("DELETE FROM pool_identity_logins WHERE identity_id = ?", [.text(id)])
            deleted.append(id)
        }
        return deleted
    }

    /// Deletes every identity of a pool (the pool was deleted).
    static func deletePool(_ c: borrowing Connection, tenant: String, poolId: String) throws {
        try c.run("DELETE FROM pool_identity_logins WHERE tenant = ? AND pool_id = ?", [.text(tenant), .text(poolId)])
        try c.run("DELETE FROM pool_identities WHERE tenant = ? AND pool_id = ?", [.text(tenant), .text(poolId)])
    }

    private static func logins(_ c: borrowing Connection, identityId: String) throws -> [String: String] {
        var logins: [String: String] = [:]
        for row in try c.query("SELECT provider, subject FROM pool_identity_logins WHERE identity_id = ?", [.text(identityId)]) {
            if let provider = row.string("provider"), let subject = row.string("subject") { logins[provider] = subject }
        }
        return logins
    }
}

extension PoolIdentity {
    /// An identity from a `pool_identities` row, without its logins (`PoolIdentities` adds them).
    init(row: Row) {
        self.init(tenant: row.string("tenant") ?? "", id: row.string("id") ?? "", poolId: row.string("pool_id") ?? "",
                  disabled: row.bool("disabled"), createdAt: row.date("created_at") ?? .distantPast, updatedAt: row.date("updated_at") ?? .distantPast)
    }
}
