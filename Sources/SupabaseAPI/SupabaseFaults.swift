import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Fault injection in GoTrue's terms: each route's canonical operation name (its entry in `Routes.swift`
/// carries it), what a request names for rules to match, and a fault's error in GoTrue's own body.
extension SupabaseDialect {
    /// `supabase:<path with dots>` (parameters by name), the method added where a path has several (`user.get`, `user.put`), and
    /// `/token` split by grant (`token.password`, `token.refresh_token`, `token.pkce`, `token.id_token`).
    /// The error codes this dialect raises, which a fault rule's `error` may name.
    public static let errorCodes = Set(SupabaseError.Code.allCases.map(\.rawValue))

    /// Calls of the project's Auth Hooks are operations too (`supabase:hook.custom_access_token`).
    public static let faultOperations: [String] = endpoints.flatMap { endpoint in
        guard endpoint.operation.contains(grantPlaceholder) else { return ["supabase:" + endpoint.operation] }
        return ["password", "refresh_token", "pkce", "id_token"].map { "supabase:" + endpoint.operation.replacingOccurrences(of: grantPlaceholder, with: $0) }
    } + AuthHook.allCases.map { HookRequest.operation(.supabase, $0.rawValue) }

    /// Stands for the request's `grant_type` in an operation's name.
    static let grantPlaceholder = "{grant_type}"

    /// A request to `endpoint` in auth terms: its operation, the project, the email or phone its body
    /// names, and the caller's `apikey`.
    static func faultTarget(_ endpoint: Endpoint, _ call: Call) -> FaultTarget {
        let grant = endpoint.operation.contains(grantPlaceholder) ? call.request.queryFields["grant_type"] ?? "" : ""
        let operation = "supabase:" + endpoint.operation.replacingOccurrences(of: grantPlaceholder, with: grant)
        let body = try? call.received.object.get()
        let identifier = body?["email"]?.stringValue ?? body?["phone"]?.stringValue
        return FaultTarget(.supabase, operation: operation, tenant: call.projectId, identifier: identifier, clientId: call.request.headers[.apikey],
                           request: call.request)
    }

    /// A fault's error in GoTrue's body, for the caller's API version (`SupabaseError.fault` says which).
    static func faultResponse(_ kind: FaultErrorKind, message: String?, retryAfter: Int?, apiVersion: String?) -> Response {
        let (status, code, text) = SupabaseError.fault(kind)
        return SupabaseErrorMiddleware<BasicRequestContext>.response(status: status, code: code, message: message ?? text, retryAfter: retryAfter,
                                                                     apiVersion: apiVersion)
    }
}

extension HTTPField.Name {
    /// The project key Supabase clients send with every request: the client a fault rule's `client_id` names.
    static let apikey = Self("apikey")!
}
