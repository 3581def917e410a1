import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Cognito's hosted UI: `/oauth2/authorize` leads a browser to the sign-in page (`/login`, with sign-up,
/// confirmation and password reset pages beside it), and a completed sign-in goes back to the app's
/// callback URL with a code (or, for the implicit flow, the tokens). The pool is found from the client
/// id, so every pool's hosted UI shares one server. A signed-in browser keeps a session cookie for an
/// hour, so a second `/oauth2/authorize` goes straight back to the app, as Cognito's does.
struct HostedUI: Sendable {
    let dialect: CognitoDialect
    var emulator: Emulator { dialect.emulator }
    var pools: CognitoPools { dialect.pools }
    var pages: LoginPages { dialect.pages }

    /// How long a hosted-UI sign-in cookie and an authorization code last.
    static let cookieLifetime: TimeInterval = 3600
    static let codeLifetime: TimeInterval = 300

    /// A hosted-UI route: its method and path, the canonical operation name fault rules match (`cognito:`
    /// and this; README lists them), and its handler.
    typealias Route = (method: HTTPRequest.Method, path: String, operation: String, handle: @Sendable (HostedUI, HostedUICall) async throws -> Response)

    /// The hosted UI's endpoints, for people (the sign-in pages) and for apps (`OAuthEndpoints`).
    static let routes: [Route] = [
        (.get, "oauth2/authorize", "oauth2.authorize", { try await $0.authorize($1.request, origin: $1.origin) }),
        (.post, "oauth2/token", "oauth2.token", { try await $0.oauth.token($1) }),
        (.get, "oauth2/userInfo", "oauth2.userInfo.get", { try $0.oauth.userInfo($1.request) }),
        (.post, "oauth2/userInfo", "oauth2.userInfo.post", { try $0.oauth.userInfo($1.request) }),
        (.post, "oauth2/revoke", "oauth2.revoke", { try $0.oauth.revoke($1) }),
        (.get, "oauth2/idpresponse", "oauth2.idpresponse.get", { try await $0.idpResponse($1) }),
        (.post, "oauth2/idpresponse", "oauth2.idpresponse.post", { try await $0.idpResponse($1) }),
        (.post, "saml2/idpresponse", "saml2.idpresponse", { try await $0.samlResponse($1) }),
        (.get, "logout", "logout", { try $0.oauth.logout($1.request) }),
        (.get, "error", "error", { ui, call in ui.errorPage(call.request) }),
        (.get, "login", "login.get", { try $0.show(.login, $1.request) }),
        (.post, "login", "login.post", { ui, call in try await ui.answering { try await ui.login(call) } }),
        (.get, "signup", "signup.get", { try $0.show(.signup, $1.request) }),
        (.post, "signup", "signup.post", { ui, call in try await ui.answering { try await ui.signUp(call) } }),
        (.get, "confirm", "confirm.get", { try $0.show(.confirm, $1.request) }),
        (.post, "confirm", "confirm.post", { ui, call in try await ui.answering { try await ui.confirm(call) } }),
        (.post, "resendcode", "resendcode", { ui, call in try await ui.answering { try await ui.resendCode(call) } }),
        (.get, "forgotPassword", "forgotPassword.get", { try $0.show(.forgot, $1.request) }),
        (.post, "forgotPassword", "forgotPassword.post", { ui, call in try await ui.answering { try await ui.forgotPassword(call) } }),
        (.post, "confirmForgotPassword", "confirmForgotPassword", { ui, call in try await ui.answering { try await ui.confirmForgotPassword(call) } }),
        (.get, "passkeys/add", "passkeys.add.get", { ui, call in try await ui.answering { try ui.addPasskeyPage(call) } }),
        (.post, "passkeys/add", "passkeys.add.post", { ui, call in try await ui.answering { try ui.addPasskey(call) } }),
    ]

    var oauth: OAuthEndpoints { OAuthEndpoints(dialect: dialect) }

    /// Mounts the routes. Each reads its form once (a POST's), asks the fault rules about its operation,
    /// then runs its handler; `pool` is the pool a pool's own domain serves, nil on the shared one.
    func addRoutes<Context: RequestContext>(to router: Router<Context>, pool: String?) {
        for route in Self.routes {
            router.on(RouterPath(route.path), method: route.method) { request, context in
                let call = await HostedUICall.read(request, origin: request.origin(context))
                return try await FaultRunner(emulator: emulator).respond(
                    to: request, context: context, target: { dialect.faultTarget(hostedUI: route.operation, call, pool: pool) },
                    renderError: { dialect.faultResponse($0, message: $1, retryAfter: $2, hostedUI: true) }
                ) { try await route.handle(self, call) }
            }
        }
    }

    // MARK: The authorization request

    /// An `/oauth2/authorize` request checked against its client.
    struct Authorization {
        let pool: CognitoPool
        let client: CognitoClient
        let request: AuthorizeRequest
        let redirectURI: String
        let scopes: [String]
        let implicit: Bool
        let challenge: PKCEChallenge?
        let baseURL: String
        /// The pool identity provider to sign in with instead of the pool's own users.
        let identityProvider: String?
    }

    /// Why an authorization request cannot go on: a page for the person when the redirect URI cannot
    /// be trusted, else an OAuth error sent back to the app.
    enum Refusal: Error {
        case page(String)
        case redirect(String)
    }

    func validate(_ oauth: AuthorizeRequest, baseURL: String) throws -> Authorization {
        guard let clientId = oauth["client_id"] else { throw Refusal.page("The request has no client_id.") }
        guard let (pool, client) = try? pools.pool(clientId: clientId) else { throw Refusal.page("The app client \(clientId) does not exist.") }
        guard let redirectURI = oauth["redirect_uri"] else { throw Refusal.page("The request has no redirect_uri.") }
        // Cognito sends the browser to its own error page here, never to the unlisted URI.
        guard client.callbackURLs.contains(redirectURI) else {
            throw Refusal.redirect("/error?" + FormBody.encode([("error", "redirect_mismatch"), ("client_id", clientId)]))
        }
        guard pool.domain != nil else {
            throw Refusal.page("User pool \(pool.id) has no domain. The hosted UI needs one: create it with CreateUserPoolDomain.")
        }
        let implicit = oauth["response_type"] == "token"
        func refuse(_ error: String, _ description: String) -> Refusal {
            var parameters = [("error", error), ("error_description", description)]
            if let state = oauth["state"] { parameters.append(("state", state)) }
            return .redirect(Self.redirect(redirectURI, parameters, fragment: implicit))
        }
        // A missing response_type is a missing parameter (the authorization endpoint's negative responses); another value unsupported.
        guard let responseType = oauth["response_type"] else { throw refuse("invalid_request", "response_type is required") }
        guard responseType == "code" || implicit else { throw refuse("unsupported_response_type", "response_type must be code or token") }
        guard client.oauthEnabled, client.oauthFlows.contains(implicit ? "implicit" : "code") else {
            throw refuse("unauthorized_client", "The client is not allowed the \(implicit ? "implicit" : "code") grant.")
        }
        let requested = (oauth["scope"] ?? "").split(separator: " ").map(String.init)
        let scopes = requested.isEmpty ? client.oauthScopes : requested
        guard !scopes.isEmpty, scopes.allSatisfy(client.oauthScopes.contains) else { throw refuse("invalid_scope", "The client is not allowed every scope asked for.") }
        guard scopes.contains("openid") || !scopes.contains(where: { ["email", "phone", "profile"].contains($0) }) else {
            throw refuse("invalid_scope", "The email, phone and profile scopes need the openid scope.")
        }
        var challenge: PKCEChallenge?
        if !implicit, let value = oauth["code_challenge"] {
            // Cognito supports only S256 (not RFC 7636's plain, nor its default of plain when no method is given).
            guard oauth["code_challenge_method"] == "S256" else { throw refuse("invalid_request", "code_challenge_method must be S256.") }
            challenge = PKCEChallenge(challenge: value, method: .s256)
        } else if !implicit, oauth["code_challenge_method"] != nil {
            throw refuse("invalid_request", "code_challenge_method needs a code_challenge.")
        }
        let providers = client.identityProviders
        var federated: String?
        if let named = oauth["identity_provider"] ?? oauth["idp_identifier"], named != "COGNITO" {
            let provider = identityProvider(named: named, pool: pool)?["ProviderName"]?.stringValue ?? named
            guard providers.contains(provider) else { throw refuse("invalid_request", "The identity provider \(named) is not enabled for the client.") }
            federated = provider
        } else if !providers.isEmpty, !providers.contains("COGNITO") {
            // A client that only federates: with one provider the hosted UI goes straight to it.
            guard providers.count == 1 else { throw refuse("invalid_request", "Login option is not available. Please try another one") }
            federated = providers[0]
        }
        return Authorization(pool: pool, client: client, request: oauth, redirectURI: redirectURI, scopes: scopes, implicit: implicit,
                             challenge: challenge, baseURL: baseURL, identityProvider: federated)
    }

    func render(_ refusal: Refusal) -> Response {
        switch refusal {
        case .page(let message): pages.error(message)
        case .redirect(let location): redirect(to: location, pool: nil, userId: nil)
        }
    }

    /// `/error`, where Cognito sends a browser whose request it cannot send back to the app. Cognito's page
    /// says only "An error was encountered with the requested page."; this one also says what the error
    /// means, with the client's allowed URLs, since that is what a developer who lands here needs.
    func errorPage(_ request: Request) -> Response {
        let query = request.queryFields
        var message = "An error was encountered with the requested page."
        if let error = query["error"] {
            message += " (\(error))"
            if error == "redirect_mismatch", let clientId = query["client_id"], let (_, client) = try? pools.pool(clientId: clientId) {
                let listed = client.callbackURLs.isEmpty ? "none" : client.callbackURLs.joined(separator: ", ")
                message += " The redirect_uri is not one of the callback URLs of app client \(clientId): \(listed)."
            }
        }
        return pages.error(message)
    }

    /// `/oauth2/authorize`: straight back to the app for a browser signed in to the pool, else the sign-in page.
    func authorize(_ request: Request, origin: RequestOrigin) async throws -> Response {
        let oauth = AuthorizeRequest(request.queryFields)
        do {
            let authorization = try validate(oauth, baseURL: request.baseURL)
            if oauth["prompt"] != "login", let (user, firstFactor) = try signedIn(request, pool: authorization.pool) {
                do {
                    return try await complete(user, firstFactor: firstFactor, mfa: nil, authorization, origin: origin)
                } catch let error as CognitoError {
                    return pages.error(error.message)
                }
            }
            if let provider = authorization.identityProvider { return try startFederation(authorization, providerName: provider) }
            return Response(status: .found, headers: [.location: "/login?" + oauth.query])
        } catch let refusal as Refusal {
            return render(refusal)
        }
    }

    /// The user of the browser's hosted-UI cookie for `pool`, if it is live and the user may still sign in.
    func signedIn(_ request: Request, pool: CognitoPool) throws -> (User, String)? {
        guard let value = request.cookies[Self.cookieName(pool)]?.value,
              let session = try? ChallengeSession.open(value, clientId: nil, emulator: emulator, replays: pools.replays),
              session.challenge == "HOSTED_UI", session.poolId == pool.id,
              let user = try emulator.user(in: pool.id, id: session.userId), CognitoUsers.status(user) == "CONFIRMED",
              (try? emulator.checkCanSignIn(user, stage: .token)) != nil else { return nil }
        return (user, session.firstFactor)
    }

    static func cookieName(_ pool: CognitoPool) -> String { "cognito-\(pool.id)" }

    /// Back to the app: a code (or tokens) on the callback URL, and the browser's sign-in cookie.
    ///
    /// The sign-in's triggers run here, as for `InitiateAuth`: `PreTokenGeneration` (`TokenGeneration_HostedAuth`,
    /// its answer kept with a code for the tokens the code is exchanged for) and `PostAuthentication`.
    func complete(_ user: User, firstFactor: String, mfa: String?, _ authorization: Authorization, origin: RequestOrigin) async throws -> Response {
        let a = authorization
        let triggers = pools.triggers(a.pool, origin: origin)
        let generated = try await triggers.tokenGeneration(source: "TokenGeneration_HostedAuth", user: user, clientId: a.client.id, scopes: a.scopes,
                                                           clientMetadata: .null)
        try await triggers.postAuthentication(user: user, clientId: a.client.id, clientMetadata: .null)
        var parameters: [(String, String)]
        if a.implicit {
            let overrides = try generated.map { try LambdaTriggers.overrides($0, version: triggers.tokenGenerationVersion) }
            let (minted, _) = try CognitoTokens.issue(user, pool: a.pool, client: a.client, firstFactor: firstFactor, mfa: mfa,
                                                      scope: a.scopes.joined(separator: " "), nonce: a.request["nonce"], oauth: true, baseURL: a.baseURL,
                                                      emulator: emulator, origin: origin, overrides: overrides)
            parameters = [("access_token", minted.accessToken)] + (minted.idToken.map { [("id_token", $0)] } ?? [])
                + [("token_type", "Bearer"), ("expires_in", String(minted.expiresIn))]
        } else {
            let grant = AuthorizationGrant(userId: user.id, clientId: a.client.id, redirectURI: a.redirectURI, scope: a.scopes.joined(separator: " "),
                                           nonce: a.request["nonce"], challenge: a.challenge,
                                           data: ["first_factor": .string(firstFactor), "mfa": mfa.map(JSON.string) ?? .null,
                                                  "token_generation": generated.map(JSON.object) ?? .null,
                                                  "token_generation_version": .int(triggers.tokenGenerationVersion)])
            parameters = [("code", try emulator.issueAuthorizationCode(in: a.pool.id, grant, lifetime: Self.codeLifetime))]
        }
        if let state = a.request["state"] { parameters.append(("state", state)) }
        let cookie = ChallengeSession(poolId: a.pool.id, clientId: a.client.id, userId: user.id, challenge: "HOSTED_UI", firstFactor: firstFactor,
                                      lifetime: Self.cookieLifetime, emulator: emulator)
        return redirect(to: Self.redirect(a.redirectURI, parameters, fragment: a.implicit), pool: a.pool, userId: user.id,
                        cookies: ["\(Self.cookieName(a.pool))=\(try cookie.sealed(emulator)); Path=/; Max-Age=\(Int(Self.cookieLifetime)); HttpOnly; SameSite=Lax"])
    }

    /// A 302; a location on an app's own scheme is also captured as the deep link the app would get.
    func redirect(to location: String, pool: CognitoPool?, userId: String?, cookies: [String] = []) -> Response {
        _ = try? emulator.captureIfAppLink(location, tenant: pool?.id ?? "", source: "cognito-hosted-ui", userId: userId)
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        for cookie in cookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: .found, headers: headers)
    }

    /// `base` with `parameters` added to its query, or as its fragment.
    static func redirect(_ base: String, _ parameters: [(String, String)], fragment: Bool) -> String {
        let encoded = FormBody.encode(parameters)
        if fragment { return base + "#" + encoded }
        return base + (base.contains("?") ? "&" : "?") + encoded
    }

    // MARK: Pages

    /// A page of the sign-in, with what every page of this client's shows.
    func content(_ kind: LoginPages.Kind, _ a: Authorization, csrf: String) -> LoginPages.Content {
        let headings: [LoginPages.Kind: String] = [.login: "Sign in", .signup: "Sign up", .confirm: "Confirm your account",
                                                   .forgot: "Forgot your password?", .reset: "Reset your password", .challenge: "Sign in"]
        var content = LoginPages.Content(kind: kind, heading: headings[kind] ?? "Sign in", request: a.request, csrf: csrf)
        content.appName = a.client.fields["ClientName"]?.stringValue ?? "Sign in"
        content.usernameLabel = a.pool.usernameAttributes == ["email"] ? "Email" : (a.pool.usernameAttributes.isEmpty ? "Username" : "Email or phone number")
        content.signUpAllowed = !a.pool.adminCreateUserOnly
        content.passkeySignIn = a.pool.allowedFirstAuthFactors.contains("WEB_AUTHN") && a.pool.relyingParty != nil
        content.asksEmail = a.pool.usernameAttributes.isEmpty
        // The client's other identity providers, each a link that starts its sign-in.
        content.federation = a.client.identityProviders.filter { $0 != "COGNITO" }.map { name in
            var parameters = a.request.fields.filter { $0.0 != "identity_provider" && $0.0 != "idp_identifier" }
            parameters.append(("identity_provider", name))
            return (name, "/oauth2/authorize?" + FormBody.encode(parameters))
        }
        return content
    }

    /// The same page with a fresh CSRF cookie when the browser has none.
    func page(_ content: LoginPages.Content, csrf: CSRF, status: HTTPResponse.Status = .ok) -> Response {
        pages.render(content, status: status, cookies: csrf.cookie.map { [$0] } ?? [])
    }

    /// `GET /login`, `/signup`, `/confirm` and `/forgotPassword`.
    func show(_ kind: LoginPages.Kind, _ request: Request) throws -> Response {
        let query = request.queryFields
        do {
            let authorization = try validate(AuthorizeRequest(query), baseURL: request.baseURL)
            if kind == .signup, authorization.pool.adminCreateUserOnly {
                return pages.error("Sign-up is not allowed for this user pool: an administrator creates the accounts.", status: .forbidden)
            }
            let csrf = CSRF(request, generator: emulator.generator)
            var content = self.content(kind, authorization, csrf: csrf.token)
            content.username = query["username"] ?? ""
            return page(content, csrf: csrf)
        } catch let refusal as Refusal {
            return render(refusal)
        }
    }

    /// A response decided before a form handler gets to act (a refused request, a stale form).
    struct Answered: Error {
        let response: Response
    }

    /// Runs a form handler, answering with the response it settled on early if it did.
    func answering(_ handler: () async throws -> Response) async throws -> Response {
        do { return try await handler() } catch let answered as Answered { return answered.response }
    }

    /// A posted form of the hosted UI: its fields, its checked authorization request, and a CSRF token
    /// that matched the browser's cookie; else `Answered`.
    func posted(_ call: HostedUICall) throws -> (form: [String: String], authorization: Authorization, csrf: CSRF) {
        let form = try call.form()
        do {
            let authorization = try validate(AuthorizeRequest(form), baseURL: call.request.baseURL)
            let csrf = CSRF(call.request, generator: emulator.generator)
            guard csrf.matches(form["_csrf"]) else {
                var content = self.content(.login, authorization, csrf: csrf.token)
                content.alert = "This page expired. Please sign in again."
                throw Answered(response: page(content, csrf: csrf, status: .forbidden))
            }
            return (form, authorization, csrf)
        } catch let refusal as Refusal {
            throw Answered(response: render(refusal))
        }
    }
}

/// The double-submit CSRF check of the hosted UI's forms: a random token in a cookie, which each form
/// posts back in `_csrf`.
struct CSRF {
    static let cookieName = "XSRF-TOKEN"
    let token: String
    /// The `Set-Cookie` value when the browser had no token yet.
    let cookie: String?
    private let existing: String?

    init(_ request: Request, generator: Generator) {
        existing = (request.cookies[Self.cookieName]?.value).flatMap { $0.count >= 32 ? $0 : nil }
        if let existing {
            token = existing
            cookie = nil
        } else {
            token = generator.string(43, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            cookie = "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Lax"
        }
    }

    func matches(_ posted: String?) -> Bool {
        guard let existing, let posted, !posted.isEmpty else { return false }
        return constantTimeEquals(existing, posted)
    }
}
