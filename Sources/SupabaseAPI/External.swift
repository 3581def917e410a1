import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders
import NIOCore

/// `GET /authorize` and `/callback` (`internal/api/external.go`): the OAuth round trip with an external
/// provider. `/authorize` answers 302 to the provider with a signed `state`; `/callback` checks that
/// state and, like GoTrue, reports every failure by redirecting back to the app with `error`,
/// `error_code` and `error_description` in the query and the fragment.
///
/// A provider Fauxth fakes (Google, Apple, or a declared OIDC provider with the same name) is served by
/// the fake identity provider on this server, unless `GOTRUE_EXTERNAL_<NAME>_URL` points elsewhere: its
/// code is exchanged in process and the sign-in completes as GoTrue's does. A real provider cannot be
/// reached offline, so a callback for one ends the way GoTrue ends when the code exchange fails.
enum External {
    static func authorize(_ call: Call) throws -> Response {
        Response(status: .found, headers: [.location: try providerURL(call, project: try call.project(), linkingTarget: nil)])
    }

    /// The provider's authorize URL for this request; `linkingTarget` is the user that manual linking adds
    /// the identity to.
    static func providerURL(_ call: Call, project: SupabaseProject, linkingTarget: String?) throws -> String {
        let query = call.request.uri.queryParameters
        let name = (query.get("provider") ?? "").lowercased()
        let provider = try project.config.externalProvider(name)
        let challenge = try PKCE.challenge(challenge: query.get("code_challenge") ?? "", method: query.get("code_challenge_method") ?? "")
        let referrer = Redirects.target(for: call.request, project: project, emulator: call.emulator)
        let now = Int(call.emulator.clock.now.timeIntervalSince1970)
        var claims: [String: JSON] = ["exp": .int(now + 300), "site_url": .string(project.config.siteURL), "provider": .string(name),
                                      "referrer": .string(referrer)]
        claims["linking_target_id"] = linkingTarget.map(JSON.string)
        claims["code_challenge"] = challenge.map { .string($0.challenge) }
        claims["code_challenge_method"] = challenge.map { .string($0.method.rawValue) }
        let state = try JWS.sign(claims, with: project.config.signingKey)
        var items = [URLQueryItem(name: "client_id", value: provider.clientID),
                     URLQueryItem(name: "redirect_uri", value: callbackURL(call, provider: provider, project: project)),
                     URLQueryItem(name: "response_type", value: "code"),
                     URLQueryItem(name: "scope", value: [provider.defaultScopes, query.get("scopes") ?? ""].filter { !$0.isEmpty }.joined(separator: " ")),
                     URLQueryItem(name: "state", value: state)]
        // Apple answers by form_post, as GoTrue's Apple provider asks it to.
        if name == "apple" { items.append(URLQueryItem(name: "response_mode", value: "form_post")) }
        // Other parameters pass through to the provider; GoTrue strips its own and the reserved OAuth ones.
        let reserved: Set = ["provider", "scopes", "redirect_to", "code_challenge", "code_challenge_method", "client_id", "redirect_uri",
                             "response_type", "scope", "state"]
        items += query.filter { !reserved.contains(String($0.key)) }.map { URLQueryItem(name: String($0.key), value: String($0.value)) }
        let authorizeURL = try fakeProvider(call, provider: provider).map { "\($0.baseURL(call.request.baseURL))/authorize" } ?? provider.authorizeURL
        var components = URLComponents(string: authorizeURL) ?? URLComponents()
        components.queryItems = (components.queryItems ?? []) + items
        return components.string ?? authorizeURL
    }

    /// The fake provider standing in for `provider`: one with its name, unless the project points the
    /// provider at a URL of its own.
    static func fakeProvider(_ call: Call, provider: ExternalProvider) throws -> FakeProvider? {
        guard !provider.hasCustomURL, let providers = call.identityProviders else { return nil }
        return try providers.provider(provider.name)
    }

    /// Where the provider sends the browser back: `GOTRUE_EXTERNAL_<NAME>_REDIRECT_URI`, else this server's `/callback`.
    static func callbackURL(_ call: Call, provider: ExternalProvider, project: SupabaseProject) -> String {
        provider.redirectURI.isEmpty ? call.mailer(project).externalURL + "/callback" : provider.redirectURI
    }

    /// `GET|POST /callback`: a missing or forged `state` is a JSON error (GoTrue checks it before it knows
    /// where to redirect); everything after that redirects to the app.
    static func callback(_ call: Call) async throws -> Response {
        let project = try call.project()
        let params = try callbackParameters(call)
        guard let state = params["state"], !state.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .badOAuthCallback, message: "OAuth state parameter missing")
        }
        let claims = try verifiedState(state, project: project, clock: call.emulator.clock)
        let referrer = claims["referrer"]?.stringValue ?? project.config.siteURL
        let failure: (error: String, code: String?, description: String)
        if let error = params["error"], !error.isEmpty {
            failure = (error, nil, params["error_description"] ?? "")
        } else if (params["code"] ?? "").isEmpty {
            failure = ("invalid_request", SupabaseError.Code.badOAuthCallback.rawValue, "OAuth callback with missing authorization code missing")
        } else if let name = claims["provider"]?.stringValue, let provider = project.config.externalProviders[name],
                  let fake = try fakeProvider(call, provider: provider), let providers = call.identityProviders {
            do {
                let tokens = try providers.exchange(fake.id, code: params["code"] ?? "", clientId: provider.clientID,
                                                    redirectURI: callbackURL(call, provider: provider, project: project), verifier: nil,
                                                    baseURL: call.request.baseURL)
                // Apple sends the name in the `user` form field of the first sign-in only.
                let account = FakeIdentityProviders.addingAppleUser(params["user"], to: tokens.claims)
                let user = try await OAuthSignIn.user(for: account, provider: name, project: project, emulator: call.emulator, origin: call.origin,
                                                linkingTarget: claims["linking_target_id"]?.stringValue, mailer: call.mailer(project))
                return try await signedIn(call, user: user, providerToken: tokens.accessToken, state: claims, referrer: referrer, project: project)
            } catch let error as ProviderError {
                failure = ("server_error", nil, "Unable to exchange external code: \(error)")
            } catch let error as SupabaseError {
                failure = (Self.oauthError(error), error.code.rawValue, error.message)
            }
        } else {
            call.emulator.record(.signInFailed, tenant: project.storeTenant, origin: call.origin, detail: [
                "method": "oauth", "provider": claims["provider"] ?? .null,
                "reason": "the provider's token endpoint cannot be reached from the emulator",
            ])
            failure = ("server_error", nil, "Unable to exchange external code: \(params["code"] ?? "")")
        }
        var pairs = [("error", failure.error), ("error_description", failure.description)]
        if let code = failure.code { pairs.append(("error_code", code)) }
        pairs.sort { $0.0 < $1.0 }
        let encoded = Verify.formEncode(pairs)
        return try redirect(call, to: referrer + (referrer.contains("?") ? "&" : "?") + encoded + "#" + encoded, project: project, userId: nil)
    }

    /// Back to the app signed in: `?code=` for a PKCE flow (exchanged with `grant_type=pkce`, which hands
    /// over the provider's token too), else the session in the fragment, as GoTrue writes it.
    private static func signedIn(_ call: Call, user: User, providerToken: String, state: [String: JSON], referrer: String,
                                 project: SupabaseProject) async throws -> Response {
        if let challenge = state["code_challenge"]?.stringValue,
           let method = (state["code_challenge_method"]?.stringValue).flatMap({ PKCEChallenge.Method(rawValue: $0) }) {
            try call.emulator.startFlow(in: project.storeTenant, userId: user.id, challenge: PKCEChallenge(challenge: challenge, method: method),
                                        authenticationMethod: "oauth", providerToken: providerToken)
            let code = try call.emulator.issueAuthCode(in: project.storeTenant, userId: user.id, authenticationMethod: "oauth") ?? ""
            return try redirect(call, to: referrer + (referrer.contains("?") ? "&" : "?") + Verify.formEncode([("code", code)]), project: project,
                                userId: user.id)
        }
        let session = try await call.emulator.goTrueSession(for: user, method: "oauth", project: project, origin: call.origin)
        let pairs = (session.fragment + [("provider_token", providerToken), ("sb", "")]).sorted { $0.0 < $1.0 }
        return try redirect(call, to: referrer + "#" + Verify.formEncode(pairs), project: project, userId: user.id)
    }

    private static func redirect(_ call: Call, to location: String, project: SupabaseProject, userId: String?) throws -> Response {
        try call.emulator.captureIfAppLink(location, tenant: project.storeTenant, source: "callback", userId: userId)
        return Response(status: .found, headers: [.location: location])
    }

    /// The query, or for a POST (Apple's `form_post`) the form body, as one dictionary, decoded as Go's
    /// `url.ParseQuery` does (`+` is a space).
    private static func callbackParameters(_ call: Call) throws -> [String: String] {
        var encoded = [call.request.uri.query ?? ""]
        if call.request.method == .post { encoded.append(String(buffer: try call.received.raw())) }
        var params: [String: String] = [:]
        for text in encoded {
            for item in URLComponents(string: "x:?" + text.replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? [] {
                params[item.name] = item.value ?? ""
            }
        }
        return params
    }

    private static func verifiedState(_ state: String, project: SupabaseProject, clock: EmulatorClock) throws -> [String: JSON] {
        let invalid = SupabaseError(status: .badRequest, code: .badOAuthState, message: "OAuth callback with invalid state")
        guard let claims = try? JWS.verify(state, keys: project.config.verificationKeys).claims else { throw invalid }
        if clock.hasPassed(expiryOf: claims) { throw invalid }
        guard let provider = claims["provider"]?.stringValue, !provider.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .badOAuthState, message: "OAuth callback with invalid state (missing provider)")
        }
        return claims
    }

    /// The `error` a failed callback redirects with (GoTrue's `getErrorQueryString` and `oauthErrorMap`): refusals of
    /// the person are `access_denied`, others go by their status, `server_error` when it has no OAuth name.
    static func oauthError(_ error: SupabaseError) -> String {
        if [.signupDisabled, .userBanned, .providerEmailNeedsVerification].contains(error.code) { return "access_denied" }
        switch error.status.code {
        case 400: return "invalid_request"
        case 401: return "unauthorized_client"
        case 403: return "access_denied"
        case 503: return "temporarily_unavailable"
        default: return "server_error"
        }
    }
}

extension SupabaseConfig {
    /// A provider ready for `/authorize`, or GoTrue's `validation_failed` "Unsupported provider: …".
    func externalProvider(_ name: String) throws -> ExternalProvider {
        guard let provider = externalProviders[name] else {
            throw SupabaseError.validation("Unsupported provider: Provider \(name) could not be found")
        }
        if let problem = provider.problem { throw SupabaseError.validation("Unsupported provider: \(problem)") }
        return provider
    }
}
