import AsyncHTTPClient
import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1

/// The rest of a Supabase app's stack: a project's non-auth paths (`/rest/v1`, `/storage/v1`, `/functions/v1`…)
/// forwarded to the developer's own local Supabase (`supabase start`'s API, in the project's `upstream` setting or
/// `--supabase-upstream`), while Fauxth answers `/auth/v1`. The app keeps one URL; its tokens, signed with the
/// project's JWT secret (the CLI's by default), are accepted upstream, and the stack's own gateway maps API keys
/// there as it always does. Requests and answers stream through unchanged but for hop-by-hop headers.
struct SupabaseUpstream: Sendable {
    let emulator: Emulator

    /// The path prefixes of the Supabase services behind the CLI's gateway, besides `/auth/v1`.
    static let servicePrefixes = ["rest/v1", "rest-admin/v1", "graphql/v1", "storage/v1", "functions/v1", "realtime/v1", "analytics/v1", "pg"]

    /// Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus those the client recomputes.
    static let hopByHop: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
                                        "host", "content-length"]

    /// One client for the process. No redirects followed (the app sees them), nothing decompressed (the bytes pass
    /// as they are), and a refused connection fails at once.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Registers the service prefixes under `group` for `project` (the tenant a request is for); `strip` is the part
    /// of the request's path that is Fauxth's own (`/projects/<id>`), removed before forwarding.
    func addRoutes<Context: RequestContext>(to router: Router<Context>, under prefix: String = "", project: @escaping @Sendable (Request) -> String,
                                            strip: @escaping @Sendable (Request) -> String = { _ in "" }) {
        for service in Self.servicePrefixes {
            for pattern in ["\(prefix)\(service)", "\(prefix)\(service)/**"] {
                for method in [HTTPRequest.Method.get, .head, .post, .put, .patch, .delete, .options] {
                    router.on(RouterPath(pattern), method: method) { request, _ in
                        try await forward(request, project: project(request), path: String(request.uri.path.dropFirst(strip(request).count)))
                    }
                }
            }
        }
    }

    /// The project's upstream, from its settings.
    func upstream(of project: String) -> String? {
        guard let tenant = try? emulator.tenant(project), tenant.dialect == .supabase else { return nil }
        return tenant.settings["upstream"]?.stringValue.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    func forward(_ request: Request, project: String, path: String) async throws -> Response {
        if request.headers[.upgrade]?.lowercased() == "websocket" {
            // Upgrades are taken before the router (SupabaseUpstreamSocket) on every listener Fauxth builds; one that
            // reaches here came some other way, and is said so rather than sent on as a plain GET.
            return Self.failure(.notImplemented, "websocket_not_forwarded", "this WebSocket upgrade reached the HTTP router: "
                                + "upgrades are carried to the upstream only as a connection's first request")
        }
        guard let base = upstream(of: project) else {
            return Self.failure(.notFound, "no_upstream", "\(path) is not served by Fauxth, and the project \(project) has no upstream: "
                                + "start Fauxth with --supabase-upstream http://127.0.0.1:54321 (supabase start's API), or set \"upstream\" in the seed")
        }
        let query = request.uri.query.map { "?\($0)" } ?? ""
        var outbound = HTTPClientRequest(url: base + path + query)
        outbound.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in Self.forwardedHeaders(request.headers, authority: request.head.authority) {
            outbound.headers.add(name: field.name.rawName, value: field.value)
        }
        if let length = request.headers[.contentLength].flatMap(Int64.init) {
            outbound.body = .stream(request.body, length: .known(length))
        } else if request.method != .get, request.method != .head {
            outbound.body = .stream(request.body, length: .unknown)
        }
        let answer: HTTPClientResponse
        do {
            // Edge Functions may run for 150 s behind the CLI's gateway; so may the answer here.
            answer = try await Self.client.execute(outbound, timeout: .seconds(150))
        } catch {
            return Self.failure(.badGateway, "upstream_unreachable", "the Supabase upstream \(base) did not answer \(request.method) \(path): \(error)")
        }
        var headers = HTTPFields()
        for (name, value) in answer.headers where !Self.hopByHop.contains(name.lowercased()) {
            if let fieldName = HTTPField.Name(name) { headers.append(HTTPField(name: fieldName, value: value)) }
        }
        if let length = answer.headers.first(name: "content-length") { headers[.contentLength] = length }
        return Response(status: HTTPResponse.Status(code: Int(answer.status.code), reasonPhrase: answer.status.reasonPhrase),
                        headers: headers, body: ResponseBody(asyncSequence: answer.body))
    }

    /// The app's headers as its stack gets them: without those that describe its own connection to Fauxth
    /// (`dropping`), and with `X-Forwarded-Host` naming the host it asked for.
    static func forwardedHeaders(_ fields: HTTPFields, authority: String?, dropping: Set<String> = hopByHop) -> HTTPFields {
        var headers = HTTPFields(fields.filter { !dropping.contains($0.name.canonicalName) })
        if let authority { headers[HTTPField.Name("X-Forwarded-Host")!] = authority }
        return headers
    }

    /// The gateway's error shape (`{"message"}`), with Fauxth's code beside it.
    static func failure(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        .json(["code": .string(code), "message": .string(message)], status: status)
    }
}
