import AuthCore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Listeners for Supabase projects made while Fauxth runs, when they ask for a `port` (0 for a free one): each gets
/// its own GoTrue at the root and under `/auth/v1`, as a seeded project's port does, from the moment it is made,
/// and loses it when the project goes (deleted, or undone by a reset or a restore). Its URL shows in `/info`.
struct RuntimeProjectPorts: Service, CustomStringConvertible {
    let emulator: Emulator
    let host: String
    let listeners: Listeners
    /// The projects whose ports were bound at start.
    let started: Set<String>
    let makeRouter: @Sendable (String) -> Router<FauxthContext>
    let makeServer: @Sendable (String) -> HTTPServerBuilder
    let logger: Logger

    var description: String { "run-time project ports" }

    func run() async throws {
        let changes = emulator.tenantWatch.watch()
        await cancelWhenGracefulShutdown {
            var running: [String: Task<Void, Never>] = [:]
            for await _ in changes {
                // After every reset and restore: the ports alone, not every tenant's settings decoded (a tenth of a
                // restore's CPU when it read them all).
                let wanted = Dictionary(((try? emulator.supabaseProjectPorts()) ?? []).filter { !started.contains($0.tenant) },
                                        uniquingKeysWith: { first, _ in first })
                for (tenant, task) in running where wanted[tenant] == nil {
                    task.cancel()
                    running[tenant] = nil
                    listeners.unbound(project: tenant)
                }
                for (tenant, port) in wanted where running[tenant] == nil {
                    running[tenant] = serve(tenant, port: port)
                }
            }
            for task in running.values { task.cancel() }
        }
    }

    private func serve(_ tenant: String, port: Int) -> Task<Void, Never> {
        let application = Application(
            router: makeRouter(tenant), server: makeServer(tenant),
            configuration: .init(address: .hostname(host, port: port), serverName: "Fauxth"),
            onServerRunning: { [listeners] channel in listeners.added(project: tenant, port: channel.localAddress?.port ?? port) },
            logger: logger)
        return Task { [logger] in
            do { try await application.run() } catch {
                logger.error("the port \(port) of Supabase project \(tenant) could not be served: \(error)")
            }
        }
    }
}
