import AuthCore
import Console
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SupabaseAPI

/// Answers requests no route took, in the format of the dialect that owns the path: what GoTrue's router answers for
/// `/auth/v1/…` (plain text), the control API's error for `/_emu/…`, plain JSON elsewhere. A known path with another
/// method gets 405 instead of 404.
struct RouteFallbackMiddleware<Context: RequestContext>: RouterMiddleware {
    /// `.byPath` on the main port; `.supabase` on a project's own port, where every path is GoTrue's.
    enum Mode: Sendable { case byPath, supabase }
    let mode: Mode

    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return mode == .supabase ? Self.supabase(request, path: request.uri.path) : Self.answer(request, logger: context.logger)
        } catch is NIOTooManyBytesError {
            // A form read over its limit by a route with no error format of its own (the hosted UI, the fake providers).
            return Self.tooLarge(request, logger: context.logger)
        }
    }

    /// 413 in the format of the path's owner: the control API's, else OAuth's `{"error","error_description"}` (the
    /// hosted UI's and the fake providers' form endpoints are OAuth endpoints). GoTrue's routes render their own.
    static func tooLarge(_ request: Request, logger: Logger) -> Response {
        if request.uri.path.dropPrefix("/_emu/v1") != nil {
            return ControlError.response(for: ControlError(.contentTooLarge, "body_too_large", "request body is too large"), logger: logger)
        }
        return .json(["error": "invalid_request", "error_description": "request body is too large"], status: .contentTooLarge)
    }

    static func answer(_ request: Request, logger: Logger) -> Response {
        let path = request.uri.path
        if let rest = path.dropPrefix("/auth/v1") { return supabase(request, path: rest) }
        if let prefix = ProjectPrefix(request: request), let rest = path.dropPrefix(prefix.mount) { return supabase(request, path: rest) }
        if let rest = path.dropPrefix("/_emu/v1") {
            let error = knows(rest, in: ControlAPI.routes)
                ? ControlError(.methodNotAllowed, "method_not_allowed", "\(request.method) is not allowed on \(path)")
                : ControlError(.notFound, "not_found", "no control API route \(path)")
            return ControlError.response(for: error, logger: logger)
        }
        return .json(["error": ["code": "not_found", "message": .string("nothing is served at \(path); the console is at /_emu/")]],
                     status: .notFound)
    }

    static func supabase(_ request: Request, path: String) -> Response {
        SupabaseDialect.routeError(for: path.dropPrefix("/auth/v1") ?? path)
    }

    /// Whether any route pattern (`METHOD /a/{b}`) matches `path` by shape.
    static func knows(_ path: String, in routes: [String]) -> Bool { !RoutePatterns.methods(serving: path, in: routes).isEmpty }
}

extension String {
    /// The rest after `prefix` when it is a whole path prefix (`/auth/v1` or `/auth/v1/…`).
    func dropPrefix(_ prefix: String) -> String? {
        guard hasPrefix(prefix) else { return nil }
        let rest = String(dropFirst(prefix.count))
        return rest.isEmpty || rest.hasPrefix("/") ? rest : nil
    }
}
