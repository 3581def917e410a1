import Foundation

/// One call of the app's own code at one of a vendor's hook points (a Supabase Auth Hook, a Firebase
/// blocking function, a Cognito Lambda trigger). The dialect builds it in the vendor's shape; the core
/// sends it, applies fault rules to it, records it and can send it again.
public struct HookRequest: Sendable {
    public var dialect: Dialect
    public var tenant: String
    /// The hook point as the vendor names it (`custom_access_token`, `beforeCreate`, `PreSignUp`).
    public var point: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// How long the vendor waits for an answer.
    public var timeout: Duration
    /// The user or address the call is about, which fault rules may match (`match.identifier`).
    public var identifier: String?
    /// Headers made when the request is sent, from the body and the wall-clock time (a Standard Webhooks
    /// signature), so a replay is signed afresh.
    public var sign: (@Sendable (_ body: [UInt8], _ at: Date) -> [(name: String, value: String)])?
    /// Header names whose values events never show.
    public var secretHeaders: Set<String>

    public init(dialect: Dialect, tenant: String, point: String, url: String, headers: [(name: String, value: String)] = [],
                body: [UInt8], timeout: Duration, identifier: String? = nil,
                sign: (@Sendable (_ body: [UInt8], _ at: Date) -> [(name: String, value: String)])? = nil,
                secretHeaders: Set<String> = []) {
        self.dialect = dialect; self.tenant = tenant; self.point = point; self.url = url; self.headers = headers; self.body = body
        self.timeout = timeout; self.identifier = identifier; self.sign = sign; self.secretHeaders = secretHeaders
    }

    /// A JSON body.
    public init(dialect: Dialect, tenant: String, point: String, url: String, json: JSON, timeout: Duration, identifier: String? = nil,
                headers: [(name: String, value: String)] = [],
                sign: (@Sendable (_ body: [UInt8], _ at: Date) -> [(name: String, value: String)])? = nil, secretHeaders: Set<String> = []) {
        self.init(dialect: dialect, tenant: tenant, point: point, url: url,
                  headers: [(name: "content-type", value: "application/json")] + headers, body: Array(json.serialized().utf8),
                  timeout: timeout, identifier: identifier, sign: sign, secretHeaders: secretHeaders)
    }

    /// The fault operation name of this hook point: `supabase:hook.custom_access_token`.
    public var operation: String { Self.operation(dialect, point) }

    public static func operation(_ dialect: Dialect, _ point: String) -> String { "\(dialect.rawValue):hook.\(point)" }
}

/// How a hook call ended, as the vendor's caller sees it.
public enum HookOutcome: Sendable, Equatable {
    /// The hook answered (any status).
    case answered(status: Int, contentType: String?, body: [UInt8])
    /// No answer within the vendor's timeout.
    case timedOut
    /// No connection: refused, reset, a name that does not resolve, a URL that cannot be called.
    case unreachable(String)

    /// The answer's body as JSON, when it is JSON.
    public var json: JSON? {
        guard case .answered(_, _, let body) = self else { return nil }
        return try? JSON.parse(body)
    }

    public var status: Int? {
        if case .answered(let status, _, _) = self { status } else { nil }
    }

    /// `answered`, `timeout` or `unreachable`, as events name outcomes.
    public var name: String {
        switch self {
        case .answered: "answered"
        case .timedOut: "timeout"
        case .unreachable: "unreachable"
        }
    }
}

/// Sends a hook's HTTP request. The core defines it and the server implements it (the core imports no
/// HTTP); a test may give its own.
public protocol HookTransport: Sendable {
    func send(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> HookOutcome
}
