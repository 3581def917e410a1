import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// Project configuration (`/v2/projects/{p}/config`, and the emulator's `/emulator/v1/projects/{p}/config`)
/// and Identity Platform tenants (`/v2/projects/{p}/tenants`).
enum ProjectConfig {
    /// The config keys Fauxth keeps: the emulator's three knobs (`blockingFunctions` as stored, `{}` when
    /// none, as the emulator's default config has it).
    static func config(_ scope: FirebaseScope) -> [String: JSON] {
        ["signIn": ["allowDuplicateEmails": .bool(scope.settings.allowDuplicateEmails)],
         "blockingFunctions": scope.settings.blockingFunctionsJSON,
         "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(scope.settings.improvedEmailPrivacy)]]
    }

    static func get(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.projects.scope(project: try call.projectId(), tenant: nil)
        var answer = config(scope)
        if [.getConfig, .updateConfig].contains(call.route.operation) {
            // What else an admin set (mfa, passwordPolicyConfig, recaptchaConfig…) is answered as stored, as the emulator's
            // getConfig answers its whole config; firebase-admin reads multiFactorConfig back from it.
            let stored = try call.emulator.tenant(scope.projectId)?.settings["config"]?.objectValue ?? [:]
            answer = stored.merging(answer) { $1 }
            answer["name"] = .string("projects/\(scope.projectId)/config")
        } else if answer["blockingFunctions"] == [:] {
            // The emulator's own config endpoint answers its two knobs; blocking functions only once set.
            answer.removeValue(forKey: "blockingFunctions")
        }
        return .json(.object(answer))
    }

    /// PATCH: with an `updateMask` only those paths change; without one, the v2 API replaces the config
    /// and the emulator's endpoint updates the fields present.
    static func update(_ call: FirebaseCall) async throws -> Response {
        if call.route.operation == .updateConfig { try call.requireOwner() }
        let project = try call.projectId()
        _ = try call.projects.scope(project: project, tenant: nil)
        let mask = call.request.uri.queryParameters.get("updateMask").map { $0.split(separator: ",").map(String.init) }
        let replaceAll = call.route.operation == .updateConfig && (mask?.isEmpty ?? true)
        try call.emulator.changeTenantSettings(project) { settings in
            let current = settings["config"]?.objectValue ?? [:]
            let config = replaceAll ? call.body.fields : merge(current, call.body.fields, mask: mask)
            if let blocking = config["blockingFunctions"], let problem = BlockingFunctions.Config.problem(in: blocking) {
                throw FirebaseError(.invalidBlockingFunction, problem)
            }
            settings["config"] = .object(config)
        }
        return try await get(call)
    }

    /// `patch` laid over `base`: the `mask` paths only, or every path `patch` has.
    static func merge(_ base: [String: JSON], _ patch: [String: JSON], mask: [String]?) -> [String: JSON] {
        let paths = mask ?? leafPaths(patch)
        var result = JSON.object(base)
        for path in paths {
            let keys = path.split(separator: ".").map(String.init)
            result = set(result, keys[...], to: value(JSON.object(patch), keys[...]))
        }
        return result.objectValue ?? [:]
    }

    private static func leafPaths(_ o: [String: JSON], prefix: String = "") -> [String] {
        o.flatMap { key, value -> [String] in
            if case .object(let inner) = value, !inner.isEmpty { return leafPaths(inner, prefix: prefix + key + ".") }
            return [prefix + key]
        }
    }

    private static func value(_ json: JSON, _ keys: ArraySlice<String>) -> JSON? {
        guard let first = keys.first else { return json }
        return json[first].flatMap { value($0, keys.dropFirst()) }
    }

    private static func set(_ json: JSON, _ keys: ArraySlice<String>, to value: JSON?) -> JSON {
        guard let first = keys.first else { return value ?? .null }
        var o = json.objectValue ?? [:]
        if keys.count == 1 {
            if let value { o[first] = value } else { o.removeValue(forKey: first) }
        } else {
            o[first] = set(o[first] ?? [:], keys.dropFirst(), to: value)
        }
        return .object(o)
    }
}

/// Identity Platform tenants. Created ones start with production's defaults (sign-in methods off),
/// unlike the everything-on tenants a request naming an unknown tenant gets.
enum Tenants {
    /// A tenant's settings before anyone sets them: every sign-in method off.
    static let productionDefaults: [String: JSON] = ["allowPasswordSignup": false, "enableEmailLinkSignin": false, "enableAnonymousUser": false,
                                                     "disableAuth": false, "mfaConfig": ["state": "DISABLED"]]

    /// What a tenant keeps. The last four are stored and answered as set, not applied: firebase-admin writes them, and
    /// reads an empty `passwordPolicyConfig` back as a broken answer.
    static let editable: Set = ["displayName", "allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser", "disableAuth",
                                "mfaConfig", "testPhoneNumbers", "passwordPolicyConfig", "recaptchaConfig", "smsRegionConfig", "mobileLinksConfig"]

    static func create(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let project = try call.projectId()
        _ = try call.projects.scope(project: project, tenant: nil)
        let name = try call.body.string("displayName") ?? "tenant"
        guard name.wholeMatch(of: #/[A-Za-z][A-Za-z0-9-]{3,19}/#) != nil else {
            throw FirebaseError(.invalidArgument, "displayName must start with a letter and be 4-20 letters, digits or hyphens")
        }
        let id = name.lowercased() + "-" + call.emulator.generator.lowerAlphanumeric(5)
        var config = productionDefaults
        for (key, value) in call.body.fields where editable.contains(key) { config[key] = value }
        // An mfaConfig without a state is off, with no providers, as the emulator's createTenant fills it (firebase-admin-node
        // cannot read a tenant whose mfaConfig has no state).
        if var mfa = config["mfaConfig"]?.objectValue {
            if mfa["state"] == nil { mfa["state"] = "DISABLED" }
            if mfa["enabledProviders"] == nil { mfa["enabledProviders"] = [] }
            config["mfaConfig"] = .object(mfa)
        }
        let tenant = try call.emulator.createTenant(id: FirebaseScope.coreTenant(project, id), dialect: .firebase, name: name,
                                                    settings: ["tenant_config": .object(config)])
        return .json(resource(tenant, project: project))
    }

    static func list(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let project = try call.projectId()
        let query = call.request.uri.queryParameters
        // The emulator's listTenants: a pageSize of 0 (or none) is 20, and the page token is the last tenant's id.
        let size = Int(query.get("pageSize") ?? "").flatMap { $0 == 0 ? nil : $0 } ?? 20
        let after = (query.get("pageToken") ?? "").isEmpty ? "" : FirebaseScope.coreTenant(project, query.get("pageToken") ?? "")
        let all = try call.projects.tenants(of: project).sorted { $0.id < $1.id }.filter { after.isEmpty || $0.id > after }
        let page = size < 0 ? all : Array(all.prefix(min(size, 1000)))
        var answer: [String: JSON] = ["tenants": .array(page.map { resource($0, project: project) })]
        if size >= 0, page.count < all.count, let last = page.last { answer["nextPageToken"] = .string(String(last.id.dropFirst(project.count + 1))) }
        return .json(.object(answer))
    }

    static func get(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let (project, tenant) = try existing(call)
        return .json(resource(tenant, project: project))
    }

    static func update(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let (project, tenant) = try existing(call)
        let mask = call.request.uri.queryParameters.get("updateMask").map { $0.split(separator: ",").map(String.init) } ?? []
        let patch = call.body.fields.filter { editable.contains($0.key) }
        try call.emulator.changeTenantSettings(tenant.id, name: patch["displayName"]?.stringValue) { settings in
            let current = settings["tenant_config"]?.objectValue ?? [:]
            // Without a mask the tenant is replaced: unset fields go back to production's defaults.
            settings["tenant_config"] = .object(mask.isEmpty ? productionDefaults.merging(patch) { $1 } : ProjectConfig.merge(current, patch, mask: mask))
        }
        return .json(resource(try call.emulator.requireTenant(tenant.id), project: project))
    }

    static func delete(_ call: FirebaseCall) async throws -> Response {
        try call.requireOwner()
        let (_, tenant) = try existing(call)
        try call.emulator.deleteTenant(tenant.id)
        return .json([:])
    }

    private static func existing(_ call: FirebaseCall) throws -> (String, Tenant) {
        let project = try call.projectId()
        guard let id = call.route.resource, let tenant = try call.emulator.tenant(FirebaseScope.coreTenant(project, id)) else {
            throw FirebaseError(.tenantNotFound, status: .notFound)
        }
        return (project, tenant)
    }

    /// The v2 `Tenant` resource.
    static func resource(_ tenant: Tenant, project: String) -> JSON {
        let id = String(tenant.id.dropFirst(project.count + 1))
        var o = tenant.settings["tenant_config"]?.objectValue ?? [:]
        o["name"] = .string("projects/\(project)/tenants/\(id)")
        o["displayName"] = o["displayName"] ?? .string(tenant.name)
        return .object(o)
    }
}
