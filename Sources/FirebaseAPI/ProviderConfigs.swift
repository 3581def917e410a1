import AuthCore
import Foundation
import HTTPSupport
import Hummingbird
import IdentityProviders

/// Identity Platform's OIDC and SAML provider configurations (`/v2/projects/{p}[/tenants/{t}]/oauthIdpConfigs` and
/// `…/inboundSamlConfigs`), as the Admin SDKs' `createProviderConfig`, `getProviderConfig`, `updateProviderConfig`,
/// `deleteProviderConfig` and `listProviderConfigs` call them. The Firebase Auth Emulator answers these 501; Fauxth
/// keeps them in the project's (or tenant's) settings, in the order they were made, and a configuration that is
/// there but not `enabled` turns its provider's sign-in off (`requireEnabled`).
enum ProviderConfigs {
    /// OIDC (`oidc.…`) or SAML (`saml.…`).
    enum Kind: String {
        case oidc, saml

        init(_ operation: FirebaseOperation) {
            switch operation {
            case .createSAMLConfig, .listSAMLConfigs, .getSAMLConfig, .updateSAMLConfig, .deleteSAMLConfig: self = .saml
            default: self = .oidc
            }
        }

        var collection: String { self == .oidc ? "oauthIdpConfigs" : "inboundSamlConfigs" }
        var idParameter: String { self == .oidc ? "oauthIdpConfigId" : "inboundSamlConfigId" }
        /// What an update may change; `idpConfig` and `spConfig` paths go one level down.
        var editable: Set<String> {
            self == .oidc
                ? ["displayName", "enabled", "clientId", "issuer", "clientSecret", "responseType", "responseType.idToken", "responseType.code"]
                : ["displayName", "enabled", "idpConfig", "idpConfig.idpEntityId", "idpConfig.ssoUrl", "idpConfig.idpCertificates",
                   "idpConfig.signRequest", "spConfig", "spConfig.spEntityId", "spConfig.callbackUri"]
        }

        static func of(providerId: String) -> Kind? {
            providerId.hasPrefix("oidc.") ? .oidc : providerId.hasPrefix("saml.") ? .saml : nil
        }
    }

    /// The list's largest page, as every Admin SDK caps it.
    static let largestPage = 100
    /// Where a project or tenant keeps its configurations: `[{"id", "config"}]`, oldest first.
    static let settingsKey = "provider_configs"

    static func create(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let kind = Kind(call.route.operation), (scope, project) = try self.scope(call)
        let id = try providerId(call.request.uri.queryParameters.get(kind.idParameter), kind)
        let config = try checked(tidied(call.body.fields, kind), kind)
        try call.emulator.changeTenantSettings(scope) { settings in
            var stored = entries(settings)
            guard !stored.contains(where: { $0.id == id }) else {
                throw FirebaseError(.configurationExists, "A configuration already exists with the provided identifier.")
            }
            stored.append((id, config))
            store(stored, in: &settings)
        }
        return .json(resource(id, config, kind, project: project, tenant: call.route.tenant))
    }

    static func get(_ call: FirebaseCall) async throws -> Response {
        let (kind, scope, project, id) = try named(call)
        let config = try existing(id, in: entries(try call.emulator.requireTenant(scope).settings))
        return .json(resource(id, config, kind, project: project, tenant: call.route.tenant))
    }

    /// PATCH: the `updateMask` paths take the body's values (a path the body leaves out, or sets to null, is cleared);
    /// without a mask, every field the body has. The result must still be a whole configuration.
    static func update(_ call: FirebaseCall) async throws -> Response {
        let (kind, scope, project, id) = try named(call)
        let mask = call.request.uri.queryParameters.get("updateMask").map { $0.split(separator: ",").map(String.init) }
        if let unknown = mask?.first(where: { !kind.editable.contains($0) }) {
            throw FirebaseError(.invalidConfig, "updateMask names a field that cannot be updated: \(unknown)")
        }
        let updated = try call.emulator.changeTenantSettings(scope) { settings in
            var stored = entries(settings)
            guard let index = stored.firstIndex(where: { $0.id == id }) else { throw notFound }
            stored[index].config = try checked(tidied(ProjectConfig.merge(stored[index].config, call.body.fields, mask: mask), kind), kind)
            store(stored, in: &settings)
            return stored[index].config
        }
        return .json(resource(id, updated, kind, project: project, tenant: call.route.tenant))
    }

    static func delete(_ call: FirebaseCall) async throws -> Response {
        let (_, scope, _, id) = try named(call)
        try call.emulator.changeTenantSettings(scope) { settings in
            let stored = entries(settings)
            guard stored.contains(where: { $0.id == id }) else { throw notFound }
            store(stored.filter { $0.id != id }, in: &settings)
        }
        return .json([:])
    }

    /// Oldest first, `pageSize` at a time (at most 100); `nextPageToken` is the last id of the page.
    static func list(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let kind = Kind(call.route.operation), (scope, project) = try self.scope(call)
        let query = call.request.uri.queryParameters
        let size = try query.get("pageSize").map { text -> Int in
            guard let size = Int(text), size >= 0 else { throw FirebaseError(.invalidArgument, "pageSize must be a number, 0 or more") }
            return size == 0 ? largestPage : min(size, largestPage)
        } ?? largestPage
        var all = entries(try call.emulator.requireTenant(scope).settings).filter { Kind.of(providerId: $0.id) == kind }
        if let token = query.get("pageToken"), !token.isEmpty {
            guard let last = all.firstIndex(where: { $0.id == token }) else { throw FirebaseError(.invalidPageSelection) }
            all.removeFirst(last + 1)
        }
        let page = all.prefix(size)
        var answer: [String: JSON] = [kind.collection: .array(page.map { resource($0.id, $0.config, kind, project: project, tenant: call.route.tenant) })]
        if page.count < all.count, let last = page.last { answer["nextPageToken"] = .string(last.id) }
        return .json(.object(answer))
    }

    /// Refuses a sign-in through `providerId` when the project (or tenant) has its configuration and it is not
    /// `enabled`, as Identity Platform refuses it. With no configuration the sign-in goes ahead, as the emulator lets
    /// any provider sign in.
    static func requireEnabled(_ providerId: String, in scope: FirebaseScope, emulator: Emulator) throws {
        guard Kind.of(providerId: providerId) != nil, let tenant = try emulator.tenant(scope.coreTenant),
              let config = entries(tenant.settings).first(where: { $0.id == providerId })?.config else { return }
        guard config["enabled"]?.boolValue == true else {
            throw FirebaseError(.operationNotAllowed, "The identity provider configuration is disabled.")
        }
    }

    /// The fake provider an OIDC configuration's `issuer` names when the issuer is one on this server (`…/_emu/idp/<id>`):
    /// the sign-in goes there, as Identity Platform goes to the configured issuer.
    static func fakeProviderId(for providerId: String, in scope: FirebaseScope, emulator: Emulator) throws -> String? {
        guard Kind.of(providerId: providerId) == .oidc, let tenant = try emulator.tenant(scope.coreTenant),
              let issuer = entries(tenant.settings).first(where: { $0.id == providerId })?.config["issuer"]?.stringValue else { return nil }
        return FakeProvider.id(inBaseURL: issuer)
    }

    // MARK: Reading and checking

    static let notFound = FirebaseError(.configurationNotFound, status: .notFound, googleStatus: "NOT_FOUND")

    /// What a request about one configuration names, once the caller is known to be the project's owner: its kind,
    /// the core tenant that keeps it, the project and its id.
    private static func named(_ call: FirebaseCall) throws -> (Kind, String, String, String) {
        try call.requireOwner()
        let kind = Kind(call.route.operation), (scope, project) = try self.scope(call)
        return (kind, scope, project, try providerId(call.route.resource, kind))
    }

    /// The core tenant the configurations live in (made as any request naming the project or tenant makes it), and
    /// the project.
    private static func scope(_ call: FirebaseCall) throws -> (String, String) {
        let project = try call.projectId()
        return (try call.projects.scope(project: project, tenant: call.route.tenant).coreTenant, project)
    }

    private static func providerId(_ id: String?, _ kind: Kind) throws -> String {
        guard let id, !id.isEmpty else { throw FirebaseError(.missingProviderID) }
        let prefix = kind.rawValue + "."
        guard id.hasPrefix(prefix), id.count > prefix.count, id.count <= 100,
              id.utf8.allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || "-_.".utf8.contains($0)) })
        else { throw FirebaseError(.invalidProviderID) }
        return id
    }

    private static func entries(_ settings: [String: JSON]) -> [(id: String, config: [String: JSON])] {
        (settings[settingsKey]?.arrayValue ?? []).compactMap { entry in
            guard let id = entry["id"]?.stringValue, let config = entry["config"]?.objectValue else { return nil }
            return (id, config)
        }
    }

    private static func store(_ entries: [(id: String, config: [String: JSON])], in settings: inout [String: JSON]) {
        settings[settingsKey] = .array(entries.map { ["id": .string($0.id), "config": .object($0.config)] })
    }

    private static func existing(_ id: String, in entries: [(id: String, config: [String: JSON])]) throws -> [String: JSON] {
        guard let config = entries.first(where: { $0.id == id })?.config else { throw notFound }
        return config
    }

    /// The fields a configuration keeps, nulls gone: what the body may set, nothing it may not (`name` is the path's).
    private static func tidied(_ body: [String: JSON], _ kind: Kind) -> [String: JSON] {
        var config: [String: JSON] = [:]
        for (key, value) in body where kind.editable.contains(key) && value != .null {
            if case .object(let inner) = value { config[key] = .object(inner.filter { $0.value != .null }) } else { config[key] = value }
        }
        return config
    }

    /// A whole configuration, or the error Identity Platform names for what it lacks.
    private static func checked(_ config: [String: JSON], _ kind: Kind) throws -> [String: JSON] {
        var config = config
        if let name = config["displayName"], name.stringValue == nil { throw FirebaseError(.invalidConfig, "displayName must be a string") }
        if let enabled = config["enabled"], enabled.boolValue == nil { throw FirebaseError(.invalidConfig, "enabled must be true or false") }
        switch kind {
        case .oidc:
            guard let clientId = config["clientId"]?.stringValue, !clientId.isEmpty else { throw FirebaseError(.missingOAuthClientID) }
            guard let issuer = config["issuer"]?.stringValue, !issuer.isEmpty else { throw FirebaseError(.missingIssuer) }
            guard RedirectURL.isWeb(issuer) else { throw FirebaseError(.invalidConfig, "issuer must be an http or https URL") }
            // One response type, the ID token unless the code is asked for; the code flow needs the client's secret.
            let responseType = config["responseType"]?.objectValue ?? [:]
            let code = responseType["code"]?.boolValue ?? false, idToken = responseType["idToken"]?.boolValue ?? !code
            guard code != idToken else { throw FirebaseError(.invalidConfig, "exactly one of responseType.idToken and responseType.code must be true") }
            if code, config["clientSecret"]?.stringValue?.isEmpty != false {
                throw FirebaseError(.invalidConfig, "clientSecret is required with responseType.code")
            }
            config["responseType"] = code ? ["code": true] : ["idToken": true]
        case .saml:
            let idp = config["idpConfig"]?.objectValue ?? [:], sp = config["spConfig"]?.objectValue ?? [:]
            guard let entity = idp["idpEntityId"]?.stringValue, !entity.isEmpty else { throw FirebaseError(.invalidConfig, "idpConfig.idpEntityId is required") }
            guard let sso = idp["ssoUrl"]?.stringValue, RedirectURL.isWeb(sso) else { throw FirebaseError(.invalidConfig, "idpConfig.ssoUrl must be an http or https URL") }
            let certificates = idp["idpCertificates"]?.arrayValue ?? []
            guard !certificates.isEmpty, certificates.allSatisfy({ $0["x509Certificate"]?.stringValue?.isEmpty == false }) else {
                throw FirebaseError(.invalidConfig, "idpConfig.idpCertificates must hold at least one x509Certificate")
            }
            guard sp["spEntityId"]?.stringValue?.isEmpty == false, let callback = sp["callbackUri"]?.stringValue, RedirectURL.isWeb(callback) else {
                throw FirebaseError(.missingSAMLRelyingPartyConfig)
            }
        }
        return config
    }

    /// The v2 resource: its `name`, then what is set (Identity Platform leaves out false and empty fields).
    static func resource(_ id: String, _ config: [String: JSON], _ kind: Kind, project: String, tenant: String?) -> JSON {
        var o = config.filter { $0.value != false && $0.value != "" }
        o["name"] = .string("projects/\(project)" + (tenant.map { "/tenants/\($0)" } ?? "") + "/\(kind.collection)/\(id)")
        return .object(o)
    }
}
