import Crypto
import Foundation

extension Emulator {
    /// Registers `client` (its id, times and secret are made here) and returns it with the plaintext secret a
    /// confidential client gets once: 32 random bytes, base64url, as GoTrue's `generateClientSecret`.
    public func registerOAuthClient(_ draft: OAuthClient) throws -> (client: OAuthClient, secret: String?) {
        var client = draft
        let now = clock.now
        client.id = newID()
        client.createdAt = now
        client.updatedAt = now
        let secret = client.isPublic ? nil : Base64URL.encode(generator.bytes(32))
        client.secretHash = secret.map(Self.clientSecretHash)
        try db.withConnection { c in
            _ = try c.run("""
                INSERT INTO oauth_clients (tenant, id, secret_hash, registration_type, client_type, token_endpoint_auth_method, redirect_uris,
                    grant_types, name, uri, logo_uri, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
                """, [.text(client.tenant), .text(client.id), SQLValue(client.secretHash), .text(client.registrationType), .text(client.clientType),
                      .text(client.tokenEndpointAuthMethod), SQLValue(JSON.array(client.redirectURIs.map(JSON.string))),
                      SQLValue(JSON.array(client.grantTypes.map(JSON.string))), SQLValue(client.name), SQLValue(client.uri),
                      SQLValue(client.logoURI), SQLValue(now), SQLValue(now)])
        }
        return (client, secret)
    }

    /// A registered client that has not been deleted.
    public func oauthClient(in tenant: String, id: String) throws -> OAuthClient? {
        try db.withConnection { c in
            try c.first("SELECT * FROM oauth_clients WHERE tenant = ? AND id = ? AND deleted_at IS NULL", [.text(tenant), .text(id)])
                .map(OAuthClient.init(row:))
        }
    }

    /// A tenant's live clients, newest first (GoTrue's list order).
    public func oauthClients(in tenant: String) throws -> [OAuthClient] {
        try db.withConnection { c in
            try c.query("SELECT * FROM oauth_clients WHERE tenant = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC",
                        [.text(tenant)]).map(OAuthClient.init(row:))
        }
    }

    /// Writes a client's editable fields back (its type and secret are not among them) and stamps `updated_at`.
    public func updateOAuthClient(_ client: OAuthClient) throws -> OAuthClient {
        var updated = client
        updated.updatedAt = clock.now
        try db.withConnection { c in
            _ = try c.run("""
                UPDATE oauth_clients SET token_endpoint_auth_method = ?, redirect_uris = ?, grant_types = ?, name = ?, uri = ?, logo_uri = ?,
                    updated_at = ? WHERE tenant = ? AND id = ? AND deleted_at IS NULL
                """, [.text(updated.tokenEndpointAuthMethod), SQLValue(JSON.array(updated.redirectURIs.map(JSON.string))),
                      SQLValue(JSON.array(updated.grantTypes.map(JSON.string))), SQLValue(updated.name), SQLValue(updated.uri),
                      SQLValue(updated.logoURI), SQLValue(updated.updatedAt), .text(updated.tenant), .text(updated.id)])
        }
        return updated
    }

    /// Deletes a client softly, as GoTrue does: it stops authenticating and disappears from lists and
    /// grants, while its row stays for the audit trail.
    public func deleteOAuthClient(in tenant: String, id: String) throws {
        try db.withConnection { c in
            _ = try c.run("UPDATE oauth_clients SET deleted_at = ?, updated_at = ? WHERE tenant = ? AND id = ? AND deleted_at IS NULL",
                          [SQLValue(clock.now), SQLValue(clock.now), .text(tenant), .text(id)])
        }
    }

    /// A new secret for a confidential client; the old one stops working at once.
    public func regenerateOAuthClientSecret(_ client: OAuthClient) throws -> (client: OAuthClient, secret: String) {
        var updated = client
        let secret = Base64URL.encode(generator.bytes(32))
        updated.secretHash = Self.clientSecretHash(secret)
        updated.updatedAt = clock.now
        try db.withConnection { c in
            _ = try c.run("UPDATE oauth_clients SET secret_hash = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                          [SQLValue(updated.secretHash), SQLValue(updated.updatedAt), .text(client.tenant), .text(client.id)])
        }
        return (updated, secret)
    }

    /// GoTrue's `hashClientSecret`: base64url of the SHA-256.
    static func clientSecretHash(_ secret: String) -> String { Base64URL.encode(SHA256.hash(data: Array(secret.utf8))) }
}

extension OAuthClient {
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
