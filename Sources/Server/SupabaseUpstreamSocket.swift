import AuthCore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWSClient
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// WebSocket upgrades on a project's service paths (Realtime's `/realtime/v1/websocket`, or a function's socket under
/// `/functions/v1`), carried to its upstream: the app's socket is accepted, a socket to the same path of the stack is
/// opened with the app's headers, and data frames pass both ways unchanged (fragments stay fragments). Each side
/// answers its own pings; a close on either side closes the other, with the stack's code and reason passed to the app.
///
/// Every listener serving Supabase paths is built with `server(idleTimeout:route:)`, so an upgrade is seen before the
/// router: it has to be a connection's first request (a later one is sent back to reconnect, by Hummingbird).
struct SupabaseUpstreamSocket: Sendable {
    let upstream: SupabaseUpstream

    /// Where an upgrade request goes: the project and the path to ask its stack for (without Fauxth's own prefix), or
    /// nil when the path is not one of a project's services.
    typealias Route = @Sendable (_ path: String) -> (project: String, path: String)?

    /// The largest frame carried: Realtime's messages (a row's change, a broadcast) are larger than the library's
    /// 16 KiB default, and the stack enforces its own limits.
    static let maxFrameSize = 16 << 20

    /// Headers of the app's upgrade request that belong to its own handshake with Fauxth: the client makes its own.
    static let handshakeOnly: Set<String> = SupabaseUpstream.hopByHop.union([
        "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol", "sec-websocket-accept",
    ])

    /// HTTP/1.1 as `.http1` serves it (`UpgradableHTTP1`), plus the upgrades `route` places.
    func server(idleTimeout: TimeAmount, route: @escaping Route) -> HTTPServerBuilder {
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(http1: .init(idleTimeout: idleTimeout),
                                                                       ws: .init(maxFrameSize: Self.maxFrameSize))
        return HTTPServerBuilder { responder in
            UpgradableHTTP1(base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration) { request, _, logger in
                shouldUpgrade(request, route: route, logger: logger)
            }, idleTimeout: idleTimeout)
        }
    }

    private func shouldUpgrade(_ request: HTTPRequest, route: Route, logger: Logger)
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let path = request.path, let (project, servicePath) = route(Self.pathOnly(path)) else { return .dontUpgrade }
        let query = path.firstIndex(of: "?").map { String(path[$0...]) } ?? ""
        let headers = SupabaseUpstream.forwardedHeaders(request.headerFields, authority: request.authority, dropping: Self.handshakeOnly)
        return .upgrade([:]) { app, appWriter, _ in
            await carry(app, appWriter, project: project, path: servicePath + query, headers: headers, logger: logger)
        }
    }

    /// The route of the main port: `/projects/<id>/<service>…` for that project, `/<service>…` for `project`.
    static func mainPortRoute(defaultProject project: String) -> Route {
        { path in
            if let prefix = ProjectPrefix(path: path, service: true) {
                let rest = String(path.dropFirst(prefix.root.count))
                return isService(rest) ? (prefix.project, rest) : nil
            }
            return isService(path) ? (project, path) : nil
        }
    }

    /// The route of a project's own port: `/<service>…`.
    static func projectPortRoute(_ project: String) -> Route {
        { path in isService(path) ? (project, path) : nil }
    }

    static func isService(_ path: String) -> Bool {
        SupabaseUpstream.servicePrefixes.contains { path == "/\($0)" || path.hasPrefix("/\($0)/") }
    }

    private static func pathOnly(_ target: String) -> String {
        target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target
    }

    private func carry(_ app: WebSocketInboundStream, _ appWriter: WebSocketOutboundWriter, project: String, path: String,
                       headers: HTTPFields, logger: Logger) async {
        guard let base = upstream.upstream(of: project) else {
            // A close reason is at most 123 bytes.
            try? await appWriter.close(.policyViolation, reason: "no_upstream: start Fauxth with --supabase-upstream")
            return
        }
        let url = (base.hasPrefix("https:") ? "wss:" + base.dropFirst("https:".count) : "ws:" + base.dropFirst("http:".count)) + path
        let stackClose: WebSocketCloseFrame?
        do {
            stackClose = try await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: Self.maxFrameSize, additionalHeaders: headers), logger: logger
            ) { stack, stackWriter, _ in
                // Whichever side stops first ends both pumps; returning closes the stack's socket normally.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await Self.pump(app, to: stackWriter) }
                    group.addTask { try await Self.pump(stack, to: appWriter) }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("the Supabase upstream's socket at \(url) failed: \(error)")
            try? await appWriter.close(.unknown(1014), reason: "upstream_unreachable: \(base) did not accept the socket".prefix(123).description)
            return
        }
        if let stackClose { try? await appWriter.close(stackClose.closeCode, reason: stackClose.reason) }
    }

    private static func pump(_ inbound: WebSocketInboundStream, to writer: WebSocketOutboundWriter) async throws {
        for try await frame in inbound {
            let opcode: WebSocketOpcode = switch frame.opcode {
            case .text: .text
            case .binary: .binary
            case .continuation: .continuation
            }
            try await writer.write(.custom(WebSocketFrame(fin: frame.fin, opcode: opcode, data: frame.data)))
        }
    }
}
