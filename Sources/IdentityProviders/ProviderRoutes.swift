import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Each provider's OAuth 2.0 / OpenID Connect endpoints under `/_emu/idp/{provider}`: discovery, JWKS,
/// the authorization page (an account picker), the token endpoint and `userinfo`.
extension FakeIdentityProviders {
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        addSAMLRoutes(to: router)
        let group = router.group("_emu/idp/:provider")
        group.get(".well-known/openid-configuration") { request, context in
            try self.answer { try self.discovery(try self.require(try context.parameters.require("provider")), baseURL: request.baseURL) }
        }
        group.get("jwks") { _, context in
            try self.answer {
                let key = try self.key(try self.require(try context.parameters.require("provider")))
                return .json(["keys": .array(JWKS(publishing: [key.verificationKey]).keys.map(Self.jwk))], headers: [.cacheControl: "max-age=3600"])
            }
        }
        group.get("authorize") { request, context in
            try self.page { try self.authorize(try self.require(try context.parameters.require("provider")), parameters: request.queryFields,
                                               baseURL: request.baseURL) }
        }
        group.post("authorize") { request, context in
            let form = try await request.formFields()
            return try self.page { try self.choose(try self.require(try context.parameters.require("provider")), form: form, baseURL: request.baseURL) }
        }
        group.post("token") { request, context in
            let form = try await request.formFields()
            return try self.answer { try self.token(try self.require(try context.parameters.require("provider")), request: request, form: form) }
        }
        group.get("userinfo") { request, context in
            try self.answer { try self.userInfo(try self.require(try context.parameters.require("provider")), request: request) }
        }
    }

    static func jwk(_ key: JWK) -> JSON {
        ["kty": .string(key.kty), "kid": .string(key.kid ?? ""), "use": "sig", "alg": .string(key.alg ?? "RS256"), "n": .string(key.n ?? ""),
         "e": .string(key.e ?? "")]
    }

    /// Provider errors as OAuth's JSON: 404 for an unknown provider, 401 for a bad token, else 400.
    func answer(_ body: () throws -> Response) throws -> Response {
        do { return try body() } catch let error as ProviderError {
            let (status, code): (HTTPResponse.Status, String) = switch error {
            case .notFound: (.notFound, "not_found")
            case .invalidRequest: (.badRequest, "invalid_request")
            case .invalidGrant: (.badRequest, "invalid_grant")
            case .invalidToken: (.unauthorized, "invalid_token")
            }
            return .json(["error": .string(code), "error_description": .string(error.description)], status: status, headers: [.cacheControl: "no-store"])
        }
    }

    /// Provider errors on the pages a person sees.
    func page(_ body: () throws -> Response) throws -> Response {
        do { return try body() } catch let error as ProviderError {
            if case .notFound = error { return AccountPicker(page: page).error(error.description, status: .notFound) }
            return AccountPicker(page: page).error(error.description, status: .badRequest)
        }
    }

    func discovery(_ provider: FakeProvider, baseURL: String) throws -> Response {
        let base = provider.baseURL(baseURL)
        return .json([
            "issuer": .string(provider.issuer(baseURL: baseURL)), "authorization_endpoint": .string("\(base)/authorize"),
            "token_endpoint": .string("\(base)/token"), "userinfo_endpoint": .string("\(base)/userinfo"), "jwks_uri": .string("\(base)/jwks"),
            "response_types_supported": ["code", "id_token", "code id_token"], "response_modes_supported": ["query", "fragment", "form_post"],
            "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile", "name"], "code_challenge_methods_supported": ["S256", "plain"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "claims_supported": ["sub", "iss", "aud", "email", "email_verified", "name", "given_name", "family_name", "picture", "nonce"],
        ])
    }

    // MARK: Authorization

    /// An authorization request: where to go back to and how.
    struct AuthorizationRequest {
        let parameters: [String: String]
        var clientId: String { parameters["client_id"] ?? "" }
        var redirectURI: String { parameters["redirect_uri"] ?? "" }
        var responseType: Set<Substring> { Set((parameters["response_type"] ?? "code").split(separator: " ")) }
        var responseMode: String { parameters["response_mode"] ?? (responseType.contains("id_token") ? "fragment" : "query") }
        var scope: String { parameters["scope"] ?? "openid" }

        /// The OAuth parameters the page carries from form to form.
        static let names = ["client_id", "redirect_uri", "response_type", "response_mode", "scope", "state", "nonce", "code_challenge",
                            "code_challenge_method", "login_hint", "prompt"]

        init(_ parameters: [String: String]) throws {
            self.parameters = parameters.filter { Self.names.contains($0.key) && !$0.value.isEmpty }
            guard !clientId.isEmpty else { throw ProviderError.invalidRequest("Missing required parameter: client_id") }
            guard let url = URLComponents(string: redirectURI), url.scheme != nil else {
                throw ProviderError.invalidRequest("Missing or invalid parameter: redirect_uri")
            }
            guard responseType.isSubset(of: ["code", "id_token"]), !responseType.isEmpty else {
                throw ProviderError.invalidRequest("Unsupported response_type \(parameters["response_type"] ?? "")")
            }
            guard ["query", "fragment", "form_post"].contains(responseMode) else { throw ProviderError.invalidRequest("Unsupported response_mode \(responseMode)") }
            if let method = parameters["code_challenge_method"], !["S256", "plain"].contains(method) {
                throw ProviderError.invalidRequest("Unsupported code_challenge_method \(method)")
            }
        }

        var challenge: PKCEChallenge? {
            parameters["code_challenge"].map { PKCEChallenge(challenge: $0, method: parameters["code_challenge_method"] == "S256" ? .s256 : .plain) }
        }
    }

    /// `GET …/authorize`: a choice queued through the control API, or `fauxth_account`/`fauxth_error` in
    /// the query, ends the flow at once; otherwise the account picker.
    func authorize(_ provider: FakeProvider, parameters: [String: String], baseURL: String) throws -> Response {
        let request = try AuthorizationRequest(parameters)
        if let choice = choices.pop(provider.id) {
            switch choice {
            case .account(let key): return try finish(provider, request: request, account: account(provider, named: key), baseURL: baseURL)
            case .error(let code): return try fail(provider, request: request, error: code)
            }
        }
        if let key = parameters["fauxth_account"] { return try finish(provider, request: request, account: account(provider, named: key), baseURL: baseURL) }
        if let code = parameters["fauxth_error"] { return try fail(provider, request: request, error: code) }
        return AccountPicker(page: page).render(provider, request: request, accounts: try emulator.identityProviderAccounts(provider.id))
    }

    /// `POST …/authorize`: what the person picked on the page.
    func choose(_ provider: FakeProvider, form: [String: String], baseURL: String) throws -> Response {
        let request = try AuthorizationRequest(form)
        if let error = form["error"], !error.isEmpty { return try fail(provider, request: request, error: error) }
        if let sub = form["account"], !sub.isEmpty {
            guard let account = try emulator.identityProviderAccount(provider.id, subOrEmail: sub) else {
                throw ProviderError.invalidRequest("No account \(sub) at \(provider.name)")
            }
            return try finish(provider, request: request, account: account, baseURL: baseURL)
        }
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        guard email.contains("@") else { throw ProviderError.invalidRequest("An email address is needed for a new account") }
        let account = try createAccount(provider.id, claims: provider.newAccountClaims(
            email: email, name: (form["name"] ?? "").trimmingCharacters(in: .whitespaces), emailVerified: form["email_verified"] != nil,
            privateEmail: form["private_email"] != nil, generator: emulator.generator))
        return try finish(provider, request: request, account: account, baseURL: baseURL)
    }

    /// Back to the client with a code (and an ID token when asked for), in the response mode asked for.
    func finish(_ provider: FakeProvider, request: AuthorizationRequest, account: IdentityProviderAccount, baseURL: String) throws -> Response {
        var parameters: [(String, String)] = []
        var code: String?
        if request.responseType.contains("code") {
            code = try issueCode(provider, account: account, clientId: request.clientId, redirectURI: request.redirectURI, scope: request.scope,
                                 nonce: request.parameters["nonce"], challenge: request.challenge)
            parameters.append(("code", code!))
        }
        if request.responseType.contains("id_token") {
            let tokens = try mint(provider, account: account, audience: request.clientId, nonce: request.parameters["nonce"], scope: request.scope,
                                  baseURL: baseURL, code: code)
            parameters.append(("id_token", tokens.idToken))
        }
        if let state = request.parameters["state"] { parameters.append(("state", state)) }
        let firstConsent = try emulator.recordIdentityProviderConsent(provider.id, sub: account.sub, clientId: request.clientId)
        if provider.kind == "apple", firstConsent, request.responseMode == "form_post" { parameters.append(("user", appleUser(account).serialized())) }
        emulator.record(.signInSucceeded, tenant: "idp:\(provider.id)", origin: RequestOrigin(), detail: [
            "method": "identity_provider", "provider": .string(provider.id), "sub": .string(account.sub), "client_id": .string(request.clientId),
        ])
        return try back(provider, request: request, parameters: parameters)
    }

    /// Back to the client with an OAuth error, as the button on the page or a queued choice asks.
    func fail(_ provider: FakeProvider, request: AuthorizationRequest, error: String) throws -> Response {
        let descriptions = ["access_denied": "The user cancelled the sign-in.", "server_error": "The provider had an internal error.",
                            "temporarily_unavailable": "The provider is temporarily unavailable."]
        var parameters = [("error", error), ("error_description", descriptions[error] ?? error)]
        if let state = request.parameters["state"] { parameters.append(("state", state)) }
        return try back(provider, request: request, parameters: parameters)
    }

    func back(_ provider: FakeProvider, request: AuthorizationRequest, parameters: [(String, String)]) throws -> Response {
        if request.responseMode == "form_post" {
            try emulator.captureIfAppLink(request.redirectURI + "?" + FormBody.encode(parameters), tenant: "idp:\(provider.id)", source: "idp")
            return AccountPicker(page: page).formPost(to: request.redirectURI, parameters: parameters)
        }
        let encoded = FormBody.encode(parameters)
        let location = request.responseMode == "fragment" ? request.redirectURI + "#" + encoded
            : request.redirectURI + (request.redirectURI.contains("?") ? "&" : "?") + encoded
        try emulator.captureIfAppLink(location, tenant: "idp:\(provider.id)", source: "idp")
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    // MARK: Token and userinfo

    /// `POST …/token`: `authorization_code` with the client's redirect URI and PKCE verifier. Any
    /// client secret is accepted (Apple's is a JWT the client signs; nothing here could check it).
    func token(_ provider: FakeProvider, request: Request, form: [String: String]) throws -> Response {
        guard form["grant_type"] == "authorization_code" else {
            return .json(["error": "unsupported_grant_type", "error_description": .string("grant_type \(form["grant_type"] ?? "") is not supported")],
                         status: .badRequest)
        }
        var clientId = form["client_id"]
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("basic "),
           let decoded = Data(base64Encoded: String(header.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) }) {
            clientId = decoded.split(separator: ":", maxSplits: 1).first.map { String($0).removingPercentEncoding ?? String($0) }
        }
        guard let clientId, !clientId.isEmpty, let code = form["code"], !code.isEmpty else {
            throw ProviderError.invalidRequest("client_id and code are required")
        }
        let tokens = try exchange(provider.id, code: code, clientId: clientId, redirectURI: form["redirect_uri"], verifier: form["code_verifier"],
                                  baseURL: request.baseURL)
        return .json(["access_token": .string(tokens.accessToken), "id_token": .string(tokens.idToken), "token_type": "Bearer",
                      "expires_in": .int(FakeProvider.tokenLifetime), "scope": tokens.claims["scope"] ?? "openid email profile"],
                     headers: [.cacheControl: "no-store"])
    }

    /// `GET …/userinfo` with the access token the token endpoint gave.
    func userInfo(_ provider: FakeProvider, request: Request) throws -> Response {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw ProviderError.invalidToken("Missing bearer token")
        }
        guard let claims = try? JWS.verify(String(header.dropFirst(7)), keys: [try key(provider).verificationKey]).claims,
              claims["token_use"] == "access", let sub = claims["sub"]?.stringValue,
              !emulator.clock.hasPassed(expiryOf: claims, required: true) else {
            throw ProviderError.invalidToken("Invalid or expired access token")
        }
        guard let account = try emulator.identityProviderAccount(provider.id, subOrEmail: sub) else { throw ProviderError.invalidToken("Unknown account") }
        return .json(.object(provider.userInfo(account)))
    }
}
