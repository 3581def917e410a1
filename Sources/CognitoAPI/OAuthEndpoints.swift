import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// The hosted UI's OAuth 2.0 endpoints for apps and their backends: `POST /oauth2/token`
/// (authorization_code with PKCE, refresh_token, client_credentials), `/oauth2/userInfo`,
/// `POST /oauth2/revoke` and `GET /logout`. Errors are OAuth's JSON (`{"error", "error_description"}`).
struct OAuthEndpoints: Sendable {
    let dialect: CognitoDialect
    var emulator: Emulator { dialect.emulator }
    var pools: CognitoPools { dialect.pools }

    /// An OAuth error answer.
    struct Failure: Error {
        var error: String
        var description: String
        var status: HTTPResponse.Status = .badRequest

        var response: Response {
            var headers: HTTPFields = [.cacheControl: "no-store"]
            if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer error=\"\(error)\", error_description=\"\(description)\"" }
            return .json(["error": .string(error), "error_description": .string(description)], status: status, headers: headers)
        }
    }

    /// The client a token or revoke request authenticates as: HTTP Basic (`client_secret_basic`) or
    /// `client_id`/`client_secret` in the form (`client_secret_post`). A client with a secret must give
    /// it.
    func client(_ request: Request, form: [String: String]) throws -> (CognitoPool, CognitoClient) {
        var id = form["client_id"], secret = form["client_secret"]
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic ") {
            guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                  let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else {
                throw Failure(error: "invalid_client", description: "Malformed Basic authorization.")
            }
            id = String(text[..<colon]).removingPercentEncoding ?? String(text[..<colon])
            secret = String(text[text.index(after: colon)...]).removingPercentEncoding
        }
        guard let id, !id.isEmpty, let (pool, client) = try? pools.pool(clientId: id) else {
            throw Failure(error: "invalid_client", description: "Client does not exist or cannot authenticate.")
        }
        if let expected = client.secret {
            guard let secret, constantTimeEquals(secret, expected) else { throw Failure(error: "invalid_client", description: "Client authentication failed.") }
        }
        return (pool, client)
    }

    func token(_ call: HostedUICall) async throws -> Response {
        let (request, origin) = (call.request, call.origin)
        do {
            guard request.hasFormBody else {
                throw Failure(error: "invalid_request", description: "The body must be application/x-www-form-urlencoded.")
            }
            let form = try call.form()
            let (pool, client) = try client(request, form: form)
            guard client.oauthEnabled else { throw Failure(error: "unauthorized_client", description: "The client is not allowed OAuth flows.") }
            let body: JSON
            switch form["grant_type"] {
            case "authorization_code"?: body = try exchange(form, pool: pool, client: client, baseURL: request.baseURL, origin: origin)
            case "refresh_token"?: body = try await refresh(form, pool: pool, client: client, baseURL: request.baseURL, origin: origin)
            case "client_credentials"?: body = try await clientCredentials(form, pool: pool, client: client, baseURL: request.baseURL, origin: origin)
            case nil: throw Failure(error: "invalid_request", description: "grant_type is required.")
            case let other?: throw Failure(error: "unsupported_grant_type", description: "grant_type \(other) is not supported.")
            }
            return .json(body, headers: [.cacheControl: "no-store", .pragma: "no-cache"])
        } catch let failure as Failure {
            return failure.response
        }
    }

    /// `authorization_code`: the code from the sign-in, for the same client and redirect URI, with the
    /// verifier of its PKCE challenge. One use; five minutes.
    private func exchange(_ form: [String: String], pool: CognitoPool, client: CognitoClient, baseURL: String, origin: RequestOrigin) throws -> JSON {
        guard client.oauthFlows.contains("code") else { throw Failure(error: "unauthorized_client", description: "The client is not allowed the code grant.") }
        guard let code = form["code"], !code.isEmpty, let redirectURI = form["redirect_uri"], !redirectURI.isEmpty else {
            throw Failure(error: "invalid_request", description: "code and redirect_uri are required.")
        }
        let grant: AuthorizationGrant
        do {
            grant = try emulator.redeemAuthorizationCode(in: pool.id, code: code, clientId: client.id, redirectURI: redirectURI, verifier: form["code_verifier"])
        } catch AuthError.invalidInput(field: "redirect_uri", _) {
            // The token endpoint's reference: "returns unauthorized_client with an error_description of invalid_redirect".
            throw Failure(error: "unauthorized_client", description: "invalid_redirect")
        } catch let error as AuthError {
            throw Failure(error: "invalid_grant", description: error == .badCodeVerifier ? "The code_verifier does not match the code_challenge." : "The code is invalid or expired.")
        }
        guard let user = try emulator.user(in: pool.id, id: grant.userId), (try? emulator.checkCanSignIn(user, origin: origin)) != nil else {
            throw Failure(error: "invalid_grant", description: "The user can no longer sign in.")
        }
        // The pre token generation function answered at sign-in (TokenGeneration_HostedAuth); its answer makes these tokens.
        let overrides = try grant.data["token_generation"]?.objectValue.map {
            try LambdaTriggers.overrides($0, version: grant.data["token_generation_version"]?.intValue ?? 1)
        }
        let (minted, refreshToken) = try CognitoTokens.issue(user, pool: pool, client: client, firstFactor: grant.data["first_factor"]?.stringValue ?? "password",
                                                             mfa: grant.data["mfa"]?.stringValue, scope: grant.scope, nonce: grant.nonce, oauth: true,
                                                             baseURL: baseURL, emulator: emulator, origin: origin, overrides: overrides)
        return tokenAnswer(minted, refreshToken: refreshToken)
    }

    private func refresh(_ form: [String: String], pool: CognitoPool, client: CognitoClient, baseURL: String,
                         origin: RequestOrigin) async throws -> JSON {
        guard let token = form["refresh_token"], !token.isEmpty else { throw Failure(error: "invalid_request", description: "refresh_token is required.") }
        do {
            // A rotating client's answer carries the new refresh token here too (the token endpoint's reference).
            let (user, session, rotated) = try CognitoTokens.refreshSession(token, pool: pool, client: client, emulator: emulator, origin: origin)
            let overrides = try await Auth.refreshOverrides(dialect.pools.triggers(pool, origin: origin), client: client, user: user, session: session,
                                                            clientMetadata: .null)
            return tokenAnswer(try CognitoTokens.mint(user: user, pool: pool, client: client, session: session, baseURL: baseURL, emulator: emulator,
                                                      overrides: overrides),
                               refreshToken: rotated)
        } catch let error as CognitoError {
            throw Failure(error: "invalid_grant", description: error.message)
        }
    }

    /// `client_credentials`: an access token for the client itself (`sub` is the client id), with the
    /// resource-server scopes it asked for, or all it is allowed.
    private func clientCredentials(_ form: [String: String], pool: CognitoPool, client: CognitoClient, baseURL: String,
                                   origin: RequestOrigin) async throws -> JSON {
        guard client.secret != nil, client.oauthFlows.contains("client_credentials") else {
            throw Failure(error: "unauthorized_client", description: "The client is not allowed the client_credentials grant.")
        }
        let allowed = client.oauthScopes.filter { $0.contains("/") }
        let requested = (form["scope"] ?? "").split(separator: " ").map(String.init)
        let scopes = requested.isEmpty ? allowed : requested
        guard !scopes.isEmpty, scopes.allSatisfy(allowed.contains) else {
            throw Failure(error: "invalid_scope", description: "The client is not allowed every scope asked for.")
        }
        // `aws_client_metadata`: a JSON object for the pre token generation function (V3_0), as Cognito takes it.
        var metadata: JSON = .null
        if let text = form["aws_client_metadata"], !text.isEmpty {
            guard let object = (try? JSON.parse(text: text))?.objectValue else {
                throw Failure(error: "invalid_request", description: "aws_client_metadata must be a JSON object.")
            }
            metadata = .object(object)
        }
        let overrides: LambdaTriggers.TokenOverrides?
        do {
            overrides = try await pools.triggers(pool, origin: origin).clientCredentialsOverrides(client: client, scopes: scopes, clientMetadata: metadata)
        } catch let error as CognitoError {
            throw Failure(error: "invalid_request", description: error.message)
        }
        let minted = try CognitoTokens.mintClientCredentials(pool: pool, client: client, scope: scopes.joined(separator: " "), baseURL: baseURL,
                                                              emulator: emulator, overrides: overrides)
        return tokenAnswer(minted, refreshToken: nil)
    }

    private func tokenAnswer(_ minted: CognitoTokens.Minted, refreshToken: String?) -> JSON {
        var body: [String: JSON] = ["access_token": .string(minted.accessToken), "expires_in": .int(minted.expiresIn), "token_type": "Bearer"]
        body["id_token"] = minted.idToken.map(JSON.string)
        body["refresh_token"] = refreshToken.map(JSON.string)
        return .object(body)
    }

    /// The user's attributes by the access token's scopes, as the user attributes endpoint's reference lists
    /// them: `openid` is required (the API's tokens, scoped `aws.cognito.signin.user.admin` only, are refused,
    /// and that scope adds nothing); `openid` alone gives every attribute the client can read, `email`,
    /// `phone` and `profile` their groups (custom attributes with `profile`); always within the client's
    /// `ReadAttributes`.
    func userInfo(_ request: Request) throws -> Response {
        do {
            guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
                throw Failure(error: "invalid_token", description: "Access token is missing", status: .unauthorized)
            }
            let (pool, user, claims): (CognitoPool, User, [String: JSON])
            do {
                (pool, user, claims) = try CognitoTokens.caller(String(header.dropFirst(7)), pools: pools, emulator: emulator, requireAdminScope: false)
            } catch is CognitoError {
                throw Failure(error: "invalid_token", description: Self.invalidTokenDescription, status: .unauthorized)
            }
            let scopes = Set((claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
            // The words Cognito answers (simov/grant #189); the status is RFC 6750's, AWS's is not documented.
            guard scopes.contains("openid") else {
                throw Failure(error: "insufficient_scope", description: "Access token does not contain openid scope", status: .forbidden)
            }
            let groups = scopes.intersection(["email", "phone", "profile"])
            let client = pool.client(claims["client_id"]?.stringValue ?? "")
            var info: [String: JSON] = ["sub": .string(user.id), "username": .string(CognitoUsers.username(user, pool: pool))]
            for attribute in CognitoUsers.attributes(user, only: client?.readAttributes) {
                guard let name = attribute["Name"]?.stringValue, let value = attribute["Value"] else { continue }
                let group = ["email", "email_verified"].contains(name) ? "email" : (["phone_number", "phone_number_verified"].contains(name) ? "phone" : "profile")
                if groups.isEmpty || groups.contains(group) { info[name] = value }
            }
            return .json(.object(info), headers: [.cacheControl: "no-store"])
        } catch let failure as Failure {
            return failure.response
        }
    }

    /// The user attributes endpoint's one description of a token it refuses, whatever the reason.
    static let invalidTokenDescription = "Access token is expired, disabled, or deleted, or the user has globally signed out."

    /// Revokes a refresh token's session (and so its access tokens). RFC 7009: an unknown token is no error.
    func revoke(_ call: HostedUICall) throws -> Response {
        let (request, origin) = (call.request, call.origin)
        do {
            let form = try call.form()
            guard let token = form["token"], !token.isEmpty else { throw Failure(error: "invalid_request", description: "token is required.") }
            let (pool, client): (CognitoPool, CognitoClient)
            do {
                (pool, client) = try self.client(request, form: form)
            } catch var failure as Failure {
                // The revocation endpoint answers a client it cannot authenticate with 401, where the token endpoint uses 400.
                failure.status = .unauthorized
                throw failure
            }
            do {
                try SignOut.revoke(token, pool: pool, client: client, secret: client.secret, emulator: emulator, origin: origin)
            } catch let error as CognitoError {
                switch error.kind {
                case .unsupportedTokenType: throw Failure(error: "unsupported_token_type", description: error.message)
                // The revocation endpoint's reference: a client without token revocation is invalid_request.
                case .unsupportedOperation: throw Failure(error: "invalid_request", description: error.message)
                default: throw Failure(error: "invalid_request", description: error.message)
                }
            }
            return Response(status: .ok, headers: [.cacheControl: "no-store"])
        } catch let failure as Failure {
            return failure.response
        }
    }

    /// Ends the browser's hosted-UI sign-in, then goes to `logout_uri` (one of the client's sign-out
    /// URLs) or, with `redirect_uri` and `response_type`, back to the sign-in page.
    func logout(_ request: Request) throws -> Response {
        let query = request.queryFields
        let ui = HostedUI(dialect: dialect)
        guard let clientId = query["client_id"], let (pool, client) = try? pools.pool(clientId: clientId) else {
            return dialect.pages.error("The request needs the client_id of an existing app client.")
        }
        let clear = "\(HostedUI.cookieName(pool))=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"
        if let logoutURI = query["logout_uri"], client.logoutURLs.contains(logoutURI) {
            return ui.redirect(to: logoutURI, pool: pool, userId: nil, cookies: [clear])
        }
        if query["redirect_uri"] != nil, query["response_type"] != nil {
            return ui.redirect(to: "/login?" + AuthorizeRequest(query).query, pool: pool, userId: nil, cookies: [clear])
        }
        // Cognito reads a logout_uri it does not list as no logout_uri, and then asks for the other form's
        // parameter in these words (amplify-js #1298, #2423); the rest says what Fauxth knows.
        let listed = client.logoutURLs.isEmpty ? "none" : client.logoutURLs.joined(separator: ", ")
        let reason = query["logout_uri"].map { "The logout_uri \($0) is not one of the sign-out URLs of app client \(clientId): \(listed)." }
            ?? "The request needs a logout_uri, or a redirect_uri and response_type to sign in again."
        return dialect.pages.error("Required String parameter 'redirect_uri' is not present. " + reason)
    }
}

extension HTTPField.Name {
    static let pragma = Self("Pragma")!
}
