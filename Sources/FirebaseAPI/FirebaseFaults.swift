import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Fault injection in Identity Toolkit's terms: each operation's canonical name (`firebase:` and the
/// route's own, e.g. `firebase:accounts.signInWithPassword`, `firebase:securetoken.refresh`), what a
/// request names for rules to match, and a fault's error as Google's APIs render one.
extension FirebaseDialect {
    /// The error codes this dialect raises, which a fault rule's `error` may name.
    public static let errorCodes = Set(FirebaseError.Code.allCases.map(\.rawValue))

    /// The routes' operations, and a call of each blocking function (`firebase:hook.beforeCreate`…), which
    /// a rule can make time out, fail or answer as it likes.
    public static let faultOperations: [String] = FirebaseOperation.allCases.map { "firebase:" + $0.rawValue }
        + BlockingFunctions.Event.allCases.map { HookRequest.operation(.firebase, $0.rawValue) }

    /// A request to `route` in auth terms: its operation, the project (the path's, else the API key's) and
    /// tenant (`<project>:<tenant>`), the account its body names, and the API key.
    func faultTarget(_ route: FirebaseRoute, body: FirebaseBody?, request: Request) -> FaultTarget {
        let apiKey = request.queryFields["key"] ?? request.headers[.googAPIKey]
        let fields = body?.fields ?? [:]
        var tenant = route.project ?? apiKey.flatMap { try? projects.project(forAPIKey: $0) }
        if let tenantId = route.tenant ?? fields["tenantId"]?.stringValue, let project = tenant { tenant = "\(project):\(tenantId)" }
        let identifier = fields["email"]?.stringValue ?? fields["phoneNumber"]?.stringValue ?? fields["identifier"]?.stringValue
        return FaultTarget(.firebase, operation: "firebase:" + route.operation.rawValue, tenant: tenant, identifier: identifier, clientId: apiKey,
                           request: request)
    }

    /// A fault's error in Identity Toolkit's body (`FirebaseError.init(fault:…)` says which).
    static func faultResponse(_ kind: FaultErrorKind, message: String?, retryAfter: Int?) -> Response {
        FirebaseErrorMiddleware<BasicRequestContext>.response(for: FirebaseError(fault: kind, message: message, retryAfter: retryAfter))
    }
}
