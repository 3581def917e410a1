import AuthCore
import Foundation
import IdentityProviders
import HTTPSupport
import HTTPTypes
import Hummingbird

/// One request as a handler sees it: where it came from, which project it is for, the path parameters
/// and the body, read once when the route matched.
struct Call: Sendable {
    let request: Request
    let origin: RequestOrigin
    let received: ReceivedBody
    /// The project the request is for: its settings, keys and limits.
    let projectId: String
    /// The tenant holding that project's users, sessions and codes (`SupabaseProject.storeTenant`).
    let tenant: String
    let parameters: Parameters
    let emulator: Emulator
    let projects: SupabaseProjects
    /// The fake providers OAuth sign-in goes through.
    let identityProviders: FakeIdentityProviders?
    /// A page template under `web/` by name (the OAuth server's consent page).
    var page: (@Sendable (String) -> String?)? = nil
    /// Where GoTrue is mounted on the request's host (`/auth/v1`, or `/projects/<id>/auth/v1`).
    var mount = "/auth/v1"

    /// GoTrue's own URL as the request reached it: what links and the OAuth server's issuer are built on when
    /// `API_EXTERNAL_URL` does not say.
    var authURL: String { request.baseURL + mount }

    func parameter(_ name: String) throws -> String { try parameters.require(name) }

    /// A path id GoTrue parses as a UUID (`uuid.FromString`): any case names the same record, anything
    /// else is its 404 `<label> must be an UUID`.
    func uuidParameter(_ name: String, as label: String) throws -> String {
        guard let id = Validation.uuid(try parameter(name)) else {
            throw SupabaseError(status: .notFound, code: .validationFailed, message: "\(label) must be an UUID")
        }
        return id
    }

    func factorParameter(_ name: String) throws -> String { try uuidParameter(name, as: "factor_id") }
    func userParameter(_ name: String) throws -> String { try uuidParameter(name, as: "user_id") }

    /// The project this request is for. A client's `X-JWT-AUD` header sets the audience of the tokens
    /// and users it is answered with, as GoTrue's `requestAud` does.
    func project() throws -> SupabaseProject {
        var project = try projects.project(projectId)
        if let audience = request.headers[.jwtAudience], !audience.isEmpty { project.config.jwtAudience = audience }
        return project
    }

    /// The JSON body; a body GoTrue cannot read is refused here, when the handler asks for it.
    /// - Parameter emptyAllowed: an empty body reads as `{}`, for endpoints whose every field is optional.
    func body(emptyAllowed: Bool = false) throws -> JSONBody { try received.json(emptyAllowed: emptyAllowed) }

    /// The JSON body and the project: what most handlers start with.
    func bodyAndProject() throws -> (JSONBody, SupabaseProject) {
        (try body(), try project())
    }

    /// GoTrue's per-client limiter for this kind of request, as the project's policy (`token_per_ip`,
    /// `verify_per_ip`, `otp_per_ip`, `anonymous_per_ip`), counted by the core. Clients are told apart
    /// by the header `GOTRUE_RATE_LIMIT_HEADER` names, and a request without it is not limited, as in
    /// GoTrue; a project that sets the policy without the header counts per client IP.
    func checkRequestLimit(_ kind: RequestLimit) throws {
        let project = try projects.project(projectId)
        let client: String?
        if let header = project.config.rateLimitHeader {
            guard let value = HTTPField.Name(header).flatMap({ request.headers[$0] }) else { return }
            client = value.split(separator: ",").first?.trimmingSpaces()
        } else {
            client = origin.ip
        }
        try emulator.checkRequestLimit(kind.policy, in: project.tenant, client: client)
    }

    /// The mailer for a project: links point at `API_EXTERNAL_URL`, else at the listener the request
    /// came in on.
    func mailer(_ project: SupabaseProject) -> Mailer {
        Mailer(emulator: emulator, project: project, externalURL: project.config.externalURL ?? authURL)
    }
}

extension SupabaseDialect {
    /// A route: its method and path (relative to `/auth/v1`), the canonical operation name fault rules match
    /// (`supabase:` and this; README lists them), and its handler. `{grant_type}` in a name is the request's
    /// grant, so `/token` is `token.password`, `token.refresh_token`…
    typealias Endpoint = (method: HTTPRequest.Method, path: String, operation: String, handle: @Sendable (Call) async throws -> Response)

    /// An endpoint behind one of GoTrue's per-client limiters.
    static func limited(_ kind: RequestLimit, _ handle: @escaping @Sendable (Call) async throws -> Response) -> @Sendable (Call) async throws -> Response {
        { call in
            try call.checkRequestLimit(kind)
            return try await handle(call)
        }
    }

    /// GoTrue's routes (`internal/api/api.go`), each to its endpoint family's handler.
    static let endpoints: [Endpoint] = servedEndpoints + passkeyEndpoints + oauthServerEndpoints + disabledEndpoints

    /// The OAuth 2.1 server (`GOTRUE_OAUTH_SERVER_ENABLED`; each handler answers GoTrue's 404 when it is off),
    /// with Fauxth's consent page.
    private static let oauthServerEndpoints: [Endpoint] = [
        (.get, ".well-known/oauth-authorization-server", ".well-known.oauth-authorization-server", { try OpenIDConfiguration.authorizationServer($0) }),
        (.post, "oauth/clients/register", "oauth.clients.register", limited(.clientRegistration) { try OAuthServerClients.registerDynamically($0) }),
        (.post, "oauth/token", "oauth.token", { try await OAuthServerToken.handle($0) }),
        (.get, "oauth/userinfo", "oauth.userinfo", { try OAuthServerUser.userInfo($0) }),
        (.get, "oauth/authorize", "oauth.authorize", { try OAuthServerAuthorize.authorize($0) }),
        (.get, "oauth/authorizations/:id", "oauth.authorizations.id", { try OAuthServerAuthorize.details($0) }),
        (.post, "oauth/authorizations/:id/consent", "oauth.authorizations.id.consent", { try OAuthServerAuthorize.consent($0) }),
        (.get, "user/oauth/grants", "user.oauth.grants.get", { try OAuthServerUser.grants($0) }),
        (.delete, "user/oauth/grants", "user.oauth.grants.delete", { try OAuthServerUser.revoke($0) }),
        (.get, "admin/oauth/clients", "admin.oauth.clients.get", OAuthServer.admin { try OAuthServerClients.list($0) }),
        (.post, "admin/oauth/clients", "admin.oauth.clients.post", OAuthServer.admin { try OAuthServerClients.create($0) }),
        (.get, "admin/oauth/clients/:id", "admin.oauth.clients.id.get", OAuthServer.admin { try OAuthServerClients.get($0) }),
        (.put, "admin/oauth/clients/:id", "admin.oauth.clients.id.put", OAuthServer.admin { try OAuthServerClients.update($0) }),
        (.delete, "admin/oauth/clients/:id", "admin.oauth.clients.id.delete", OAuthServer.admin { try OAuthServerClients.delete($0) }),
        (.post, "admin/oauth/clients/:id/regenerate_secret", "admin.oauth.clients.id.regenerate_secret",
         OAuthServer.admin { try OAuthServerClients.regenerateSecret($0) }),
        (.get, OAuthServerConsentPage.path, "oauth.consent_page.get", { try OAuthServerConsentPage.show($0) }),
        (.post, OAuthServerConsentPage.path, "oauth.consent_page.post", { try OAuthServerConsentPage.submit($0) }),
    ]

    private static let servedEndpoints: [Endpoint] = [
        (.get, "health", "health",
         { _ in .json(["version": "fauxth", "name": "GoTrue", "description": "GoTrue is a user registration and authentication API"]) }),
        (.get, "settings", "settings", { .json(try Settings(emulator: $0.emulator, projects: $0.projects).settings($0)) }),
        (.get, ".well-known/openid-configuration", ".well-known.openid-configuration", { try OpenIDConfiguration.handle($0) }),
        (.post, "sso", "sso", limited(.sso) { try SSO.start($0) }),
        (.get, "sso/saml/metadata", "sso.saml.metadata", { try SSO.metadata($0) }),
        (.post, "sso/saml/acs", "sso.saml.acs", limited(.samlAssertion) { try await SAMLACS.handle($0) }),
        (.get, "admin/sso/providers", "admin.sso.providers.get", { try SSOAdmin.list($0) }),
        (.post, "admin/sso/providers", "admin.sso.providers.post", { try await SSOAdmin.create($0) }),
        (.get, "admin/sso/providers/:id", "admin.sso.providers.id.get", { try SSOAdmin.get($0) }),
        (.put, "admin/sso/providers/:id", "admin.sso.providers.id.put", { try await SSOAdmin.update($0) }),
        (.delete, "admin/sso/providers/:id", "admin.sso.providers.id.delete", { try SSOAdmin.delete($0) }),
        (.get, ".well-known/jwks.json", ".well-known.jwks.json", { try Settings(emulator: $0.emulator, projects: $0.projects).jwks($0) }),
        (.post, "signup", "signup", { .json(try await Signup(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.post, "token", "token.{grant_type}", limited(.token) { try await Token(emulator: $0.emulator, projects: $0.projects).handle($0) }),
        (.post, "verify", "verify.post", limited(.verify) { .json(try await Verify(emulator: $0.emulator, projects: $0.projects).post($0)) }),
        (.get, "verify", "verify.get", limited(.verify) { try await Verify(emulator: $0.emulator, projects: $0.projects).get($0) }),
        (.post, "otp", "otp", limited(.otp) { .json(try await Otp(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.post, "magiclink", "magiclink", limited(.otp) { .json(try await Otp(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.post, "recover", "recover", limited(.otp) { .json(try await Recover(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.post, "resend", "resend", limited(.otp) { .json(try await Resend(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.post, "logout", "logout", { try Logout(emulator: $0.emulator, projects: $0.projects).handle($0) }),
        (.get, "user", "user.get", { .json(try CurrentUser(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.get, "reauthenticate", "reauthenticate", { .json(try await Reauthenticate.handle($0)) }),
        (.put, "user", "user.put", limited(.otp) { .json(try await UpdateUser(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.post, "invite", "invite", { .json(try await GenerateLink(emulator: $0.emulator, projects: $0.projects).invite($0)) }),
        (.get, "admin/users", "admin.users.get", { try Admin(emulator: $0.emulator, projects: $0.projects).list($0) }),
        (.post, "admin/users", "admin.users.post", { .json(try await Admin(emulator: $0.emulator, projects: $0.projects).create($0)) }),
        (.get, "admin/users/:id", "admin.users.id.get", { .json(try Admin(emulator: $0.emulator, projects: $0.projects).get($0)) }),
        (.put, "admin/users/:id", "admin.users.id.put", { .json(try await Admin(emulator: $0.emulator, projects: $0.projects).update($0)) }),
        (.delete, "admin/users/:id", "admin.users.id.delete", { .json(try Admin(emulator: $0.emulator, projects: $0.projects).delete($0)) }),
        (.post, "factors", "factors", { .json(try await Factors(emulator: $0.emulator, projects: $0.projects).enroll($0)) }),
        (.post, "factors/:id/challenge", "factors.id.challenge",
         { .json(try await Factors(emulator: $0.emulator, projects: $0.projects).challenge($0)) }),
        (.post, "factors/:id/verify", "factors.id.verify", { .json(try await Factors(emulator: $0.emulator, projects: $0.projects).verify($0)) }),
        (.delete, "factors/:id", "factors.id", { .json(try Factors(emulator: $0.emulator, projects: $0.projects).unenroll($0)) }),
        (.get, "admin/users/:id/factors", "admin.users.id.factors",
         { .json(try Factors(emulator: $0.emulator, projects: $0.projects).adminList($0)) }),
        (.delete, "admin/users/:id/factors/:factor", "admin.users.id.factors.factor",
         { .json(try Factors(emulator: $0.emulator, projects: $0.projects).adminDelete($0)) }),
        (.post, "admin/generate_link", "admin.generate_link",
         { .json(try await GenerateLink(emulator: $0.emulator, projects: $0.projects).handle($0)) }),
        (.get, "authorize", "authorize", { try External.authorize($0) }),
        (.get, "callback", "callback.get", { try await External.callback($0) }),
        (.post, "callback", "callback.post", { try await External.callback($0) }),
        (.get, "user/identities/authorize", "user.identities.authorize", { try Identities.authorize($0) }),
        (.delete, "user/identities/:id", "user.identities.id", { try Identities.unlink($0) }),
    ]

    /// Passkeys (`GOTRUE_PASSKEY_ENABLED`; the admin routes answer either way, as GoTrue's do).
    private static let passkeyEndpoints: [Endpoint] = [
        (.post, "passkeys/authentication/options", "passkeys.authentication.options",
         limited(.passkey) { .json(try Passkeys(emulator: $0.emulator, projects: $0.projects).authenticationOptions($0)) }),
        (.post, "passkeys/authentication/verify", "passkeys.authentication.verify",
         { .json(try await Passkeys(emulator: $0.emulator, projects: $0.projects).authenticationVerify($0)) }),
        (.post, "passkeys/registration/options", "passkeys.registration.options",
         { .json(try Passkeys(emulator: $0.emulator, projects: $0.projects).registrationOptions($0)) }),
        (.post, "passkeys/registration/verify", "passkeys.registration.verify",
         { .json(try Passkeys(emulator: $0.emulator, projects: $0.projects).registrationVerify($0)) }),
        (.get, "passkeys", "passkeys", { .json(try Passkeys(emulator: $0.emulator, projects: $0.projects).list($0)) }),
        (.patch, "passkeys/:id", "passkeys.id.patch", { .json(try Passkeys(emulator: $0.emulator, projects: $0.projects).rename($0)) }),
        (.delete, "passkeys/:id", "passkeys.id.delete", { try Passkeys(emulator: $0.emulator, projects: $0.projects).delete($0) }),
        (.get, "admin/users/:id/passkeys", "admin.users.id.passkeys", { .json(try Passkeys(emulator: $0.emulator, projects: $0.projects).adminList($0)) }),
        (.delete, "admin/users/:id/passkeys/:passkey", "admin.users.id.passkeys.passkey",
         { try Passkeys(emulator: $0.emulator, projects: $0.projects).adminDelete($0) }),
    ]

    /// Routes of features Fauxth does not serve yet (the OAuth 2.1 server, custom providers, SCIM),
    /// answered as a GoTrue with them off answers them.
    private static let disabledEndpoints: [Endpoint] = {
        var table: [Endpoint] = [
            (.get, "admin/custom-providers", "admin.custom-providers.get", Disabled.admin(Disabled.customProviders)),
            (.post, "admin/custom-providers", "admin.custom-providers.post", Disabled.admin(Disabled.customProviders)),
        ]
        for method in [HTTPRequest.Method.get, .put, .delete] {
            let suffix = method.rawValue.lowercased()
            table.append((method, "admin/custom-providers/:id", "admin.custom-providers.id.\(suffix)", Disabled.admin(Disabled.customProviders)))
        }
        // GoTrue guards the whole `/scim/v2` subtree, unknown paths included.
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            table.append((method, "scim/v2/**", "scim.v2.\(method.rawValue.lowercased())", Disabled.scim))
        }
        return table
    }()
}
