import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Fault injection in Cognito's terms: the JSON 1.1 actions by name (`cognito:InitiateAuth`), the hosted
/// UI's endpoints by the names their routes carry (`cognito:oauth2.token`, `cognito:login.post`…), what a
/// request names for rules to match, and a fault's error as Cognito renders one.
extension CognitoDialect {
    /// The error codes this dialect raises, which a fault rule's `error` may name.
    public static let errorCodes = Set(CognitoError.Kind.allCases.map(\.rawValue))

    public static let faultOperations: [String] = CognitoAction.allCases.map { "cognito:" + $0.rawValue }
        + IdentityPoolAction.allCases.map { "cognito:" + $0.rawValue }
        + HostedUI.routes.map { "cognito:" + $0.operation }
        + LambdaTriggers.points.map { HookRequest.operation(.cognito, $0) }

    /// A JSON 1.1 call in auth terms: the action `X-Amz-Target` names (any name after its last dot, as
    /// before; a rule may only name the actions Fauxth serves), and the pool, user and client the body
    /// names. A call without a target is no operation.
    func faultTarget(amzTarget: String, body: CognitoBody?, request: Request) -> FaultTarget? {
        guard let dot = amzTarget.lastIndex(of: ".") else { return nil }
        let clientId = body?["ClientId"]?.stringValue
        let identifier = body?["Username"]?.stringValue ?? body?["AuthParameters"]?["USERNAME"]?.stringValue
        return FaultTarget(.cognito, operation: "cognito:" + amzTarget[amzTarget.index(after: dot)...],
                           tenant: body?["UserPoolId"]?.stringValue ?? pool(of: clientId), identifier: identifier, clientId: clientId, request: request)
    }

    /// A hosted-UI request in auth terms: its route's operation, the pool (the domain's own, else its
    /// client's), the username of a posted form, and the client id of the query or the form.
    func faultTarget(hostedUI operation: String, _ call: HostedUICall, pool fixedPool: String?) -> FaultTarget {
        let form = (try? call.form()) ?? [:]
        let clientId = call.request.queryFields["client_id"] ?? form["client_id"]
        return FaultTarget(.cognito, operation: "cognito:" + operation, tenant: fixedPool ?? pool(of: clientId), identifier: form["username"],
                           clientId: clientId, request: call.request)
    }

    private func pool(of clientId: String?) -> String? { clientId.flatMap { try? pools.pool(clientId: $0).0.id } }

    /// A fault's error as Cognito answers (`CognitoError.fault` says which): the JSON 1.1 exception for the
    /// API, OAuth's error JSON for the hosted UI.
    func faultResponse(_ kind: FaultErrorKind, message: String?, retryAfter: Int?, hostedUI: Bool) -> Response {
        let (status, type, text) = CognitoError.fault(kind)
        if hostedUI {
            let (error, oauthStatus) = CognitoError.oauthFault(kind)
            var headers = HTTPFields()
            if let retryAfter { headers[.retryAfter] = String(retryAfter) }
            return .json(["error": .string(error), "error_description": .string(message ?? text)], status: oauthStatus, headers: headers)
        }
        var response = Self.failure(type: type, message: message ?? text, status: status, requestId: emulator.generator.uuid())
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
