import Foundation

/// The `oauth_clients` table: the clients registered with the OAuth 2.1 server, deleted softly (the row
/// stays with `deleted_at`, as GoTrue keeps it).
enum OAuthClients {
    static func insert(_ c: borrowing Connection, _ client: OAuthClient) throws {
        try c.run("""
            INSERT INTO oauth_clients (tenant, id, secret_hash, registration_type, client_type, token_endpoint_auth_method, redirect_uris,
                grant_types, name, uri, logo_uri, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
            """, [.text(client.tenant), .text(client.id), SQLValue(client.secretHash), .text(client.registrationType), .text(client.clientType),
                  .text(client.tokenEndpointAuthMethod), SQLValue(JSON.array(client.redirectURIs.map(JSON.string))),
                  SQLValue(JSON.array(client.grantTypes.map(JSON.string))), SQLValue(client.name), SQLValue(client.uri),
                  SQLValue(client.logoURI), SQLValue(client.createdAt), SQLValue(client.updatedAt)])
    }

    /// A live (not deleted) client.
    static func find(_ c: borrowing Connection, tenant: String, id: String) throws -> OAuthClient? {
        try c.first("SELECT * FROM oauth_clients WHERE tenant = ? AND id = ? AND deleted_at IS NULL", [.text(tenant), .text(id)])
            .map(OAuthClient.init(row:))
    }

    /// A tenant's live clients, newest first.
    static func all(_ c: borrowing Connection, tenant: String) throws -> [OAuthClient] {
        try c.query("SELECT * FROM oauth_clients WHERE tenant = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC",
                    [.text(tenant)]).map(OAuthClient.init(row:))
    }

    /// Writes a live client's editable fields (not its type or secret).
    static func update(_ c: borrowing Connection, _ client: OAuthClient) throws {
        try c.run("""
            UPDATE oauth_clients SET token_endpoint_auth_method = ?, redirect_uris = ?, grant_types = ?, name = ?, uri = ?, logo_uri = ?,
                updated_at = ? WHERE tenant = ? AND id = ? AND deleted_at IS NULL
            """, [.text(client.tokenEndpointAuthMethod), SQLValue(JSON.array(client.redirectURIs.map(JSON.string))),
                  SQLValue(JSON.array(client.grantTypes.map(JSON.string))), SQLValue(client.name), SQLValue(client.uri),
                  SQLValue(client.logoURI), SQLValue(client.updatedAt), .text(client.tenant), .text(client.id)])
    }

    static func setSecretHash(_ c: borrowing Connection, _ client: OAuthClient) throws {
        try c.run("UPDATE oauth_clients SET secret_hash = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(client.secretHash), SQLValue(client.updatedAt), .text(client.tenant), .text(client.id)])
    }

    /// Marks a live client deleted.
    static func delete(_ c: borrowing Connection, tenant: String, id: String, at now: Date) throws {
        try c.run("UPDATE oauth_clients SET deleted_at = ?, updated_at = ? WHERE tenant = ? AND id = ? AND deleted_at IS NULL",
                  [SQLValue(now), SQLValue(now), .text(tenant), .text(id)])
    }
}

extension OAuthClient {
    /// A client from an `oauth_clients` row.
    init(row: Row) {
        self.init(tenant: row.string("tenant") ?? "", id: row.string("id") ?? "", registrationType: row.string("registration_type") ?? "manual",
                  clientType: row.string("client_type") ?? "confidential",
                  tokenEndpointAuthMethod: row.string("token_endpoint_auth_method") ?? "client_secret_basic",
                  redirectURIs: (row.json("redirect_uris").arrayValue ?? []).compactMap(\.stringValue),
                  grantTypes: (row.json("grant_types").arrayValue ?? []).compactMap(\.stringValue),
                  name: row.string("name"), uri: row.string("uri"), logoURI: row.string("logo_uri"),
                  createdAt: row.date("created_at") ?? .distantPast, updatedAt: row.date("updated_at") ?? .distantPast)
        secretHash = row.string("secret_hash")
    }
}
