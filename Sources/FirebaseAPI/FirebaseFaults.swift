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

    /// A fault's error as Identity Toolkit answers: the meanings as Google's front end and the service
    /// answer them, or any Identity Toolkit error code by name (400, `CODE : message`).
    public static func faultResponse(_ name: String, message: String?, retryAfter: Int?) -> Response {
        var failure: FirebaseError = switch name {
        case "rate_limited": FirebaseError(.tooManyAttempts)
        case "quota_exceeded": FirebaseError(.quotaExceeded)
        case "server_error": FirebaseError(.invalidArgument, status: .internalServerError, googleStatus: "INTERNAL").withMessage("Internal error encountered.")
        case "unavailable": FirebaseError(.invalidArgument, status: .serviceUnavailable, googleStatus: "UNAVAILABLE").withMessage("The service is currently unavailable.")
        case "timeout_error": FirebaseError(.invalidArgument, status: .gatewayTimeout, googleStatus: "DEADLINE_EXCEEDED").withMessage("Deadline expired before operation could complete.")
        case "network_error": FirebaseError(.invalidArgument, status: .badGateway, googleStatus: "UNAVAILABLE").withMessage("Bad Gateway")
        default: FirebaseError(.invalidArgument).withMessage(message.map { "\(name) : \($0)" } ?? name)
        }
        if let message, FaultRule.meanings.contains(name) { failure = failure.withMessage(message) }
        failure.retryAfter = retryAfter
        return FirebaseErrorMiddleware<BasicRequestContext>.response(for: failure)
    }
}
