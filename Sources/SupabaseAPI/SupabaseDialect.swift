import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders

/// The Supabase (GoTrue) dialect: what the server mounts under `/auth/v1`.
public struct SupabaseDialect: Sendable {
    let emulator: Emulator
    let projects: SupabaseProjects
    let identityProviders: FakeIdentityProviders?
    /// Page templates under `web/` by name (the OAuth server's consent page).
    let page: (@Sendable (String) -> String?)?
    /// The database mirror's progress (`--supabase-db`): a project that mirrors answers once its writes are mirrored.
    let mirrored: SequenceBarrier?

    public init(emulator: Emulator, identityProviders: FakeIdentityProviders? = nil, page: (@Sendable (String) -> String?)? = nil,
                mirrored: SequenceBarrier? = nil) {
        self.emulator = emulator
        self.mirrored = mirrored
        self.projects = SupabaseProjects(emulator: emulator)
        self.identityProviders = identityProviders
        self.page = page
    }

    /// Mounts the route table (`Routes.swift`). `tenant` picks the project a request is for.
    ///
    /// Each route reads its body once, asks the fault rules about its operation, then runs its handler.
    /// Errors are rendered in the route, so a fault that delays, truncates or slows an answer does so to
    /// GoTrue's error answer too; the group's middleware renders whatever escapes that.
    /// - Parameters:
    ///   - tenant: the project a request is for.
    ///   - mount: where GoTrue is mounted for a request (what its links and issuer URLs are built on), as a path on the
    ///     request's host: `/auth/v1`, or `/projects/<id>/auth/v1` for a project served under a prefix.
    public func addRoutes<Context: RequestContext>(to group: RouterGroup<Context>, tenant: @escaping @Sendable (Request) -> String,
                                                   mount: @escaping @Sendable (Request) -> String = { _ in "/auth/v1" }) {
        group.add(middleware: SupabaseErrorMiddleware<Context>())
        for endpoint in Self.endpoints {
            group.on(RouterPath(endpoint.path), method: endpoint.method) { [emulator, projects, identityProviders, page, mirrored] request, context in
                let project = tenant(request)
                let call = Call(request: request, origin: request.origin(context), received: await ReceivedBody.read(request), projectId: project,
                                tenant: projects.storeTenant(project), parameters: context.parameters,
                                emulator: emulator, projects: projects, identityProviders: identityProviders, page: page, mount: mount(request))
                return try await FaultRunner(emulator: emulator).respond(
                    to: request, context: context, target: { Self.faultTarget(endpoint, call) },
                    renderError: { Self.faultResponse($0, message: $1, retryAfter: $2, apiVersion: request.headers[.supabaseAPIVersion]) }
                ) {
                    let response: Response
                    do { response = try await endpoint.handle(call) } catch {
                        response = SupabaseErrorMiddleware<Context>.render(error, for: request, logger: context.logger)
                    }
                    // GoTrue writes auth.users in the request's own transaction, so an app's trigger has run by the time
                    // the answer arrives: with a mirror, the answer waits for the mirror to catch up (2 s at most).
                    if let mirrored, (try? projects.project(project))?.tenant.supabaseMirrorDatabase != nil {
                        await mirrored.wait(for: emulator.lastEventSequence, timeout: .seconds(2))
                    }
                    return response
                }
            }
        }
        // GoTrue's `/admin` router checks the admin token before it looks for a route (`r.Use(requireAdminCredentials)`
        // inside `r.Route("/admin", …)`): what it serves nothing at under `/admin` is 401 or 403 without a good token,
        // and only then the router's 404 or 405.
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            group.on("admin/**", method: method) { [emulator, projects] request, _ in
                try Authentication(emulator: emulator).requireAdmin(request, project: try projects.project(tenant(request)))
                let path = request.uri.path, mounted = mount(request)
                return Self.routeError(for: path.hasPrefix(mounted + "/") ? String(path.dropFirst(mounted.count)) : path)
            }
        }
    }

    /// GoTrue's router's answer for `path` (relative to `/auth/v1`), which no route took: 405 where another method serves
    /// it, else 404.
    public static func routeError(for path: String) -> Response {
        let methods = RoutePatterns.methods(serving: path, in: routes)
        return routeError(methods.isEmpty ? .notFound : .methodNotAllowed, allowing: methods)
    }

    /// Every route as `METHOD /path` relative to `/auth/v1`; the server uses it to tell an unknown path
    /// (404) from a wrong method (405).
    public static var routes: [String] {
        endpoints.map { "\($0.method) /" + $0.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/") }
    }

    /// What GoTrue answers a path or method it does not serve: its router's (chi's) own answers, not an API error. An
    /// unknown path is Go's `http.NotFound` ("404 page not found", plain text); a path served with other methods is 405
    /// with an empty body and an `Allow` header per method. Clients read neither as GoTrue's JSON (supabase-js and
    /// supabase-swift report an unexpected failure).
    public static func routeError(_ status: HTTPResponse.Status, allowing methods: [String] = []) -> Response {
        guard status == .methodNotAllowed else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8", HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                            body: .init(byteBuffer: ByteBuffer(string: "404 page not found\n")))
        }
        var headers = HTTPFields()
        for method in methods { headers.append(HTTPField(name: .allow, value: method)) }
        return Response(status: .methodNotAllowed, headers: headers)
    }

    /// Checks a tenant's `gotrue_env`; returns the variables it does not know (a warning, not an error).
    public static func validate(_ tenant: Tenant) throws -> [String] {
        let env = SupabaseProject.environment(of: tenant)
        _ = try SupabaseConfig(env: env)
        return env.keys.filter { !SupabaseConfig.isKnown($0) }.sorted()
    }

    /// GoTrue's own limits as the project's policies: `GOTRUE_RATE_LIMIT_EMAIL_SENT` (not under
    /// autoconfirm) and `_SMS_SENT`, and the per-client limiters (token, verify, OTP, anonymous sign-ups, passkey
    /// sign-ins, SSO starts, SAML answers, dynamic OAuth client registration)
    /// when `GOTRUE_RATE_LIMIT_HEADER` turns them on. GoTrue has no lockout; a project's `policies`
    /// setting can add one.
    public static let policyDeriver: PolicyDeriver = { tenant in
        let limiters = RequestLimit.allCases
        let applied = Set<PolicyLimit>([.emailSent, .smsSent] + limiters.map(\.policy))
        guard let config = try? SupabaseConfig(env: SupabaseProject.environment(of: tenant)) else {
            return VendorPolicies(base: TenantPolicies(), applied: applied)
        }
        var limits: [PolicyLimit: RateLimit] = [.smsSent: config.smsSentLimit]
        if !config.mailerAutoconfirm { limits[.emailSent] = config.emailSentLimit }
        if config.rateLimitHeader != nil {
            for limiter in limiters { limits[limiter.policy] = config.requestLimits[limiter] }
        }
        var sources: [PolicyLimit: String] = [.emailSent: "GOTRUE_RATE_LIMIT_EMAIL_SENT", .smsSent: "GOTRUE_RATE_LIMIT_SMS_SENT"]
        for limiter in limiters { sources[limiter.policy] = limiter.variable }
        return VendorPolicies(base: TenantPolicies(limits: limits, sources: sources), applied: applied)
    }

    /// A project's passkey relying party (`GOTRUE_WEBAUTHN_*`) and GoTrue's user entity, for the virtual
    /// authenticator's defaults in the control API.
    public static let webAuthnSettings: WebAuthnSettingsResolver = { tenant, _ in
        guard let config = try? SupabaseConfig(env: SupabaseProject.environment(of: tenant)) else { return nil }
        return WebAuthnSettings(relyingParty: config.passkeyRelyingParty, maxPasskeys: config.maxPasskeysPerUser, userEntity: Passkeys.entity)
    }

    /// What a user sets to point a Supabase client at this project: the URL and the well-known-style
    /// anon and service_role keys signed with the project's JWT secret.
    public static func connectionHints(for tenant: Tenant, baseURL: String) -> [String: String] {
        var hints = ["SUPABASE_URL": baseURL, "GOTRUE_URL": baseURL + "/auth/v1",
                     // The opaque keys `supabase start` prints, accepted as the gateway accepts them.
                     "SUPABASE_PUBLISHABLE_KEY": tenant.settings["publishable_key"]?.stringValue ?? SupabaseProject.defaultPublishableKey,
                     "SUPABASE_SECRET_KEY": tenant.settings["secret_key"]?.stringValue ?? SupabaseProject.defaultSecretKey]
        guard let config = try? SupabaseConfig(env: SupabaseProject.environment(of: tenant)) else { return hints }
        // The legacy keys are HS256 with the JWT secret, as Supabase's stay when a project signs its tokens with an
        // asymmetric key (signed with that key under an HS256 header, they were refused by the project itself); a
        // project with no secret gets them signed by its key, under that key's own header.
        for (variable, role) in [("SUPABASE_ANON_KEY", "anon"), ("SUPABASE_SERVICE_ROLE_KEY", "service_role")] {
            // Claims in the Supabase CLI's own order and expiry, so with its default secret the keys are
            // byte-for-byte the well-known local ones.
            let payload = Array(#"{"iss":"supabase-demo","role":"\#(role)","exp":1983812996}"#.utf8)
            hints[variable] = try? config.secretKey.map { key in
                try JWS.sign(header: Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), payload: payload, with: key)
            } ?? JWS.sign(payload: payload, with: config.signingKey)
        }
        return hints
    }

}
