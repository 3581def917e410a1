import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// The authorization endpoint and the consent API (`oauthserver/authorize.go`).
enum OAuthServerAuthorize {
    /// `GET /oauth/authorize`. Until the client and its redirect URI are known good the answer is JSON;
    /// after that every problem goes back to the client on its redirect URI, as RFC 6749 §4.1.2.1 says.
    static func authorize(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        let query = call.request.queryFields
        let clientId = query["client_id"] ?? "", redirectURI = query["redirect_uri"] ?? ""
        guard !clientId.isEmpty else { throw SupabaseError.validation("client_id is required") }
        guard !redirectURI.isEmpty else { throw SupabaseError.validation("redirect_uri is required") }
        guard let id = Validation.uuid(clientId) else {
            throw SupabaseError(status: .badRequest, code: .oauthClientNotFound, message: "invalid client_id format")
        }
        guard let client = try call.emulator.oauthClient(in: project.storeTenant, id: id) else {
            throw SupabaseError(status: .badRequest, code: .oauthClientNotFound, message: "invalid client_id")
        }
        // Exact string match against the registered list: no prefix, no normalisation.
        guard client.redirectURIs.contains(redirectURI) else { throw SupabaseError.validation("invalid redirect_uri") }
        let state = query["state"].flatMap { $0.isEmpty ? nil : $0 }
        let request: OAuthAuthorization
        do {
            request = try AuthorizeRequestRules(query: query, defaultScope: project.config.oauthServer.defaultScope)
                .authorization(in: project.storeTenant, clientId: client.id, redirectURI: redirectURI, state: state)
        } catch let problem as AuthorizeRequestRules.Problem {
            let location = GoQueryURL.error(redirectURI, error: "invalid_request", description: problem.description, state: state)
            try call.emulator.captureIfAppLink(location, tenant: project.storeTenant, source: "oauth_authorize", userId: nil)
            return Response(status: .found, headers: [.location: location])
        }
        let authorization = try call.emulator.startOAuthAuthorization(request, lifetime: project.config.oauthServer.authorizationTTL)
        return Response(status: .found, headers: [.location: consentURL(call, project: project, authorizationId: authorization.id)])
    }

    /// Where the browser gives its consent: the site's own page (`GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH`
    /// on `GOTRUE_SITE_URL`), or Fauxth's consent page when the project names none.
    static func consentURL(_ call: Call, project: SupabaseProject, authorizationId: String) -> String {
        let query = "?authorization_id=" + authorizationId
        guard let path = project.config.oauthServer.authorizationPath else {
            return (project.config.externalURL ?? call.authURL) + "/" + OAuthServerConsentPage.path + query
        }
        var site = project.config.siteURL
        while site.hasSuffix("/") { site.removeLast() }
        return site + (path.hasPrefix("/") ? path : "/" + path) + query
    }

    /// `GET /oauth/authorizations/{id}`: the request as the consent screen shows it, claimed by the signed-in
    /// user; or, when that user already consented to these scopes, the redirect with the code.
    static func details(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        let caller = try Authentication(emulator: call.emulator).require(call.request, project: project)
        try checkOrigin(call, project: project)
        let view = try mapped { try call.emulator.openOAuthAuthorization(in: project.storeTenant, id: try call.parameter("id"), userId: caller.user.id) }
        switch view {
        case .approved(let authorization, let code):
            return .json(["redirect_url": .string(authorization.successRedirect(code: code))])
        case .pending(let authorization):
            guard let client = try call.emulator.oauthClient(in: project.storeTenant, id: authorization.clientId) else {
                throw SupabaseError(status: .notFound, code: .oauthAuthorizationNotFound, message: "authorization not found")
            }
            var user: [String: JSON] = ["id": .string(caller.user.id)]
            if let email = caller.user.email, !email.isEmpty { user["email"] = .string(email) }
            var body: [String: JSON] = ["authorization_id": .string(authorization.id), "redirect_uri": .string(authorization.redirectURI),
                                        "client": OAuthServer.clientDetails(client), "user": .object(user)]
            if !authorization.scope.isEmpty { body["scope"] = .string(authorization.scope) }
            return .json(.object(body))
        }
    }

    /// `POST /oauth/authorizations/{id}/consent` with `{"action":"approve"|"deny"}`: where to send the browser.
    static func consent(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        let caller = try Authentication(emulator: call.emulator).require(call.request, project: project)
        try checkOrigin(call, project: project)
        let action: String
        do { action = try call.body().string("action") ?? "" } catch let error as SupabaseError where error.code == .badJSON {
            throw SupabaseError(status: .badRequest, code: .badJSON, message: "invalid JSON body")
        }
        guard action == "approve" || action == "deny" else { throw SupabaseError.validation("action must be 'approve' or 'deny'") }
        let id = try call.parameter("id")
        return .json(["redirect_url": .string(try decide(call.emulator, tenant: project.storeTenant, id: id, userId: caller.user.id,
                                                         approve: action == "approve"))])
    }

    /// The user's decision, as the redirect URL the browser follows next.
    static func decide(_ emulator: Emulator, tenant: String, id: String, userId: String, approve: Bool) throws -> String {
        let (authorization, code) = try mapped { try emulator.answerOAuthAuthorization(in: tenant, id: id, userId: userId, approve: approve) }
        return code.map(authorization.successRedirect(code:)) ?? authorization.errorRedirect(error: "access_denied", description: "User denied the request")
    }

    /// GoTrue's `validateRequestOrigin`: a browser's `Origin` must be one a redirect could go to (the site
    /// URL, a loopback address, the allow list), which also admits Fauxth's own consent page.
    private static func checkOrigin(_ call: Call, project: SupabaseProject) throws {
        guard let origin = call.request.headers[.origin], !origin.isEmpty else { return }
        guard Redirects.isAllowed(origin, config: project.config) else { throw SupabaseError.validation("unauthorized request origin") }
    }

    /// The core's refusals in GoTrue's words.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as OAuthAuthorizationError {
            switch error {
            case .notFound: throw SupabaseError(status: .notFound, code: .oauthAuthorizationNotFound, message: "authorization not found")
            case .notProcessable: throw SupabaseError.validation("authorization request cannot be processed")
            case .notPending: throw SupabaseError.validation("authorization request is no longer pending")
            }
        }
    }
}

/// `validateRemainingAuthorizeParams`: the checks whose failure is sent back to the client.
struct AuthorizeRequestRules {
    struct Problem: Error, CustomStringConvertible { let description: String }

    let query: [String: String]
    let defaultScope: String

    init(query: [String: String], defaultScope: String) {
        self.query = query
        self.defaultScope = defaultScope
    }

    func authorization(in tenant: String, clientId: String, redirectURI: String, state: String?) throws -> OAuthAuthorization {
        let responseType = nonEmpty("response_type") ?? "code"
        guard responseType == "code" else { throw Problem(description: "only response_type=code is supported") }
        let scope = nonEmpty("scope") ?? defaultScope
        let scopes = OAuthScopes.parse(scope)
        guard !scopes.isEmpty else { throw Problem(description: "scope parameter cannot be empty") }
        if let unsupported = scopes.first(where: { !OAuthServer.supportedScopes.contains($0) }) {
            throw Problem(description: "unsupported scope: \(unsupported)")
        }
        let resource = nonEmpty("resource")
        if let resource { try check(resource: resource) }
        return OAuthAuthorization(tenant: tenant, clientId: clientId, redirectURI: redirectURI, scope: scope, state: state, resource: resource,
                                  challenge: try challenge(), nonce: nonEmpty("nonce"))
    }

    /// PKCE is mandatory in OAuth 2.1; GoTrue takes `S256` or `plain` in any case.
    private func challenge() throws -> PKCEChallenge {
        guard let challenge = nonEmpty("code_challenge"), let method = nonEmpty("code_challenge_method") else {
            throw Problem(description: "PKCE flow requires both code_challenge and code_challenge_method")
        }
        guard let parsed = PKCEChallenge.Method(rawValue: method.lowercased()) else {
            throw Problem(description: "code_challenge_method must be 'S256' or 'plain'")
        }
        guard (43...128).contains(challenge.utf8.count) else { throw Problem(description: "code_challenge must be between 43 and 128 characters") }
        return PKCEChallenge(challenge: challenge, method: parsed)
    }

    /// RFC 8707: an absolute URI without fragment or query.
    private func check(resource: String) throws {
        guard let url = URLComponents(string: resource) else { throw Problem(description: "resource must be a valid URI") }
        guard url.scheme?.isEmpty == false else { throw Problem(description: "resource must be an absolute URI") }
        guard url.fragment?.isEmpty ?? true else { throw Problem(description: "resource must not include a fragment component") }
        guard url.query?.isEmpty ?? true else { throw Problem(description: "resource must not include a query component") }
    }

    private func nonEmpty(_ name: String) -> String? { query[name].flatMap { $0.isEmpty ? nil : $0 } }
}
