import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `POST /oauth/token` (`oauthserver/handlers.go` `OAuthToken`, behind `requireOAuthClientAuth`): the
/// authorization code (with its PKCE verifier) and refresh grants, for an authenticated client.
enum OAuthServerToken {
    static func handle(_ call: Call) async throws -> Response {
        let project = try OAuthServer.project(call)
        let client = try OAuthClientAuthentication.client(call, project: project)
        let params = try parameters(call)
        let grant = params["grant_type"] ?? ""
        guard !grant.isEmpty else { throw OAuthServer.error("invalid_request", "grant_type is required") }
        guard client.grantTypes.contains(grant) else {
            throw OAuthServer.error("unsupported_grant_type", "Client is not allowed to use grant type: " + grant)
        }
        switch grant {
        case "authorization_code": return .json(try await exchangeCode(call, params, client: client, project: project))
        case "refresh_token": return .json(try await refresh(call, params, client: client, project: project))
        default: throw OAuthServer.error("unsupported_grant_type", "Unsupported grant type: " + grant)
        }
    }

    /// The code becomes a session of the client's own: its tokens carry `client_id` and `scope`, and only
    /// this client may refresh them. With `openid` in scope an ID token comes too.
    private static func exchangeCode(_ call: Call, _ params: [String: String], client: OAuthClient, project: SupabaseProject) async throws -> JSON {
        let emulator = call.emulator
        let code = params["code"] ?? "", verifier = params["code_verifier"] ?? ""
        guard !code.isEmpty else { throw OAuthServer.error("invalid_request", "code is required for authorization_code grant") }
        let grant: AuthorizationGrant
        do {
            let redirect = params["redirect_uri"].flatMap { $0.isEmpty ? nil : $0 }
            grant = try emulator.redeemAuthorizationCode(in: project.storeTenant, code: code, clientId: client.id, redirectURI: redirect,
                                                         verifier: verifier.isEmpty ? nil : verifier)
        } catch AuthError.codeExpired {
            throw OAuthServer.error("invalid_grant", "Authorization code has expired")
        } catch AuthError.badCodeVerifier {
            throw OAuthServer.error("invalid_grant", "PKCE verification failed: " + (verifier.isEmpty
                ? "code_verifier is required when PKCE challenge is present" : "code challenge does not match previously saved code verifier"))
        } catch AuthError.codeInvalid {
            throw OAuthServer.error("invalid_grant", "Invalid authorization code")
        } catch AuthError.invalidInput(let field, _) {
            // GoTrue's handlers.go words the two apart.
            throw OAuthServer.error("invalid_grant", field == "client_id" ? "Authorization code was not issued for this client" : "Invalid redirect_uri")
        }
        if let resource = params["resource"], !resource.isEmpty, resource != grant.data["resource"]?.stringValue {
            throw OAuthServer.error("invalid_grant", "Authorization code resource does not match the resource parameter")
        }
        guard let user = try emulator.user(in: project.storeTenant, id: grant.userId) else {
            throw OAuthServer.error("invalid_grant", "User not found for authorization code")
        }
        guard !user.isBanned(at: emulator.clock.now) else { throw OAuthServer.error("access_denied", "User is banned") }
        let issued = try emulator.startSession(for: user, method: OAuthServer.authenticationMethod, origin: call.origin,
                                               claims: ["client_id": .string(client.id), "scope": .string(grant.scope)],
                                               refreshToken: Emulator.goTrueRefreshToken)
        var body = try await tokenResponse(call, issued, user: issued.user ?? user, project: project)
        if OAuthScopes.parse(grant.scope).contains("openid") {
            body["id_token"] = .string(try IDToken.sign(for: issued.user ?? user, client: client, nonce: grant.nonce, scopes: OAuthScopes.parse(grant.scope),
                                                        issuer: OpenIDConfiguration.issuer(call, project: project), project: project, now: emulator.clock.now))
        }
        return .object(body)
    }

    /// Rotates a refresh token of this client's session, with the core's reuse detection; a token of
    /// another client's session, or of an ordinary sign-in, is refused before it is touched.
    private static func refresh(_ call: Call, _ params: [String: String], client: OAuthClient, project: SupabaseProject) async throws -> JSON {
        let token = params["refresh_token"] ?? ""
        guard !token.isEmpty else { throw OAuthServer.error("invalid_request", "refresh_token is required for refresh_token grant") }
        let (user, issued) = try call.emulator.refresh(in: project.storeTenant, token: token, policy: project.config.refreshPolicy, origin: call.origin,
                                                       admit: { try OAuthServer.admit($0, for: client) }, newToken: Emulator.goTrueRefreshToken)
        return .object(try await tokenResponse(call, issued, user: user, project: project))
    }

    /// The OAuth answer: the session's tokens without the user GoTrue's own `/token` adds.
    private static func tokenResponse(_ call: Call, _ issued: IssuedSession, user: User, project: SupabaseProject) async throws -> [String: JSON] {
        let factors = try issued.factors ?? call.emulator.factors(in: project.storeTenant, userId: user.id)
        let token = try await AccessToken(user: user, session: issued.session, factors: factors, config: project.config,
                                          now: call.emulator.clock.now) { claims in
            try await AuthHooks(emulator: call.emulator, project: project)
                .customizeClaims(claims, userId: user.id, method: OAuthServer.authenticationMethod, origin: call.origin)
        }
        return ["access_token": .string(token.jwt), "token_type": "bearer", "expires_in": .int(token.expiresIn),
                "refresh_token": .string(issued.refreshToken)]
    }

    /// The grant's parameters from a JSON body or a form (the query is not read, as GoTrue's `FormValue`
    /// reads it only for a form's missing fields); a JSON body GoTrue cannot decode is `invalid_request`.
    private static func parameters(_ call: Call) throws -> [String: String] {
        if OAuthClientAuthentication.isJSON(call) {
            let body: JSONBody
            do { body = try call.body() } catch { throw OAuthServer.error("invalid_request", "Invalid JSON body") }
            var params: [String: String] = [:]
            for key in ["grant_type", "code", "refresh_token", "redirect_uri", "code_verifier", "resource"] {
                do { params[key] = try body.string(key) } catch { throw OAuthServer.error("invalid_request", "Invalid JSON body") }
            }
            return params
        }
        return try OAuthClientAuthentication.form(call)
    }
}

/// GoTrue's `requireOAuthClientAuth` (`middleware.go`, `client_auth.go`): the client proves itself the
/// way it registered, `client_secret_basic` (HTTP Basic), `client_secret_post` (the body) or `none` (a
/// public client, which must send no secret). Secrets are compared in constant time on their hashes.
enum OAuthClientAuthentication {
    static func client(_ call: Call, project: SupabaseProject) throws -> OAuthClient {
        let (clientId, secret, method) = try credentials(call)
        guard let id = Validation.uuid(clientId) else { throw refused("Invalid client_id format") }
        guard let client = try call.emulator.oauthClient(in: project.storeTenant, id: id) else { throw refused("Invalid client credentials") }
        guard method == client.tokenEndpointAuthMethod else {
            throw refused("invalid authentication method: client is registered for '\(client.tokenEndpointAuthMethod)' but '\(method)' was used")
        }
        if client.isPublic {
            guard secret.isEmpty else { throw refused("public clients must not provide client_secret") }
        } else {
            guard !secret.isEmpty else { throw refused("confidential clients must provide client_secret") }
            guard client.isSecret(secret) else { throw refused("invalid client credentials") }
        }
        return client
    }

    /// `ExtractClientCredentials`: Basic first, else the JSON body or the form.
    private static func credentials(_ call: Call) throws -> (id: String, secret: String, method: String) {
        if let header = call.request.headers[.authorization], header.hasPrefix("Basic ") {
            guard let data = Data(base64Encoded: String(header.dropFirst(6))), let decoded = String(data: data, encoding: .utf8) else {
                throw refused("Invalid client credentials: invalid basic auth encoding")
            }
            guard let colon = decoded.firstIndex(of: ":") else { throw refused("Invalid client credentials: invalid basic auth format") }
            return (String(decoded[..<colon]), String(decoded[decoded.index(after: colon)...]), "client_secret_basic")
        }
        let id: String, secret: String
        if isJSON(call) {
            do {
                let body = try call.body()
                (id, secret) = (try body.string("client_id") ?? "", try body.string("client_secret") ?? "")
            } catch { throw refused("Invalid client credentials: failed to parse JSON body") }
        } else {
            let form = try form(call)
            (id, secret) = (form["client_id"] ?? "", form["client_secret"] ?? "")
        }
        guard !id.isEmpty else { throw refused("Invalid client credentials: client_id is required") }
        return (id, secret, secret.isEmpty ? "none" : "client_secret_post")
    }

    static func isJSON(_ call: Call) -> Bool { call.request.headers[.contentType]?.contains("application/json") == true }

    /// A form body as Go's `ParseForm` reads a POST: the body's fields, then the query's for names the body lacks.
    static func form(_ call: Call) throws -> [String: String] {
        let body = FormBody.decode(String(buffer: try call.received.raw()))
        return body.merging(call.request.queryFields) { fromBody, _ in fromBody }
    }

    private static func refused(_ message: String) -> SupabaseError {
        SupabaseError(status: .badRequest, code: .invalidCredentials, message: message)
    }
}

/// An OpenID Connect ID token as GoTrue's `GenerateIDToken` makes it: for the client, an hour long, its
/// claims chosen by the granted scopes. GoTrue refuses to sign one with an HS256 key (500).
enum IDToken {
    static func sign(for user: User, client: OAuthClient, nonce: String?, scopes: [String], issuer: String, project: SupabaseProject,
                     now: Date) throws -> String {
        guard project.config.signingKey.algorithm != .HS256 else {
            throw SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: "Error generating ID token")
        }
        let iat = Int(now.timeIntervalSince1970)
        var claims: [String: JSON] = [
            "iss": .string(issuer), "sub": .string(user.id), "aud": .string(client.id), "iat": .int(iat), "exp": .int(iat + 3600),
            "auth_time": .int(Int((user.lastSignInAt ?? now).timeIntervalSince1970)), "client_id": .string(client.id),
            "email_verified": false, "phone_number_verified": false,
        ]
        if let nonce, !nonce.isEmpty { claims["nonce"] = .string(nonce) }
        if scopes.contains("email") {
            if let email = user.email, !email.isEmpty { claims["email"] = .string(email) }
            claims["email_verified"] = .bool(user.emailVerifiedAt != nil)
        }
        if scopes.contains("phone") {
            let phone = GoTrueJSON.phone(user.phone)
            if !phone.isEmpty { claims["phone_number"] = .string(phone) }
            claims["phone_number_verified"] = .bool(user.phoneVerifiedAt != nil)
        }
        if scopes.contains("profile") { claims.merge(Profile.claims(of: user, withMetadata: false)) { $1 } }
        return try JWS.sign(claims, with: project.config.signingKey)
    }
}

/// The `profile` scope's claims, shared by the ID token and `/oauth/userinfo`.
enum Profile {
    static func claims(of user: User, withMetadata: Bool) -> [String: JSON] {
        let metadata = user.userMetadata
        func text(_ key: String) -> String? { metadata[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        var claims: [String: JSON] = [:]
        if let name = text("name") ?? user.email.flatMap({ $0.isEmpty ? nil : $0 }) { claims["name"] = .string(name) }
        if let picture = text("picture") ?? text("avatar_url") { claims["picture"] = .string(picture) }
        if let username = text("preferred_username") ?? text("username") { claims["preferred_username"] = .string(username) }
        if user.updatedAt.timeIntervalSince1970 > 0 { claims["updated_at"] = .int(Int(user.updatedAt.timeIntervalSince1970)) }
        if withMetadata { claims["user_metadata"] = .object(metadata) }
        return claims
    }
}
