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
        try db.withConnection { c in try OAuthClients.insert(c, client) }
        return (client, secret)
    }

    /// A registered client that has not been deleted.
    public func oauthClient(in tenant: String, id: String) throws -> OAuthClient? {
        try db.withConnection { c in try OAuthClients.find(c, tenant: tenant, id: id) }
    }

    /// A tenant's live clients, newest first (GoTrue's list order).
    public func oauthClients(in tenant: String) throws -> [OAuthClient] {
        try db.withConnection { c in try OAuthClients.all(c, tenant: tenant) }
    }

    /// Writes a client's editable fields back (its type and secret are not among them) and stamps `updated_at`.
    public func updateOAuthClient(_ client: OAuthClient) throws -> OAuthClient {
        var updated = client
        updated.updatedAt = clock.now
        try db.withConnection { c in try OAuthClients.update(c, updated) }
        return updated
    }

    /// Deletes a client softly, as GoTrue does: it stops authenticating and disappears from lists and
    /// grants, while its row stays for the audit trail.
    public func deleteOAuthClient(in tenant: String, id: String) throws {
        try db.withConnection { c in try OAuthClients.delete(c, tenant: tenant, id: id, at: clock.now) }
    }

    /// A new secret for a confidential client; the old one stops working at once.
    public func regenerateOAuthClientSecret(_ client: OAuthClient) throws -> (client: OAuthClient, secret: String) {
        var updated = client
        let secret = Base64URL.encode(generator.bytes(32))
        updated.secretHash = Self.clientSecretHash(secret)
        updated.updatedAt = clock.now
        try db.withConnection { c in try OAuthClients.setSecretHash(c, updated) }
        return (updated, secret)
    }

    /// GoTrue's `hashClientSecret`: base64url of the SHA-256.
    static func clientSecretHash(_ secret: String) -> String { Base64URL.encode(SHA256.hash(data: Array(secret.utf8))) }
}
