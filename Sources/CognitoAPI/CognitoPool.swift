import AuthCore
import Foundation

/// A user pool as the dialect reads it from its tenant: `settings.pool` holds the pool in the shape
/// `CreateUserPool` takes (and `DescribeUserPool` answers), `clients`, `groups`, `resource_servers` and
/// `identity_providers` the pool's other resources, `domain` its hosted-UI prefix.
struct CognitoPool: Sendable {
    let tenant: Tenant
    var id: String { tenant.id }
    var settings: [String: JSON] { tenant.settings }
    /// `settings.pool`, taken out once: a sign-in reads a dozen of its members (`LambdaConfig` alone seven times),
    /// and each read looked the pool up in the settings again.
    let pool: [String: JSON]

    init(tenant: Tenant) {
        self.tenant = tenant
        pool = tenant.settings["pool"]?.objectValue ?? [:]
    }

    /// The region in the pool id (`us-east-1_AbCdEf123`).
    /// Split as bytes: split as `Character`s, each one a grapheme break check, this was most of a sign-in's
    /// issuer (10K instructions of 13K).
    var region: String { id.utf8.split(separator: UInt8(ascii: "_")).first.map { String(decoding: $0, as: UTF8.self) } ?? "us-east-1" }

    /// The pool's `LambdaConfig`: its triggers' functions, as `CreateUserPool` takes them.
    var lambdaConfig: [String: JSON] { pool["LambdaConfig"]?.objectValue ?? [:] }

    var usernameAttributes: [String] { strings(pool["UsernameAttributes"]) }
    var aliasAttributes: [String] { strings(pool["AliasAttributes"]) }
    /// The attributes the schema requires (as described, standard ones included), but `sub`, which Cognito sets.
    var requiredAttributes: Set<String> {
        Set(PoolSchema.described(pool["Schema"]?.arrayValue ?? []).compactMap { attribute in
            attribute["Required"]?.boolValue == true ? attribute["Name"]?.stringValue : nil
        }).subtracting(["sub"])
    }
    var autoVerifiedAttributes: [String] { strings(pool["AutoVerifiedAttributes"]) }
    /// API-made pools without `UsernameConfiguration` are case sensitive; the console's are not.
    var caseSensitive: Bool { pool["UsernameConfiguration"]?["CaseSensitive"]?.boolValue ?? true }
    var mfaConfiguration: String { pool["MfaConfiguration"]?.stringValue ?? "OFF" }
    /// Each MFA method is on when the pool's MFA is and `SetUserPoolMfaConfig` (or the seed) configured it.
    var softwareTokenMFAEnabled: Bool { mfaConfiguration != "OFF" && pool["SoftwareTokenMfaConfiguration"]?["Enabled"]?.boolValue == true }
    var smsMFAEnabled: Bool { mfaConfiguration != "OFF" && pool["SmsMfaConfiguration"] != nil }
    var emailMFAEnabled: Bool { mfaConfiguration != "OFF" && pool["EmailMfaConfiguration"] != nil }
    var adminCreateUserOnly: Bool { pool["AdminCreateUserConfig"]?["AllowAdminCreateUserOnly"]?.boolValue ?? false }
    /// A code every delivery uses instead of a random one, for scripted tests: `fixed_code` in the seed,
    /// or the pool tag `fauxth:fixed_code` (which a script creating pools with boto3 can set, and AWS
    /// would keep as an ordinary tag).
    var fixedCode: String? { settings["fixed_code"]?.stringValue ?? pool["UserPoolTags"]?["fauxth:fixed_code"]?.stringValue }

    var passwordPolicy: [String: JSON] { pool["Policies"]?["PasswordPolicy"]?.objectValue ?? [:] }

    /// The pool's custom attributes (`CreateUserPool`'s `Schema` and `AddCustomAttributes`): `custom:X`, and
    /// `dev:custom:X` for the developer-only ones.
    var customAttributes: Set<String> { Set((pool["Schema"]?.arrayValue ?? []).compactMap { $0["Name"]?.stringValue }.filter(PoolSchema.isCustom)) }

    /// What `USER_AUTH` may start with (`Policies.SignInPolicy.AllowedFirstAuthFactors`); a password only
    /// unless the pool says otherwise.
    var allowedFirstAuthFactors: [String] {
        let factors = strings(pool["Policies"]?["SignInPolicy"]?["AllowedFirstAuthFactors"])
        return factors.isEmpty ? ["PASSWORD"] : factors
    }

    /// The first factors that need no password: a code by email or SMS.
    var passwordlessFactors: [String] { allowedFirstAuthFactors.filter { $0 == "EMAIL_OTP" || $0 == "SMS_OTP" } }

    /// Device tracking is on once the pool's `DeviceConfiguration` gives either member, true or false ("When you
    /// provide a value for any property of DeviceConfiguration, you activate the device remembering").
    var tracksDevices: Bool {
        ["ChallengeRequiredOnNewDevice", "DeviceOnlyRememberedOnUserPrompt"].contains { pool["DeviceConfiguration"]?[$0]?.boolValue != nil }
    }
    /// "User opt-in": `ConfirmDevice` answers `UserConfirmationNecessary` and the device stays not remembered
    /// until `UpdateDeviceStatus` says otherwise.
    var devicesRememberedOnPrompt: Bool { pool["DeviceConfiguration"]?["DeviceOnlyRememberedOnUserPrompt"]?.boolValue == true }
    /// `ChallengeRequiredOnNewDevice`: a remembered device signs in with device authentication instead of MFA;
    /// any other device still answers the MFA the pool and the user ask for.
    var rememberedDevicesSkipMFA: Bool { pool["DeviceConfiguration"]?["ChallengeRequiredOnNewDevice"]?.boolValue == true }

    /// Where tokens say they come from: Cognito's own URL by default so unmodified verifiers accept
    /// them, or (`issuer: emulator`) this server.
    func issuer(baseURL: String) -> String {
        switch settings["issuer"]?.stringValue {
        case "emulator"?: "\(baseURL)/\(id)"
        case let custom? where custom.hasPrefix("http"): custom
        default: "https://cognito-idp.\(region).amazonaws.com/\(id)"
        }
    }

    var clients: [CognitoClient] { (settings["clients"]?.arrayValue ?? []).compactMap { $0.objectValue.map(CognitoClient.init) } }
    var groups: [[String: JSON]] { (settings["groups"]?.arrayValue ?? []).compactMap(\.objectValue) }
    var resourceServers: [[String: JSON]] { (settings["resource_servers"]?.arrayValue ?? []).compactMap(\.objectValue) }
    var identityProviders: [[String: JSON]] { (settings["identity_providers"]?.arrayValue ?? []).compactMap(\.objectValue) }
    /// The identity provider with `identifier` among its `IdpIdentifiers`.
    func identityProvider(identifier: String) -> [String: JSON]? {
        identityProviders.first { ($0["IdpIdentifiers"]?.arrayValue ?? []).contains(.string(identifier)) }
    }
    var domain: String? { settings["domain"]?.stringValue }

    func client(_ id: String) -> CognitoClient? { clients.first { $0.id == id } }

    /// The account-recovery mechanisms in priority order (`verified_email`, `verified_phone_number`,
    /// `admin_only`); Cognito's default prefers a verified phone, then email.
    var recoveryMechanisms: [String] {
        let mechanisms = (pool["AccountRecoverySetting"]?["RecoveryMechanisms"]?.arrayValue ?? [])
            .sorted { ($0["Priority"]?.intValue ?? 0) < ($1["Priority"]?.intValue ?? 0) }.compactMap { $0["Name"]?.stringValue }
        return mechanisms.isEmpty ? ["verified_phone_number", "verified_email"] : mechanisms
    }

    /// Pool ids: the region, an underscore and nine letters and digits.
    static func newID(region: String, generator: Generator) -> String {
        "\(region)_" + generator.string(9, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }

    private func strings(_ value: JSON?) -> [String] { (value?.arrayValue ?? []).compactMap(\.stringValue) }
}

/// An app client (`UserPoolClientType`).
struct CognitoClient: Sendable {
    let fields: [String: JSON]

    init(_ fields: [String: JSON]) { self.fields = fields }

    var id: String { fields["ClientId"]?.stringValue ?? "" }
    var secret: String? { fields["ClientSecret"]?.stringValue }

    /// Every `ExplicitAuthFlowsType`, in the order Cognito's validation message lists them (as quoted in
    /// awsdocs/aws-cloudformation-user-guide#525, with `ALLOW_USER_AUTH` added since).
    static let flowNames = ["ALLOW_CUSTOM_AUTH", "ADMIN_NO_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH",
                            "CUSTOM_AUTH_FLOW_ONLY", "USER_PASSWORD_AUTH", "ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_USER_AUTH"]
    /// The legacy names (before the `ALLOW_` ones, 2019) and what they allow now.
    static let legacyFlows = ["ADMIN_NO_SRP_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH", "USER_PASSWORD_AUTH": "ALLOW_USER_PASSWORD_AUTH",
                              "CUSTOM_AUTH_FLOW_ONLY": "ALLOW_CUSTOM_AUTH"]

    /// Whether `ExplicitAuthFlows` allows `flow` (an `ALLOW_` name). A client that names none gets Cognito's default
    /// (SRP, refresh and custom auth). Beside legacy names, SRP and refresh are always on: those flows needed no
    /// setting when the legacy names were all there was. Answered without making the set of allowed flows, which
    /// cost a sign-in 9K instructions.
    func allows(_ flow: String) -> Bool {
        let named = (fields["ExplicitAuthFlows"]?.arrayValue ?? []).compactMap(\.stringValue)
        if named.isEmpty { return ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_CUSTOM_AUTH"].contains(flow) }
        guard !named.contains(where: { $0.hasPrefix("ALLOW_") }) else { return named.contains { (Self.legacyFlows[$0] ?? $0) == flow } }
        return flow == "ALLOW_USER_SRP_AUTH" || flow == "ALLOW_REFRESH_TOKEN_AUTH" || named.contains { Self.legacyFlows[$0] == flow }
    }

    var callbackURLs: [String] { strings("CallbackURLs") }
    /// `SupportedIdentityProviders`: `COGNITO` (the pool's own users) and the pool identity providers' names.
    var identityProviders: [String] { strings("SupportedIdentityProviders") }
    var logoutURLs: [String] { strings("LogoutURLs") }
    var oauthFlows: [String] { strings("AllowedOAuthFlows") }
    var oauthScopes: [String] { strings("AllowedOAuthScopes") }
    var oauthEnabled: Bool { fields["AllowedOAuthFlowsUserPoolClient"]?.boolValue ?? false }
    var readAttributes: [String]? { fields["ReadAttributes"] == nil ? nil : strings("ReadAttributes") }
    var writeAttributes: [String]? { fields["WriteAttributes"] == nil ? nil : strings("WriteAttributes") }
    var preventUserExistenceErrors: Bool { fields["PreventUserExistenceErrors"]?.stringValue == "ENABLED" }
    var tokenRevocation: Bool { fields["EnableTokenRevocation"]?.boolValue ?? true }
    /// How long a sign-in's `Session` lasts between steps (`AuthSessionValidity`, 3 to 15 minutes).
    var authSessionValidity: TimeInterval { Double(min(max(fields["AuthSessionValidity"]?.intValue ?? 3, 3), 15)) * 60 }
    /// Refresh tokens rotate on `GetTokensFromRefreshToken` (`RefreshTokenRotation.Feature: ENABLED`),
    /// the old one still good for `RetryGracePeriodSeconds`.
    var refreshTokenRotation: (enabled: Bool, grace: TimeInterval) {
        let rotation = fields["RefreshTokenRotation"]
        return (rotation?["Feature"]?.stringValue == "ENABLED", Double(rotation?["RetryGracePeriodSeconds"]?.intValue ?? 0))
    }

    /// The tokens a client sets a lifetime for, with the field that sets it, its key in `TokenValidityUnits`, the
    /// unit a validity without one is in, Cognito's default, and the range Cognito accepts.
    enum TokenKind {
        case access, id, refresh

        var field: String { switch self { case .access: "AccessTokenValidity"; case .id: "IdTokenValidity"; case .refresh: "RefreshTokenValidity" } }
        var unitKey: String { switch self { case .access: "AccessToken"; case .id: "IdToken"; case .refresh: "RefreshToken" } }
        var defaultUnit: String { self == .refresh ? "days" : "hours" }
        var defaultSeconds: TimeInterval { self == .refresh ? 30 * 86400 : 3600 }
        /// From 5 minutes to a day; refresh tokens from an hour to ten years.
        var accepted: ClosedRange<TimeInterval> { self == .refresh ? 3_600...315_360_000 : 300...86_400 }
    }

    /// A token lifetime in seconds as the client's fields state it, or Cognito's default when they set none.
    func statedLifetime(_ kind: TokenKind) -> TimeInterval {
        // "You can't set RefreshTokenValidity to 0. If you do, Amazon Cognito overrides the value with the default value
        // of 30 days" (UserPoolClientType).
        guard let value = fields[kind.field]?.intValue, !(kind == .refresh && value == 0) else { return kind.defaultSeconds }
        let seconds: Double = switch fields["TokenValidityUnits"]?[kind.unitKey]?.stringValue ?? kind.defaultUnit {
        case "seconds": 1
        case "minutes": 60
        case "days": 86400
        default: 3600
        }
        return Double(value) * seconds
    }

    /// The lifetime tokens are given. CreateUserPoolClient and UpdateUserPoolClient refuse lifetimes out of Cognito's
    /// ranges; a client written into a seed or a tenant made through the control API is not checked that way, so its
    /// lifetime stays within ten years here, where a larger one overflowed a token's `exp`.
    func lifetime(_ kind: TokenKind) -> TimeInterval { min(max(statedLifetime(kind), 0), 315_360_000) }

    var accessTokenLifetime: TimeInterval { lifetime(.access) }
    var idTokenLifetime: TimeInterval { lifetime(.id) }
    var refreshTokenLifetime: TimeInterval { lifetime(.refresh) }

    private func strings(_ key: String) -> [String] { (fields[key]?.arrayValue ?? []).compactMap(\.stringValue) }

    /// Client ids: 26 lowercase letters and digits.
    static func newID(_ generator: Generator) -> String { generator.lowerAlphanumeric(26) }
}
