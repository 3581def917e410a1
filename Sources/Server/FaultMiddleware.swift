import AuthCore
import CognitoAPI
import FirebaseAPI
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import SupabaseAPI
import Synchronization

/// Applies the fault rules: names each dialect request in auth terms (the dialect's canonical
/// operation, tenant, identifier, client), asks the engine whether a rule fires, and does what the
/// rule says, in the dialect's own error format. Every firing answers with `x-fauxth-fault: <rule id>`
/// (when it answers at all) and is recorded as a `fault.fired` event and in the journal.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = FauxthContext

    /// What a request is, and how its dialect renders a fault's error.
    struct Classified {
        var target: FaultTarget
        var render: @Sendable (_ error: String, _ message: String?, _ retryAfter: Int?) -> Response
    }

    /// The parts of a request the dialects classify by.
    struct Parts {
        var method: HTTPRequest.Method
        var path: String
        var query: [String: String]
        var headers: [String: String]
        var json: JSON?
        var form: [String: String]
    }

    let emulator: Emulator
    let classify: @Sendable (Parts) -> Classified?

    /// Bodies larger than this are not read for identifiers (the dialects refuse them anyway).
    static let bodyLimit = 8 << 20

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The control API, the console and the fake providers are never faulted: leave their bodies unread.
        guard emulator.faults.isArmed, !request.uri.path.hasPrefix("/_emu/") else { return try await next(request, context) }
        var request = request
        var parts = Parts(method: request.method, path: request.uri.path, query: request.queryFields, headers: [:], json: nil, form: [:])
        for field in request.headers { parts.headers[field.name.canonicalName] = field.value }
        if request.method != .get, request.method != .head, let buffer = try? await request.collectBody(upTo: Self.bodyLimit), buffer.readableBytes > 0 {
            if (request.headers[.contentType] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded") {
                parts.form = FormBody.decode(String(buffer: buffer))
                parts.json = .object(parts.form.mapValues(JSON.string))
            } else {
                parts.json = try? JSON.parse(buffer.readableBytesView)
            }
        }
        guard let classified = classify(parts), let firing = emulator.faults.decide(classified.target) else {
            return try await next(request, context)
        }
        let rule = firing.rule
        emulator.record(.faultFired, tenant: classified.target.tenant, origin: request.origin(context), detail: [
            "rule": .string(rule.id), "firing": .string(firing.id), "operation": .string(classified.target.operation),
            "effect": .string(rule.effect.type), "identifier": JSON(classified.target.identifier),
        ])
        let marker = HTTPField(name: .fauxthFault, value: rule.id)
        switch rule.effect {
        case .error(let name, let message, let retryAfter):
            var response = classified.render(name, message, retryAfter ?? firing.retryAfter)
            response.headers.append(marker)
            return response
        case .response(let status, let headers, let body):
            var fields = HTTPFields()
            for (name, value) in headers { if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) } }
            fields.append(marker)
            return Response(status: HTTPResponse.Status(code: status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        case .delay(let milliseconds):
            try await pause(.milliseconds(milliseconds))
            var response = try await next(request, context)
            response.headers.append(marker)
            return response
        case .hang(let milliseconds):
            // The client gives up first, or the bound runs out: either way the connection ends unanswered.
            try? await pause(.milliseconds(milliseconds))
            return await drop(context, reset: false)
        case .reset:
            return await drop(context, reset: true)
        case .close:
            return await drop(context, reset: false)
        case .truncate(let bytes):
            var response = try await next(request, context)
            let body = try await Self.collect(response.body)
            let kept = body.getSlice(at: body.readerIndex, length: min(bytes, body.readableBytes)) ?? ByteBuffer()
            response.headers[.contentLength] = String(body.readableBytes)
            response.headers.append(marker)
            let channel = context.channel
            response.body = ResponseBody { writer in
                try await writer.write(kept)
                // What is promised but never sent: the client sees the connection end mid-body.
                try? await channel?.close()
                try await Task.sleep(for: .seconds(1))
                try await writer.finish(nil)
            }
            return response
        case .slow(let bytes, let milliseconds):
            var response = try await next(request, context)
            let body = try await Self.collect(response.body)
            response.headers[.contentLength] = String(body.readableBytes)
            response.headers.append(marker)
            response.body = ResponseBody { writer in
                var rest = body
                while let chunk = rest.readSlice(length: min(bytes, rest.readableBytes)), chunk.readableBytes > 0 {
                    try await writer.write(chunk)
                    if rest.readableBytes > 0 { try await pause(.milliseconds(milliseconds)) }
                }
                try await writer.finish(nil)
            }
            return response
        }
    }

    /// The whole of a response body the handler produced, to send it back differently.
    static func collect(_ body: ResponseBody) async throws -> ByteBuffer {
        let sink = BodySink()
        try await body.write(sink)
        return sink.buffer.withLock { $0 }
    }

    /// Ends the connection without an answer: closed, or reset (SO_LINGER 0 makes the close a TCP RST).
    private func drop(_ context: Context, reset: Bool) async -> Response {
        if let channel = context.channel {
            if reset, let socket = channel as? any SocketOptionProvider { try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get() }
            try? await channel.close()
        }
        // Nothing reaches the client; the server's attempt to write this fails quietly.
        return Response(status: .serviceUnavailable)
    }
}

/// Sleeps for `duration`, or until the server starts stopping: a graceful shutdown waits for every request
/// in progress, and a rule's delay or hang (up to five minutes) would otherwise hold the process that long.
private func pause(_ duration: Duration) async throws {
    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    try Task.checkCancellation()
}

extension HTTPField.Name {
    /// Names the rule that shaped an answer.
    static let fauxthFault = Self("x-fauxth-fault")!
}

// MARK: Classifiers

extension FaultMiddleware {
    /// The main port: every dialect, each under its own paths.
    static func main(emulator: Emulator, supabase defaultProject: String, firebase: FirebaseDialect, cognito: CognitoDialect) -> FaultMiddleware {
        FaultMiddleware(emulator: emulator) { parts in
            if parts.path.hasPrefix("/auth/v1/") {
                return supabaseTarget(parts, relative: String(parts.path.dropFirst("/auth/v1".count)), tenant: defaultProject)
            }
            let first = parts.path.split(separator: "/").first.map(String.init) ?? ""
            if FirebaseDialect.prefixes.contains(first) {
                guard let target = firebase.faultTarget(method: parts.method, path: parts.path, query: parts.query, body: parts.json,
                                                        headers: parts.headers) else { return nil }
                return Classified(target: target) { FirebaseDialect.faultResponse($0, message: $1, retryAfter: $2) }
            }
            return cognitoTarget(parts, cognito: cognito, pool: nil)
        }
    }

    /// A Supabase project's own port: GoTrue at the root and under `/auth/v1`.
    static func supabaseProject(emulator: Emulator, tenant: String) -> FaultMiddleware {
        FaultMiddleware(emulator: emulator) { parts in
            let relative = parts.path.hasPrefix("/auth/v1/") ? String(parts.path.dropFirst("/auth/v1".count)) : parts.path
            return supabaseTarget(parts, relative: relative, tenant: tenant)
        }
    }

    /// A Cognito pool's own hosted-UI port.
    static func cognitoPool(emulator: Emulator, cognito: CognitoDialect, pool: String) -> FaultMiddleware {
        FaultMiddleware(emulator: emulator) { parts in cognitoTarget(parts, cognito: cognito, pool: pool) }
    }

    private static func supabaseTarget(_ parts: Parts, relative: String, tenant: String) -> Classified? {
        guard let target = SupabaseDialect.faultTarget(method: parts.method, path: relative, query: parts.query, body: parts.json, tenant: tenant,
                                                       headers: parts.headers, fullPath: parts.path) else { return nil }
        let apiVersion = parts.headers["x-supabase-api-version"]
        return Classified(target: target) { SupabaseDialect.faultResponse($0, message: $1, retryAfter: $2, apiVersion: apiVersion) }
    }

    private static func cognitoTarget(_ parts: Parts, cognito: CognitoDialect, pool: String?) -> Classified? {
        guard let target = cognito.faultTarget(method: parts.method, path: parts.path, query: parts.query, body: parts.json, form: parts.form,
                                               headers: parts.headers, pool: pool) else { return nil }
        let hostedUI = parts.path != "/"
        return Classified(target: target) { cognito.faultResponse($0, message: $1, retryAfter: $2, hostedUI: hostedUI) }
    }
}

/// A response-body writer that keeps what it is given.
private final class BodySink: ResponseBodyWriter, Sendable {
    let buffer = Mutex(ByteBuffer())

    func write(_ chunk: ByteBuffer) async throws { buffer.withLock { _ = $0.writeImmutableBuffer(chunk) } }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
