import Foundation

/// The rate limits a tenant's policies can set, by their name in the seed and the control API.
public enum PolicyLimit: String, Sendable, CaseIterable {
    /// Emails the tenant sends per window.
    case emailSent = "email_sent"
    /// Texts the tenant sends per window.
    case smsSent = "sms_sent"
    /// Code messages (confirmation, reset, sign-in and verification codes) to one recipient per window.
    case codeDeliveries = "code_deliveries"
    /// Seconds before the same recipient can get another code for the same purpose.
    case resendCooldown = "resend_cooldown"
    /// Sign-in and token requests from one IP address per window.
    case tokenPerIP = "token_per_ip"
    /// Code and link verifications from one IP address per window.
    case verifyPerIP = "verify_per_ip"
    /// Requests that send a code or link (sign-up, OTP, recovery, resend) from one IP address per window.
    case otpPerIP = "otp_per_ip"
    /// Anonymous sign-ups from one IP address per window.
    case anonymousPerIP = "anonymous_per_ip"
    /// Passkey sign-ins started from one IP address per window (GoTrue's `GOTRUE_RATE_LIMIT_PASSKEY`).
    case passkeyPerIP = "passkey_per_ip"
    /// Single sign-on starts from one IP address per window (GoTrue's `GOTRUE_RATE_LIMIT_SSO`).
    case ssoPerIP = "sso_per_ip"
    /// SAML answers posted from one IP address per window (GoTrue's `GOTRUE_SAML_RATE_LIMIT_ASSERTION`).
    case samlAssertionPerIP = "saml_assertion_per_ip"
    /// OAuth clients registered dynamically from one IP address per window (GoTrue's
    /// `GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER`).
    case clientRegistrationPerIP = "client_registration_per_ip"

    /// Whether the limit is counted per recipient (the rest count per tenant or per IP).
    public var isPerRecipient: Bool { self == .codeDeliveries || self == .resendCooldown }

    /// The limits every dialect can count; the rest belong to endpoint families only Supabase serves, and a
    /// dialect applies them only by saying so (`VendorPolicies.applied`).
    public static let common: Set<PolicyLimit> = [.emailSent, .smsSent, .codeDeliveries, .resendCooldown, .tokenPerIP, .verifyPerIP, .otpPerIP,
                                                  .anonymousPerIP]
}

/// A tenant's lockout and rate-limit policies: the vendor's own behaviour (its defaults and its own
/// settings, as the dialect derives them), with the tenant's `policies` setting laid over it.
public struct TenantPolicies: Sendable, Equatable {
    public var lockouts: [LockoutKind: LockoutPolicy] = [:]
    public var limits: [PolicyLimit: RateLimit] = [:]
    /// The vendor setting a limit comes from (`GOTRUE_RATE_LIMIT_EMAIL_SENT`), named when it refuses.
    public var sources: [PolicyLimit: String] = [:]

    public init(lockouts: [LockoutKind: LockoutPolicy] = [:], limits: [PolicyLimit: RateLimit] = [:], sources: [PolicyLimit: String] = [:]) {
        self.lockouts = lockouts; self.limits = limits; self.sources = sources
    }

    /// The settings key of each lockout.
    public static func key(_ kind: LockoutKind) -> String {
        switch kind {
        case .password: "lockout"
        case .code: "code_lockout"
        case .mfa: "mfa_lockout"
        }
    }

    /// These policies with a `policies` setting laid over them: a key set to an object replaces the
    /// vendor's value, `false` or `null` turns it off, an absent key keeps it. `allowed` names the
    /// limits the dialect applies; any other is refused, so a setting never silently does nothing.
    public func overlaid(with setting: JSON?, allowed: Set<PolicyLimit> = Set(PolicyLimit.allCases)) throws -> TenantPolicies {
        guard let setting, !setting.isNull else { return self }
        guard let object = setting.objectValue else { throw Self.invalid("policies", "must be an object") }
        var result = self
        let known = Set(LockoutKind.allCases.map(Self.key) + ["rate_limits"])
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw Self.invalid("policies.\(unknown)", "is not a policy; use \(known.sorted().joined(separator: ", "))")
        }
        for kind in LockoutKind.allCases {
            let key = Self.key(kind)
            guard let value = object[key] else { continue }
            result.lockouts[kind] = try Self.lockout(value, field: "policies.\(key)")
        }
        if let limits = object["rate_limits"] {
            guard let limits = limits.objectValue else { throw Self.invalid("policies.rate_limits", "must be an object") }
            for (name, value) in limits {
                let field = "policies.rate_limits.\(name)"
                guard let limit = PolicyLimit(rawValue: name) else {
                    throw Self.invalid(field, "is not a rate limit; use \(PolicyLimit.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard allowed.contains(limit) else { throw Self.invalid(field, "does not apply to this dialect (its own setting governs it)") }
                result.limits[limit] = try Self.rateLimit(value, limit: limit, field: field)
                result.sources[limit] = nil
            }
        }
        return result
    }

    /// The policies as the control API shows them: every lockout and limit, `null` when off.
    public var json: JSON {
        var object: [String: JSON] = [:]
        for kind in LockoutKind.allCases { object[Self.key(kind)] = lockouts[kind].map(Self.json) ?? .null }
        var limits: [String: JSON] = [:]
        for limit in PolicyLimit.allCases {
            limits[limit.rawValue] = self.limits[limit].map { value in
                limit == .resendCooldown ? .double(value.window) : ["count": .int(value.count), "window": .double(value.window)]
            } ?? .null
        }
        object["rate_limits"] = .object(limits)
        return .object(object)
    }

    private static func json(_ policy: LockoutPolicy) -> JSON {
        ["max_attempts": .int(policy.maxAttempts), "window": .double(policy.window), "durations": .array(policy.durations.map(JSON.double)),
         "reset_after": .double(policy.resetAfter), "error": .string(policy.style.rawValue), "notify": .bool(policy.notify)]
    }

    private static func lockout(_ value: JSON, field: String) throws -> LockoutPolicy? {
        if value.isNull || value == .bool(false) { return nil }
        guard let o = value.objectValue else { throw invalid(field, "must be an object, or false to turn it off") }
        let allowedKeys: Set<String> = ["max_attempts", "window", "durations", "reset_after", "error", "notify"]
        if let unknown = o.keys.sorted().first(where: { !allowedKeys.contains($0) }) {
            throw invalid("\(field).\(unknown)", "is not a lockout setting; use \(allowedKeys.sorted().joined(separator: ", "))")
        }
        guard let attempts = o["max_attempts"]?.intValue, attempts >= 1 else { throw invalid("\(field).max_attempts", "must be a whole number ≥ 1") }
        let window = try seconds(o["window"], field: "\(field).window") ?? 900
        let durations: [TimeInterval]
        switch o["durations"] {
        case nil: durations = [900]
        case .array(let items)?:
            durations = try items.enumerated().map { index, item in
                guard let d = item.doubleValue, d > 0, d <= longest else {
                    throw invalid("\(field).durations[\(index)]", "must be seconds > 0, at most \(Int(longest)) (100 years)")
                }
                return d
            }
            guard !durations.isEmpty else { throw invalid("\(field).durations", "must list at least one duration") }
        case let other?: throw invalid("\(field).durations", "must be an array of seconds, got \(other.typeName)")
        }
        let resetAfter = try seconds(o["reset_after"], field: "\(field).reset_after") ?? 86_400
        let style: LockoutStyle
        switch o["error"] {
        case nil: style = .explicit
        case .string(let s)?:
            guard let parsed = LockoutStyle(rawValue: s) else { throw invalid("\(field).error", "must be \"explicit\" or \"generic\"") }
            style = parsed
        case let other?: throw invalid("\(field).error", "must be \"explicit\" or \"generic\", got \(other.typeName)")
        }
        let notify: Bool
        switch o["notify"] {
        case nil: notify = false
        case .bool(let b)?: notify = b
        case let other?: throw invalid("\(field).notify", "must be a boolean, got \(other.typeName)")
        }
        return LockoutPolicy(maxAttempts: attempts, window: window, durations: durations, resetAfter: resetAfter, style: style, notify: notify)
    }

    private static func rateLimit(_ value: JSON, limit: PolicyLimit, field: String) throws -> RateLimit? {
        if value.isNull || value == .bool(false) { return nil }
        if limit == .resendCooldown {
            guard let s = try seconds(value, field: field) else { return nil }
            return RateLimit(count: 1, window: s)
        }
        guard let o = value.objectValue else { throw invalid(field, "must be {\"count\": N, \"window\": seconds}, or false to turn it off") }
        guard let count = o["count"]?.intValue, count >= 0 else { throw invalid("\(field).count", "must be a whole number ≥ 0") }
        guard let window = try seconds(o["window"], field: "\(field).window") else { throw invalid("\(field).window", "is required (seconds)") }
        return RateLimit(count: count, window: window)
    }

    private static func seconds(_ value: JSON?, field: String) throws -> TimeInterval? {
        guard let value else { return nil }
        guard let s = value.doubleValue, s > 0, s <= longest else {
            throw invalid(field, "must be a number of seconds > 0, at most \(Int(longest)) (100 years)")
        }
        return s
    }

    /// The longest window, lockout or cooldown a policy may set. Without a bound, a lockout of 1e300 seconds ended the
    /// process when its `Retry-After` was written as an integer, and its end would leave the years a time can be
    /// written in.
    static let longest: TimeInterval = 100 * 365 * 86_400

    private static func invalid(_ field: String, _ reason: String) -> AuthError { .invalidInput(field: field, reason: reason) }
}

extension TenantPolicies {
    /// Cognito's fixed sign-in lockout (it cannot be configured there): five failures are allowed, then
    /// each failure locks for twice as long as the last, from 1 s up to about 15 minutes; 15 quiet
    /// minutes start over. Attempts during a lockout are refused unchecked.
    public static let cognitoSignInLockout = LockoutPolicy(
        maxAttempts: 5, window: 900, durations: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900], resetAfter: 900)
}
