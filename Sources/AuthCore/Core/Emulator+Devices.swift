import Foundation

extension Emulator {
    /// Registers a device for its user, or registers it again (a new secret, name and remembered state; its
    /// creation date stays). A key that is another user's is left alone: false.
    @discardableResult
    public func registerDevice(_ device: Device) throws -> Bool {
        try db.withConnection { c in
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
    }

    /// The device with `key`, if it is `userId`'s (any user's without one).
    public func device(in tenant: String, key: String, userId: String? = nil) throws -> Device? {
        let device = try db.withConnection { c in
            try c.first("SELECT * FROM devices WHERE tenant = ? AND key = ?", [.text(tenant), .text(key)]).map(Device.init(row:))
        }
        return device.flatMap { userId == nil || $0.userId == userId ? $0 : nil }
    }

    /// A user's devices, oldest first.
    public func devices(in tenant: String, userId: String) throws -> [Device] {
        try db.withConnection { c in
            try c.query("SELECT * FROM devices WHERE tenant = ? AND user_id = ? ORDER BY created_at, key", [.text(tenant), .text(userId)])
                .map(Device.init(row:))
        }
    }

    /// Whether the user chose to remember the device; false if it is not theirs.
    @discardableResult
    public func setDeviceRemembered(in tenant: String, key: String, userId: String, _ remembered: Bool) throws -> Bool {
        try db.withConnection { c in
            try c.run("UPDATE devices SET remembered = ?, updated_at = ? WHERE tenant = ? AND key = ? AND user_id = ?",
                      [SQLValue(remembered), SQLValue(clock.now), .text(tenant), .text(key), .text(userId)]) == 1
        }
    }

    /// Stamps a sign-in the device proved itself in, and the address it came from.
    public func markDeviceAuthenticated(in tenant: String, key: String, ip: String?) throws {
        _ = try db.withConnection { c in
            try c.run("UPDATE devices SET last_authenticated_at = ?, last_ip = coalesce(?, last_ip) WHERE tenant = ? AND key = ?",
                      [SQLValue(clock.now), SQLValue(ip), .text(tenant), .text(key)])
        }
    }

    /// Forgets a user's device; false if it is not theirs.
    @discardableResult
    public func forgetDevice(in tenant: String, key: String, userId: String) throws -> Bool {
        try db.withConnection { c in
            try c.run("DELETE FROM devices WHERE tenant = ? AND key = ? AND user_id = ?", [.text(tenant), .text(key), .text(userId)]) == 1
        }
    }
}
