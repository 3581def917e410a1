import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /authorize` and `/callback` (`internal/api/external.go`): the OAuth round trip with an external
/// provider. `/authorize` answers 302 to the provider with a signed `state`; `/callback` checks that
/// state and, like GoTrue, reports every failure by redirecting back to the app with `error`,
/// `error_code` and `error_description` in the query and the fragment.
///
/// The real providers cannot be reached from an offline emulator, so a callback carrying a code ends
/// the way GoTrue ends when the exchange fails. The fake identity providers are where this flow is
/// meant to complete.
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
                     URLQueryItem(name: "redirect_uri", value: provider.redirectURI.isEmpty ? call.mailer(project).externalURL + "/callback" : provider.redirectURI),
                     URLQueryItem(name: "response_type", value: "code"),
                     URLQueryItem(name: "scope", value: [provider.defaultScopes, query.get("scopes") ?? ""].filter { !$0.isEmpty }.joined(separator: " ")),
                     URLQueryItem(name: "state", value: state)]
        // Other parameters pass through to the provider; GoTrue strips its own and the reserved OAuth ones.
        let reserved: Set = ["provider", "scopes", "redirect_to", "code_challenge", "code_challenge_method", "client_id", "redirect_uri",
                             "response_type", "scope", "state"]
        items += query.filter { !reserved.contains(String($0.key)) }.map { URLQueryItem(name: String($0.key), value: String($0.value)) }
        var components = URLComponents(string: provider.authorizeURL) ?? URLComponents()
        components.queryItems = (components.queryItems ?? []) + items
        return components.string ?? provider.authorizeURL
    }

    /// `GET|POST /callback`: a missing or forged `state` is a JSON error (GoTrue checks it before it knows
    /// where to redirect); everything after that redirects to the app.
    static func callback(_ call: Call) async throws -> Response {
        let project = try call.project()
        let params = try await callbackParameters(call.request)
        guard let state = params["state"], !state.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .badOAuthCallback, message: "OAuth state parameter missing")
        }
        let claims = try verifiedState(state, project: project, now: call.emulator.clock.now)
        let referrer = claims["referrer"]?.stringValue ?? project.config.siteURL
        let failure: (error: String, code: String?, description: String)
        if let error = params["error"], !error.isEmpty {
            failure = (error, nil, params["error_description"] ?? "")
        } else if (params["code"] ?? "").isEmpty {
            failure = ("invalid_request", SupabaseError.Code.badOAuthCallback.rawValue, "OAuth callback with missing authorization code missing")
        } else {
            call.emulator.record(.signInFailed, tenant: project.tenant.id, origin: call.origin, detail: [
                "method": "oauth", "provider": claims["provider"] ?? .null,
                "reason": "the provider's token endpoint cannot be reached from the emulator",
            ])
            failure = ("server_error", nil, "Unable to exchange external code: \(params["code"] ?? "")")
        }
        var pairs = [("error", failure.error), ("error_description", failure.description)]
        if let code = failure.code { pairs.append(("error_code", code)) }
        pairs.sort { $0.0 < $1.0 }
        let encoded = Verify.formEncode(pairs)
        let location = referrer + (referrer.contains("?") ? "&" : "?") + encoded + "#" + encoded
        if Emulator.isDeepLink(location) { try call.emulator.captureDeepLink(location, tenant: project.tenant.id, source: "callback") }
        return Response(status: .found, headers: [.location: location])
    }

    /// The query, or for a POST (Apple's `form_post`) the form body, as one dictionary, decoded as Go's
    /// `url.ParseQuery` does (`+` is a space).
    private static func callbackParameters(_ request: Request) async throws -> [String: String] {
        var encoded = [request.uri.query ?? ""]
        if request.method == .post { encoded.append(String(buffer: try await request.body.collect(upTo: 1 << 20))) }
        var params: [String: String] = [:]
        for text in encoded {
            for item in URLComponents(string: "x:?" + text.replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? [] {
                params[item.name] = item.value ?? ""
            }
        }
        return params
    }

    private static func verifiedState(_ state: String, project: SupabaseProject, now: Date) throws -> [String: JSON] {
        let invalid = SupabaseError(status: .badRequest, code: .badOAuthState, message: "OAuth callback with invalid state")
        guard let claims = try? JWS.verify(state, keys: project.config.verificationKeys).claims else { throw invalid }
        if let exp = claims["exp"]?.intValue, Double(exp) <= now.timeIntervalSince1970 { throw invalid }
        guard let provider = claims["provider"]?.stringValue, !provider.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .badOAuthState, message: "OAuth callback with invalid state (missing provider)")
        }
        return claims
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
