import Foundation

/// SAML single sign-on's tables: a tenant's identity providers (`sso_providers`), the requests sent to them
/// and awaited (`saml_requests`), and the assertions accepted, kept to refuse a replay (`saml_assertions`).
enum SSO {
    // MARK: Providers

    static func insert(_ c: borrowing Connection, _ provider: SSOProvider) throws {
        try c.run("""
            INSERT INTO sso_providers (tenant, id, resource_id, disabled, entity_id, metadata_xml, metadata_url, name_id_format,
                attribute_mapping, domains, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
            """, values(provider))
    }

    static func update(_ c: borrowing Connection, _ provider: SSOProvider) throws {
        try c.run("""
            UPDATE sso_providers SET resource_id = ?3, disabled = ?4, entity_id = ?5, metadata_xml = ?6, metadata_url = ?7,
                name_id_format = ?8, attribute_mapping = ?9, domains = ?10, created_at = ?11, updated_at = ?12
            WHERE tenant = ?1 AND id = ?2
            """, values(provider))
    }

    static func delete(_ c: borrowing Connection, tenant: String, id: String) throws {
        try c.run("DELETE FROM sso_providers WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
    }

    /// A tenant's providers, oldest first.
    static func providers(_ c: borrowing Connection, tenant: String) throws -> [SSOProvider] {
        try c.query("SELECT * FROM sso_providers WHERE tenant = ? ORDER BY created_at, rowid", [.text(tenant)]).map(SSOProvider.init(row:))
    }

    /// The tenant's other providers than `id`.
    static func providers(_ c: borrowing Connection, tenant: String, except id: String) throws -> [SSOProvider] {
        try c.query("SELECT * FROM sso_providers WHERE tenant = ? AND id <> ?", [.text(tenant), .text(id)]).map(SSOProvider.init(row:))
    }

    static func provider(_ c: borrowing Connection, tenant: String, _ key: Emulator.SSOProviderKey) throws -> SSOProvider? {
        let (condition, value): (String, String) = switch key {
        case .id(let id): ("id = ? COLLATE NOCASE", id)
        case .resourceId(let id): ("resource_id = ?", id)
        case .entityID(let entity): ("entity_id = ?", entity)
        case .domain(let domain): ("EXISTS (SELECT 1 FROM json_each(domains) WHERE json_each.value = ?)", domain)
        }
        return try c.first("SELECT * FROM sso_providers WHERE tenant = ? AND \(condition) LIMIT 1", [.text(tenant), .text(value)])
            .map(SSOProvider.init(row:))
    }

    /// A provider's columns in the order `insert` names them (and `update` numbers them).
    private static func values(_ p: SSOProvider) -> [SQLValue] {
        [.text(p.tenant), .text(p.id), SQLValue(p.resourceId), p.disabled.map { SQLValue($0) } ?? .null, .text(p.entityID), .text(p.metadataXML),
         SQLValue(p.metadataURL), SQLValue(p.nameIDFormat), SQLValue(p.attributeMapping), SQLValue(JSON.array(p.domains.map(JSON.string))),
         SQLValue(p.createdAt), SQLValue(p.updatedAt)]
    }

    // MARK: Requests and assertions

    static func insertRequest(_ c: borrowing Connection, _ request: SAMLPendingRequest) throws {
        try c.run("""
            INSERT INTO saml_requests (tenant, id, provider_id, request_id, data, created_at, expires_at) VALUES (?,?,?,?,?,?,?)
            """, [.text(request.tenant), .text(request.id), .text(request.providerId), .text(request.requestId), SQLValue(JSON.object(request.data)),
                  SQLValue(request.createdAt), SQLValue(request.expiresAt)])
    }

    /// Deletes and returns the request a relay state names, in `tenant` or (nil) in any.
    static func takeRequest(_ c: borrowing Connection, tenant: String?, id: String) throws -> SAMLPendingRequest? {
        try c.first("DELETE FROM saml_requests WHERE (?1 IS NULL OR tenant = ?1) AND id = ?2 RETURNING *", [SQLValue(tenant), .text(id)])
            .map(SAMLPendingRequest.init(row:))
    }

    /// Remembers an accepted assertion until `until`; false when it was accepted already (a replay).
    static func accept(_ c: borrowing Connection, tenant: String, assertionId: String, issuer: String, until: Date) throws -> Bool {
        try c.run("INSERT OR IGNORE INTO saml_assertions (tenant, id, issuer, expires_at) VALUES (?,?,?,?)",
                  [.text(tenant), .text(assertionId), .text(issuer), SQLValue(until)]) == 1
    }

    /// Deletes the requests expired before `requestsBefore` and the assertions no longer acceptable at `now`;
    /// answers how many rows went.
    static func sweep(_ c: borrowing Connection, requestsBefore cutoff: Date, assertionsAt now: Date) throws -> Int {
        try c.run("DELETE FROM saml_requests WHERE expires_at < ?", [SQLValue(cutoff)])
            + c.run("DELETE FROM saml_assertions WHERE expires_at < ?", [SQLValue(now)])
    }
}

extension SSOProvider {
    /// A provider from an `sso_providers` row.
    init(row: Row) {
        self.init(tenant: row.string("tenant") ?? "", id: row.string("id") ?? "", resourceId: row.string("resource_id"),
                  disabled: row.int("disabled").map { $0 != 0 }, entityID: row.string("entity_id") ?? "",
                  metadataXML: row.string("metadata_xml") ?? "", metadataURL: row.string("metadata_url"),
                  nameIDFormat: row.string("name_id_format"), attributeMapping: row.json("attribute_mapping"),
                  domains: (row.json("domains").arrayValue ?? []).compactMap(\.stringValue),
                  createdAt: row.date("created_at") ?? .distantPast, updatedAt: row.date("updated_at") ?? .distantPast)
    }
}

extension SAMLPendingRequest {
    /// A request from a `saml_requests` row.
    init(row: Row) {
        self.init(tenant: row.string("tenant") ?? "", id: row.string("id") ?? "", providerId: row.string("provider_id") ?? "",
                  requestId: row.string("request_id") ?? "", data: row.json("data").objectValue ?? [:],
                  createdAt: row.date("created_at") ?? .distantPast, expiresAt: row.date("expires_at") ?? .distantPast)
    }
}
