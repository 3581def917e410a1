import Foundation

extension Emulator {
    /// Registers a SAML identity provider (its id and times are made here). Its entity id and each of its
    /// domains must be no other provider's in the tenant, checked in the transaction that writes it.
    public func createSSOProvider(_ draft: SSOProvider) throws -> SSOProvider {
        var provider = draft
        provider.id = newID()
        provider.createdAt = clock.now
        provider.updatedAt = provider.createdAt
        provider.domains = provider.domains.map { $0.lowercased() }
        try db.transaction { c in
            try Self.checkSSOConflicts(c, provider)
            try c.run("""
                INSERT INTO sso_providers (tenant, id, resource_id, disabled, entity_id, metadata_xml, metadata_url, name_id_format,
                    attribute_mapping, domains, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
                """, Self.ssoValues(provider))
        }
        return provider
    }

    /// Writes a provider's fields back and stamps `updated_at`; the same conflicts as creation are refused.
    public func updateSSOProvider(_ provider: SSOProvider) throws -> SSOProvider {
        var updated = provider
        updated.updatedAt = clock.now
        updated.domains = updated.domains.map { $0.lowercased() }
        try db.transaction { c in
            try Self.checkSSOConflicts(c, updated)
            try c.run("""
                UPDATE sso_providers SET resource_id = ?3, disabled = ?4, entity_id = ?5, metadata_xml = ?6, metadata_url = ?7,
                    name_id_format = ?8, attribute_mapping = ?9, domains = ?10, created_at = ?11, updated_at = ?12
                WHERE tenant = ?1 AND id = ?2
                """, Self.ssoValues(updated))
        }
        return updated
    }

    public func deleteSSOProvider(in tenant: String, id: String) throws {
        try db.withConnection { c in _ = try c.run("DELETE FROM sso_providers WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)]) }
    }

    /// A tenant's providers, oldest first.
    public func ssoProviders(in tenant: String) throws -> [SSOProvider] {
        try db.withConnection { c in
            try c.query("SELECT * FROM sso_providers WHERE tenant = ? ORDER BY created_at, rowid", [.text(tenant)]).map(SSOProvider.init(row:))
        }
    }

    /// How a provider is named: its id, its `resource_id`, one of its domains, or its entity id.
    public enum SSOProviderKey: Sendable {
        case id(String), resourceId(String), domain(String), entityID(String)
    }

    public func ssoProvider(in tenant: String, _ key: SSOProviderKey) throws -> SSOProvider? {
        try db.withConnection { c in
            let (condition, value): (String, String) = switch key {
            case .id(let id): ("id = ? COLLATE NOCASE", id)
            case .resourceId(let id): ("resource_id = ?", id)
            case .entityID(let entity): ("entity_id = ?", entity)
            case .domain(let domain): ("EXISTS (SELECT 1 FROM json_each(domains) WHERE json_each.value = ?)", domain.lowercased())
            }
            return try c.first("SELECT * FROM sso_providers WHERE tenant = ? AND \(condition) LIMIT 1", [.text(tenant), .text(value)])
                .map(SSOProvider.init(row:))
        }
    }

    private static func checkSSOConflicts(_ c: borrowing Connection, _ provider: SSOProvider) throws {
        let others = try c.query("SELECT * FROM sso_providers WHERE tenant = ? AND id <> ?", [.text(provider.tenant), .text(provider.id)])
            .map(SSOProvider.init(row:))
        if others.contains(where: { $0.entityID == provider.entityID }) { throw SSOProviderConflict.entityID(provider.entityID) }
        for domain in provider.domains {
            if let owner = others.first(where: { $0.domains.contains(domain) }) { throw SSOProviderConflict.domain(domain, provider: owner.id) }
        }
    }

    private static func ssoValues(_ p: SSOProvider) -> [SQLValue] {
        [.text(p.tenant), .text(p.id), SQLValue(p.resourceId), p.disabled.map { SQLValue($0) } ?? .null, .text(p.entityID), .text(p.metadataXML),
         SQLValue(p.metadataURL), SQLValue(p.nameIDFormat), SQLValue(p.attributeMapping), SQLValue(JSON.array(p.domains.map(JSON.string))),
         SQLValue(p.createdAt), SQLValue(p.updatedAt)]
    }
}
