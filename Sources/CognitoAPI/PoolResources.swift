import AuthCore
import Foundation

/// A pool's hosted-UI domain, resource servers (custom OAuth scopes) and identity providers.
enum PoolResources {
    /// `Create|Describe|Update|DeleteUserPoolDomain`. A prefix belongs to one pool at a time.
    static func domain(_ call: CognitoCall) async throws -> JSON {
        let domain = try call.body.required("Domain")
        switch call.action {
        case .describeUserPoolDomain:
            guard let pool = try call.pools.all().first(where: { $0.domain == domain }) else { return ["DomainDescription": [:]] }
            return ["DomainDescription": ["UserPoolId": .string(pool.id), "AWSAccountId": "000000000000", "Domain": .string(domain),
                                          "S3Bucket": "aws-cognito-prod-auth-assets", "CloudFrontDistribution": .string("\(domain).fauxth.local"),
                                          "Version": "1", "Status": "ACTIVE", "ManagedLoginVersion": 1]]
        case .createUserPoolDomain:
            let poolId = try call.body.required("UserPoolId")
            if let owner = try call.pools.all().first(where: { $0.domain == domain }), owner.id != poolId {
                throw CognitoError.invalid("Domain already associated with another user pool.")
            }
            try call.pools.update(poolId) { settings in settings["domain"] = .string(domain) }
            return ["CloudFrontDomain": .string("\(domain).fauxth.local"), "ManagedLoginVersion": 1]
        case .updateUserPoolDomain:
            let poolId = try call.body.required("UserPoolId")
            guard try call.pools.pool(poolId).domain == domain else { throw CognitoError.invalid("Domain \(domain) does not belong to the pool.") }
            return ["CloudFrontDomain": .string("\(domain).fauxth.local"), "ManagedLoginVersion": 1]
        default:
            let poolId = try call.body.required("UserPoolId")
            try call.pools.update(poolId) { settings in
                guard settings["domain"]?.stringValue == domain else { throw CognitoError.invalid("Domain \(domain) does not belong to the pool.") }
                settings.removeValue(forKey: "domain")
            }
            return [:]
        }
    }

    /// Resource servers: `Identifier`, `Name`, `Scopes`.
    static func resourceServer(_ call: CognitoCall) async throws -> JSON {
        try collection(call, key: "resource_servers", id: "Identifier", shape: "ResourceServer", plural: "ResourceServers",
                       settable: ["Identifier", "Name", "Scopes"], notFound: { "Resource server \($0) does not exist." },
                       create: .createResourceServer, describe: .describeResourceServer, update: .updateResourceServer, list: .listResourceServers)
    }

    /// Identity providers: `ProviderName`, `ProviderType`, `ProviderDetails`, `AttributeMapping`, `IdpIdentifiers`.
    static func identityProvider(_ call: CognitoCall) async throws -> JSON {
        try collection(call, key: "identity_providers", id: "ProviderName", shape: "IdentityProvider", plural: "Providers",
                       settable: ["ProviderName", "ProviderType", "ProviderDetails", "AttributeMapping", "IdpIdentifiers"],
                       notFound: { "Identity provider \($0) does not exist." },
                       create: .createIdentityProvider, describe: .describeIdentityProvider, update: .updateIdentityProvider,
                       list: .listIdentityProviders)
    }

    /// CRUD over a list of objects in the pool's settings, keyed by their `id` member.
    private static func collection(_ call: CognitoCall, key: String, id idKey: String, shape: String, plural: String, settable: Set<String>,
                                   notFound: (String) -> String, create: CognitoAction, describe: CognitoAction, update: CognitoAction,
                                   list: CognitoAction) throws -> JSON {
        let poolId = try call.body.required("UserPoolId")
        let now = JSON.double(call.emulator.clock.now.timeIntervalSince1970)
        if call.action == list {
            let items = (try call.pools.pool(poolId).settings[key]?.arrayValue ?? []).map { item -> JSON in
                var o = item.objectValue ?? [:]
                o["UserPoolId"] = .string(poolId)
                return .object(o)
            }
            return [plural: .array(items)]
        }
        let name = try call.body.required(idKey)
        return try call.pools.update(poolId) { settings in
            var items = (settings[key]?.arrayValue ?? []).compactMap(\.objectValue)
            let index = items.firstIndex { $0[idKey]?.stringValue == name }
            var item: [String: JSON]
            switch call.action {
            case create:
                guard index == nil else { throw CognitoError(.duplicateProvider, "\(shape) \(name) already exists.") }
                item = call.body.fields.filter { settable.contains($0.key) }
                item["CreationDate"] = now
                item["LastModifiedDate"] = now
                items.append(item)
            case describe:
                guard let index else { throw CognitoError(.resourceNotFound, notFound(name)) }
                item = items[index]
            case update:
                guard let index else { throw CognitoError(.resourceNotFound, notFound(name)) }
                item = items[index].merging(call.body.fields.filter { settable.contains($0.key) }) { $1 }
                item["LastModifiedDate"] = now
                items[index] = item
            default:
                guard let index else { throw CognitoError(.resourceNotFound, notFound(name)) }
                items.remove(at: index)
                settings[key] = .array(items.map(JSON.object))
                return [:]
            }
            settings[key] = .array(items.map(JSON.object))
            item["UserPoolId"] = .string(poolId)
            return [shape: .object(item)]
        }
    }
}
