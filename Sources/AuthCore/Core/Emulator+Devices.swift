import Foundation

extension Emulator {
    /// Registers a device for its user, or registers it again (a new secret, name and remembered state; its
    /// creation date stays). A key that is another user's is left alone: false.
    @discardableResult
    public func registerDevice(_ device: Device) throws -> Bool {
        try db.withConnection { c in try Devices.register(c, device) }
    }

    /// The device with `key`, if it is `userId`'s (any user's without one).
    public func device(in tenant: String, key: String, userId: String? = nil) throws -> Device? {
        let device = try db.withConnection { c in try Devices.find(c, tenant: tenant, key: key) }
        return device.flatMap { userId == nil || $0.userId == userId ? $0 : nil }
    }

    /// A user's devices, oldest first.
    public func devices(in tenant: String, userId: String) throws -> [Device] {
        try db.withConnection { c in try Devices.of(c, tenant: tenant, userId: userId) }
    }

    /// Whether the user chose to remember the device; false if it is not theirs.
    @discardableResult
    public func setDeviceRemembered(in tenant: String, key: String, userId: String, _ remembered: Bool) throws -> Bool {
        try db.withConnection { c in try Devices.setRemembered(c, tenant: tenant, key: key, userId: userId, remembered, at: clock.now) }
    }

    /// Stamps a sign-in the device proved itself in, and the address it came from.
    public func markDeviceAuthenticated(in tenant: String, key: String, ip: String?) throws {
        try db.withConnection { c in try Devices.stampAuthenticated(c, tenant: tenant, key: key, ip: ip, at: clock.now) }
    }

    /// Forgets a user's device; false if it is not theirs.
    @discardableResult
    public func forgetDevice(in tenant: String, key: String, userId: String) throws -> Bool {
        try db.withConnection { c in try Devices.delete(c, tenant: tenant, key: key, userId: userId) }
    }
}
