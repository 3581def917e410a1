import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Fault injection in Cognito's terms: the JSON 1.1 actions by name (`cognito:InitiateAuth`), the hosted
/// UI's endpoints (`cognito:oauth2.token`, `cognito:login.post`…), and a fault's error as Cognito
/// renders one.
extension CognitoDialect {
    static let hostedUIOperations: [(method: HTTPRequest.Method, path: String)] = [
        (.get, "oauth2/authorize"), (.post, "oauth2/token"), (.get, "oauth2/userInfo"), (.post, "oauth2/userInfo"), (.post, "oauth2/revoke"),
        (.get, "oauth2/idpresponse"), (.post, "oauth2/idpresponse"), (.get, "logout"), (.get, "login"), (.post, "login"), (.get, "signup"),
        (.post, "signup"), (.get, "confirm"), (.post, "confirm"), (.post, "resendcode"), (.get, "forgotPassword"), (.post, "forgotPassword"),
        (.post, "confirmForgotPassword"),
    ]

    public static let faultOperations: [String] = CognitoAction.allCases.map { "cognito:" + $0.rawValue }
        + hostedUIOperations.map { hostedUIName($0.method, $0.path) }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }

    private static func hostedUIName(_ method: HTTPRequest.Method, _ path: String) -> String {
        let base = "cognito:" + path.replacingOccurrences(of: "/", with: ".")
        return hostedUIOperations.filter { $0.path == path }.count > 1 ? base + "." + method.rawValue.lowercased() : base
    }

    /// The operation a request is: a JSON 1.1 action (`POST /` with `X-Amz-Target`) or a hosted-UI
    /// endpoint, with the pool, user and client it names.
    public func faultTarget(method: HTTPRequest.Method, path: String, query: [String: String], body: JSON?, form: [String: String],
                            headers: [String: String], pool fixedPool: String?) -> FaultTarget? {
        let operation: String
        var clientId: String?
        var identifier: String?
        var tenant = fixedPool
        if path == "/", method == .post, let target = headers["x-amz-target"], let dot = target.lastIndex(of: ".") {
            operation = "cognito:" + target[target.index(after: dot)...]
            clientId = body?["ClientId"]?.stringValue
            identifier = body?["Username"]?.stringValue ?? body?["AuthParameters"]?["USERNAME"]?.stringValue
            tenant = body?["UserPoolId"]?.stringValue ?? tenant
        } else {
            let trimmed = String(path.drop { $0 == "/" })
            guard Self.hostedUIOperations.contains(where: { $0.method == method && $0.path == trimmed }) else { return nil }
            operation = Self.hostedUIName(method, trimmed)
            clientId = query["client_id"] ?? form["client_id"]
            identifier = form["username"]
        }
        if tenant == nil, let clientId { tenant = try? pools.pool(clientId: clientId).0.id }
        return FaultTarget(dialect: .cognito, operation: operation, tenant: tenant, identifier: identifier, clientId: clientId,
                           method: method.rawValue, path: path, headers: headers)
    }

    /// A fault's error as Cognito answers (`CognitoError.fault` says which): the JSON 1.1 exception for the
    /// API, OAuth's error JSON for the hosted UI.
    public func faultResponse(_ kind: FaultErrorKind, message: String?, retryAfter: Int?, hostedUI: Bool) -> Response {
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
