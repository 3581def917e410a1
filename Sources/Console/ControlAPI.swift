import AuthCore
import Foundation
import Hummingbird
import IdentityProviders

/// The control API under `/_emu/v1`: what the console and tests use to read and steer the emulator.
/// One file per family (`ControlAPI+<Family>.swift`); this is the route table.
public struct ControlAPI: Sendable {
    let emulator: Emulator
    /// `GET /info`'s body, built by the server, which knows the listeners and every dialect.
    let info: @Sendable (Request) -> JSON
    /// `POST /export/firebase`: writes a Firebase emulator export directory (the dialect does the writing).
    let exportFirebase: @Sendable (_ directory: String, _ project: String?) throws -> JSON

    /// The fake identity providers `/idp` steers.
    let identityProviders: FakeIdentityProviders

    /// What `--open-deeplinks` named, which `POST /deeplinks/{id}/open` runs; nil without it.
    let deepLinkOpener: DeepLinkOpener?

    /// Returns once what follows the state's last change is done (a mirrored project's database brought in step):
    /// a reset, restore or load answers after it, so a test that reads the database next finds it in step.
    let settled: @Sendable () async -> Void

    /// `POST /tenants`: a fresh id in the vendor's own form for a dialect that has one (a Cognito pool's
    /// `us-east-1_…`, which amazon-cognito-identity-js and Amplify refuse to do without), else nil for a `t-…` one.
    let newTenantID: @Sendable (Dialect) -> String?
    /// `POST /tenants` and `POST /snapshots/load`: the vendor's checks of a tenant's settings, as the seed's are checked
    /// at start-up, so a setting the vendor refuses is refused here rather than a 500 at every request to the tenant.
    let checkTenant: @Sendable (Tenant) throws -> Void

    public init(emulator: Emulator, info: @escaping @Sendable (Request) -> JSON,
                exportFirebase: @escaping @Sendable (String, String?) throws -> JSON = { _, _ in .null },
                identityProviders: FakeIdentityProviders? = nil, deepLinkOpener: DeepLinkOpener? = nil,
                settled: @escaping @Sendable () async -> Void = {},
                newTenantID: @escaping @Sendable (Dialect) -> String? = { _ in nil },
                checkTenant: @escaping @Sendable (Tenant) throws -> Void = { _ in }) {
        self.deepLinkOpener = deepLinkOpener
        self.settled = settled
        self.newTenantID = newTenantID
        self.checkTenant = checkTenant
        self.emulator = emulator
        self.info = info
        self.exportFirebase = exportFirebase
        self.identityProviders = identityProviders ?? FakeIdentityProviders(emulator: emulator, page: { _ in nil })
    }

    public func addRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.add(middleware: ControlErrorMiddleware<Context>())
        group.get("health") { _, _ in try health() }
        group.get("info") { request, _ in ControlJSON.response(info(request)) }
        group.get("openapi.json") { _, _ in openAPIDocument() }
        group.post("reset") { request, _ in
            let answer = try reset(ControlRequest(request: request))
            await settled()
            return answer
        }
        addClockRoutes(to: group.group("clock"))
        addMessageRoutes(to: group.group("messages"))
        addDeepLinkRoutes(to: group.group("deeplinks"))
        addEventRoutes(to: group.group("events"))
        addHookReplayRoute(to: group.group("events"))
        addTenantRoutes(to: group.group("tenants"))
        addAllUsersRoute(to: group)
        addOAuthServerRoutes(to: group.group("tenants"))
        addSnapshotRoutes(to: group.group("snapshots"))
        addIdentityProviderRoutes(to: group.group("idp"))
        addFaultRoutes(to: group.group("faults"))
        addWebAuthnRoutes(to: group.group("webauthn"))
        group.post("export/firebase") { request, _ in
            let body = try await ControlRequest(request: request).body()
            let directory = try body.string("dir", required: true) ?? ""
            do {
                return ControlJSON.response(try exportFirebase(directory, try body.string("project")))
            } catch let error as AuthError {
                throw error
            } catch {
                throw ControlError(.unprocessableContent, "export_failed", "\(error)")
            }
        }
    }

    /// Every route as `METHOD /path` with `{param}` placeholders; the OpenAPI test compares it with
    /// the document's paths.
    public static let routes: [String] = [
        "GET /health", "GET /info", "GET /openapi.json", "POST /reset",
        "GET /clock", "POST /clock/advance", "POST /clock/freeze", "POST /clock/resume", "POST /clock/real",
        "GET /messages", "DELETE /messages", "GET /messages/wait", "GET /messages/{id}",
        "GET /deeplinks", "GET /deeplinks/wait", "GET /deeplinks/{id}", "POST /deeplinks/{id}/open",
        "GET /tenants/{tenant}/sessions", "DELETE /tenants/{tenant}/sessions", "PATCH /tenants/{tenant}/users/{user}",
        "DELETE /tenants/{tenant}/users/{user}/sessions", "PATCH /faults/{id}", "GET /snapshots/download",
        "GET /tenants/{tenant}/policies", "PUT /tenants/{tenant}/policies", "GET /tenants/{tenant}/lockouts", "DELETE /tenants/{tenant}/lockouts",
        "GET /faults", "POST /faults", "DELETE /faults", "DELETE /faults/{id}", "GET /faults/journal", "GET /faults/operations",
        "GET /events", "GET /events/stream", "POST /events/{id}/replay",
        "GET /tenants/{tenant}/hooks", "PUT /tenants/{tenant}/hooks/{point}", "DELETE /tenants/{tenant}/hooks/{point}",
        "GET /tenants", "POST /tenants", "GET /tenants/{tenant}", "DELETE /tenants/{tenant}",
        "GET /users", "GET /tenants/{tenant}/users", "POST /tenants/{tenant}/users",
        "GET /tenants/{tenant}/users/{user}", "DELETE /tenants/{tenant}/users/{user}",
        "GET /tenants/{tenant}/users/{user}/sessions", "DELETE /tenants/{tenant}/users/{user}/sessions/{session}",
        "GET /snapshots", "POST /snapshots", "POST /snapshots/{name}/restore", "POST /snapshots/save", "POST /snapshots/load",
        "POST /export/firebase",
        "GET /tenants/{tenant}/oauth/authorizations", "POST /tenants/{tenant}/oauth/authorizations/{id}",
        "GET /idp", "POST /idp", "POST /idp/{provider}/accounts", "POST /idp/{provider}/tokens", "POST /idp/{provider}/next",
        "GET /webauthn/credentials", "POST /webauthn/credentials", "POST /webauthn/register", "POST /webauthn/assert",
    ]

    /// The server only listens once the seed and any snapshot are loaded, so answering at all means ready.
    private func health() throws -> Response {
        return ControlJSON.response(["status": "ok", "schema_version": .int(Emulator.schemaVersion),
                                     "clock": ControlJSON.clock(emulator.clock)])
    }

    private func reset(_ request: ControlRequest) throws -> Response {
        let tenant = request.query("tenant")
        if let tenant, try emulator.tenant(tenant) == nil, !emulator.seed.tenants.contains(where: { $0.id == tenant }) {
            throw AuthError.tenantNotFound(tenant)
        }
        let clock = request.query("clock")
        guard clock == nil || clock == "keep" else { throw ControlError.badRequest("clock: expected keep, or nothing") }
        try emulator.reset(tenant: tenant)
        // The clock is the whole process's: a tenant's reset leaves it, a full one returns it to how --clock
        // started it (a test's frozen instant included), unless asked to keep it.
        if tenant == nil {
            identityProviders.clearQueue()
            if clock == nil { emulator.clock.restart() }
        }
        return ControlJSON.response(["status": "reset", "tenant": JSON(tenant), "clock": ControlJSON.clock(emulator.clock)])
    }

    private func openAPIDocument() -> Response {
        var response = ControlJSON.response(.null)
        response.body = ResponseBody(byteBuffer: .init(bytes: EmbeddedAssets.openAPI))
        return response
    }
}
