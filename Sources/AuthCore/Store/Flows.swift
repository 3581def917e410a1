import Foundation

/// The two kinds of code a redirect carries back to an app: GoTrue's PKCE flow states (`flow_states`, whose id
/// is the auth code) and the OAuth server's authorization codes (`authorization_codes`, stored as hashes).
/// Both are single use; the checks (lifetime, verifier, client and redirect) are the core's.
enum Flows {
    // MARK: PKCE flow states

    /// A PKCE flow as stored.
    struct FlowState {
        var userId: String
        var challenge: PKCEChallenge
        var authenticationMethod: String
        var providerToken: String?
        /// When the flow began, and when its auth code was issued.
        var createdAt: Date
        var codeIssuedAt: Date?
    }

    static func startFlow(_ c: borrowing Connection, tenant: String, id: String, userId: String, challenge: PKCEChallenge,
                          authenticationMethod: String, providerToken: String?, at now: Date) throws {
        try c.run("""
            INSERT INTO flow_states (tenant, id, user_id, code_challenge, code_challenge_method, authentication_method, created_at, provider_token)
            VALUES (?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(id), .text(userId), .text(challenge.challenge), .text(challenge.method.rawValue),
                  .text(authenticationMethod), SQLValue(now), SQLValue(providerToken)])
    }

    /// The id of a user's newest flow of an authentication method.
    static func newestFlow(_ c: borrowing Connection, tenant: String, userId: String, authenticationMethod: String) throws -> String? {
        try c.first("""
            SELECT id FROM flow_states WHERE tenant = ? AND user_id = ? AND authentication_method = ? ORDER BY created_at DESC, rowid DESC LIMIT 1
            """, [.text(tenant), .text(userId), .text(authenticationMethod)])?.string("id")
    }

    static func stampAuthCodeIssued(_ c: borrowing Connection, tenant: String, id: String, at now: Date) throws {
        try c.run("UPDATE flow_states SET auth_code_issued_at = ? WHERE tenant = ? AND id = ?", [SQLValue(now), .text(tenant), .text(id)])
    }

    static func flow(_ c: borrowing Connection, tenant: String, id: String) throws -> FlowState? {
        try c.first("SELECT * FROM flow_states WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)]).map { row in
            FlowState(userId: row.string("user_id") ?? "",
                      challenge: PKCEChallenge(challenge: row.string("code_challenge") ?? "",
                                               method: PKCEChallenge.Method(rawValue: row.string("code_challenge_method") ?? "") ?? .s256),
                      authenticationMethod: row.string("authentication_method") ?? "otp", providerToken: row.string("provider_token"),
                      createdAt: row.date("created_at") ?? .distantPast, codeIssuedAt: row.date("auth_code_issued_at"))
        }
    }

    static func deleteFlow(_ c: borrowing Connection, tenant: String, id: String) throws {
        try c.run("DELETE FROM flow_states WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
    }

    // MARK: Authorization codes

    static func insertCode(_ c: borrowing Connection, tenant: String, hash: String, _ grant: AuthorizationGrant, at now: Date, expiresAt: Date) throws {
        try c.run("""
            INSERT INTO authorization_codes (tenant, code_hash, user_id, client_id, redirect_uri, scope, nonce, code_challenge,
                code_challenge_method, session_id, data, created_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(hash), .text(grant.userId), .text(grant.clientId), .text(grant.redirectURI),
                  .text(grant.scope), SQLValue(grant.nonce), SQLValue(grant.challenge?.challenge), SQLValue(grant.challenge?.method.rawValue),
                  SQLValue(grant.sessionId), SQLValue(JSON.object(grant.data)), SQLValue(now), SQLValue(expiresAt)])
    }

    /// Marks the unused code with this hash used and returns its grant with its expiry; nil when there is
    /// none (unknown, or used already).
    static func useCode(_ c: borrowing Connection, tenant: String, hash: String, at now: Date) throws -> (grant: AuthorizationGrant, expiresAt: Date)? {
        guard let row = try c.first("SELECT * FROM authorization_codes WHERE tenant = ? AND code_hash = ? AND used_at IS NULL",
                                    [.text(tenant), .text(hash)]) else { return nil }
        try c.run("UPDATE authorization_codes SET used_at = ? WHERE tenant = ? AND code_hash = ?", [SQLValue(now), .text(tenant), .text(hash)])
        return (AuthorizationGrant(row: row), row.date("expires_at") ?? .distantPast)
    }

    // MARK: Sweeps

    /// Deletes the authorization codes expired before `cutoff`; answers how many.
    static func sweepCodes(_ c: borrowing Connection, before cutoff: Date) throws -> Int {
        try c.run("DELETE FROM authorization_codes WHERE expires_at < ?", [SQLValue(cutoff)])
    }

    /// Deletes the flows begun before `cutoff`; answers how many.
    static func sweepFlows(_ c: borrowing Connection, before cutoff: Date) throws -> Int {
        try c.run("DELETE FROM flow_states WHERE created_at < ?", [SQLValue(cutoff)])
    }
}

extension AuthorizationGrant {
    /// A grant from an `authorization_codes` row.
    init(row: Row) {
        let challenge = row.string("code_challenge").map {
            PKCEChallenge(challenge: $0, method: PKCEChallenge.Method(rawValue: row.string("code_challenge_method") ?? "") ?? .s256)
        }
        self.init(userId: row.string("user_id") ?? "", clientId: row.string("client_id") ?? "", redirectURI: row.string("redirect_uri") ?? "",
                  scope: row.string("scope") ?? "", nonce: row.string("nonce"), challenge: challenge, sessionId: row.string("session_id"),
                  data: row.json("data").objectValue ?? [:])
    }
}
