import Foundation
import HTTPSupport
import HTTPTypes

/// Every Firebase operation Fauxth serves, by its canonical name (`accounts.signUp`, `securetoken.refresh`…),
/// the name fault rules and the audit trail use.
enum FirebaseOperation: String, CaseIterable, Sendable {
    case signUp = "accounts.signUp"
    case createAccount = "accounts.create"
    case signInWithPassword = "accounts.signInWithPassword"
    case signInWithCustomToken = "accounts.signInWithCustomToken"
    case signInWithEmailLink = "accounts.signInWithEmailLink"
    case signInWithIdp = "accounts.signInWithIdp"
    case signInWithPhoneNumber = "accounts.signInWithPhoneNumber"
    case sendVerificationCode = "accounts.sendVerificationCode"
    case sendOobCode = "accounts.sendOobCode"
    case resetPassword = "accounts.resetPassword"
    case update = "accounts.update"
    case lookup = "accounts.lookup"
    case delete = "accounts.delete"
    case createAuthUri = "accounts.createAuthUri"
    case batchCreate = "accounts.batchCreate"
    case batchDelete = "accounts.batchDelete"
    case batchGet = "accounts.batchGet"
    case query = "accounts.query"
    case createSessionCookie = "projects.createSessionCookie"
    case getProjects = "projects.get"
    case recaptchaParams = "recaptchaParams.get"
    case recaptchaConfig = "recaptchaConfig.get"
    case passwordPolicy = "passwordPolicy.get"
    case revokeToken = "accounts.revokeToken"
    case mfaEnrollmentStart = "mfaEnrollment.start"
    case mfaEnrollmentFinalize = "mfaEnrollment.finalize"
    case mfaEnrollmentWithdraw = "mfaEnrollment.withdraw"
    case mfaSignInStart = "mfaSignIn.start"
    case mfaSignInFinalize = "mfaSignIn.finalize"
    case passkeyEnrollmentStart = "passkeyEnrollment.start"
    case passkeyEnrollmentFinalize = "passkeyEnrollment.finalize"
    case passkeySignInStart = "passkeySignIn.start"
    case passkeySignInFinalize = "passkeySignIn.finalize"
    case getConfig = "config.get"
    case updateConfig = "config.update"
    case createTenant = "tenants.create"
    case listTenants = "tenants.list"
    case getTenant = "tenants.get"
    case updateTenant = "tenants.update"
    case deleteTenant = "tenants.delete"
    case createOIDCConfig = "oauthIdpConfigs.create"
    case listOIDCConfigs = "oauthIdpConfigs.list"
    case getOIDCConfig = "oauthIdpConfigs.get"
    case updateOIDCConfig = "oauthIdpConfigs.patch"
    case deleteOIDCConfig = "oauthIdpConfigs.delete"
    case createSAMLConfig = "inboundSamlConfigs.create"
    case listSAMLConfigs = "inboundSamlConfigs.list"
    case getSAMLConfig = "inboundSamlConfigs.get"
    case updateSAMLConfig = "inboundSamlConfigs.patch"
    case deleteSAMLConfig = "inboundSamlConfigs.delete"
    case refresh = "securetoken.refresh"
    case emulatorDeleteAccounts = "emulator.deleteAccounts"
    case emulatorGetConfig = "emulator.getConfig"
    case emulatorUpdateConfig = "emulator.updateConfig"
    case emulatorOobCodes = "emulator.oobCodes"
    case emulatorVerificationCodes = "emulator.verificationCodes"
    case action = "emulator.action"
    case authHandler = "emulator.authHandler"
    case authIframe = "emulator.authIframe"
    case publicKeysX509 = "publicKeys.x509"
    case publicKeysJWKS = "publicKeys.jwks"
}

/// A request's path taken apart: which operation, and the project, tenant and resource it names.
struct FirebaseRoute: Equatable {
    var operation: FirebaseOperation
    var project: String?
    var tenant: String?
    /// A v2 resource's id: a tenant's (`/v2/projects/{p}/tenants/{t}`, distinct from the scope's tenant) or a
    /// provider configuration's (`…/oauthIdpConfigs/{id}`).
    var resource: String?

    /// The route for `method` and `path`, or nil for a path no Firebase API has.
    static func resolve(_ method: HTTPRequest.Method, _ path: String) -> FirebaseRoute? {
        // Split by bytes: splitting the String walks its characters, and was a twentieth of a sign-in.
        var segments = path.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
        guard let host = segments.first else { return nil }
        segments.removeFirst()
        switch host {
        case "identitytoolkit.googleapis.com": return identityToolkit(method, segments)
        case "securetoken.googleapis.com":
            return method == .post && segments == ["v1", "token"] ? FirebaseRoute(operation: .refresh) : nil
        case "emulator": return emulator(method, segments)
        case "www.googleapis.com": return googleapis(method, segments)
        default: return nil
        }
    }

    private static func identityToolkit(_ method: HTTPRequest.Method, _ segments: [String]) -> FirebaseRoute? {
        guard let version = segments.first, ["v1", "v2"].contains(version) else { return nil }
        var rest = Array(segments.dropFirst())
        var route = FirebaseRoute(operation: .lookup)
        if rest.first == "projects", rest.count >= 2 {
            // `projects/{p}`, `projects/{p}:createSessionCookie`, `projects/{p}/tenants/{t}/…`
            // A segment of `:` alone names no project (split dropping empty parts, it left none, and indexing it
            // ended the process).
            let named = rest[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard !named[0].isEmpty else { return nil }
            route.project = named[0]
            rest = named.count == 2 ? [":" + named[1]] + rest.dropFirst(2) : Array(rest.dropFirst(2))
            if version == "v1", rest.first == "tenants", rest.count >= 3 {
                route.tenant = rest[1]
                rest = Array(rest.dropFirst(2))
            } else if version == "v1", rest.count == 2, rest[0] == "tenants", let colon = rest[1].firstIndex(of: ":"), colon != rest[1].startIndex {
                // `projects/{p}/tenants/{t}:createSessionCookie`, firebase-admin's tenant-aware session cookie.
                route.tenant = String(rest[1][..<colon])
                rest = [String(rest[1][colon...])]
            }
        } else if rest == ["projects"], method == .get {
            route.operation = .getProjects
            return route
        }
        let key = "\(version) \(method.rawValue) \(rest.joined(separator: "/"))"
        if let operation = table[key] {
            route.operation = operation
            return route
        }
        // v2 provider configurations, the project's or a tenant's: `projects/{p}[/tenants/{t}]/oauthIdpConfigs[/{id}]`.
        if version == "v2", route.project != nil {
            var scoped = rest[...]
            if scoped.count >= 3, scoped.first == "tenants" {
                route.tenant = scoped[scoped.startIndex + 1]
                scoped = scoped.dropFirst(2)
            }
            if let (operation, resource) = providerConfig(method, Array(scoped)) {
                route.operation = operation
                route.resource = resource
                return route
            }
            route.tenant = nil
        }
        // v2 tenant resources: `projects/{p}/tenants/{t}`.
        if version == "v2", route.project != nil, rest.count == 2, rest[0] == "tenants" {
            let operations: [HTTPRequest.Method: FirebaseOperation] = [.get: .getTenant, .patch: .updateTenant, .delete: .deleteTenant]
            guard let operation = operations[method] else { return nil }
            route.operation = operation
            route.resource = rest[1]
            return route
        }
        return nil
    }

    /// `oauthIdpConfigs` and `inboundSamlConfigs`: the collection (create, list) or one configuration by id.
    private static func providerConfig(_ method: HTTPRequest.Method, _ rest: [String]) -> (FirebaseOperation, String?)? {
        let operations: [String: [HTTPRequest.Method: FirebaseOperation]] = [
            "oauthIdpConfigs": [.post: .createOIDCConfig, .get: .listOIDCConfigs],
            "oauthIdpConfigs/": [.get: .getOIDCConfig, .patch: .updateOIDCConfig, .delete: .deleteOIDCConfig],
            "inboundSamlConfigs": [.post: .createSAMLConfig, .get: .listSAMLConfigs],
            "inboundSamlConfigs/": [.get: .getSAMLConfig, .patch: .updateSAMLConfig, .delete: .deleteSAMLConfig],
        ]
        guard let collection = rest.first, (1...2).contains(rest.count),
              let operation = operations[collection + (rest.count == 2 ? "/" : "")]?[method] else { return nil }
        return (operation, rest.count == 2 ? rest[1] : nil)
    }

    /// `version method rest` → operation, for identitytoolkit paths with the project and tenant taken out.
    static let table: [String: FirebaseOperation] = {
        var table: [String: FirebaseOperation] = [:]
        let accounts: [(String, FirebaseOperation)] = [
            ("signUp", .signUp), ("signInWithPassword", .signInWithPassword), ("signInWithCustomToken", .signInWithCustomToken),
            ("signInWithEmailLink", .signInWithEmailLink), ("signInWithIdp", .signInWithIdp),
            ("signInWithPhoneNumber", .signInWithPhoneNumber), ("sendVerificationCode", .sendVerificationCode),
            ("sendOobCode", .sendOobCode), ("resetPassword", .resetPassword), ("update", .update), ("lookup", .lookup),
            ("delete", .delete), ("createAuthUri", .createAuthUri), ("batchCreate", .batchCreate), ("batchDelete", .batchDelete),
            ("query", .query),
        ]
        for (name, operation) in accounts { table["v1 POST accounts:\(name)"] = operation }
        table["v1 GET accounts:batchGet"] = .batchGet
        table["v1 POST accounts"] = .createAccount
        table["v1 POST :queryAccounts"] = .query
        table["v1 POST :createSessionCookie"] = .createSessionCookie
        table["v1 GET recaptchaParams"] = .recaptchaParams
        for (name, operation) in [("mfaEnrollment:start", FirebaseOperation.mfaEnrollmentStart), ("mfaEnrollment:finalize", .mfaEnrollmentFinalize),
                                  ("mfaEnrollment:withdraw", .mfaEnrollmentWithdraw), ("mfaSignIn:start", .mfaSignInStart),
                                  ("mfaSignIn:finalize", .mfaSignInFinalize), ("passkeyEnrollment:start", .passkeyEnrollmentStart),
                                  ("passkeyEnrollment:finalize", .passkeyEnrollmentFinalize), ("passkeySignIn:start", .passkeySignInStart),
                                  ("passkeySignIn:finalize", .passkeySignInFinalize)] {
            table["v2 POST accounts/\(name)"] = operation
        }
        table["v2 GET recaptchaConfig"] = .recaptchaConfig
        table["v2 GET passwordPolicy"] = .passwordPolicy
        table["v2 POST accounts:revokeToken"] = .revokeToken
        table["v2 GET config"] = .getConfig
        table["v2 PATCH config"] = .updateConfig
        table["v2 POST tenants"] = .createTenant
        table["v2 GET tenants"] = .listTenants
        return table
    }()

    private static func emulator(_ method: HTTPRequest.Method, _ segments: [String]) -> FirebaseRoute? {
        if segments == ["action"], method == .get || method == .post { return FirebaseRoute(operation: .action) }
        if segments == ["auth", "handler"], method == .get || method == .post { return FirebaseRoute(operation: .authHandler) }
        if segments == ["auth", "iframe"], method == .get { return FirebaseRoute(operation: .authIframe) }
        guard segments.count >= 4, segments[0] == "v1", segments[1] == "projects" else { return nil }
        var route = FirebaseRoute(operation: .lookup, project: segments[2])
        var rest = Array(segments.dropFirst(3))
        if rest.first == "tenants", rest.count >= 3 {
            route.tenant = rest[1]
            rest = Array(rest.dropFirst(2))
        }
        let operations: [String: FirebaseOperation] = [
            "DELETE accounts": .emulatorDeleteAccounts, "GET config": .emulatorGetConfig, "PATCH config": .emulatorUpdateConfig,
            "GET oobCodes": .emulatorOobCodes, "GET verificationCodes": .emulatorVerificationCodes,
        ]
        guard let operation = operations["\(method.rawValue) \(rest.joined(separator: "/"))"] else { return nil }
        route.operation = operation
        return route
    }

    /// The legacy v3 API, rewritten onto v1 as the emulator does, and Google's public-key documents.
    private static func googleapis(_ method: HTTPRequest.Method, _ segments: [String]) -> FirebaseRoute? {
        let keys = "securetoken@system.gserviceaccount.com"
        if method == .get, segments == ["robot", "v1", "metadata", "x509", keys] { return FirebaseRoute(operation: .publicKeysX509) }
        if method == .get, segments == ["service_accounts", "v1", "jwk", keys] { return FirebaseRoute(operation: .publicKeysJWKS) }
        guard segments.count == 4, segments[0...2] == ["identitytoolkit", "v3", "relyingparty"] else { return nil }
        let legacy: [String: FirebaseOperation] = [
            "createAuthUri": .createAuthUri, "deleteAccount": .delete, "emailLinkSignin": .signInWithEmailLink,
            "getAccountInfo": .lookup, "getOobConfirmationCode": .sendOobCode, "getRecaptchaParam": .recaptchaParams,
            "publicKeys": .publicKeysJWKS, "resetPassword": .resetPassword, "sendVerificationCode": .sendVerificationCode,
            "setAccountInfo": .update, "signupNewUser": .signUp, "verifyAssertion": .signInWithIdp,
            "verifyCustomToken": .signInWithCustomToken, "verifyPassword": .signInWithPassword, "verifyPhoneNumber": .signInWithPhoneNumber,
            "getProjectConfig": .getProjects,
        ]
        return legacy[segments[3]].map { FirebaseRoute(operation: $0) }
    }
}
