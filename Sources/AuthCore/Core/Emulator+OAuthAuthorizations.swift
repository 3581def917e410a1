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
        try db.withConnection { c in try OAuthGrants.insert(c, authorization) }
        return authorization
    }

    /// The requests still waiting for a decision, oldest first (the control API lists them).
    public func pendingOAuthAuthorizations(in tenant: String) throws -> [OAuthAuthorization] {
        try db.withConnection { c in try OAuthGrants.pending(c, tenant: tenant, at: clock.now) }
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
                try OAuthGrants.claim(c, tenant: tenant, id: id, userId: userId)
                let consented = try OAuthGrants.consentedScopes(c, tenant: tenant, userId: userId, clientId: authorization.clientId)
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
                try OAuthGrants.end(c, tenant: tenant, id: id, as: .denied)
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
        try db.withConnection { c in try OAuthGrants.find(c, tenant: tenant, id: id) }
    }

    /// The row, unless it is unknown or expired (an expired one still pending is marked so in the caller's
    /// transaction).
    private func liveAuthorization(_ c: borrowing Connection, tenant: String, id: String, now: Date) throws -> OAuthAuthorization {
        guard let authorization = try OAuthGrants.find(c, tenant: tenant, id: id) else { throw OAuthAuthorizationError.notFound }
        guard now <= authorization.expiresAt else {
            try OAuthGrants.end(c, tenant: tenant, id: id, as: .expired)
            throw OAuthAuthorizationError.notFound
        }
        return authorization
    }

    private func approve(_ c: borrowing Connection, _ pending: OAuthAuthorization, now: Date) throws -> OAuthAuthorization {
        var authorization = pending
        authorization.status = .approved
        authorization.approvedAt = now
        try OAuthGrants.markApproved(c, tenant: authorization.tenant, id: authorization.id, at: now)
        try OAuthGrants.consent(c, tenant: authorization.tenant, userId: authorization.userId ?? "", clientId: authorization.clientId,
                                scopes: authorization.scopes, at: now)
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
        try db.withConnection { c in try OAuthGrants.consents(c, tenant: tenant, userId: userId) }
    }

    /// Withdraws a user's consent for a client and ends every session that client holds for the user, so
    /// its refresh tokens stop working; false when there was no live consent.
    public func revokeOAuthConsent(in tenant: String, userId: String, clientId: String, origin: RequestOrigin = RequestOrigin()) throws -> Bool {
        let sessions: [String]? = try db.transaction { c in
            guard try OAuthGrants.revokeConsent(c, tenant: tenant, userId: userId, clientId: clientId, at: clock.now) else { return nil }
            return try Sessions.liveIDs(c, tenant: tenant, userId: userId, client: clientId)
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
}
