import AuthCore
import Console
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import SupabaseAPI

/// The assembled emulator: the core and the HTTP application that serves it.
public struct FauxthApplication: Sendable {
    public let emulator: Emulator
    public let application: Application<RouterResponder<FauxthContext>>
    /// Problems worth a warning at start-up that do not stop it (unknown GoTrue variables…).
    public let warnings: [String]
}

/// The release's version, reported by `/_emu/v1/info` and `--version`.
public let fauxthVersion = "0.1.0"

/// Builds the application from options; the CLI and the tests both come through here.
///
/// - Parameter onReady: called once the listener is bound, with the port it got (useful with port 0).
public func buildApplication(_ options: FauxthOptions, logger: Logger = Logger(label: "fauxth"),
                             onReady: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> FauxthApplication {
    let emulator = try Emulator(EmulatorOptions(clock: options.clock, generator: options.generator,
                                                passwordHasher: options.passwordHasher, seed: options.seed))
    var warnings = try validateTenants(emulator)
    if let path = options.snapshotPath, FileManager.default.fileExists(atPath: path) {
        try emulator.loadSnapshot(from: path)
        warnings += try validateTenants(emulator).filter { !warnings.contains($0) }
    }
    let router = Router(context: FauxthContext.self)
    router.add(middleware: RouteFallbackMiddleware())
    router.add(middleware: CORSMiddleware(
        allowOrigin: .originBased,
        allowHeaders: [.accept, .authorization, .contentType, .init("apikey")!, .init("x-client-info")!,
                       .init("X-Supabase-Api-Version")!, .init("X-JWT-AUD")!, .init("x-use-cookie")!],
        allowMethods: [.get, .post, .put, .patch, .delete, .options],
        allowCredentials: true,
        exposedHeaders: ["X-Total-Count", "Link", "X-Supabase-Api-Version", "x-sb-error-code"]))
    router.get("/") { _, _ in Response(status: .found, headers: [.location: "/_emu/"]) }
    StaticFiles(webRoot: options.webRoot).addRoutes(to: router.group("_emu"))
    let listeners = Listeners()
    ControlAPI(emulator: emulator, info: { request in info(emulator, baseURL: request.baseURL, listeners: listeners.all) })
        .addRoutes(to: router.group("_emu/v1"))
    let supabase = SupabaseDialect(emulator: emulator)
    let defaultProject = (try? emulator.tenants())?.first { $0.dialect == .supabase }?.id ?? "default"
    supabase.addRoutes(to: router.group("auth/v1")) { _ in defaultProject }

    var services: [any Service] = []
    if let path = options.snapshotPath, let seconds = options.autosaveSeconds, seconds > 0 {
        services.append(AutosaveService(emulator: emulator, path: path, interval: seconds, logger: logger))
    }
    let application = Application(
        router: router,
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: "Fauxth"),
        services: services,
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? options.port
            listeners.add("http://\(options.host.contains(":") ? "[\(options.host)]" : options.host):\(port)")
            await onReady(port)
        },
        logger: logger)
    return FauxthApplication(emulator: emulator, application: application, warnings: warnings)
}

/// Checks every tenant's dialect settings; throws on a value the vendor would refuse, returns warnings.
private func validateTenants(_ emulator: Emulator) throws -> [String] {
    var warnings: [String] = []
    for tenant in try emulator.tenants() where tenant.dialect == .supabase {
        do {
            let unknown = try SupabaseDialect.validate(tenant)
            if !unknown.isEmpty {
                warnings.append("tenant \(tenant.id): gotrue_env variables Fauxth does not use yet: \(unknown.joined(separator: ", "))")
            }
        } catch {
            throw SeedError(file: "tenant \(tenant.id)", path: "gotrue_env", reason: "\(error)")
        }
    }
    return warnings
}

/// `/_emu/v1/info`: the version, where things are, and how to point each SDK at each tenant.
func info(_ emulator: Emulator, baseURL: String, listeners: [String] = []) -> JSON {
    let tenants = ((try? emulator.tenants()) ?? []).map { tenant -> JSON in
        var hints: [String: String] = [:]
        switch tenant.dialect {
        case .supabase: hints = SupabaseDialect.connectionHints(for: tenant, baseURL: baseURL)
        case .firebase, .cognito: break
        }
        return ["id": .string(tenant.id), "dialect": .string(tenant.dialect.rawValue), "name": .string(tenant.name),
                "hints": .object(hints.mapValues(JSON.string))]
    }
    return ["version": .string(fauxthVersion), "base_url": .string(baseURL), "console_url": .string(baseURL + "/_emu/"),
            "control_url": .string(baseURL + "/_emu/v1"), "deterministic": .bool(emulator.generator.isDeterministic),
            "clock": ["now": .string(RFC3339.string(from: emulator.clock.now)), "mode": .string(emulator.clock.mode.rawValue)],
            "schema_version": .int(Emulator.schemaVersion), "listeners": .array(listeners.map(JSON.string)),
            "tenants": .array(tenants)]
}

/// The start-up banner: where the console is, and what to set for each tenant.
public func banner(_ emulator: Emulator, baseURL: String) -> String {
    var lines = ["Fauxth \(fauxthVersion) is listening on \(baseURL)", "  console:     \(baseURL)/_emu/",
                 "  control API: \(baseURL)/_emu/v1 (OpenAPI: \(baseURL)/_emu/v1/openapi.json)"]
    for tenant in info(emulator, baseURL: baseURL)["tenants"]?.arrayValue ?? [] {
        lines.append("  \(tenant["dialect"]?.stringValue ?? "") tenant \"\(tenant["id"]?.stringValue ?? "")\":")
        for (key, value) in (tenant["hints"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            lines.append("    \(key)=\(value.stringValue ?? "")")
        }
    }
    return lines.joined(separator: "\n")
}

/// The addresses the server bound, known once it is running.
final class Listeners: Sendable {
    private let addresses = Mutex<[String]>([])
    var all: [String] { addresses.withLock { $0 } }
    func add(_ address: String) { addresses.withLock { $0.append(address) } }
}

/// Saves the snapshot every `interval` seconds of real time until shutdown.
struct AutosaveService: Service {
    let emulator: Emulator
    let path: String
    let interval: Int
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .seconds(interval))
                do { try emulator.saveSnapshot(to: path) } catch { logger.error("autosave failed: \(error)") }
            }
        }
    }
}
