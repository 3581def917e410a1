import Foundation

/// What a fault's error means, which every dialect renders as its vendor answers that failure (README's
/// table; each dialect's error file holds its codes). Each dialect switches over every case, so a new
/// meaning must be rendered by all three before it builds.
///
/// The cases are in the order `GET /_emu/v1/faults/operations` lists them.
public enum FaultMeaning: String, CaseIterable, Sendable {
    case rateLimited = "rate_limited"
    case serverError = "server_error"
    case unavailable = "unavailable"
    case timeoutError = "timeout_error"
    case quotaExceeded = "quota_exceeded"
    case networkError = "network_error"
}

/// The error an `error` effect answers with: a meaning, or one vendor error code by name
/// (`over_sms_send_rate_limit`, `EMAIL_EXISTS`, `NotAuthorizedException`…), which the dialect renders as
/// its vendor renders any error of that code. Rules spell both as one string, `"error": "<name>"`.
public enum FaultErrorKind: Sendable, Equatable {
    case meaning(FaultMeaning)
    case vendorCode(String)

    /// A meaning's name is that meaning; any other name is a vendor code.
    public init(name: String) {
        self = FaultMeaning(rawValue: name).map(Self.meaning) ?? .vendorCode(name)
    }

    /// The name as rules, the journal and events spell it.
    public var name: String {
        switch self {
        case .meaning(let meaning): meaning.rawValue
        case .vendorCode(let code): code
        }
    }
}
