import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// hummingbird-websocket's HTTP/1.1 channel with upgrades, answering a request whose head cannot be parsed as the
/// plain HTTP/1.1 channel does (`400`, `Connection: close`).
///
/// Before a connection's first request is read, its pipeline has the decoder and NIO's upgrade handler only: the
/// decoder's error (a request line or header over 80 KiB, bytes that are not HTTP) passes through the upgrade handler
/// to the end of the pipeline, where nothing answers it, and the connection hung until the client gave up. A request
/// line that long is real: a deflated SAML request can carry one.
struct UpgradableHTTP1: ServerChildChannel {
    let base: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(UnparsableHeadAnswer())
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
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
