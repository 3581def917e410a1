import Foundation

/// The Supabase OAuth server's authorization requests (`oauth_authorizations`) and the consents users gave
/// clients (`oauth_consents`). Ownership, expiry, auto-approval and the codes they become are
/// `Emulator+OAuthAuthorizations`'.
enum OAuthGrants {
    static func insert(_ c: borrowing Connection, _ authorization: OAuthAuthorization) throws {
        try c.run("""
            INSERT INTO oauth_authorizations (tenant, id, client_id, redirect_uri, scope, state, resource, code_challenge,
                code_challenge_method, nonce, status, created_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
            """, [.text(authorization.tenant), .text(authorization.id), .text(authorization.clientId), .text(authorization.redirectURI),
                  .text(authorization.scope), SQLValue(authorization.state), SQLValue(authorization.resource),
                  .text(authorization.challenge.challenge), .text(authorization.challenge.method.rawValue), SQLValue(authorization.nonce),
                  .text(authorization.status.rawValue), SQLValue(authorization.createdAt), SQLValue(authorization.expiresAt)])
    }

    /// A request as it stands, expired or answered ones included.
    static func find(_ c: borrowing Connection, tenant: String, id: String) throws -> OAuthAuthorization? {
        try c.first("SELECT * FROM oauth_authorizations WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)]).map(OAuthAuthorization.init(row:))
    }

    /// Requests still waiting for a decision at `now`, oldest first.
    static func pending(_ c: borrowing Connection, tenant: String, at now: Date) throws -> [OAuthAuthorization] {
        try c.query("SELECT * FROM oauth_authorizations WHERE tenant = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, rowid",
                    [.text(tenant), SQLValue(now)]).map(OAuthAuthorization.init(row:))
    }

    static func claim(_ c: borrowing Connection, tenant: String, id: String, userId: String) throws {
        try c.run("UPDATE oauth_authorizations SET user_id = ? WHERE tenant = ? AND id = ?", [.text(userId), .text(tenant), .text(id)])
    }

    /// Ends a request: `denied`, or `expired` (only one still pending).
    static func end(_ c: borrowing Connection, tenant: String, id: String, as status: OAuthAuthorization.Status) throws {
        try c.run("UPDATE oauth_authorizations SET status = ? WHERE tenant = ? AND id = ? AND status = 'pending'",
                  [.text(status.rawValue), .text(tenant), .text(id)])
    }

    static func markApproved(_ c: borrowing Connection, tenant: String, id: String, at now: Date) throws {
        try c.run("UPDATE oauth_authorizations SET status = 'approved', approved_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(now), .text(tenant), .text(id)])
    }

    /// Drops requests that expired before `cutoff`, answered or not: an unanswered one is no use once its code
    /// could not be redeemed.
    static func sweep(_ c: borrowing Connection, expiredBefore cutoff: Date) throws -> Int {
        try c.run("DELETE FROM oauth_authorizations WHERE expires_at < ?", [SQLValue(cutoff)])
    }

    /// The scopes of a user's live consent for a client, if any.
    static func consentedScopes(_ c: borrowing Connection, tenant: String, userId: String, clientId: String) throws -> [String]? {
        try c.first("SELECT scopes FROM oauth_consents WHERE tenant = ? AND user_id = ? AND client_id = ? AND revoked_at IS NULL",
                    [.text(tenant), .text(userId), .text(clientId)]).map { OAuthScopes.parse($0.string("scopes") ?? "") }
    }

    /// Remembers a consent, replacing the scopes of an earlier one and undoing its revocation.
    static func consent(_ c: borrowing Connection, tenant: String, userId: String, clientId: String, scopes: [String], at now: Date) throws {
        try c.run("""
            INSERT INTO oauth_consents (tenant, user_id, client_id, scopes, granted_at) VALUES (?,?,?,?,?)
            ON CONFLICT (tenant, user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at, revoked_at = NULL
            """, [.text(tenant), .text(userId), .text(clientId), .text(scopes.joined(separator: " ")), SQLValue(now)])
    }

    /// A user's live consents, most recently granted first.
    static func consents(_ c: borrowing Connection, tenant: String, userId: String) throws -> [OAuthConsent] {
        try c.query("SELECT * FROM oauth_consents WHERE tenant = ? AND user_id = ? AND revoked_at IS NULL ORDER BY granted_at DESC",
                    [.text(tenant), .text(userId)]).map { row in
            OAuthConsent(clientId: row.string("client_id") ?? "", userId: userId, scopes: OAuthScopes.parse(row.string("scopes") ?? ""),
                         grantedAt: row.date("granted_at") ?? .distantPast)
        }
    }

    /// Withdraws a live consent; false when there was none.
    static func revokeConsent(_ c: borrowing Connection, tenant: String, userId: String, clientId: String, at now: Date) throws -> Bool {
        try c.run("UPDATE oauth_consents SET revoked_at = ? WHERE tenant = ? AND user_id = ? AND client_id = ? AND revoked_at IS NULL",
                  [SQLValue(now), .text(tenant), .text(userId), .text(clientId)]) == 1
    }
}

extension OAuthAuthorization {
    /// A request from its `oauth_authorizations` row.
    init(row: Row) {
        self.init(tenant: row.string("tenant") ?? "", id: row.string("id") ?? "", clientId: row.string("client_id") ?? "",
                  userId: row.string("user_id"), redirectURI: row.string("redirect_uri") ?? "", scope: row.string("scope") ?? "",
                  state: row.string("state"), resource: row.string("resource"),
                  challenge: PKCEChallenge(challenge: row.string("code_challenge") ?? "",
                                           method: PKCEChallenge.Method(rawValue: row.string("code_challenge_method") ?? "") ?? .s256),
                  nonce: row.string("nonce"), status: Status(rawValue: row.string("status") ?? "") ?? .expired,
                  createdAt: row.date("created_at") ?? .distantPast, expiresAt: row.date("expires_at") ?? .distantPast,
                  approvedAt: row.date("approved_at"))
    }
}
