import AuthCore
import Foundation

/// A Supabase project's settings, read from GoTrue's own environment variables (`gotrue_env` in the
/// seed), with the defaults GoTrue applies when a variable is absent.
struct SupabaseConfig: Sendable {
    var signingKey: SigningKey
    var verificationKeys: [VerificationKey]
    /// The HS256 key of the project's JWT secret (the CLI's when none is given and no keys either), nil without one:
    /// what the legacy anon and service_role keys are signed with, whatever signs the project's tokens.
    var secretKey: SigningKey?
    var jwtExpiry: Int
    var jwtAudience: String
    var jwtIssuer: String?
    var adminRoles: [String]
    var siteURL: String
    var externalURL: String?
    var uriAllowList: [String]
    var disableSignup: Bool
    var mailerAutoconfirm: Bool
    /// `GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS`: a provider's unverified address signs in unconfirmed instead of
    /// being refused with `provider_email_needs_verification`.
    var allowUnverifiedEmailSignIns: Bool
    /// `GOTRUE_SMS_PROVIDER`, which `/settings` reports as it is (GoTrue gives it no default); Fauxth's outbox is the
    /// provider whatever it names.
    var smsProvider: String
    var emailEnabled: Bool
    var phoneEnabled: Bool
    var anonymousEnabled: Bool
    var passwordPolicy: PasswordPolicy
    var mailerOTPExpiry: TimeInterval
    var mailerOTPLength: Int
    var smtpMaxFrequency: TimeInterval
    var senderAddress: String
    var phoneAutoconfirm: Bool
    var refreshPolicy: RefreshPolicy
    var flowStateExpiry: TimeInterval
    var smsOTPExpiry: TimeInterval
    var smsOTPLength: Int
    var smsMaxFrequency: TimeInterval
    var smsTemplate: String
    /// `GOTRUE_SMS_TEST_OTP`: phone (without `+`) → fixed code; such numbers are never texted.
    var smsTestOTP: [String: String]
    /// `GOTRUE_RATE_LIMIT_EMAIL_SENT` / `_SMS_SENT`: sends per project (skipped under autoconfirm).
    var emailSentLimit: RateLimit
    var smsSentLimit: RateLimit
    /// Per-client limits, which GoTrue applies only when `GOTRUE_RATE_LIMIT_HEADER` names the header
    /// that identifies the client.
    var rateLimitHeader: String?
    var requestLimits: [RequestLimit: RateLimit]
    var mfaTOTPEnroll: Bool
    var secureEmailChange: Bool
    var passwordUpdateNeedsReauthentication: Bool
    /// `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`: a new password needs the current one beside it, but
    /// in a session a password reset opened.
    var passwordUpdateNeedsCurrentPassword: Bool
    var mfaTOTPVerify: Bool
    var mfaPhoneEnroll: Bool
    var mfaPhoneVerify: Bool
    var mfaPhoneMaxFrequency: TimeInterval
    var mfaPhoneOTPLength: Int
    var mfaPhoneTemplate: String
    var mfaMaxFactors: Int
    var mfaChallengeExpiry: TimeInterval
    /// `GOTRUE_EXTERNAL_<NAME>_*` for every provider GoTrue has, enabled or not.
    var externalProviders: [String: ExternalProvider]
    /// `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`: `/user/identities` answers only when on.
    var manualLinkingEnabled: Bool
    /// `GOTRUE_EXTERNAL_IOS_BUNDLE_ID`: an audience Apple ID tokens from the native sheet may carry.
    var iosBundleID: String?
    /// `GOTRUE_HOOK_<NAME>_*`: the enabled Auth Hooks.
    var hooks: [AuthHook: AuthHook.Binding]
    /// `GOTRUE_SAML_*`: SAML single sign-on (`/sso`), how long a sign-in may take at the identity provider,
    /// and the URL the service provider's metadata and ACS live under (else the API's).
    var saml: SAMLConfig
    /// `GOTRUE_PASSKEY_ENABLED`: the `/passkeys` routes answer only when on.
    var passkeyEnabled: Bool
    /// `GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER`.
    var maxPasskeysPerUser: Int
    /// `GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED` / `_VERIFY_ENABLED`.
    var mfaWebAuthnEnroll: Bool
    var mfaWebAuthnVerify: Bool
    /// `GOTRUE_WEBAUTHN_*`: the relying party passkeys and WebAuthn factors share.
    var webAuthn: WebAuthnRelyingPartyConfig
    /// `GOTRUE_OAUTH_SERVER_*`: GoTrue as an OAuth 2.1 authorization server for third-party apps.
    var oauthServer: OAuthServerConfig
    /// Variables we read; anything else in `gotrue_env` is reported as unknown.
    static let knownVariables: Set<String> = [
        "GOTRUE_JWT_SECRET", "GOTRUE_JWT_KEYS", "GOTRUE_JWT_KEY_ID", "GOTRUE_JWT_EXP", "GOTRUE_JWT_AUD", "GOTRUE_JWT_ISSUER",
        "GOTRUE_JWT_ADMIN_ROLES", "GOTRUE_JWT_DEFAULT_GROUP_NAME", "GOTRUE_SITE_URL", "API_EXTERNAL_URL", "GOTRUE_URI_ALLOW_LIST",
        "GOTRUE_DISABLE_SIGNUP", "GOTRUE_MAILER_AUTOCONFIRM", "GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS", "GOTRUE_SMS_PROVIDER", "GOTRUE_EXTERNAL_EMAIL_ENABLED", "GOTRUE_EXTERNAL_PHONE_ENABLED",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED", "GOTRUE_PASSWORD_MIN_LENGTH", "GOTRUE_PASSWORD_REQUIRED_CHARACTERS",
        "GOTRUE_MAILER_OTP_EXP", "GOTRUE_MAILER_OTP_LENGTH", "GOTRUE_SMTP_MAX_FREQUENCY", "GOTRUE_SMTP_ADMIN_EMAIL",
        "GOTRUE_SMS_AUTOCONFIRM", "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION", "GOTRUE_SMS_OTP_EXP", "GOTRUE_SMS_OTP_LENGTH",
        "GOTRUE_SMS_MAX_FREQUENCY", "GOTRUE_SMS_TEMPLATE", "GOTRUE_SMS_TEST_OTP", "GOTRUE_RATE_LIMIT_EMAIL_SENT",
        "GOTRUE_RATE_LIMIT_SMS_SENT", "GOTRUE_RATE_LIMIT_HEADER", "GOTRUE_RATE_LIMIT_OTP", "GOTRUE_RATE_LIMIT_VERIFY",
        "GOTRUE_RATE_LIMIT_TOKEN_REFRESH", "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS", "GOTRUE_MFA_TOTP_ENROLL_ENABLED",
        "GOTRUE_MFA_TOTP_VERIFY_ENABLED", "GOTRUE_MFA_PHONE_ENROLL_ENABLED",
        "GOTRUE_MFA_PHONE_VERIFY_ENABLED", "GOTRUE_MFA_PHONE_MAX_FREQUENCY", "GOTRUE_MFA_PHONE_OTP_LENGTH", "GOTRUE_MFA_PHONE_TEMPLATE", "GOTRUE_MFA_MAX_ENROLLED_FACTORS",
        "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION", "GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED", "GOTRUE_EXTERNAL_IOS_BUNDLE_ID",
        "GOTRUE_SESSIONS_TIMEBOX", "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT", "GOTRUE_SESSIONS_ALLOW_LOW_AAL", "GOTRUE_SESSIONS_SINGLE_PER_USER",
        "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD", "GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED", "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL",
        "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED", "GOTRUE_PASSKEY_ENABLED", "GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER",
        "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED", "GOTRUE_WEBAUTHN_RP_ID", "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME",
        "GOTRUE_WEBAUTHN_RP_ORIGINS", "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION",
        "GOTRUE_OAUTH_SERVER_ENABLED", "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", "GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH",
        "GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL", "GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE", "GOTRUE_SAML_ENABLED",
        "GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD", "GOTRUE_SAML_EXTERNAL_URL", "GOTRUE_RATE_LIMIT_PASSKEY", "GOTRUE_RATE_LIMIT_SSO",
        "GOTRUE_SAML_RATE_LIMIT_ASSERTION", "GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER",
        // Not connected to: projects naming the same database share their users (`SupabaseProject.storeTenant`).
        "GOTRUE_DB_DATABASE_URL", "DATABASE_URL", "GOTRUE_DB_DRIVER",
    ]

    /// Whether Fauxth reads `variable` (the fixed list, or a provider's `GOTRUE_EXTERNAL_<NAME>_*`).
    static func isKnown(_ variable: String) -> Bool {
        knownVariables.contains(variable) || ExternalProvider.isKnown(variable) || AuthHook.variables.contains(variable)
    }

    /// The Supabase CLI's local JWT secret, which the well-known anon and service_role keys are signed with.
    static let cliJWTSecret = "super-secret-jwt-token-with-at-least-32-characters-long"

    init(env: [String: String]) throws {
        // Without a secret or keys GoTrue refuses to start; the Supabase CLI always gives it its local secret, so a
        // project made without one (through the control API, say) gets that, and the well-known keys work with it.
        let secret = env["GOTRUE_JWT_SECRET"] ?? (env["GOTRUE_JWT_KEYS"] == nil ? Self.cliJWTSecret : "")
        let keys = try Self.jwtKeys(env["GOTRUE_JWT_KEYS"])
        if let signing = keys.signing {
            signingKey = signing
        } else if !secret.isEmpty {
            signingKey = SigningKey.hmac(secret: secret.utf8, kid: env["GOTRUE_JWT_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 })
        } else {
            throw SupabaseConfigError(variable: "GOTRUE_JWT_SECRET", reason: "is required (or GOTRUE_JWT_KEYS with a signing key)")
        }
        secretKey = secret.isEmpty ? nil : SigningKey.hmac(secret: secret.utf8, kid: nil)
        var verifiers = keys.verification
        if !secret.isEmpty { verifiers.append(SigningKey.hmac(secret: secret.utf8, kid: env["GOTRUE_JWT_KEY_ID"]).verificationKey) }
        verifiers.append(signingKey.verificationKey)
        verificationKeys = verifiers
        jwtExpiry = try Self.seconds(env, "GOTRUE_JWT_EXP", default: 3600)
        jwtAudience = env["GOTRUE_JWT_AUD"] ?? "authenticated"
        jwtIssuer = env["GOTRUE_JWT_ISSUER"]
        adminRoles = (env["GOTRUE_JWT_ADMIN_ROLES"] ?? "service_role,supabase_admin").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        siteURL = env["GOTRUE_SITE_URL"] ?? "http://localhost:3000"
        externalURL = env["API_EXTERNAL_URL"]
        uriAllowList = (env["GOTRUE_URI_ALLOW_LIST"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        disableSignup = try Self.bool(env, "GOTRUE_DISABLE_SIGNUP", default: false)
        mailerAutoconfirm = try Self.bool(env, "GOTRUE_MAILER_AUTOCONFIRM", default: false)
        allowUnverifiedEmailSignIns = try Self.bool(env, "GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS", default: false)
        smsProvider = env["GOTRUE_SMS_PROVIDER"] ?? ""
        emailEnabled = try Self.bool(env, "GOTRUE_EXTERNAL_EMAIL_ENABLED", default: true)
        phoneEnabled = try Self.bool(env, "GOTRUE_EXTERNAL_PHONE_ENABLED", default: false)
        anonymousEnabled = try Self.bool(env, "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED", default: false)
        // GoTrue counts a password's length in bytes, and refuses more than bcrypt's 72 on every path that sets one.
        passwordPolicy = PasswordPolicy(
            minLength: max(6, try Self.int(env, "GOTRUE_PASSWORD_MIN_LENGTH", default: 6, minimum: nil)), maxLength: 72, unit: .utf8Bytes,
            requiredCharacterSets: Self.requiredCharacterSets(env["GOTRUE_PASSWORD_REQUIRED_CHARACTERS"] ?? ""))
        mailerOTPExpiry = TimeInterval(try Self.seconds(env, "GOTRUE_MAILER_OTP_EXP", default: 86400, unsigned: true, zeroMeans: 86400))
        mailerOTPLength = try Self.otpLength(env, "GOTRUE_MAILER_OTP_LENGTH")
        smtpMaxFrequency = try Self.duration(env, "GOTRUE_SMTP_MAX_FREQUENCY", default: 60, zeroMeans: 60)
        senderAddress = env["GOTRUE_SMTP_ADMIN_EMAIL"] ?? "noreply@fauxth.local"
        phoneAutoconfirm = try Self.bool(env, "GOTRUE_SMS_AUTOCONFIRM", default: false)
        flowStateExpiry = max(300, try Self.duration(env, "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION", default: 300))
        smsOTPExpiry = TimeInterval(try Self.seconds(env, "GOTRUE_SMS_OTP_EXP", default: 60, unsigned: true, zeroMeans: 60))
        smsOTPLength = try Self.otpLength(env, "GOTRUE_SMS_OTP_LENGTH")
        smsMaxFrequency = try Self.duration(env, "GOTRUE_SMS_MAX_FREQUENCY", default: 60, zeroMeans: 60)
        smsTemplate = env["GOTRUE_SMS_TEMPLATE"] ?? "Your code is {{ .Code }}"
        smsTestOTP = try Self.testOTPs(env["GOTRUE_SMS_TEST_OTP"])
        passwordUpdateNeedsReauthentication = try Self.bool(env, "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", default: false)
        passwordUpdateNeedsCurrentPassword = try Self.bool(env, "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD", default: false)
        secureEmailChange = try Self.bool(env, "GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED", default: true)
        mfaTOTPEnroll = try Self.bool(env, "GOTRUE_MFA_TOTP_ENROLL_ENABLED", default: true)
        mfaTOTPVerify = try Self.bool(env, "GOTRUE_MFA_TOTP_VERIFY_ENABLED", default: true)
        mfaPhoneEnroll = try Self.bool(env, "GOTRUE_MFA_PHONE_ENROLL_ENABLED", default: false)
        mfaPhoneVerify = try Self.bool(env, "GOTRUE_MFA_PHONE_VERIFY_ENABLED", default: false)
        mfaPhoneMaxFrequency = try Self.duration(env, "GOTRUE_MFA_PHONE_MAX_FREQUENCY", default: 60, zeroMeans: 60)
        mfaPhoneOTPLength = try Self.otpLength(env, "GOTRUE_MFA_PHONE_OTP_LENGTH")
        mfaPhoneTemplate = env["GOTRUE_MFA_PHONE_TEMPLATE"] ?? "Your code is {{ .Code }}"
        mfaMaxFactors = try Self.wholeCount(env, "GOTRUE_MFA_MAX_ENROLLED_FACTORS", default: 10)
        // A float64 of seconds in GoTrue, not a duration, and never under its default.
        mfaChallengeExpiry = max(300, try Self.floatSeconds(env, "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION", default: 300))
        externalProviders = Dictionary(uniqueKeysWithValues: try ExternalProvider.catalogue.keys.compactMap { name in
            try ExternalProvider(name: name, env: env).map { (name, $0) }
        })
        manualLinkingEnabled = try Self.bool(env, "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED", default: false)
        iosBundleID = env["GOTRUE_EXTERNAL_IOS_BUNDLE_ID"].flatMap { $0.isEmpty ? nil : $0 }
        hooks = try AuthHook.bindings(env)
        let samlEnabled = try Self.bool(env, "GOTRUE_SAML_ENABLED", default: false)
        let relayStateValidity = try Self.duration(env, "GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD", default: 120, zeroMeans: 120)
        // GoTrue checks the SAML settings only when SAML is on.
        if samlEnabled, relayStateValidity < 0 {
            throw SupabaseConfigError(variable: "GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD", reason: "SAML RelayState validity period should be a positive duration")
        }
        saml = SAMLConfig(enabled: samlEnabled, relayStateValidity: relayStateValidity,
                          externalURL: env["GOTRUE_SAML_EXTERNAL_URL"].flatMap { $0.isEmpty ? nil : $0 })
        passkeyEnabled = try Self.bool(env, "GOTRUE_PASSKEY_ENABLED", default: false)
        maxPasskeysPerUser = try Self.int(env, "GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER", default: 10)
        mfaWebAuthnEnroll = try Self.bool(env, "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED", default: false)
        mfaWebAuthnVerify = try Self.bool(env, "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED", default: false)
        webAuthn = WebAuthnRelyingPartyConfig(
            id: env["GOTRUE_WEBAUTHN_RP_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? URLComponents(string: siteURL)?.host ?? "localhost",
            displayName: env["GOTRUE_WEBAUTHN_RP_DISPLAY_NAME"].flatMap { $0.isEmpty ? nil : $0 } ?? "Fauxth",
            origins: env["GOTRUE_WEBAUTHN_RP_ORIGINS"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
                .flatMap { $0.isEmpty ? nil : $0 } ?? [Self.origin(of: siteURL)],
            challengeExpiry: try Self.duration(env, "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION", default: 300))
        oauthServer = OAuthServerConfig(
            enabled: try Self.bool(env, "GOTRUE_OAUTH_SERVER_ENABLED", default: false),
            allowDynamicRegistration: try Self.bool(env, "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", default: false),
            authorizationPath: env["GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH"].flatMap { $0.isEmpty ? nil : $0 },
            authorizationTTL: try Self.duration(env, "GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL", default: 600),
            defaultScope: env["GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE"].flatMap { $0.isEmpty ? nil : $0 } ?? "email")
        emailSentLimit = try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_EMAIL_SENT", default: RateLimit(count: 30, window: 3600), burst: true)
        smsSentLimit = try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_SMS_SENT", default: RateLimit(count: 30, window: 3600), burst: true)
        rateLimitHeader = env["GOTRUE_RATE_LIMIT_HEADER"].flatMap { $0.isEmpty ? nil : $0 }
        requestLimits = [
            .otp: try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_OTP", default: RateLimit(count: 30, window: 300)),
            .verify: try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_VERIFY", default: RateLimit(count: 30, window: 300)),
            .token: try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_TOKEN_REFRESH", default: RateLimit(count: 150, window: 300)),
            .anonymous: try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS", default: RateLimit(count: 30, window: 3600)),
            // GoTrue's tollbooth limiters for these refill their count every 5 minutes.
            .passkey: try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_PASSKEY", default: RateLimit(count: 30, window: 300)),
            .sso: try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_SSO", default: RateLimit(count: 30, window: 300)),
            .samlAssertion: try Self.rateLimit(env, "GOTRUE_SAML_RATE_LIMIT_ASSERTION", default: RateLimit(count: 15, window: 300)),
            .clientRegistration: try Self.rateLimit(env, "GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER", default: RateLimit(count: 10, window: 300)),
        ]
        refreshPolicy = RefreshPolicy(
            rotationEnabled: try Self.bool(env, "GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED", default: true),
            reuseInterval: TimeInterval(try Self.seconds(env, "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL", default: 0)),
            timebox: try Self.sessionLimit(env, "GOTRUE_SESSIONS_TIMEBOX", named: "session timebox"),
            inactivityTimeout: try Self.sessionLimit(env, "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT", named: "session inactivity timeout"),
            lowAssuranceAllowance: try Self.sessionLimit(env, "GOTRUE_SESSIONS_ALLOW_LOW_AAL", named: "session allow low AAL"),
            singlePerUser: try Self.bool(env, "GOTRUE_SESSIONS_SINGLE_PER_USER", default: false), endedSessionsForgetTokens: true)
    }

    private static func jwtKeys(_ text: String?) throws -> (signing: SigningKey?, verification: [VerificationKey]) {
        guard let text, !text.isEmpty else { return (nil, []) }
        guard let data = text.data(using: .utf8), let jwks = try? JSONDecoder().decode([JWK].self, from: data) else {
            throw SupabaseConfigError(variable: "GOTRUE_JWT_KEYS", reason: "must be a JSON array of JWKs")
        }
        var signing: SigningKey?
        var verification: [VerificationKey] = []
        for jwk in jwks {
            if jwk.key_ops?.contains("sign") == true, signing == nil {
                do { signing = try jwk.signingKey() } catch {
                    throw SupabaseConfigError(variable: "GOTRUE_JWT_KEYS", reason: "signing key \(jwk.kid ?? "?"): \(error)")
                }
            }
            if let key = try? jwk.verificationKey() { verification.append(key) }
        }
        return (signing, verification)
    }

    /// The origin (scheme, host, port) of a URL, as WebAuthn compares pages.
    private static func origin(of url: String) -> String {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.host else { return url }
        return parts.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}

/// GoTrue's `OAuthServerConfiguration` (`conf/configuration.go`), with its defaults.
struct OAuthServerConfig: Sendable {
    var enabled: Bool
    var allowDynamicRegistration: Bool
    /// Where `/oauth/authorize` sends the browser for consent, on the site URL. Unset, GoTrue can only
    /// answer `server_error`; Fauxth sends it to its own consent page instead (`OAuthServerConsentPage`).
    var authorizationPath: String?
    var authorizationTTL: TimeInterval
    var defaultScope: String
}

/// A `gotrue_env` variable with a value GoTrue would also refuse.
public struct SupabaseConfigError: Error, CustomStringConvertible {
    public var variable: String
    public var reason: String
    public var description: String { "\(variable) \(reason)" }
}

/// GoTrue's per-client request limiters (`api/apilimiter`).
enum RequestLimit: String, Sendable, CaseIterable {
    case otp, verify, token, anonymous, passkey, sso, samlAssertion, clientRegistration

    /// The project policy each limiter is.
    var policy: PolicyLimit {
        switch self {
        case .otp: .otpPerIP
        case .verify: .verifyPerIP
        case .token: .tokenPerIP
        case .anonymous: .anonymousPerIP
        case .passkey: .passkeyPerIP
        case .sso: .ssoPerIP
        case .samlAssertion: .samlAssertionPerIP
        case .clientRegistration: .clientRegistrationPerIP
        }
    }

    /// The GoTrue variable that sets the limiter.
    var variable: String {
        switch self {
        case .otp: "GOTRUE_RATE_LIMIT_OTP"
        case .verify: "GOTRUE_RATE_LIMIT_VERIFY"
        case .token: "GOTRUE_RATE_LIMIT_TOKEN_REFRESH"
        case .anonymous: "GOTRUE_RATE_LIMIT_ANONYMOUS_USERS"
        case .passkey: "GOTRUE_RATE_LIMIT_PASSKEY"
        case .sso: "GOTRUE_RATE_LIMIT_SSO"
        case .samlAssertion: "GOTRUE_SAML_RATE_LIMIT_ASSERTION"
        case .clientRegistration: "GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER"
        }
    }
}

/// `GOTRUE_WEBAUTHN_*`. GoTrue requires all three of id, display name and origins once passkeys or WebAuthn
/// MFA are on; Fauxth derives any that are unset from `GOTRUE_SITE_URL` (its host, its origin) and names
/// itself, so a project turns passkeys on with one variable.
struct WebAuthnRelyingPartyConfig: Sendable {
    var id: String
    var displayName: String
    var origins: [String]
    var challengeExpiry: TimeInterval
}

/// GoTrue's `SAMLConfiguration`: Fauxth makes the service provider's key itself (GoTrue's
/// `GOTRUE_SAML_PRIVATE_KEY`), so turning SAML on takes one variable.
struct SAMLConfig: Sendable {
    var enabled: Bool
    var relayStateValidity: TimeInterval
    var externalURL: String?
}
