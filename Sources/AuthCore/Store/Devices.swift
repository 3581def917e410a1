import Foundation

/// The `devices` table: the devices Cognito users registered (device key, SRP verifier, remembered state).
/// A key is one user's: registering it again for another user leaves it alone.
enum Devices {
    /// Inserts the device, or registers it again if it is the same user's (its creation date stays); false
    /// when the key is another user's.
    static func register(_ c: borrowing Connection, _ device: Device) throws -> Bool {
        try c.run("""
            INSERT INTO devices (tenant, key, user_id, group_key, name, remembered, verifier, last_ip, created_at, updated_at,
                                 last_authenticated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)
            ON CONFLICT (tenant, key) DO UPDATE SET group_key = excluded.group_key, name = excluded.name,
                remembered = excluded.remembered, verifier = excluded.verifier, last_ip = excluded.last_ip,
                updated_at = excluded.updated_at, last_authenticated_at = excluded.last_authenticated_at
            WHERE devices.user_id = excluded.user_id
            """, [.text(device.tenant), .text(device.key), .text(device.userId), .text(device.groupKey), SQLValue(device.name),
                  SQLValue(device.remembered), .text(device.verifier), SQLValue(device.lastIP), SQLValue(device.createdAt),
                  SQLValue(device.updatedAt), SQLValue(device.lastAuthenticatedAt)]) == 1
    }

    static func find(_ c: borrowing Connection, tenant: String, key: String) throws -> Device? {
        try c.first("SELECT * FROM devices WHERE tenant = ? AND key = ?", [.text(tenant), .text(key)]).map(Device.init(row:))
    }

    /// A user's devices, oldest first.
    static func of(_ c: borrowing Connection, tenant: String, userId: String) throws -> [Device] {
        try c.query("SELECT * FROM devices WHERE tenant = ? AND user_id = ? ORDER BY created_at, key", [.text(tenant), .text(userId)])
            .map(Device.init(row:))
    }

    /// Sets whether a user's device is remembered; false if it is not theirs.
    static func setRemembered(_ c: borrowing Connection, tenant: String, key: String, userId: String, _ remembered: Bool, at now: Date) throws -> Bool {
        try c.run("UPDATE devices SET remembered = ?, updated_at = ? WHERE tenant = ? AND key = ? AND user_id = ?",
                  [SQLValue(remembered), SQLValue(now), .text(tenant), .text(key), .text(userId)]) == 1
    }

    /// Stamps a sign-in the device proved itself in, and the address it came from when known.
    static func stampAuthenticated(_ c: borrowing Connection, tenant: String, key: String, ip: String?, at now: Date) throws {
        try c.run("UPDATE devices SET last_authenticated_at = ?, last_ip = coalesce(?, last_ip) WHERE tenant = ? AND key = ?",
                  [SQLValue(now), SQLValue(ip), .text(tenant), .text(key)])
    }

    /// Deletes a user's device; false if it is not theirs.
    static func delete(_ c: borrowing Connection, tenant: String, key: String, userId: String) throws -> Bool {
        try c.run("DELETE FROM devices WHERE tenant = ? AND key = ? AND user_id = ?", [.text(tenant), .text(key), .text(userId)]) == 1
    }
}

extension Device {
    /// A device from a `devices` row.
    init(row: Row) {
        self.init(tenant: row.string("tenant") ?? "", key: row.string("key") ?? "", userId: row.string("user_id") ?? "",
                  groupKey: row.string("group_key") ?? "", name: row.string("name"), remembered: row.bool("remembered"),
                  verifier: row.string("verifier") ?? "", lastIP: row.string("last_ip"), createdAt: row.date("created_at") ?? .distantPast,
                  updatedAt: row.date("updated_at") ?? .distantPast, lastAuthenticatedAt: row.date("last_authenticated_at"))
    }
}
