import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import Logging

/// Renders every error under the Supabase routes as GoTrue does, so the clients raise their own typed
/// errors. Added to the Supabase route group: an error that escaped to the root router would be
/// rendered in the root's format instead.
struct SupabaseErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.render(error, for: request, logger: context.logger)
        }
    }

    static func render(_ error: any Error, for request: Request, logger: Logger) -> Response {
        let failure: SupabaseError
        switch error {
        case let e as SupabaseError: failure = e
        case let e as AuthError: failure = SupabaseError(e)
        case let e as HTTPError where e.status == .notFound:
            failure = SupabaseError(status: .notFound, code: .notFound, message: "Not Found")
        case let e as HTTPError where e.status == .methodNotAllowed:
            failure = SupabaseError(status: .methodNotAllowed, code: .methodNotAllowed, message: "Method Not Allowed")
        default:
            logger.error("unexpected error in Supabase dialect: \(error)")
            failure = SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: "Unexpected failure, please check server logs for more information")
        }
        return response(for: failure, apiVersion: request.headers[.supabaseAPIVersion])
    }

    /// GoTrue's two error shapes: `{code,message}` with an echoed version header for clients that send
    /// `X-Supabase-Api-Version` ≥ 2024-01-01, and the legacy `{code:<status>,error_code,msg}` otherwise.
    static func response(for failure: SupabaseError, apiVersion: String?) -> Response {
        var extra: [String: JSON] = [:]
        if let reasons = failure.weakPasswordReasons { extra["weak_password"] = ["reasons": .array(reasons.map(JSON.string))] }
        var answer = response(status: failure.status, code: failure.code.rawValue, message: failure.message, retryAfter: failure.retryAfter,
                              oauthError: failure.oauthError, apiVersion: apiVersion, extra: extra)
        if !failure.codeInHeader { answer.headers[.supabaseErrorCode] = nil }
        return answer
    }

    /// GoTrue's error body for any error code (a fault rule may name one Fauxth never raises itself).
    static func response(status: HTTPResponse.Status, code: String, message: String, retryAfter: Int?, oauthError: String? = nil,
                         apiVersion: String?, extra: [String: JSON] = [:]) -> Response {
        var headers = HTTPFields()
        headers[.supabaseErrorCode] = code
        if let retry = retryAfter { headers[.retryAfter] = String(retry) }
        var body: [String: JSON]
        if let oauth = oauthError {
            body = ["error": .string(oauth), "error_description": .string(message)]
        } else if let version = apiVersion.flatMap(SupabaseAPIVersion.init), version >= .v20240101 {
            headers[.supabaseAPIVersion] = SupabaseAPIVersion.v20240101.rawValue
            body = ["code": .string(code), "message": .string(message)]
        } else {
            body = ["code": .int(Int(status.code)), "error_code": .string(code), "msg": .string(message)]
        }
        body.merge(extra) { $1 }
        return .json(.object(body), status: status, headers: headers)
    }
}

/// The `X-Supabase-Api-Version` dates GoTrue distinguishes; any date from 2024-01-01 on is that version.
struct SupabaseAPIVersion: Comparable {
    let rawValue: String
    static let v20240101 = SupabaseAPIVersion(checked: "2024-01-01")

    private init(checked: String) { rawValue = checked }

    init?(_ text: String) {
        guard text.wholeMatch(of: #/[0-9]{4}-[0-9]{2}-[0-9]{2}/#) != nil else { return nil }
        rawValue = text
    }

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

extension HTTPField.Name {
    static let supabaseAPIVersion = Self("X-Supabase-Api-Version")!
    static let supabaseErrorCode = Self("x-sb-error-code")!
    static let jwtAudience = Self("X-JWT-AUD")!
}
