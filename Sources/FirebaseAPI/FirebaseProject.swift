import AuthCore
import Foundation
import HTTPSupport

/// A Firebase project's settings, read from its tenant settings (the seed's `firebase` keys), with the
/// production defaults where the Firebase emulator has none.
struct FirebaseSettings: Sendable, Equatable {
    enum Signing: String, Sendable { case unsigned = "none", rs256 = "RS256" }

    var apiKeys: [String] = []
    /// `none` (the emulator's unsigned tokens, what firebase-admin expects in emulator mode) or `RS256`.
    var signing: Signing = .unsigned
    var allowDuplicateEmails = false
    var improvedEmailPrivacy = false
    /// "Phone numbers for testing": E.164 number → its fixed code. Nothing is texted to them.
    var testPhoneNumbers: [String: String] = [:]
    /// One lifetime for every out-of-band code; nil keeps Firebase's per-type defaults.
    var oobCodeTTL: TimeInterval?
    var phoneCodeTTL: TimeInterval = 300
    /// How soon the same number may be sent another code: none by default, as the Firebase emulator (which
    /// texts a number as often as it is asked); a seed sets it to behave like production's throttling.
    var phoneResendInterval: TimeInterval = 0
    var idTokenTTL: TimeInterval = 3600
    /// nil: refresh tokens live until revoked, as Firebase's do.
    var refreshTokenTTL: TimeInterval?
    var passwordMinLength = 6
    /// How recent a sign-in must be to change the email or password or delete the account.
    var recentSignInWindow: TimeInterval = 300
    /// Hosts a `continueUrl` may point at.
    var authorizedDomains: [String] = ["localhost", "127.0.0.1"]
    // Identity Platform tenant switches; the project itself has everything on, as the emulator's.
    var allowPasswordSignup = true
    var enableEmailLinkSignin = true
    var enableAnonymousUser = true
    var disableAuth = false
    /// The second factors users may enrol, which Identity Platform switches on apart: SMS (`mfaConfig.state` ENABLED,
    /// with `PHONE_SMS` among `enabledProviders` where it lists any) and TOTP (an ENABLED `providerConfigs` entry with a
    /// `totpProviderConfig`). A project has both, as the emulator has every sign-in method on.
    var smsMFAEnabled = true
    var totpMFAEnabled = true
    /// How many 30-second steps either way an authenticator's code may be (`totpProviderConfig.adjacentIntervals`,
    /// 0-10); one where a tenant does not say, as the project has.
    var totpAdjacentIntervals = 1
    /// Whether a sign-in asks a user with factors for one.
    var mfaEnabled: Bool { smsMFAEnabled || totpMFAEnabled }
    /// The project config's `blockingFunctions`; an Identity Platform tenant uses its project's.
    var blockingFunctions = BlockingFunctions.Config(nil)
    /// The same as stored, which the config API answers.
    var blockingFunctionsJSON: JSON = [:]
    /// The passkeys' relying party id: `localhost` as the Firebase emulator's (production uses the project's auth
    /// domain, which a local app does not run on). A project's setting, which its tenants share.
    var passkeyRelyingPartyId = "localhost"
    /// Origins a passkey ceremony may run on beyond those on or under the RP id (an Android app's
    /// `android:apk-key-hash:…`).
    var passkeyOrigins: [String] = []

    /// The project settings in `settings`, with an Identity Platform tenant's `tenant_config` on top.
    init(project: [String: JSON], tenantConfig: [String: JSON]? = nil) throws {
        apiKeys = (project["api_keys"]?.arrayValue ?? []).compactMap(\.stringValue)
        if let signing = project["id_token_signing"]?.stringValue {
            guard let parsed = Signing(rawValue: signing) else { throw FirebaseSettingsError("id_token_signing must be none or RS256") }
            self.signing = parsed
        }
        let config = project["config"] ?? [:]
        allowDuplicateEmails = config["signIn"]?["allowDuplicateEmails"]?.boolValue ?? false
        improvedEmailPrivacy = config["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"]?.boolValue ?? false
        if let stored = config["blockingFunctions"], stored != .null {
            if let problem = BlockingFunctions.Config.problem(in: stored) { throw FirebaseSettingsError("config.blockingFunctions: \(problem)") }
            blockingFunctions = BlockingFunctions.Config(stored)
            blockingFunctionsJSON = stored
        }
        for (number, code) in project["test_phone_numbers"]?.objectValue ?? [:] {
            guard let code = code.stringValue, code.count == 6, code.allSatisfy(\.isASCIIDigit), let phone = try? Identifiers.phone(number) else {
                throw FirebaseSettingsError("test_phone_numbers.\(number) must map an E.164 number to a 6-digit code")
            }
            testPhoneNumbers[phone] = code
        }
        oobCodeTTL = try Self.seconds(project, "oob_code_ttl")
        phoneCodeTTL = try Self.seconds(project, "phone_code_ttl") ?? phoneCodeTTL
        phoneResendInterval = try Self.seconds(project, "phone_resend_interval") ?? phoneResendInterval
        idTokenTTL = try Self.seconds(project, "id_token_ttl") ?? idTokenTTL
        refreshTokenTTL = try Self.seconds(project, "refresh_token_ttl")
        passwordMinLength = project["password_min_length"]?.intValue ?? passwordMinLength
        recentSignInWindow = try Self.seconds(project, "recent_sign_in_window") ?? recentSignInWindow
        authorizedDomains += (project["authorized_domains"]?.arrayValue ?? []).compactMap(\.stringValue)
        if let id = project["passkey_rp_id"]?.stringValue {
            guard !id.isEmpty, !id.contains("/"), !id.contains(":") else { throw FirebaseSettingsError("passkey_rp_id must be a domain (localhost, example.com)") }
            passkeyRelyingPartyId = id
        }
        passkeyOrigins = (project["passkey_origins"]?.arrayValue ?? []).compactMap(\.stringValue)
        if let tenant = tenantConfig { apply(tenant: tenant) }
    }

    private mutating func apply(tenant: [String: JSON]) {
        allowPasswordSignup = tenant["allowPasswordSignup"]?.boolValue ?? false
        enableEmailLinkSignin = tenant["enableEmailLinkSignin"]?.boolValue ?? false
        enableAnonymousUser = tenant["enableAnonymousUser"]?.boolValue ?? false
        disableAuth = tenant["disableAuth"]?.boolValue ?? false
        let mfa = tenant["mfaConfig"]
        let providers = mfa?["enabledProviders"]?.arrayValue?.compactMap(\.stringValue)
        // MANDATORY counts as on, as the emulator's isMfaEnabled counts it.
        smsMFAEnabled = ["ENABLED", "MANDATORY"].contains(mfa?["state"]?.stringValue ?? "") && (providers?.contains("PHONE_SMS") ?? true)
        let totp = (mfa?["providerConfigs"]?.arrayValue ?? []).first { config in
            config["state"]?.stringValue == "ENABLED" && config["totpProviderConfig"]?.objectValue != nil
        }
        totpMFAEnabled = totp != nil
        if let intervals = totp?["totpProviderConfig"]?["adjacentIntervals"]?.intValue, (0...10).contains(intervals) {
            totpAdjacentIntervals = intervals
        }
        for (number, code) in tenant["testPhoneNumbers"]?.objectValue ?? [:] {
            if let code = code.stringValue, let phone = try? Identifiers.phone(number) { testPhoneNumbers[phone] = code }
        }
    }

    private static func seconds(_ o: [String: JSON], _ key: String) throws -> TimeInterval? {
        guard let value = o[key], value != .null else { return nil }
        guard let n = value.intValue, n >= 0 else { throw FirebaseSettingsError("\(key) must be a whole number of seconds") }
        return TimeInterval(n)
    }
}

/// A Firebase setting Fauxth cannot use.
public struct FirebaseSettingsError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Where a request lands: a project, or an Identity Platform tenant inside it, and the core tenant that
/// holds its users (`project` or `project:tenant`).
struct FirebaseScope: Sendable {
    let projectId: String
    let tenantId: String?
    let settings: FirebaseSettings
    /// The app name emails are signed with.
    let displayName: String

    var coreTenant: String { FirebaseScope.coreTenant(projectId, tenantId) }

    static func coreTenant(_ project: String, _ tenant: String?) -> String { tenant.map { "\(project):\($0)" } ?? project }

    /// The project of a core tenant id: itself for a project, the part before `:` for one of its tenants.
    static func projectId(of coreTenant: String) -> String { coreTenant.split(separator: ":").first.map(String.init) ?? coreTenant }

    /// Whether a core tenant is a project rather than one of its tenants (`project:tenant`). By its bytes:
    /// Foundation's `contains(_:)` was half the cost of finding a request's project by its API key.
    static func isProject(_ coreTenant: Tenant) -> Bool {
        coreTenant.dialect == .firebase && !coreTenant.id.utf8.contains(UInt8(ascii: ":"))
    }
}

/// Firebase projects and their tenants, created on first use as the Firebase emulator creates them.
struct FirebaseProjects: Sendable {
    let emulator: Emulator
    /// The project an API key no project lists belongs to (`--firebase-project`).
    let defaultProject: String

    /// Scopes worked out since the tenants last changed: a request used to parse its project's settings
    /// twice (the dispatcher's rate limit and the handler), 4% of a sign-in (scripts/bench).
    private let cache = TenantDerivedCache<FirebaseScope>()

    /// The project and tenant of a request; an unknown project is created with the emulator's
    /// everything-on defaults, and so is an unknown tenant.
    func scope(project: String, tenant: String?) throws -> FirebaseScope {
        try cache.value(FirebaseScope.coreTenant(project, tenant), in: emulator) { try parsedScope(project: project, tenant: tenant) }
    }

    private func parsedScope(project: String, tenant: String?) throws -> FirebaseScope {
        let projectTenant = try ensure(project, dialect: .firebase, name: project, settings: [:])
        var tenantConfig: [String: JSON]?
        if let tenant {
            let everythingOn: JSON = ["displayName": .string(tenant), "allowPasswordSignup": true, "enableEmailLinkSignin": true,
                                      "enableAnonymousUser": true,
                                      "mfaConfig": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                                                    "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 1]]]]]
            let core = try ensure(FirebaseScope.coreTenant(project, tenant), dialect: .firebase, name: tenant,
                                  settings: ["tenant_config": everythingOn])
            tenantConfig = core.settings["tenant_config"]?.objectValue ?? [:]
        }
        do {
            return FirebaseScope(projectId: project, tenantId: tenant,
                                 settings: try FirebaseSettings(project: projectTenant.settings, tenantConfig: tenantConfig),
                                 displayName: projectTenant.name)
        } catch let error as FirebaseSettingsError {
            throw FirebaseError(.invalidArgument, "project \(project): \(error)")
        }
    }

    /// The project an API key belongs to.
    func project(forAPIKey key: String) throws -> String {
        for tenant in try emulator.tenants() where FirebaseScope.isProject(tenant) {
            if (tenant.settings["api_keys"]?.arrayValue ?? []).contains(.string(key)) { return tenant.id }
        }
        return defaultProject
    }

    /// An API key that client calls (which name their project by key alone) bring to `project`: the first
    /// of its own keys that no earlier project lists too; for the default project without one, a key no
    /// project lists (the emulator's `fake-api-key` while it is free). Nil when no key reaches it.
    func apiKey(reaching project: String) throws -> String? {
        let projects = try emulator.tenants().filter(FirebaseScope.isProject)
        let keys = { (tenant: Tenant) in (tenant.settings["api_keys"]?.arrayValue ?? []).compactMap(\.stringValue) }
        if let own = try projects.first(where: { $0.id == project }).map(keys)?.first(where: { try self.project(forAPIKey: $0) == project }) {
            return own
        }
        guard project == defaultProject else { return nil }
        let listed = Set(projects.flatMap(keys))
        for candidate in ["fake-api-key", "fake-api-key-\(project)"] where !listed.contains(candidate) { return candidate }
        return (2...).lazy.map { "fake-api-key-\(project)-\($0)" }.first { !listed.contains($0) }
    }

    /// The Identity Platform tenants of a project, as core tenants.
    func tenants(of project: String) throws -> [Tenant] {
        try emulator.tenants().filter { $0.dialect == .firebase && $0.id.hasPrefix(project + ":") }
    }

    private func ensure(_ id: String, dialect: Dialect, name: String, settings: [String: JSON]) throws -> Tenant {
        if let tenant = try emulator.tenant(id) {
            guard tenant.dialect == .firebase else {
                throw FirebaseError(.invalidArgument, "\(id) is a \(tenant.dialect.rawValue) tenant, not a Firebase project")
            }
            return tenant
        }
        do {
            return try emulator.createTenant(id: id, dialect: dialect, name: name, settings: settings)
        } catch AuthError.tenantExists {
            return try emulator.requireTenant(id)
        }
    }
}
