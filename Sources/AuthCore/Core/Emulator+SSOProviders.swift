import Foundation

extension Emulator {
    /// Registers a SAML identity provider (its id and times are made here). Its entity id and each of its
    /// domains must be no other provider's in the tenant, checked in the transaction that writes it.
    public func createSSOProvider(_ draft: SSOProvider) throws -> SSOProvider {
        var provider = draft
        provider.id = newID()
        provider.createdAt = clock.now
        provider.updatedAt = provider.createdAt
        try db.transaction { c in
            try Self.checkSSOConflicts(c, provider)
            try SSO.insert(c, provider)
        }
        return provider
    }

    /// Writes a provider's fields back and stamps `updated_at`; the same conflicts as creation are refused.
    public func updateSSOProvider(_ provider: SSOProvider) throws -> SSOProvider {
        var updated = provider
        updated.updatedAt = clock.now
        try db.transaction { c in
            try Self.checkSSOConflicts(c, updated)
            try SSO.update(c, updated)
        }
        return updated
    }

    public func deleteSSOProvider(in tenant: String, id: String) throws {
        try db.withConnection { c in try SSO.delete(c, tenant: tenant, id: id) }
    }

    /// A tenant's providers, oldest first.
    public func ssoProviders(in tenant: String) throws -> [SSOProvider] {
        try db.withConnection { c in try SSO.providers(c, tenant: tenant) }
    }

    /// How a provider is named: its id, its `resource_id`, one of its domains, or its entity id.
    public enum SSOProviderKey: Sendable {
        case id(String), resourceId(String), domain(String), entityID(String)
    }

    public func ssoProvider(in tenant: String, _ key: SSOProviderKey) throws -> SSOProvider? {
        try db.withConnection { c in try SSO.provider(c, tenant: tenant, key) }
    }

    /// Domains are kept as written and looked up exactly, as GoTrue's `FindSSOProviderByDomain` does, but one
    /// differing only in case is still another provider's: GoTrue's unique index is on `lower(domain)`.
    private static func checkSSOConflicts(_ c: borrowing Connection, _ provider: SSOProvider) throws {
        let others = try SSO.providers(c, tenant: provider.tenant, except: provider.id)
        if others.contains(where: { $0.entityID == provider.entityID }) { throw SSOProviderConflict.entityID(provider.entityID) }
        for domain in provider.domains {
            if let owner = others.first(where: { $0.domains.contains { $0.lowercased() == domain.lowercased() } }) {
                throw SSOProviderConflict.domain(domain, provider: owner.id)
            }
        }
    }
}
