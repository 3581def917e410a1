import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The same routes on IPv6's loopback, `[::1]`, at the port the IPv4 listener got. `localhost` resolves to
/// `::1` first on many machines (macOS, Node 17 and later, some simulators and browsers), and a client that
/// does not fall back to 127.0.0.1 would otherwise be refused. Only with the default `--host 127.0.0.1`:
/// any other host is the user's explicit choice. A machine without IPv6, or a `[::1]` port another program
/// holds, costs a warning, not the start.
struct LoopbackTwin: Service, CustomStringConvertible {
    let responder: RouterResponder<FauxthContext>
    /// The same server as the listener's (HTTP/1.1, with WebSocket upgrades where it takes them).
    let server: HTTPServerBuilder
    let port: PortPromise
    let logger: Logger

    var description: String { "[::1] twin" }

    func run() async throws {
        // Waiting for the IPv4 port ends with the service group, if that listener never binds.
        guard let port = await cancelWhenGracefulShutdown({ await port.value }) else { return }
        let twin = Application(
            responder: responder, server: server,
            configuration: .init(address: .hostname("::1", port: port), serverName: "Fauxth"), logger: logger)
        do { try await twin.run() } catch {
            logger.warning("not also listening on [::1]:\(port) (localhost may resolve there): \(error)")
        }
    }
}

/// A port known once a listener is bound, awaited by its twin; nil when the wait is cancelled (the listener
/// failed to bind and the service group is ending).
final class PortPromise: Sendable {
    private let state = Mutex<(port: Int?, cancelled: Bool, waiting: [CheckedContinuation<Int?, Never>])>((nil, false, []))

    func resolve(_ port: Int) {
        let waiting = state.withLock { s in
            s.port = port
            defer { s.waiting = [] }
            return s.waiting
        }
        for continuation in waiting { continuation.resume(returning: port) }
    }

    var value: Int? {
        get async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let answer = state.withLock { s -> Int?? in
                        if s.port != nil || s.cancelled { return .some(s.port) }
                        s.waiting.append(continuation)
                        return .none
                    }
                    if let answer { continuation.resume(returning: answer) }
                }
            } onCancel: {
                let waiting = state.withLock { s in
                    s.cancelled = true
                    defer { s.waiting = [] }
                    return s.waiting
                }
                for continuation in waiting { continuation.resume(returning: nil) }
            }
        }
    }
}
