import Foundation

/// What an OAuth authorization code stands for: who signed in, for which client and redirect, with what
/// scope, and the PKCE challenge the token request must answer.
public struct AuthorizationGrant: Sendable, Equatable {
    public var userId: String
    public var clientId: String
    public var redirectURI: String
    public var scope: String
    public var nonce: String?
    public var challenge: PKCEChallenge?
    /// The session the sign-in opened, if the issuer opened one already.
    public var sessionId: String?
    /// Anything else the issuer needs back (the provider, the first factor…).
    public var data: [String: JSON]

    public init(userId: String, clientId: String, redirectURI: String, scope: String, nonce: String? = nil,
                challenge: PKCEChallenge? = nil, sessionId: String? = nil, data: [String: JSON] = [:]) {
        self.userId = userId; self.clientId = clientId; self.redirectURI = redirectURI; self.scope = scope; self.nonce = nonce
        self.challenge = challenge; self.sessionId = sessionId; self.data = data
    }
}

extension Emulator {
    /// Issues a single-use authorization code for `grant`, valid for `lifetime` on the emulator clock;
    /// only its hash is stored.
    public func issueAuthorizationCode(in tenant: String, _ grant: AuthorizationGrant, lifetime: TimeInterval) throws -> String {
        let code = generator.string(43, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let now = clock.now
        try db.withConnection { c in
            try Flows.insertCode(c, tenant: tenant, hash: Self.codeHash(code), grant, at: now, expiresAt: now.addingTimeInterval(lifetime))
        }
        return code
    }

    /// Redeems a code once: it must be live, issued to `clientId` for `redirectURI`, and the verifier
    /// must answer its PKCE challenge (`badCodeVerifier`). An unknown or used code is `codeInvalid`, a
    /// late one `codeExpired`; another client's, or one sent with another redirect URI, is `invalidInput`
    /// naming `client_id` or `redirect_uri` (the vendors word these apart: Cognito's `invalid_redirect`,
    /// GoTrue's "Invalid redirect_uri"). Whatever the failure, the code cannot be tried again.
    public func redeemAuthorizationCode(in tenant: String, code: String, clientId: String, redirectURI: String?,
                                        verifier: String?) throws -> AuthorizationGrant {
        let now = clock.now
        let outcome: Result<AuthorizationGrant, AuthError> = try db.transaction { c in
            guard let (grant, expiresAt) = try Flows.useCode(c, tenant: tenant, hash: Self.codeHash(code), at: now) else {
                return .failure(.codeInvalid)
            }
            guard expiresAt > now else { return .failure(.codeExpired) }
            guard grant.clientId == clientId else { return .failure(.invalidInput(field: "client_id", reason: "The code was issued to another client.")) }
            guard redirectURI.map({ $0 == grant.redirectURI }) ?? true else {
                return .failure(.invalidInput(field: "redirect_uri", reason: "The code was issued for another redirect URI."))
            }
            if let challenge = grant.challenge {
                guard let verifier, challenge.isAnswered(by: verifier) else { return .failure(.badCodeVerifier) }
            }
            return .success(grant)
        }
        return try outcome.get()
    }
}
