import Foundation

extension Emulator {
    /// Every tenant, in creation order.
    public func tenants() throws -> [Tenant] {
        // Cached like single tenants: a Cognito call finds its pool by client id among all of them.
        let (generation, cached) = tenantCache.withLock { ($0.generation, $0.all) }
        if let cached { return cached }
        let tenants = try db.withConnection { c in try Tenants.all(c) }
        tenantCache.withLock { cache in if cache.generation == generation { cache.all = tenants } }
        return tenants
    }

    /// The Supabase projects whose settings ask for a port of their own, with it (a JSON number without a fraction, as
    /// `JSON.intValue` reads one), in creation order; read without decoding every tenant's settings.
    public func supabaseProjectPorts() throws -> [(tenant: String, port: Int)] {
        try db.withConnection { c in try Tenants.supabasePorts(c) }
    }

    /// The tenant with `id`, or nil. Served from the cache while no tenant changed.
    public func tenant(_ id: String) throws -> Tenant? {
        let (generation, cached) = tenantCache.withLock { ($0.generation, $0.tenants[id]) }
        if let cached { return cached }
        let tenant = try db.withConnection { c in try Tenants.find(c, id: id) }
        if let tenant {
            tenantCache.withLock { cache in if cache.generation == generation { cache.tenants[id] = tenant } }
        }
        return tenant
    }

    /// Moves on whenever anything writes the tenants table (settings, a reset, a restored snapshot). A
    /// dialect that caches what it parsed from a tenant's settings reads this first and keeps the result
    /// under it: while it is unchanged, no tenant has changed since.
    public var tenantGeneration: Int { tenantCache.withLock { $0.generation } }

    /// Forgets every cached tenant: called after anything that writes the tenants table.
    func tenantsChanged() {
        tenantCache.withLock { cache in cache = TenantCache(generation: cache.generation + 1) }
    }

    /// Adds a tenant; `tenantExists` if the id is taken.
    @discardableResult
    public func createTenant(id: String, dialect: Dialect, name: String? = nil, settings: [String: JSON] = [:]) throws -> Tenant {
        guard !id.isEmpty else { throw AuthError.invalidInput(field: "id", reason: "must not be empty") }
        let tenant = Tenant(id: id, dialect: dialect, name: name ?? id, settings: settings, createdAt: clock.now)
        _ = try derivePolicies(for: tenant) // a malformed `policies` setting is refused here, not at the first sign-in
        do {
            try db.withConnection { c in try Tenants.insert(c, tenant) }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw AuthError.tenantExists(id)
        }
        tenantsChanged()
        record(.tenantCreated, tenant: id, detail: ["dialect": .string(dialect.rawValue)])
        return tenant
    }

    /// Removes a tenant and everything in it.
    public func deleteTenant(_ id: String) throws {
        let removed = try db.transaction { c in try Tenants.delete(c, id: id) }
        tenantsChanged()
        guard removed else { throw AuthError.tenantNotFound(id) }
        record(.tenantDeleted, tenant: id)
    }

    /// The tenant with `id`, or `tenantNotFound`.
    public func requireTenant(_ id: String) throws -> Tenant {
        guard let tenant = try tenant(id) else { throw AuthError.tenantNotFound(id) }
        return tenant
    }
}

extension Emulator {
    /// Replaces a tenant's name and settings (the vendor's configuration APIs).
    @discardableResult
    public func updateTenant(_ id: String, name: String? = nil, settings: [String: JSON]) throws -> Tenant {
        try changeTenantSettings(id, name: name) { $0 = settings }
        return try requireTenant(id)
    }

    /// Changes a tenant's settings (and `name`, if given) from what they are when the store is held: two changes made at
    /// once each see the other's, where reading the tenant and then writing it back would let the later write undo the
    /// earlier (two provider configurations created together). `change` may throw to change nothing; its answer is
    /// this call's.
    @discardableResult
    public func changeTenantSettings<T>(_ id: String, name: String? = nil, _ change: (inout [String: JSON]) throws -> T) throws -> T {
        let result = try db.withConnection { c in
            guard var tenant = try Tenants.find(c, id: id) else { throw AuthError.tenantNotFound(id) }
            let result = try change(&tenant.settings)
            _ = try derivePolicies(for: tenant)
            try Tenants.update(c, id: id, name: name ?? tenant.name, settings: tenant.settings)
            return result
        }
        tenantsChanged()
        return result
    }

    /// Deletes every user of a tenant with what is attached to them; codes and the outbox stay, as the
    /// Firebase emulator's "clear accounts" leaves them.
    public func deleteAllUsers(in tenant: String) throws {
        try db.transaction { c in try Accounts.deleteAll(c, tenant: tenant) }
        record(.userDeleted, tenant: tenant, detail: ["all": true])
    }
}

/// What a dialect works out from tenants' settings (a parsed configuration), kept per key until any
/// tenant changes (`Emulator.tenantGeneration` moves on): while it is unchanged, the settings are too.
public final class TenantDerivedCache<Value: Sendable>: Sendable {
    private let entries = Locked<[String: (generation: Int, value: Value)]>([:])

    public init() {}

    /// The value kept for `key`, or `make`'s, kept from here on.
    public func value(_ key: String, in emulator: Emulator, make: () throws -> Value) throws -> Value {
        // Read before `make` reads the tenants, so a change racing it leaves its result under an old generation.
        let generation = emulator.tenantGeneration
        if let cached = entries.withLock({ $0[key] }), cached.generation == generation { return cached.value }
        let value = try make()
        entries.withLock { $0[key] = (generation, value) }
        return value
    }
}

/// Tenants as last read, until anything writes the tenants table (`tenantsChanged`). A read that raced
/// a change (its generation is old) is not kept.
struct TenantCache {
    var generation = 0
    var tenants: [String: Tenant] = [:]
    var all: [Tenant]?
}
