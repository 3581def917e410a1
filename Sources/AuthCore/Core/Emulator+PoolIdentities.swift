import Foundation

extension Emulator {
    /// The identity with `id`, with its logins.
    public func poolIdentity(id: String) throws -> PoolIdentity? {
        try db.withConnection { c in try PoolIdentities.find(c, id: id) }
    }

    /// The identity a user's logins (provider name to subject) name in a pool, given to them from now on: the one a
    /// login is linked to already, else `guest` (an unauthenticated identity the app had before the user signed in),
    /// else a new one made with `newId`. Logins not linked yet are linked to it. A guest whose user turns out to have an
    /// identity already is merged into it: disabled, as Cognito does. One transaction, so two calls with the same new
    /// login make one identity.
    public func signInPoolIdentity(in tenant: String, poolId: String, logins: [String: String], guest: PoolIdentity? = nil,
                                   newId: () -> String) throws -> PoolIdentity {
        let now = clock.now
        return try db.transaction { c in
            let sorted = logins.sorted { $0.key < $1.key }
            var linked: [String: String] = [:]
            for (provider, subject) in sorted {
                linked[provider] = try PoolIdentities.identityId(c, tenant: tenant, poolId: poolId, provider: provider, subject: subject)
            }
            var identity: PoolIdentity
            if let existing = try sorted.lazy.compactMap({ linked[$0.key] }).first.flatMap({ try PoolIdentities.find(c, id: $0) }) {
                identity = existing
                if let guest, guest.id != existing.id, !guest.isAuthenticated { try PoolIdentities.disable(c, id: guest.id, at: now) }
            } else if let guest {
                identity = guest
            } else {
                identity = PoolIdentity(tenant: tenant, id: newId(), poolId: poolId, createdAt: now, updatedAt: now)
                try PoolIdentities.insert(c, identity)
            }
            for (provider, subject) in sorted where linked[provider] == nil && identity.logins[provider] == nil {
                try PoolIdentities.link(c, identity, provider: provider, subject: subject, at: now)
                identity.logins[provider] = subject
                identity.updatedAt = now
            }
            return identity
        }
    }

    /// A new identity without logins (an unauthenticated one).
    public func newPoolIdentity(in tenant: String, poolId: String, id: String) throws -> PoolIdentity {
        let identity = PoolIdentity(tenant: tenant, id: id, poolId: poolId, createdAt: clock.now, updatedAt: clock.now)
        try db.withConnection { c in try PoolIdentities.insert(c, identity) }
        return identity
    }

    /// A pool's identities in the order they were made, a page of at most `limit` after the identity `after`.
    public func poolIdentities(in tenant: String, poolId: String, limit: Int, after: String? = nil, hideDisabled: Bool = false) throws
        -> [PoolIdentity] {
        try db.withConnection { c in
            try PoolIdentities.list(c, tenant: tenant, poolId: poolId, limit: limit, after: after, hideDisabled: hideDisabled)
        }
    }

    /// Deletes identities; answers the ids there were.
    @discardableResult
    public func deletePoolIdentities(_ ids: [String]) throws -> [String] {
        try db.transaction { c in try PoolIdentities.delete(c, ids: ids) }
    }

    /// Deletes every identity of a pool.
    public func deletePoolIdentities(in tenant: String, poolId: String) throws {
        try db.transaction { c in try PoolIdentities.deletePool(c, tenant: tenant, poolId: poolId) }
    }
}
