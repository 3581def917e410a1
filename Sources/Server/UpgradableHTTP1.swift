import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// hummingbird-websocket's HTTP/1.1 channel with upgrades, answering a request whose head cannot be parsed as the
/// plain HTTP/1.1 channel does (`400`, `Connection: close`), and closing a connection whose first request's head takes
/// longer than the idle timeout to arrive, as the plain channel does.
///
/// Before a connection's first request is read, its pipeline has the decoder and NIO's upgrade handler only: the
/// decoder's error (a request line or header over 80 KiB, bytes that are not HTTP) passes through the upgrade handler
/// to the end of the pipeline, where nothing answers it, and the connection hung until the client gave up. A request
/// line that long is real: a deflated SAML request can carry one.
///
/// Nor is the idle timeout there yet: the library adds Hummingbird's connection handler, which closes idle
/// connections, only once the first request is known not to be an upgrade. A client that sent half a request line and
/// then nothing kept its connection, and a descriptor, for as long as it liked; so until the first head is through,
/// a timer of the same length stands in.
struct UpgradableHTTP1: ServerChildChannel {
    let base: HTTP1WebSocketUpgradeChannel
    /// The idle timeout `base` was configured with (the library keeps its configuration to itself).
    let idleTimeout: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(UnparsableHeadAnswer())
            if let idleTimeout {
                // Right after the decoder, where the head is seen as soon as it is whole, upgrade or not.
                let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try channel.pipeline.syncOperations.addHandler(FirstHeadDeadline(idleTimeout), position: .after(decoder))
            }
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        // The library logs, at error level, every connection that ends before its first request's head is read: each
        // client that gives up or vanishes mid-head, and each one the deadline above closes. That is the client's
        // doing, not the server's, and a line on stderr per connection is what filled the pipe of a harness that
        // reads stderr only at the end (the Python client did), until the server blocked writing it. Nothing else
        // is logged with this logger above debug (the HTTP channel's own logs are trace and debug; a WebSocket
        // handler gets the logger of `setup`).
        var quiet = logger
        quiet.logLevel = .critical
        await base.handle(value: value, logger: quiet)
    }
}

/// At the end of the pipeline while the first request is negotiated: answers a parse error, and steps aside once a
/// request (or a WebSocket frame) gets through, after which the HTTP channel or the socket handles their own errors.
final class UnparsableHeadAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, !answered else { return context.fireErrorCaught(error) }
        answered = true
        var headers = HTTPHeaders()
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Length", value: "0")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        // The context may only be used on its event loop, where the write completes.
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }
}

/// Closes the connection unless its first request's head arrives within `timeout` of it being set up; steps aside when
/// it does, after which Hummingbird's connection handler (or a WebSocket's own) takes over.
final class FirstHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(_ timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        if case .head = unwrapInboundIn(data) {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
