import Foundation

/// Why an authorization request cannot be opened or answered; each dialect words it.
public enum OAuthAuthorizationError: Error, Equatable {
    /// Unknown, expired, or already claimed by another user: the caller learns nothing more.
    case notFound
    /// Opened again after it was answered.
    case notProcessable
    /// Answered again.
    case notPending
}

/// What a signed-in user finds on opening an authorization request.
public enum OAuthAuthorizationView: Sendable {
    /// Waiting for the user's decision.
    case pending(OAuthAuthorization)
    /// Approved at once because the user already consented to at least these scopes; the browser goes
    /// straight to the client with the code.
    case approved(OAuthAuthorization, code: String)
}

extension Emulator {
    /// Records a client's validated request, waiting for a user; it lives `lifetime` on the emulator clock,
    /// and so does the code it may become.
    public func startOAuthAuthorization(_ draft: OAuthAuthorization, lifetime: TimeInterval) throws -> OAuthAuthorization {
        var authorization = draft
        let now = clock.now
        // GoTrue's `crypto.SecureAlphanumeric(32)`: the id travels in the consent page's URL.
        authorization.id = generator.string(32, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        authorization.userId = nil
        authorization.status = .pending
        authorization.createdAt = now
        authorization.expiresAt = now.addingTimeInterval(lifetime)
        authorization.approvedAt = nil
        try db.withConnection { c in
            _ = try c.run("""
                INSERT INTO oauth_authorizations (tenant, id, client_id, redirect_uri, scope, state, resource, code_challenge,
                    code_challenge_method, nonce, status, created_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
                """, [.text(authorization.tenant), .text(authorization.id), .text(authorization.clientId), .text(authorization.redirectURI),
                      .text(authorization.scope), SQLValue(authorization.state), SQLValue(authorization.resource),
                      .text(authorization.challenge.challenge), .text(authorization.challenge.method.rawValue), SQLValue(authorization.nonce),
                      .text(authorization.status.rawValue), SQLValue(now), SQLValue(authorization.expiresAt)])
        }
        return authorization
    }

    /// The requests still waiting for a decision, oldest first (the control API lists them).
    public func pendingOAuthAuthorizations(in tenant: String) throws -> [OAuthAuthorization] {
        try db.withConnection { c in
            try c.query("SELECT * FROM oauth_authorizations WHERE tenant = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, rowid",
                        [.text(tenant), SQLValue(clock.now)]).map(OAuthAuthorization.init(row:))
        }
    }

    /// A signed-in user opens a request: the first one to do so owns it. When the user's live consent for
    /// the client already covers the requested scopes it is approved at once, as GoTrue's
    /// `OAuthServerGetAuthorization` does.
    public func openOAuthAuthorization(in tenant: String, id: String, userId: String) throws -> OAuthAuthorizationView {
        let now = clock.now
        let (authorization, autoApproved): (OAuthAuthorization, Bool) = try db.transaction { c in
            var authorization = try liveAuthorization(c, tenant: tenant, id: id, now: now)
            guard authorization.status == .pending else { throw OAuthAuthorizationError.notProcessable }
            guard let owner = authorization.userId else {
                authorization.userId = userId
                try c.run("UPDATE oauth_authorizations SET user_id = ? WHERE tenant = ? AND id = ?", [.text(userId), .text(tenant), .text(id)])
                let consented = try c.first("""
                    SELECT scopes FROM oauth_consents WHERE tenant = ? AND user_id = ? AND client_id = ? AND revoked_at IS NULL
                    """, [.text(tenant), .text(userId), .text(authorization.clientId)]).map { OAuthScopes.parse($0.string("scopes") ?? "") }
                guard let consented, Set(authorization.scopes).isSubset(of: consented) else { return (authorization, false) }
                return (try approve(c, authorization, now: now), true)
            }
            guard owner == userId else { throw OAuthAuthorizationError.notFound }
            return (authorization, false)
        }
        guard autoApproved else { return .pending(authorization) }
        return .approved(authorization, code: try issueOAuthCode(for: authorization))
    }

    /// The owner's decision. Approving remembers the consent (replacing the scopes of an earlier one and
    /// undoing its revocation) and makes the single-use code; denying ends the request.
    public func answerOAuthAuthorization(in tenant: String, id: String, userId: String, approve approved: Bool) throws
        -> (authorization: OAuthAuthorization, code: String?) {
        let now = clock.now
        let authorization: OAuthAuthorization = try db.transaction { c in
            var authorization = try liveAuthorization(c, tenant: tenant, id: id, now: now)
            guard authorization.status == .pending else { throw OAuthAuthorizationError.notPending }
            guard authorization.userId == userId else { throw OAuthAuthorizationError.notFound }
            guard approved else {
                try c.run("UPDATE oauth_authorizations SET status = 'denied' WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
                authorization.status = .denied
                return authorization
            }
            return try approve(c, authorization, now: now)
        }
        return (authorization, approved ? try issueOAuthCode(for: authorization) : nil)
    }

    /// Opens and answers in one step, for a decision taken outside GoTrue's consent API (Fauxth's consent
    /// page, the control API): where the browser goes next. A user whose consent already covers the scopes
    /// is sent back with a code whatever they chose, as opening the request in GoTrue approves it at once.
    public func decideOAuthAuthorization(in tenant: String, id: String, userId: String, approve: Bool) throws -> String {
        if case .approved(let authorization, let code) = try openOAuthAuthorization(in: tenant, id: id, userId: userId) {
            return authorization.successRedirect(code: code)
        }
        let (authorization, code) = try answerOAuthAuthorization(in: tenant, id: id, userId: userId, approve: approve)
        return code.map(authorization.successRedirect(code:)) ?? authorization.errorRedirect(error: "access_denied", description: "User denied the request")
    }

    /// A request as it stands, expired or answered ones included; nil when unknown.
    public func oauthAuthorization(in tenant: String, id: String) throws -> OAuthAuthorization? {
        try db.withConnection { c in
            try c.first("SELECT * FROM oauth_authorizations WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)]).map(OAuthAuthorization.init(row:))
        }
    }

    /// The row, unless it is unknown or expired (an expired one still pending is marked so in the caller's
    /// transaction).
    private func liveAuthorization(_ c: borrowing Connection, tenant: String, id: String, now: Date) throws -> OAuthAuthorization {
        guard let row = try c.first("SELECT * FROM oauth_authorizations WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)]) else {
            throw OAuthAuthorizationError.notFound
        }
        let authorization = OAuthAuthorization(row: row)
        guard now <= authorization.expiresAt else {
            try c.run("UPDATE oauth_authorizations SET status = 'expired' WHERE tenant = ? AND id = ? AND status = 'pending'", [.text(tenant), .text(id)])
            throw OAuthAuthorizationError.notFound
        }
        return authorization
    }

    private func approve(_ c: borrowing Connection, _ pending: OAuthAuthorization, now: Date) throws -> OAuthAuthorization {
        var authorization = pending
        authorization.status = .approved
        authorization.approvedAt = now
        try c.run("UPDATE oauth_authorizations SET status = 'approved', approved_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(now), .text(authorization.tenant), .text(authorization.id)])
        try c.run("""
            INSERT INTO oauth_consents (tenant, user_id, client_id, scopes, granted_at) VALUES (?,?,?,?,?)
            ON CONFLICT (tenant, user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at, revoked_at = NULL
            """, [.text(authorization.tenant), .text(authorization.userId ?? ""), .text(authorization.clientId),
                  .text(authorization.scopes.joined(separator: " ")), SQLValue(now)])
        return authorization
    }

    /// The code an approved request becomes: the core's single-use authorization code, carrying the PKCE
    /// challenge, and valid only while the request would have been (GoTrue checks the authorization's
    /// `expires_at` when the code is exchanged).
    private func issueOAuthCode(for authorization: OAuthAuthorization) throws -> String {
        var data: [String: JSON] = ["authorization_id": .string(authorization.id)]
        if let resource = authorization.resource { data["resource"] = .string(resource) }
        let grant = AuthorizationGrant(userId: authorization.userId ?? "", clientId: authorization.clientId, redirectURI: authorization.redirectURI,
                                       scope: authorization.scope, nonce: authorization.nonce, challenge: authorization.challenge, data: data)
        return try issueAuthorizationCode(in: authorization.tenant, grant, lifetime: max(0, authorization.expiresAt.timeIntervalSince(clock.now)))
    }
}

extension Emulator {
    /// A user's live consents, most recently granted first.
    public func oauthConsents(in tenant: String, userId: String) throws -> [OAuthConsent] {
        try db.withConnection { c in
            try c.query("SELECT * FROM oauth_consents WHERE tenant = ? AND user_id = ? AND revoked_at IS NULL ORDER BY granted_at DESC",
                        [.text(tenant), .text(userId)]).map { row in
                OAuthConsent(clientId: row.string("client_id") ?? "", userId: userId, scopes: OAuthScopes.parse(row.string("scopes") ?? ""),
                             grantedAt: row.date("granted_at") ?? .distantPast)
            }
        }
    }

    /// Withdraws a user's consent for a client and ends every session that client holds for the user, so
    /// its refresh tokens stop working; false when there was no live consent.
    public func revokeOAuthConsent(in tenant: String, userId: String, clientId: String, origin: RequestOrigin = RequestOrigin()) throws -> Bool {
        let sessions: [String]? = try db.transaction { c in
            guard try c.run("UPDATE oauth_consents SET revoked_at = ? WHERE tenant = ? AND user_id = ? AND client_id = ? AND revoked_at IS NULL",
                            [SQLValue(clock.now), .text(tenant), .text(userId), .text(clientId)]) == 1 else { return nil }
            return try c.query("""
                SELECT id FROM sessions WHERE tenant = ? AND user_id = ? AND revoked_at IS NULL AND json_extract(claims, '$.client_id') = ?
                """, [.text(tenant), .text(userId), .text(clientId)]).compactMap { $0.string("id") }
        }
        guard let sessions else { return false }
        for session in sessions {
            try revokeSessions(in: tenant, userId: userId, .only(session), reason: "oauth_grant_revoked", origin: origin)
        }
        return true
    }
}

extension OAuthAuthorization {
    /// A request as a client makes it, before the core gives it an id and times.
    public init(tenant: String, clientId: String, redirectURI: String, scope: String, state: String?, resource: String?,
                challenge: PKCEChallenge, nonce: String?) {
        self.init(tenant: tenant, id: "", clientId: clientId, userId: nil, redirectURI: redirectURI, scope: scope, state: state, resource: resource,
                  challenge: challenge, nonce: nonce, status: .pending, createdAt: .distantPast, expiresAt: .distantPast, approvedAt: nil)
    }

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
