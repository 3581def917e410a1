import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// A request context that knows its connection, which a fault rule may close or reset. Without one
/// (a test's router), those effects still answer nothing but cannot touch the socket.
public protocol ConnectionRequestContext: RequestContext {
    var channel: (any NIOCore.Channel)? { get }
    /// Where the dialect notes which operation a request was, for `--log-requests`; nil when nothing logs.
    var requestNote: RequestNote? { get }
}

/// The operation a request turned out to be, noted by the dialect that answered it (through the fault
/// runner, where every dialect names its operations) and read by the request log once the answer is made.
public final class RequestNote: Sendable {
    private let noted = Mutex<FaultTarget?>(nil)

    public init() {}

    public var target: FaultTarget? { noted.withLock { $0 } }

    func note(_ target: FaultTarget?) { noted.withLock { $0 = target } }
}

/// Applies the fault rules where a dialect asks, once it has matched its route and read its body: the
/// engine decides on the request in auth terms, and a firing is recorded (`fault.fired` event, journal),
/// marked (`x-fauxth-fault: <rule id>` on any answer) and done: the dialect's own error, a raw answer, or
/// what the network would do (a delay, a hang, a reset, a closed or truncated or slow answer).
public struct FaultRunner: Sendable {
    public let emulator: Emulator

    public init(emulator: Emulator) { self.emulator = emulator }

    /// Answers as the first due rule matching the request says, else with `next`.
    ///
    /// - Parameters:
    ///   - target: the request in auth terms, nil when it is no operation; asked only while some rule is
    ///     armed, so a dialect computes nothing for faults on the hot path.
    ///   - renderError: the dialect's answer for an `error` effect (with the rule's message and `Retry-After`).
    ///   - next: the real answer, the dialect's errors already rendered (a delayed or truncated error is
    ///     still marked).
    public func respond(to request: Request, context: some RequestContext, target: () -> FaultTarget?,
                        renderError: (FaultErrorKind, _ message: String?, _ retryAfter: Int?) -> Response,
                        next: () async throws -> Response) async throws -> Response {
        let connection = context as? any ConnectionRequestContext
        let armed = emulator.faults.isArmed
        // The target is worked out only when a rule could fire or the request log asks for it.
        guard armed || connection?.requestNote != nil else { return try await next() }
        let target = target()
        connection?.requestNote?.note(target)
        guard armed, let target, let firing = emulator.faults.decide(target) else { return try await next() }
        emulator.record(.faultFired, tenant: target.tenant, origin: request.origin(context), detail: [
            "rule": .string(firing.rule.id), "firing": .string(firing.id), "operation": .string(target.operation),
            "effect": .string(firing.rule.effect.type), "identifier": JSON(target.identifier),
        ])
        let channel = connection?.channel
        let marker = HTTPField(name: .fauxthFault, value: firing.rule.id)
        switch firing.rule.effect {
        case .error(let kind, let message, let retryAfter):
            return Self.marked(renderError(kind, message, retryAfter ?? firing.retryAfter), marker)
        case .response(let status, let headers, let body):
            return Self.raw(status: status, headers: headers, body: body, marker: marker)
        case .delay(let milliseconds):
            try await pause(.milliseconds(milliseconds))
            return Self.marked(try await next(), marker)
        case .hang(let milliseconds):
            // The client gives up first, or the bound runs out: either way the connection ends unanswered.
            try? await pause(.milliseconds(milliseconds))
            return await Self.drop(channel, reset: false)
        case .reset:
            return await Self.drop(channel, reset: true)
        case .close:
            return await Self.drop(channel, reset: false)
        case .truncate(let bytes):
            return try await Self.truncated(try await next(), to: bytes, channel: channel, marker: marker)
        case .slow(let bytes, let milliseconds):
            return try await Self.slowed(try await next(), bytes: bytes, interval: milliseconds, marker: marker)
        }
    }

    private static func marked(_ response: Response, _ marker: HTTPField) -> Response {
        var response = response
        response.headers.append(marker)
        return response
    }

    /// A rule's own answer: its status, headers and body as given.
    private static func raw(status: Int, headers: [String: String], body: String, marker: HTTPField) -> Response {
        var fields = HTTPFields()
        for (name, value) in headers { if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) } }
        fields.append(marker)
        return Response(status: HTTPResponse.Status(code: status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The real headers (promising the whole body) and its first `bytes` bytes, then the connection closed.
    private static func truncated(_ response: Response, to bytes: Int, channel: (any NIOCore.Channel)?, marker: HTTPField) async throws -> Response {
        var response = response
        let body = try await collect(response.body)
        let kept = body.getSlice(at: body.readerIndex, length: min(bytes, body.readableBytes)) ?? ByteBuffer()
        response.headers[.contentLength] = String(body.readableBytes)
        response.headers.append(marker)
        response.body = ResponseBody { writer in
            try await writer.write(kept)
            // What is promised but never sent: the client sees the connection end mid-body.
            try? await channel?.close()
            try await Task.sleep(for: .seconds(1))
            try await writer.finish(nil)
        }
        return response
    }

    /// The real answer, `bytes` at a time, `interval` milliseconds apart.
    private static func slowed(_ response: Response, bytes: Int, interval: Int, marker: HTTPField) async throws -> Response {
        var response = response
        let body = try await collect(response.body)
        response.headers[.contentLength] = String(body.readableBytes)
        response.headers.append(marker)
        response.body = ResponseBody { writer in
            var rest = body
            while let chunk = rest.readSlice(length: min(bytes, rest.readableBytes)), chunk.readableBytes > 0 {
                try await writer.write(chunk)
                if rest.readableBytes > 0 { try await pause(.milliseconds(interval)) }
            }
            try await writer.finish(nil)
        }
        return response
    }

    /// The whole of a response body the handler produced, to send it back differently.
    private static func collect(_ body: ResponseBody) async throws -> ByteBuffer {
        let sink = BodySink()
        try await body.write(sink)
        return sink.buffer.withLock { $0 }
    }

    /// Ends the connection without an answer: closed, or reset (SO_LINGER 0 makes the close a TCP RST).
    private static func drop(_ channel: (any NIOCore.Channel)?, reset: Bool) async -> Response {
        if let channel {
            if reset, let socket = channel as? any SocketOptionProvider { try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get() }
            try? await channel.close()
        }
        // Nothing reaches the client; the server's attempt to write this fails quietly.
        return Response(status: .serviceUnavailable)
    }
}

extension FaultTarget {
    /// A dialect's request in auth terms: what the dialect knows (its operation, and the tenant,
    /// identifier and client the request names), with the method, path and headers rules may match.
    public init(_ dialect: Dialect, operation: String, tenant: String?, identifier: String?, clientId: String?, request: Request) {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        self.init(dialect: dialect, operation: operation, tenant: tenant, identifier: identifier, clientId: clientId,
                  method: request.method.rawValue, path: request.uri.path, headers: headers)
    }
}

extension HTTPField.Name {
    /// Names the rule that shaped an answer.
    public static let fauxthFault = Self("x-fauxth-fault")!
}

/// A response-body writer that keeps what it is given.
private final class BodySink: ResponseBodyWriter, Sendable {
    let buffer = Mutex(ByteBuffer())

    func write(_ chunk: ByteBuffer) async throws { buffer.withLock { _ = $0.writeImmutableBuffer(chunk) } }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Sleeps for `duration`, or until the server starts stopping: a graceful shutdown waits for every request
/// in progress, and a rule's delay or hang (up to five minutes) would otherwise hold the process that long.
private func pause(_ duration: Duration) async throws {
    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    try Task.checkCancellation()
}
