import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Fault injection in GoTrue's terms: each route's canonical operation name, and a fault's error in
/// GoTrue's own body and codes.
extension SupabaseDialect {
    /// `supabase:<path with dots>` (parameters by name), the method added where a path has several (`user.get`, `user.put`), and
    /// `/token` split by grant (`token.password`, `token.refresh_token`, `token.pkce`, `token.id_token`).
    public static let faultOperations: [String] = {
        var names: [String] = []
        for endpoint in endpoints where !names.contains(operationName(endpoint)) {
            if endpoint.path == "token" {
                names += ["password", "refresh_token", "pkce", "id_token"].map { "supabase:token.\($0)" }
            } else {
                names.append(operationName(endpoint))
            }
        }
        return names
    }()

    private static func operationName(_ endpoint: Endpoint) -> String {
        // A path parameter keeps its name (`admin/users/:id` is `admin.users.id`), so no two routes share a name.
        let segments = endpoint.path.split(separator: "/").filter { $0 != "**" }.map { $0.hasPrefix(":") ? String($0.dropFirst()) : String($0) }
        var name = "supabase:" + segments.joined(separator: ".")
        if endpoints.filter({ $0.path == endpoint.path }).count > 1 { name += "." + endpoint.method.rawValue.lowercased() }
        return name
    }

    /// The operation a request under `/auth/v1` (or a project's own root) is, with what it names.
    public static func faultTarget(method: HTTPRequest.Method, path: String, query: [String: String], body: JSON?, tenant: String,
                                   headers: [String: String], fullPath: String) -> FaultTarget? {
        let segments = path.split(separator: "/").map(String.init)
        guard let endpoint = endpoints.first(where: { $0.method == method && matches($0.path, segments) }) else { return nil }
        var operation = operationName(endpoint)
        if endpoint.path == "token" { operation = "supabase:token.\(query["grant_type"] ?? "")" }
        let identifier = body?["email"]?.stringValue ?? body?["phone"]?.stringValue
        return FaultTarget(dialect: .supabase, operation: operation, tenant: tenant, identifier: identifier, clientId: headers["apikey"],
                           method: method.rawValue, path: fullPath, headers: headers)
    }

    private static func matches(_ pattern: String, _ segments: [String]) -> Bool {
        let parts = pattern.split(separator: "/").map(String.init)
        if parts.last == "**" { return segments.count >= parts.count - 1 && zip(parts.dropLast(), segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 } }
        return parts.count == segments.count && zip(parts, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
    }

    /// A fault's error in GoTrue's body, for the caller's API version (`SupabaseError.fault` says which).
    public static func faultResponse(_ kind: FaultErrorKind, message: String?, retryAfter: Int?, apiVersion: String?) -> Response {
        let (status, code, text) = SupabaseError.fault(kind)
        return SupabaseErrorMiddleware<BasicRequestContext>.response(status: status, code: code, message: message ?? text, retryAfter: retryAfter,
                                                                     apiVersion: apiVersion)
    }
}
