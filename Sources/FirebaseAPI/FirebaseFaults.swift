import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Fault injection in Identity Toolkit's terms: each operation's canonical name (`firebase:` and the
/// route's own, e.g. `firebase:accounts.signInWithPassword`, `firebase:securetoken.refresh`), and a
/// fault's error as Google's APIs render one.
extension FirebaseDialect {
    public static let faultOperations: [String] = FirebaseOperation.allCases.map { "firebase:" + $0.rawValue }

    /// The operation a request under the Firebase paths is, with the project and account it names.
    public func faultTarget(method: HTTPRequest.Method, path: String, query: [String: String], body: JSON?,
                            headers: [String: String]) -> FaultTarget? {
        guard let route = FirebaseRoute.resolve(method, path) else { return nil }
        let apiKey = query["key"] ?? headers["x-goog-api-key"]
        var tenant = route.project ?? apiKey.flatMap { try? projects.project(forAPIKey: $0) }
        if let tenantId = route.tenant ?? body?["tenantId"]?.stringValue, let project = tenant { tenant = "\(project):\(tenantId)" }
        let identifier = body?["email"]?.stringValue ?? body?["phoneNumber"]?.stringValue ?? body?["identifier"]?.stringValue
        return FaultTarget(dialect: .firebase, operation: "firebase:" + route.operation.rawValue, tenant: tenant, identifier: identifier,
                           clientId: apiKey, method: method.rawValue, path: path, headers: headers)
    }

    /// A fault's error in Identity Toolkit's body (`FirebaseError.init(fault:…)` says which).
    public static func faultResponse(_ kind: FaultErrorKind, message: String?, retryAfter: Int?) -> Response {
        FirebaseErrorMiddleware<BasicRequestContext>.response(for: FirebaseError(fault: kind, message: message, retryAfter: retryAfter))
    }
}
