import AuthCore
import Foundation
import HTTPSupport

/// An identity pool as its home user pool keeps it.
struct IdentityPool: Sendable {
    /// The user pool whose settings hold it.
    let home: CognitoPool
    /// `DescribeIdentityPool`'s members, with `Roles` and `RoleMappings`.
    let fields: [String: JSON]

    var id: String { fields["IdentityPoolId"]?.stringValue ?? "" }
    var region: String { String(id.prefix { $0 != ":" }) }
    var allowsUnauthenticated: Bool { fields["AllowUnauthenticatedIdentities"]?.boolValue ?? false }
    var roles: [String: String] { (fields["Roles"]?.objectValue ?? [:]).compactMapValues(\.stringValue) }

    /// A user pool that signs users in for this pool (`CognitoIdentityProviders`).
    struct Provider {
        var name: String
        var clientId: String?
        var serverSideTokenCheck: Bool
        /// The user pool's id: the provider name's last segment (`cognito-idp.<region>.amazonaws.com/<pool>`).
        var userPoolId: String { String(name.split(separator: "/").last ?? "") }
    }

    var providers: [Provider] { Self.providers(in: fields) }

    static func providers(in fields: [String: JSON]) -> [Provider] {
        (fields["CognitoIdentityProviders"]?.arrayValue ?? []).compactMap { item in
            item["ProviderName"]?.stringValue.map {
                Provider(name: $0, clientId: item["ClientId"]?.stringValue, serverSideTokenCheck: item["ServerSideTokenCheck"]?.boolValue ?? false)
            }
        }
    }

    /// `DescribeIdentityPool`'s answer: the pool without its roles.
    var description: JSON { .object(fields.filter { $0.key != "Roles" && $0.key != "RoleMappings" }) }

    static func all(_ pools: CognitoPools) throws -> [IdentityPool] {
        try pools.all().flatMap { home in
            (home.settings["identity_pools"]?.arrayValue ?? []).compactMap { $0.objectValue.map { IdentityPool(home: home, fields: $0) } }
        }
    }

    static func find(_ id: String, _ pools: CognitoPools) throws -> IdentityPool {
        guard let pool = try all(pools).first(where: { $0.id == id }) else {
            throw CognitoError(.resourceNotFound, "IdentityPool '\(id)' not found.")
        }
        return pool
    }

    /// botocore's `IdentityPoolId`: 1 to 55 characters, `[\w-]+:[0-9a-f-]+`.
    static func checkedId(_ id: String) throws -> String { try checked(id, member: "identityPoolId") }

    /// botocore's `IdentityId`: the same shape as a pool's id.
    static func checkedIdentityId(_ id: String) throws -> String { try checked(id, member: "identityId") }

    /// The model's refusals are `InvalidParameterException`s here, as everywhere in the dialect; the dispatch answers
    /// them as this service's `ValidationException`.
    private static func checked(_ value: String, member: String) throws -> String {
        if value.count > 55 {
            throw CognitoError.invalid("1 validation error detected: Value '\(value)' at '\(member)' failed to satisfy constraint: Member must have length less than or equal to 55")
        }
        guard value.wholeMatch(of: #/[\w-]+:[0-9a-f-]+/#) != nil else {
            throw CognitoError.invalid("1 validation error detected: Value '\(value)' at '\(member)' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w-]+:[0-9a-f-]+")
        }
        return value
    }
}

/// The identity pools' own administration: `Create|Describe|Update|Delete|ListIdentityPools`, their roles, and their
/// identities.
enum IdentityPools {
    /// What `CreateIdentityPool` and `UpdateIdentityPool` keep of their request.
    static let settable = ["IdentityPoolName", "AllowUnauthenticatedIdentities", "AllowClassicFlow", "SupportedLoginProviders",
                           "DeveloperProviderName", "OpenIdConnectProviderARNs", "CognitoIdentityProviders", "SamlProviderARNs", "IdentityPoolTags"]

    static func create(_ call: IdentityPoolCall) throws -> JSON {
        var fields = try poolFields(call.body)
        // The pool lives with the first user pool it names that Fauxth has.
        guard let home = IdentityPool.providers(in: fields).lazy.compactMap({ try? call.pools.pool($0.userPoolId) }).first else {
            throw CognitoError.invalid("Fauxth keeps an identity pool with a user pool: name one of its user pools in CognitoIdentityProviders")
        }
        fields["IdentityPoolId"] = .string("\(home.region):\(call.emulator.generator.uuid())")
        try call.pools.update(home.id) { settings in
            settings["identity_pools"] = .array((settings["identity_pools"]?.arrayValue ?? []) + [.object(fields)])
        }
        return IdentityPool(home: home, fields: fields).description
    }

    static func describe(_ call: IdentityPoolCall) throws -> JSON { try call.identityPool().description }

    /// `UpdateIdentityPool` replaces what the request may set (its roles stay); the pool stays with its user pool.
    static func update(_ call: IdentityPoolCall) throws -> JSON {
        let pool = try call.identityPool()
        var fields = try poolFields(call.body)
        fields["IdentityPoolId"] = .string(pool.id)
        for key in ["Roles", "RoleMappings"] { fields[key] = pool.fields[key] }
        try change(pool, call) { $0 = fields }
        return IdentityPool(home: pool.home, fields: fields).description
    }

    static func delete(_ call: IdentityPoolCall) throws -> JSON {
        let pool = try call.identityPool()
        try call.pools.update(pool.home.id) { settings in
            settings["identity_pools"] = .array((settings["identity_pools"]?.arrayValue ?? []).filter { $0["IdentityPoolId"]?.stringValue != pool.id })
        }
        try call.emulator.deletePoolIdentities(in: pool.home.id, poolId: pool.id)
        return [:]
    }

    static func list(_ call: IdentityPoolCall) throws -> JSON {
        let paging = try Paging(call.body, .identityPools, scope: "ListIdentityPools", requestId: call.requestId)
        let (page, next) = paging.page(try IdentityPool.all(call.pools)) { $0.id }
        return paging.answer("IdentityPools", page.map { ["IdentityPoolId": .string($0.id), "IdentityPoolName": $0.fields["IdentityPoolName"] ?? ""] },
                             next: next)
    }

    /// `SetIdentityPoolRoles`: the roles identities assume, `authenticated` and `unauthenticated`.
    static func setRoles(_ call: IdentityPoolCall) throws -> JSON {
        let pool = try call.identityPool()
        guard let roles = try call.body.object("Roles") else { throw CognitoBody.missing("Roles") }
        for (key, value) in roles {
            guard key == "authenticated" || key == "unauthenticated" else {
                throw CognitoError.invalid("Invalid role type: \(key). Supported role types are 'authenticated' and 'unauthenticated'.")
            }
            guard let arn = value.stringValue, arn.hasPrefix("arn:") else { throw CognitoError.invalid("Invalid role ARN for \(key)") }
        }
        let mappings = try call.body.object("RoleMappings")
        if let mappings { try IdentityPoolRoles.check(mappings) }
        try change(pool, call) { fields in
            fields["Roles"] = .object(roles)
            fields["RoleMappings"] = mappings.map(JSON.object)
        }
        return [:]
    }

    static func roles(_ call: IdentityPoolCall) throws -> JSON {
        let pool = try call.identityPool()
        var answer: [String: JSON] = ["IdentityPoolId": .string(pool.id), "Roles": pool.fields["Roles"] ?? [:]]
        answer["RoleMappings"] = pool.fields["RoleMappings"]
        return .object(answer)
    }

    static func listIdentities(_ call: IdentityPoolCall) throws -> JSON {
        let pool = try call.identityPool()
        let paging = try Paging(call.body, .identityPools, scope: "ListIdentities \(pool.id)", requestId: call.requestId)
        let identities = try call.emulator.poolIdentities(in: pool.home.id, poolId: pool.id, limit: paging.size + 1, after: paging.after,
                                                          hideDisabled: try call.body.bool("HideDisabled") ?? false)
        let page = identities.prefix(paging.size)
        var answer: [String: JSON] = ["IdentityPoolId": .string(pool.id), "Identities": .array(page.map(description))]
        if identities.count > page.count, let last = page.last { answer["NextToken"] = .string(paging.token(after: last.id)) }
        return .object(answer)
    }

    static func describeIdentity(_ call: IdentityPoolCall) throws -> JSON {
        let id = try IdentityPool.checkedIdentityId(try call.body.required("IdentityId"))
        guard let identity = try call.emulator.poolIdentity(id: id) else { throw identityNotFound(id) }
        return description(identity)
    }

    /// `DeleteIdentities`: up to 60 at once; an id that is not an identity is no failure.
    static func deleteIdentities(_ call: IdentityPoolCall) throws -> JSON {
        guard let ids = try call.body.strings("IdentityIdsToDelete") else { throw CognitoBody.missing("IdentityIdsToDelete") }
        guard (1...60).contains(ids.count) else {
            throw CognitoError.invalid("1 validation error detected: Value at 'identityIdsToDelete' failed to satisfy constraint: Member must have length between 1 and 60")
        }
        try call.emulator.deletePoolIdentities(try ids.map(IdentityPool.checkedIdentityId))
        return ["UnprocessedIdentityIds": []]
    }

    static func identityNotFound(_ id: String) -> CognitoError { CognitoError(.resourceNotFound, "Identity '\(id)' not found.") }

    /// `IdentityDescription`: the logins are the providers' names; dates in epoch seconds, as JSON 1.1 writes them.
    static func description(_ identity: PoolIdentity) -> JSON {
        ["IdentityId": .string(identity.id), "Logins": .array(identity.logins.keys.sorted().map(JSON.string)),
         "CreationDate": .double(identity.createdAt.timeIntervalSince1970), "LastModifiedDate": .double(identity.updatedAt.timeIntervalSince1970)]
    }

    /// The pool's members a create or an update sets, checked as botocore's model has them.
    private static func poolFields(_ body: CognitoBody) throws -> [String: JSON] {
        let name = try body.required("IdentityPoolName")
        guard name.count <= 128, name.wholeMatch(of: #/[\w\s+=,.@-]+/#) != nil else {
            throw CognitoError.invalid("1 validation error detected: Value '\(name)' at 'identityPoolName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w\\s+=,.@-]+")
        }
        guard let allowUnauthenticated = try body.bool("AllowUnauthenticatedIdentities") else { throw CognitoBody.missing("AllowUnauthenticatedIdentities") }
        var fields: [String: JSON] = [:]
        for key in settable { fields[key] = body[key] }
        fields["AllowUnauthenticatedIdentities"] = .bool(allowUnauthenticated)
        fields["AllowClassicFlow"] = .bool(try body.bool("AllowClassicFlow") ?? false)
        fields["IdentityPoolTags"] = .object(try body.object("IdentityPoolTags") ?? [:])
        for item in try body.array("CognitoIdentityProviders") ?? [] {
            guard let provider = item["ProviderName"]?.stringValue, provider.wholeMatch(of: #/cognito-idp\.[\w-]+\.amazonaws\.com\/[\w-]+_[0-9a-zA-Z]+/#) != nil else {
                throw CognitoError.invalid("Invalid ProviderName for a Cognito identity provider: expected cognito-idp.<region>.amazonaws.com/<user pool id>")
            }
        }
        return fields
    }

    /// Changes a pool's members in its user pool's settings.
    private static func change(_ pool: IdentityPool, _ call: IdentityPoolCall, _ body: @escaping (inout [String: JSON]) -> Void) throws {
        try call.pools.update(pool.home.id) { settings in
            settings["identity_pools"] = .array((settings["identity_pools"]?.arrayValue ?? []).map { item in
                guard var fields = item.objectValue, fields["IdentityPoolId"]?.stringValue == pool.id else { return item }
                body(&fields)
                return .object(fields)
            })
        }
    }
}
