import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// One answered request, as `--log-requests` prints it: enough to see a wrong path (`/auth/v1/auth/v1/token`
/// answered 404 with no operation) or a client the pool does not have (`cognito:InitiateAuth … client=…`
/// answered 400). The path has no query: queries carry API keys, codes and tokens.
public struct RequestLogEntry: Sendable, Equatable {
    public var method: String
    public var path: String
    public var status: Int
    /// Nil when no dialect took the request as one of its operations (an unknown path, the console, the
    /// control API).
    public var dialect: Dialect?
    public var operation: String?
    public var tenant: String?
    public var clientId: String?
    public var milliseconds: Double

    /// `POST /auth/v1/token 400 supabase:token.password tenant=default 1.2ms`
    public var text: String {
        var words = ["request", method, path, String(status), operation ?? "-"]
        if let tenant { words.append("tenant=\(tenant)") }
        if let clientId { words.append("client=\(clientId)") }
        words.append(String(format: "%.1fms", milliseconds))
        return words.joined(separator: " ")
    }

    public var json: JSON {
        ["kind": "request", "method": .string(method), "path": .string(path), "status": .int(status), "dialect": JSON(dialect?.rawValue),
         "operation": JSON(operation), "tenant": JSON(tenant), "client_id": JSON(clientId), "ms": .double((milliseconds * 10).rounded() / 10)]
    }
}

/// Gives each request a note for its dialect to name the operation in, and reports the request once
/// answered. Outermost, so the status is the one the client gets (CORS and the fallback included).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = FauxthContext
    let report: @Sendable (RequestLogEntry) -> Void

    @concurrent func handle(_ request: Request, context: FauxthContext, next: @concurrent (Request, FauxthContext) async throws -> Response) async throws -> Response {
        var context = context
        let note = RequestNote()
        context.requestNote = note
        let started = ContinuousClock.now
        func entry(_ status: Int) -> RequestLogEntry {
            let target = note.target
            return RequestLogEntry(method: request.method.rawValue, path: request.uri.path, status: status, dialect: target?.dialect,
                                   operation: target?.operation, tenant: target?.tenant, clientId: target?.clientId,
                                   milliseconds: (ContinuousClock.now - started) / .milliseconds(1))
        }
        do {
            let response = try await next(request, context)
            report(entry(response.status.code))
            return response
        } catch {
            report(entry((error as? any HTTPResponseError)?.status.code ?? 500))
            throw error
        }
    }
}
