import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// The Supabase (GoTrue) dialect: what the server mounts under `/auth/v1`.
public struct SupabaseDialect: Sendable {
    let emulator: Emulator
    let projects: SupabaseProjects

    public init(emulator: Emulator) {
        self.emulator = emulator
        self.projects = SupabaseProjects(emulator: emulator)
    }

    /// The route table. `tenant` picks the project a request is for.
    public func addRoutes<Context: RequestContext>(to group: RouterGroup<Context>, tenant: @escaping @Sendable (Request) -> String) {
        let signup = Signup(emulator: emulator, projects: projects)
        let token = Token(emulator: emulator, projects: projects)
        let verify = Verify(emulator: emulator, projects: projects)
        let logout = Logout(emulator: emulator, projects: projects)
        let currentUser = CurrentUser(emulator: emulator, projects: projects)
        let settings = Settings(projects: projects)
        let otp = Otp(emulator: emulator, projects: projects)
        let recover = Recover(emulator: emulator, projects: projects)
        let resend = Resend(emulator: emulator, projects: projects)
        let admin = Admin(emulator: emulator, projects: projects)
        let links = GenerateLink(emulator: emulator, projects: projects)
        // Links point at `API_EXTERNAL_URL`, else at the listener the request came in on.
        let mailer = { @Sendable (request: Request) in
            { (project: SupabaseProject) in
                Mailer(emulator: emulator, project: project, externalURL: project.config.externalURL ?? request.baseURL + "/auth/v1")
            }
        }
        group.add(middleware: SupabaseErrorMiddleware<Context>())
        group.get("health") { _, _ in
            Self.json(["version": "fauxth", "name": "GoTrue", "description": "GoTrue is a user registration and authentication API"])
        }
        group.post("signup") { request, context in
            Self.json(try await signup.handle(request, origin: request.origin(context), tenant: tenant(request), mailer: mailer(request)))
        }
        group.get("settings") { request, _ in Self.json(try settings.settings(tenant: tenant(request))) }
        group.get(".well-known/jwks.json") { request, _ in try settings.jwks(tenant: tenant(request)) }
        group.post("token") { request, context in
            Self.json(try await token.handle(request, origin: request.origin(context), tenant: tenant(request)))
        }
        group.post("verify") { request, context in
            Self.json(try await verify.post(request, origin: request.origin(context), tenant: tenant(request)))
        }
        group.get("verify") { request, context in try verify.get(request, origin: request.origin(context), tenant: tenant(request)) }
        group.post("logout") { request, context in try logout.handle(request, origin: request.origin(context), tenant: tenant(request)) }
        for path in ["otp", "magiclink"] {
            group.post(RouterPath(path)) { request, context in
                Self.json(try await otp.handle(request, origin: request.origin(context), tenant: tenant(request), mailer: mailer(request)))
            }
        }
        group.post("recover") { request, context in
            Self.json(try await recover.handle(request, origin: request.origin(context), tenant: tenant(request), mailer: mailer(request)))
        }
        group.post("resend") { request, context in
            Self.json(try await resend.handle(request, origin: request.origin(context), tenant: tenant(request), mailer: mailer(request)))
        }
        group.get("admin/users") { request, _ in try admin.list(request, tenant: tenant(request)) }
        group.post("admin/users") { request, context in
            Self.json(try await admin.create(request, origin: request.origin(context), tenant: tenant(request)))
        }
        group.get("admin/users/:id") { request, context in
            Self.json(try admin.get(request, id: try context.parameters.require("id"), tenant: tenant(request)))
        }
        group.put("admin/users/:id") { request, context in
            Self.json(try await admin.update(request, id: try context.parameters.require("id"), origin: request.origin(context), tenant: tenant(request)))
        }
        group.delete("admin/users/:id") { request, context in
            Self.json(try admin.delete(request, id: try context.parameters.require("id"), origin: request.origin(context), tenant: tenant(request)))
        }
        group.post("admin/generate_link") { request, context in
            Self.json(try await links.handle(request, origin: request.origin(context), tenant: tenant(request), mailer: mailer(request)))
        }
        group.post("invite") { request, context in
            Self.json(try await links.invite(request, origin: request.origin(context), tenant: tenant(request), mailer: mailer(request)))
        }
        group.get("user") { request, _ in Self.json(try currentUser.handle(request, tenant: tenant(request))) }
    }

    /// Every route as `METHOD /path` relative to `/auth/v1`; the server uses it to tell an unknown path
    /// (404) from a wrong method (405).
    public static let routes = ["GET /health", "GET /settings", "GET /.well-known/jwks.json", "POST /signup", "POST /token",
                                "POST /verify", "GET /verify", "POST /logout", "GET /user", "POST /otp", "POST /magiclink",
                                "POST /recover", "POST /resend", "GET /admin/users", "POST /admin/users", "GET /admin/users/{id}",
                                "PUT /admin/users/{id}", "DELETE /admin/users/{id}", "POST /admin/generate_link", "POST /invite"]

    /// GoTrue's error for a path or method it does not serve, in the caller's API version.
    public static func routeError(_ status: HTTPResponse.Status, for request: Request) -> Response {
        let failure = status == .methodNotAllowed
            ? SupabaseError(status: .methodNotAllowed, code: .methodNotAllowed, message: "Method Not Allowed")
            : SupabaseError(status: .notFound, code: .notFound, message: "Not Found")
        return SupabaseErrorMiddleware<BasicRequestContext>.response(for: failure, apiVersion: request.headers[.supabaseAPIVersion])
    }

    /// Checks a tenant's `gotrue_env`; returns the variables it does not know (a warning, not an error).
    public static func validate(_ tenant: Tenant) throws -> [String] {
        let env = SupabaseProject.environment(of: tenant)
        _ = try SupabaseConfig(env: env)
        return env.keys.filter { !SupabaseConfig.knownVariables.contains($0) }.sorted()
    }

    /// What a user sets to point a Supabase client at this project: the URL and the well-known-style
    /// anon and service_role keys signed with the project's JWT secret.
    public static func connectionHints(for tenant: Tenant, baseURL: String) -> [String: String] {
        var hints = ["SUPABASE_URL": baseURL, "GOTRUE_URL": baseURL + "/auth/v1"]
        guard let config = try? SupabaseConfig(env: SupabaseProject.environment(of: tenant)) else { return hints }
        for (variable, role) in [("SUPABASE_ANON_KEY", "anon"), ("SUPABASE_SERVICE_ROLE_KEY", "service_role")] {
            // Claims in the Supabase CLI's own order and expiry, so with its default secret the keys are
            // byte-for-byte the well-known local ones.
            let payload = #"{"iss":"supabase-demo","role":"\#(role)","exp":1983812996}"#
            hints[variable] = try? JWS.sign(header: Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8), payload: Array(payload.utf8),
                                            with: SigningKey(config.signingKey.material, kid: nil))
        }
        return hints
    }

    static func json(_ value: JSON) -> Response { .json(value) }
}
