import AuthCore
import CognitoAPI
import Console
import FirebaseAPI
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import HummingbirdCore
import IdentityProviders
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Sinks
import SupabaseAPI
import UnixSignals

/// The assembled emulator: the core, the main application, and one application per Supabase project
/// that has a port of its own.
public struct FauxthApplication: Sendable {
    public let emulator: Emulator
    /// The main listener: every dialect, the control API and the console.
    public let application: Application<RouterResponder<FauxthContext>>
    /// Projects served on their own ports, by tenant id: GoTrue at the root and under `/auth/v1`.
    public let projectApplications: [String: Application<RouterResponder<FauxthContext>>]
    /// Problems worth a warning at start-up that do not stop it (unknown GoTrue variables…).
    public let warnings: [String]
    /// Where each listener ended up, once bound.
    public let listeners: Listeners
    /// The Firebase dialect, which knows which API key reaches which project (the banner's hints).
    let firebase: FirebaseDialect
    let logger: Logger
    /// Every listener as it runs: each named by the option or setting that asked for its port
    /// (`PortListener`), and, with the default host, their twins on [::1]. Every service here and among a
    /// listener's background services describes itself in a few words: ServiceLifecycle names each service
    /// with `"\(service)"` when a group is made, which for a type without a description reflects the whole
    /// value (a listener's router and every closure in it), a tenth of start-up's CPU.
    let services: [any Service]

    /// Serves every listener until SIGINT or SIGTERM. A port another program holds throws `StartupError`.
    public func run() async throws {
        try await ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
    }
}

/// Builds the application from options; the CLI and the tests both come through here.
///
/// - Parameter onReady: called once every listener is bound, with the main port (useful with port 0).
public func buildApplication(_ options: FauxthOptions, logger: Logger = Logger(label: "fauxth"),
                             onReady: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> FauxthApplication {
    try options.checkPaths()
    let emulator = try Emulator(EmulatorOptions(clock: options.clock, generator: options.generator,
                                                passwordHasher: options.passwordHasher, seed: options.seed,
                                                credentialDerivers: [.cognito: CognitoDialect.credentialDeriver],
                                                policyDerivers: [.supabase: SupabaseDialect.policyDeriver, .cognito: CognitoDialect.policyDeriver],
                                                addressUniqueness: [.cognito: CognitoDialect.addressUniqueness],
                                                retention: options.retention,
                                                webAuthn: [.supabase: SupabaseDialect.webAuthnSettings, .cognito: CognitoDialect.webAuthnSettings,
                                                           .firebase: FirebaseDialect.webAuthnSettings],
                                                journalScheduler: onAnEventLoop))
    var warnings = try validateTenants(emulator)
    if let path = options.snapshotPath, FileManager.default.fileExists(atPath: path) {
        try emulator.loadSnapshot(from: path)
        warnings += try validateTenants(emulator).filter { !warnings.contains($0) }
    }
    // Supabase projects (GoTrue) and Cognito pools (their hosted UI) may each have a port of their own. The
    // main port's `/auth/v1` serves one project; any other seeded project without a port gets a free one, so
    // every project the banner names is reachable at the URL it prints.
    let defaultProject = defaultSupabaseProject(in: emulator)
    let projectPorts = try emulator.tenants().compactMap { tenant -> (String, Dialect, Int)? in
        switch tenant.dialect {
        case .supabase: (tenant.settings["port"]?.intValue ?? (tenant.id == defaultProject ? nil : 0)).map { (tenant.id, tenant.dialect, $0) }
        case .cognito: tenant.settings["hosted_ui_port"]?.intValue.map { (tenant.id, tenant.dialect, $0) }
        case .firebase: nil
        }
    }
    // With the default host, each listener has a twin on [::1] (LoopbackTwin), told its port once bound.
    let twinPorts = options.host == "127.0.0.1"
        ? Dictionary(uniqueKeysWithValues: ([""] + projectPorts.map(\.0)).map { ($0, PortPromise()) }) : [:]
    var services: [any Service] = []
    // The SMTP sink binds first, so its port is known (and taken) before anything says it is ready.
    let smtp = try options.smtpPort.map { port in
        do { return try SMTPServer(host: options.host, port: port, emulator: emulator, logger: logger) } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw StartupError.portInUse(port, by: "--smtp-port")
        }
    }
    let listeners = Listeners(expected: 1 + projectPorts.count, host: options.host, smtpPort: smtp?.port)
    let staticFiles = StaticFiles(webRoot: options.webRoot)
    let identityProviders = FakeIdentityProviders(emulator: emulator, page: { path in staticFiles.text(path) })
    // The database mirror runs only when a project of the seed mirrors: it reads every event, which the hot path
    // should not pay for otherwise (a project given a database at run time starts mirroring at the next start).
    let mirrorProgress: SequenceBarrier? = options.seed.tenants.contains { $0.supabaseMirrorDatabase != nil }
        ? SequenceBarrier() : nil
    let supabase = SupabaseDialect(emulator: emulator, identityProviders: identityProviders, page: { path in staticFiles.text(path) },
                                   mirrored: mirrorProgress)
    let firebase = FirebaseDialect(emulator: emulator, defaultProject: defaultFirebaseProject(options, emulator: emulator),
                                   page: { path in staticFiles.text(path) }, identityProviders: identityProviders)
    let cognito = CognitoDialect(emulator: emulator, page: { path in staticFiles.text(path) }, identityProviders: identityProviders,
                                 lambdaEndpoint: options.lambdaEndpoint)
    if let directory = options.importFirebase {
        do { _ = try firebase.importEmulatorExport(from: directory) } catch {
            throw SeedError(file: directory, path: "$", reason: "\(error)")
        }
        try emulator.captureSeedState()
    }

    emulator.hooks.transport = HTTPHookTransport()
    emulator.hooks[.supabase] = SupabaseDialect.hookSchema
    emulator.hooks[.firebase] = firebase.hookSchema
    emulator.hooks[.cognito] = CognitoDialect.hookSchema
    emulator.faults.vocabulary = FaultVocabulary(
        operations: SupabaseDialect.faultOperations + FirebaseDialect.faultOperations + CognitoDialect.faultOperations,
        codes: [.supabase: SupabaseDialect.errorCodes, .firebase: FirebaseDialect.errorCodes, .cognito: CognitoDialect.errorCodes])

    let router = Router(context: FauxthContext.self)
    addCommonMiddleware(to: router, fallback: .byPath, emulator: emulator, staticFiles: staticFiles, requestLog: options.requestLog)
    router.get("/") { request, _ in
        // People go to the console; a client asking for JSON gets the Firebase emulator's health answer.
        let accept = request.headers[.accept] ?? ""
        return accept.contains("application/json") && !accept.contains("text/html")
            ? FirebaseDialect.health() : Response(status: .found, headers: [.location: "/_emu/"])
    }
    staticFiles.addRoutes(to: router.group("_emu"))
    // A captured link shown as the interstitial shows it: the console's Open on an app's scheme comes here, as a
    // browser tab cannot open the app itself.
    router.get("_emu/v1/deeplinks/:id/page") { _, context in
        guard let link = try emulator.deepLink(id: try context.parameters.require("id")) else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "No such deep link: it may have been dropped by --max-deeplinks or a reset.")))
        }
        return DeepLinkInterstitialMiddleware<FauxthContext>.render(link.url, template: staticFiles.text("web/deeplink.html"))
    }
    firebase.addRoutes(to: router)
    cognito.addRoutes(to: router)
    identityProviders.addRoutes(to: router)
    ControlAPI(emulator: emulator, info: { request in
        info(emulator, firebase: firebase, baseURL: request.baseURL, listeners: listeners.all, projectURLs: listeners.projectURLs,
             smtp: listeners.smtpAddress, openDeepLinks: options.deepLinkOpener?.name)
    }, exportFirebase: { directory, project in
        try firebase.exportEmulatorFormat(to: directory, project: project)
    }, identityProviders: identityProviders, deepLinkOpener: options.deepLinkOpener, settled: {
        // A mirrored project's database takes the reset or restored users before the control API answers.
        await mirrorProgress?.wait(for: emulator.lastEventSequence, timeout: .seconds(10))
    }, newTenantID: { dialect in
        dialect == .cognito ? CognitoDialect.newPoolID(generator: emulator.generator) : nil
    }, checkTenant: { tenant in
        _ = try validateSettings(of: tenant)
    }).addRoutes(to: router.group("_emu/v1"))
    supabase.addRoutes(to: router.group("auth/v1")) { _ in defaultProject }
    // The rest of the Supabase stack, forwarded to the project's upstream: on the main port for the default project,
    // and under each project's prefix.
    let upstream = SupabaseUpstream(emulator: emulator)
    upstream.addRoutes(to: router, project: { _ in defaultProject })
    upstream.addRoutes(to: router, under: "projects/:project/", project: { ProjectPrefix(path: $0.uri.path, service: true)?.project ?? "" },
                       strip: { ProjectPrefix(path: $0.uri.path, service: true)?.root ?? "" })
    // Every Supabase project, made by the seed or at run time, under a prefix on the main port:
    // createClient("http://127.0.0.1:9099/projects/<id>", key) reaches GoTrue at /projects/<id>/auth/v1.
    supabase.addRoutes(to: router.group("projects/:project/auth/v1"), tenant: { ProjectPrefix(request: $0)?.project ?? "" },
                       mount: { ProjectPrefix(request: $0)?.mount ?? "/auth/v1" })
    TwilioMessages(emulator: emulator).addRoutes(to: router)

    let idleTimeout = options.idleTimeout
    // Every listener that serves Supabase paths takes WebSocket upgrades on them (Realtime), for the upstream.
    let upstreamSocket = SupabaseUpstreamSocket(upstream: upstream)
    let mainServer = upstreamSocket.server(idleTimeout: idleTimeout, route: SupabaseUpstreamSocket.mainPortRoute(defaultProject: defaultProject))
    let projectServer: @Sendable (String, Dialect) -> HTTPServerBuilder = { tenant, dialect in
        dialect == .supabase ? upstreamSocket.server(idleTimeout: idleTimeout, route: SupabaseUpstreamSocket.projectPortRoute(tenant))
            : .http1(configuration: .init(idleTimeout: idleTimeout))
    }
    if let port = twinPorts[""] { services.append(LoopbackTwin(responder: router.buildResponder(), server: mainServer, port: port, logger: logger)) }
    var background: [any Service] = []
    if let smtp { background.append(smtp) }
    if let opener = options.deepLinkOpener { background.append(DeepLinkOpeningService(emulator: emulator, opener: opener)) }
    if let mirrorProgress { background.append(SupabaseDatabaseMirror(emulator: emulator, logger: logger, progress: mirrorProgress)) }
    if let path = options.snapshotPath, let seconds = options.autosaveSeconds, seconds > 0 {
        background.append(AutosaveService(emulator: emulator, path: path, interval: seconds, logger: logger))
    }
    /// The router of a project's own port: GoTrue (with the upstream's paths) for a Supabase project, the hosted UI
    /// for a Cognito pool.
    let requestLog = options.requestLog
    let makeProjectRouter: @Sendable (String, Dialect) -> Router<FauxthContext> = { tenant, dialect in
        let projectRouter = Router(context: FauxthContext.self)
        if dialect == .cognito {
            // A pool's own hosted-UI domain, as `https://<domain>.auth.<region>.amazoncognito.com` would be.
            addCommonMiddleware(to: projectRouter, fallback: .byPath, emulator: emulator, staticFiles: staticFiles, requestLog: requestLog)
            cognito.addHostedUIRoutes(to: projectRouter, pool: tenant)
        } else {
            addCommonMiddleware(to: projectRouter, fallback: .supabase, emulator: emulator, staticFiles: staticFiles, requestLog: requestLog)
            // A bare GoTrue serves at the root; the `/auth/v1` prefix keeps Supabase clients' URLs working too.
            supabase.addRoutes(to: projectRouter.group("auth/v1")) { _ in tenant }
            // Registered before the root's GoTrue routes, which would otherwise take no part of them anyway.
            SupabaseUpstream(emulator: emulator).addRoutes(to: projectRouter, project: { _ in tenant })
            supabase.addRoutes(to: projectRouter.group()) { _ in tenant }
        }
        // OAuth sign-in goes to the fake providers on the host it leaves from.
        identityProviders.addRoutes(to: projectRouter)
        return projectRouter
    }

    // A Supabase project made at run time with a `port` gets its listener then, and loses it with the project.
    background.append(RuntimeProjectPorts(emulator: emulator, host: options.host, listeners: listeners, started: Set(projectPorts.map(\.0)),
                                          makeRouter: { makeProjectRouter($0, .supabase) }, makeServer: { projectServer($0, .supabase) },
                                          logger: logger))

    let application = Application(
        // A connection idle for a minute between requests, or that takes a minute to send a request's head, is
        // closed (as the gateways in front of the real services do): otherwise slow or vanished clients could
        // hold file descriptors for ever. A request being answered, however long (a long poll, the event
        // stream, a fault's hang), is never cut.
        router: router, server: mainServer,
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: "Fauxth"),
        services: background,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? options.port
            twinPorts[""]?.resolve(port)
            if listeners.bound(main: port) { await onReady(port) }
        },
        logger: logger)
    services.append(PortListener(service: application, port: options.port, owner: "--port"))

    var projects: [String: Application<RouterResponder<FauxthContext>>] = [:]
    for (tenant, dialect, port) in projectPorts {
        let projectRouter = makeProjectRouter(tenant, dialect)
        if let port = twinPorts[tenant] {
            services.append(LoopbackTwin(responder: projectRouter.buildResponder(), server: projectServer(tenant, dialect), port: port, logger: logger))
        }
        let project = Application(
            router: projectRouter, server: projectServer(tenant, dialect),
            configuration: .init(address: .hostname(options.host, port: port), serverName: "Fauxth"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                twinPorts[tenant]?.resolve(bound)
                if let main = listeners.bound(project: tenant, port: bound) { await onReady(main) }
            },
            logger: logger)
        projects[tenant] = project
        let owner = dialect == .cognito ? "the hosted_ui_port of Cognito pool \(tenant)" : "the port of Supabase project \(tenant)"
        services.append(PortListener(service: project, port: port, owner: owner))
    }
    return FauxthApplication(emulator: emulator, application: application, projectApplications: projects, warnings: warnings,
                             listeners: listeners, firebase: firebase, logger: logger, services: services)
}

/// The project API keys that no project lists belong to: `--firebase-project`, else the first Firebase
/// project in the seed, else `demo-fauxth`.
private func defaultFirebaseProject(_ options: FauxthOptions, emulator: Emulator) -> String {
    if let project = options.firebaseProject { return project }
    let projects = ((try? emulator.tenants()) ?? []).filter { $0.dialect == .firebase && !$0.id.contains(":") }
    return projects.first?.id ?? "demo-fauxth"
}

/// The project `/auth/v1` on the main port serves: `default` if there is one, else the first
/// Supabase project.
private func defaultSupabaseProject(in emulator: Emulator) -> String {
    let projects = ((try? emulator.tenants()) ?? []).filter { $0.dialect == .supabase }
    return projects.first { $0.id == "default" }?.id ?? projects.first?.id ?? "default"
}

/// Unknown routes answered in their owner's format, and CORS as the Supabase gateway does it (browser
/// clients send `apikey`, `x-client-info` and `x-supabase-api-version`).
private func addCommonMiddleware(to router: Router<FauxthContext>, fallback: RouteFallbackMiddleware<FauxthContext>.Mode,
                                  emulator: Emulator, staticFiles: StaticFiles, requestLog: (@Sendable (RequestLogEntry) -> Void)?) {
    // The request log outside everything, so it reports the status the client gets.
    if let requestLog { router.add(middleware: RequestLogMiddleware(report: requestLog)) }
    // CORS outermost: it turns errors into plain responses, so the fallback (which renders errors in the owner's
    // format) must run inside it, or a browser's request to a wrong method would get an empty 404.
    router.add(middleware: ExposeHeadersMiddleware(headers: exposedHeaders))
    router.add(middleware: CORSMiddleware(
        allowOrigin: .originBased,
        allowHeaders: [.accept, .authorization, .contentType, .init("apikey")!, .init("x-client-info")!,
                       .init("X-Supabase-Api-Version")!, .init("X-JWT-AUD")!, .init("x-use-cookie")!,
                       // What the Firebase SDKs send from a browser.
                       .init("x-client-version")!, .init("x-firebase-gmpid")!, .init("x-firebase-client")!, .init("x-firebase-appcheck")!,
                       .init("x-firebase-locale")!, .init("x-goog-api-key")!, .init("x-goog-api-client")!,
                       // What Amplify and the AWS SDKs send from a browser.
                       .init("x-amz-target")!, .init("x-amz-user-agent")!, .init("x-amz-date")!, .init("x-amz-security-token")!,
                       .init("x-amz-content-sha256")!, .init("amz-sdk-invocation-id")!, .init("amz-sdk-request")!, .cacheControl],
        allowMethods: [.get, .post, .put, .patch, .delete, .options, .head],
        allowCredentials: true,
        exposedHeaders: exposedHeaders))
    router.add(middleware: RouteFallbackMiddleware(mode: fallback))
    router.add(middleware: DeepLinkInterstitialMiddleware(emulator: emulator, page: { path in staticFiles.text(path) }))
}

/// The response headers browser clients read: GoTrue's, and Cognito's error type, which Amplify reads first.
private let exposedHeaders = ["X-Total-Count", "Link", "X-Supabase-Api-Version", "x-sb-error-code",
                              "x-amzn-RequestId", "x-amzn-ErrorType", "x-amzn-ErrorMessage", "Date"]

/// `Access-Control-Expose-Headers` on the actual responses to cross-origin requests, where browsers read
/// it; Hummingbird's CORS middleware sends it only on preflights.
struct ExposeHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let value: String

    init(headers: [String]) { value = headers.joined(separator: ", ") }

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if request.method != .options, request.headers[.origin] != nil { response.headers[.accessControlExposeHeaders] = value }
        return response
    }
}

/// Runs `work` once, `delay` from now, on one of the server's event loops (a `JournalScheduler`): the current one when
/// called from a loop, as a handler calls it, so no thread wakes for it. The store's journal is made this way.
@Sendable private func onAnEventLoop(after delay: Duration, _ work: @escaping @Sendable () -> Void) {
    let (seconds, attoseconds) = delay.components
    MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) { work() }
}

/// Checks every tenant's dialect settings; throws on a value the vendor would refuse, returns warnings.
private func validateTenants(_ emulator: Emulator) throws -> [String] {
    var warnings: [String] = []
    for tenant in try emulator.tenants() {
        do { _ = try emulator.policies(for: tenant) } catch {
            throw SeedError(file: "tenant \(tenant.id)", path: "policies", reason: "\(error)")
        }
        warnings += try validateSettings(of: tenant)
    }
    return warnings
}

/// Checks a tenant's settings as its vendor would (the seed's at start-up, a control-API tenant before it is made);
/// throws on a value the vendor refuses, naming where, and returns warnings (GoTrue variables Fauxth does not read).
private func validateSettings(of tenant: Tenant) throws -> [String] {
    switch tenant.dialect {
    case .supabase:
        do {
            let unknown = try SupabaseDialect.validate(tenant)
            return unknown.isEmpty ? [] : ["tenant \(tenant.id): gotrue_env variables Fauxth does not use yet: \(unknown.joined(separator: ", "))"]
        } catch {
            throw SeedError(file: "tenant \(tenant.id)", path: "gotrue_env", reason: "\(error)")
        }
    case .firebase:
        do { try FirebaseDialect.validate(tenant) } catch {
            throw SeedError(file: "tenant \(tenant.id)", path: "$", reason: "\(error)")
        }
    case .cognito:
        do { try CognitoDialect.validate(tenant) } catch {
            throw SeedError(file: "tenant \(tenant.id)", path: "$", reason: "\(error)")
        }
    }
    return []
}

/// Opens each deep link as it is captured (`--open-deeplinks`), one at a time in capture order, as a phone
/// would be handed them; each outcome is a `deeplink.opened` event.
struct DeepLinkOpeningService: Service, CustomStringConvertible {
    let emulator: Emulator
    let opener: DeepLinkOpener

    var description: String { "deep link opener" }

    func run() async throws {
        let feed = emulator.feed.subscribe()
        await cancelWhenGracefulShutdown {
            for await item in feed {
                guard case .deepLink(let link) = item else { continue }
                await opener.open(link, emulator: emulator)
            }
        }
    }
}

/// Saves the snapshot every `interval` seconds of real time until shutdown.
struct AutosaveService: Service, CustomStringConvertible {
    let emulator: Emulator
    let path: String
    let interval: Int
    let logger: Logger

    var description: String { "autosave to \(path)" }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .seconds(interval))
                do { try await Blocking.run { [emulator, path] in try emulator.saveSnapshot(to: path) } } catch { logger.error("autosave failed: \(error)") }
            }
        }
    }
}
