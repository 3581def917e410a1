import AuthCore
import Foundation
import HTTPSupport

/// App clients (`CreateUserPoolClient` and friends), kept in their pool's settings in
/// `UserPoolClientType`'s shape.
enum ClientAdmin {
    /// What a client may set; `UpdateUserPoolClient` replaces them all, as Cognito does.
    static let settable: Set = ["ClientName", "RefreshTokenValidity", "AccessTokenValidity", "IdTokenValidity", "TokenValidityUnits",
                                "ReadAttributes", "WriteAttributes", "ExplicitAuthFlows", "SupportedIdentityProviders", "CallbackURLs",
                                "LogoutURLs", "DefaultRedirectURI", "AllowedOAuthFlows", "AllowedOAuthScopes",
                                "AllowedOAuthFlowsUserPoolClient", "AnalyticsConfiguration", "PreventUserExistenceErrors",
                                "EnableTokenRevocation", "EnablePropagateAdditionalUserContextData", "AuthSessionValidity",
                                "RefreshTokenRotation"]

    static func create(_ call: CognitoCall) async throws -> JSON {
        let poolId = try call.body.required("UserPoolId")
        _ = try call.body.required("ClientName")
        let now = call.emulator.clock.now.timeIntervalSince1970
        var client = try checked(call.body.fields.filter { settable.contains($0.key) }, generatesSecret: try call.body.bool("GenerateSecret") ?? false)
        client["ClientId"] = .string(CognitoClient.newID(call.emulator.generator))
        if try call.body.bool("GenerateSecret") == true { client["ClientSecret"] = .string(call.emulator.generator.lowerAlphanumeric(51)) }
        client["CreationDate"] = .double(now)
        let stored = client
        try call.pools.update(poolId) { settings in
            settings["clients"] = .array((settings["clients"]?.arrayValue ?? []) + [.object(stored)])
            try PoolResources.checkIdPInitiatedClients(settings)
        }
        return ["UserPoolClient": describeJSON(stored, poolId: poolId)]
    }

    /// Cognito's defaults filled in, and the combinations it refuses refused.
    static func checked(_ fields: [String: JSON], generatesSecret: Bool) throws -> [String: JSON] {
        var client = fields
        if let flows = client["ExplicitAuthFlows"] { try checkAuthFlows(flows) }
        let flows = (client["AllowedOAuthFlows"]?.arrayValue ?? []).compactMap(\.stringValue)
        if flows.contains("client_credentials"), !generatesSecret {
            throw CognitoError.invalid("client_credentials flow can not be selected if client does not have a client secret.")
        }
        if flows.contains(where: { $0 != "client_credentials" }), (client["CallbackURLs"]?.arrayValue ?? []).isEmpty {
            throw CognitoError.invalid("CallbackURLs can not be empty when the code or implicit OAuth flow is allowed.")
        }
        if let rotation = client["RefreshTokenRotation"] { try checkRotation(rotation) }
        client["RefreshTokenValidity"] = client["RefreshTokenValidity"] ?? 30
        client["TokenValidityUnits"] = client["TokenValidityUnits"] ?? ["AccessToken": "hours", "IdToken": "hours", "RefreshToken": "days"]
        client["AllowedOAuthFlowsUserPoolClient"] = client["AllowedOAuthFlowsUserPoolClient"] ?? false
        client["EnableTokenRevocation"] = client["EnableTokenRevocation"] ?? true
        client["PreventUserExistenceErrors"] = client["PreventUserExistenceErrors"] ?? "LEGACY"
        client["AuthSessionValidity"] = client["AuthSessionValidity"] ?? 3
        // Token lifetimes, in their units: access and ID tokens from 5 minutes to a day, refresh tokens from an hour to
        // ten years (a refresh validity of 0 is left as it is). Unchecked, an access token validity of 8e15 hours
        // overflowed the token's `exp` and ended the process at the next sign-in.
        let stated = CognitoClient(client)
        let outOfRange = [CognitoClient.TokenKind.access, .id, .refresh].contains { kind in
            !(kind == .refresh && client[kind.field]?.intValue == 0) && !kind.accepted.contains(stated.statedLifetime(kind))
        }
        guard !outOfRange else {
            throw CognitoError.invalid("Invalid range for token validity.")
        }
        return client
    }

    /// `RefreshTokenRotation` (`RefreshTokenRotationType`): `Feature` `ENABLED` or `DISABLED`, a grace period of 0 to 60
    /// seconds, refused in the service's validation words.
    static func checkRotation(_ rotation: JSON) throws {
        guard rotation.objectValue != nil else { throw CognitoError(.serialization, "Structure expected for RefreshTokenRotation") }
        if let feature = rotation["Feature"], !["ENABLED", "DISABLED"].contains(feature.stringValue ?? "") {
            throw CognitoError.invalid("1 validation error detected: Value '\(feature.stringValue ?? feature.serialized())' at "
                                       + "'refreshTokenRotation.feature' failed to satisfy constraint: Member must satisfy enum value set: [ENABLED, DISABLED]")
        }
        if let grace = rotation["RetryGracePeriodSeconds"]?.intValue, !(0...60).contains(grace) {
            let bound = grace < 0 ? "greater than or equal to 0" : "less than or equal to 60"
            throw CognitoError.invalid("1 validation error detected: Value '\(grace)' at 'refreshTokenRotation.retryGracePeriodSeconds' failed to "
                                       + "satisfy constraint: Member must have value \(bound)")
        }
    }

    /// `ExplicitAuthFlows`: names of the model's enum (its validation message quotes the list as Java prints
    /// it), of one generation: the API reference says legacy names cannot be assigned with `ALLOW_` ones.
    static func checkAuthFlows(_ flows: JSON) throws {
        guard let items = flows.arrayValue else { throw CognitoError(.serialization, "List expected for ExplicitAuthFlows") }
        let names = try items.map { item in
            guard let name = item.stringValue else { throw CognitoError(.serialization, "List of strings expected for ExplicitAuthFlows") }
            return name
        }
        guard names.allSatisfy(CognitoClient.flowNames.contains) else {
            throw CognitoError.invalid("1 validation error detected: Value '[\(names.joined(separator: ", "))]' at 'explicitAuthFlows' failed to satisfy "
                                       + "constraint: Member must satisfy constraint: [Member must satisfy enum value set: "
                                       + "[\(CognitoClient.flowNames.joined(separator: ", "))]]")
        }
        let allowNames = names.filter { $0.hasPrefix("ALLOW_") }.count
        guard allowNames == 0 || allowNames == names.count else {
            throw CognitoError.invalid("Values with ALLOW_ prefix cannot be used along with values without ALLOW_ prefix.")
        }
    }

    static func describeJSON(_ client: [String: JSON], poolId: String) -> JSON {
        var o = client
        o["UserPoolId"] = .string(poolId)
        o["LastModifiedDate"] = o["LastModifiedDate"] ?? o["CreationDate"]
        return .object(o)
    }

    static func describe(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let id = try call.body.required("ClientId")
        guard let client = pool.client(id) else { throw CognitoError(.resourceNotFound, "User pool client \(id) does not exist.") }
        return ["UserPoolClient": describeJSON(client.fields, poolId: pool.id)]
    }

    static func update(_ call: CognitoCall) async throws -> JSON {
        let poolId = try call.body.required("UserPoolId"), id = try call.body.required("ClientId")
        let updated: [String: JSON] = try call.pools.update(poolId) { settings in
            var clients = (settings["clients"]?.arrayValue ?? []).compactMap(\.objectValue)
            guard let index = clients.firstIndex(where: { $0["ClientId"]?.stringValue == id }) else {
                throw CognitoError(.resourceNotFound, "User pool client \(id) does not exist.")
            }
            let kept = clients[index].filter { !settable.contains($0.key) }
            var client = try checked(call.body.fields.filter { settable.contains($0.key) }, generatesSecret: kept["ClientSecret"] != nil)
            client["ClientName"] = client["ClientName"] ?? clients[index]["ClientName"]
            client.merge(kept) { new, _ in new }
            client["LastModifiedDate"] = .double(call.emulator.clock.now.timeIntervalSince1970)
            clients[index] = client
            settings["clients"] = .array(clients.map(JSON.object))
            try PoolResources.checkIdPInitiatedClients(settings)
            return client
        }
        return ["UserPoolClient": describeJSON(updated, poolId: poolId)]
    }

    static func delete(_ call: CognitoCall) async throws -> JSON {
        let poolId = try call.body.required("UserPoolId"), id = try call.body.required("ClientId")
        try call.pools.update(poolId) { settings in
            let clients = settings["clients"]?.arrayValue ?? []
            guard clients.contains(where: { $0["ClientId"]?.stringValue == id }) else {
                throw CognitoError(.resourceNotFound, "User pool client \(id) does not exist.")
            }
            settings["clients"] = .array(clients.filter { $0["ClientId"]?.stringValue != id })
        }
        return [:]
    }

    static func list(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let paging = try Paging(call, .clients, scope: "ListUserPoolClients \(pool.id)")
        let (page, next) = paging.page(pool.clients, key: \.id)
        return paging.answer("UserPoolClients", page.map { client in
            ["ClientId": .string(client.id), "UserPoolId": .string(pool.id), "ClientName": client.fields["ClientName"] ?? ""]
        }, next: next)
    }
}
