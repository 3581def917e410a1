import AuthCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The SMTP sink: a listener whose every accepted message lands in the outbox (`AppMessages`).
public final class SMTPServer: Service, Sendable, CustomStringConvertible {
    let channel: any NIOCore.Channel
    /// The port it listens on (the one chosen, when asked for port 0).
    public let port: Int
    public var description: String { "SMTP sink on port \(port)" }

    /// Binds now, so the port is known (and taken) before the server says it is ready.
    public init(host: String, port: Int, emulator: Emulator, logger: Logger) throws {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SMTPHandler(emulator: emulator, logger: logger))
                }
            }
        channel = try bootstrap.bind(host: host, port: port).wait()
        self.port = channel.localAddress?.port ?? port
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            try? await channel.closeFuture.get()
        } onGracefulShutdown: {
            self.channel.close(promise: nil)
        }
    }
}

/// One connection: bytes split into lines for the session, replies written back.
final class SMTPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Longer lines than this end the connection (RFC 5321 allows 1000; some clients send more).
    static let maxLine = 64 << 10

    let emulator: Emulator
    let logger: Logger
    var session = SMTPSession()
    var pending: [UInt8] = []

    init(emulator: Emulator, logger: Logger) {
        self.emulator = emulator; self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        write([session.greeting], context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let newline = pending.firstIndex(of: 0x0A) {
            var line = Array(pending[..<newline])
            pending.removeFirst(newline + 1)
            if line.last == 0x0D { line.removeLast() }
            let step = session.receive(line)
            if let envelope = step.delivered {
                do { try AppMessages.deliver(envelope, to: emulator) } catch {
                    logger.error("SMTP sink could not keep a message: \(error)")
                }
            }
            write(step.replies, context: context)
            if step.close {
                context.close(promise: nil)
                return
            }
        }
        if pending.count > Self.maxLine {
            write(["500 5.5.0 Line too long"], context: context)
            context.close(promise: nil)
        }
    }

    private func write(_ replies: [String], context: ChannelHandlerContext) {
        guard !replies.isEmpty else { return }
        let text = replies.map { $0 + "\r\n" }.joined()
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
    }
}
