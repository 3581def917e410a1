import AuthCore
import Foundation
import HTTPSupport
import IdentityProviders

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

    /// A kind of resource kept as a list in the pool's settings: where, keyed by which member, how answers
    /// name it, what a request may set, how it pages, and what Cognito answers for a missing or taken key.
    struct Kind: Sendable {
        var key: String
        var id: String
        var shape: String
        var plural: String
        var settable: Set<String>
        var paging: Paging.Rule
        var create, describe, update, list: CognitoAction
        var notFound: @Sendable (_ name: String) -> CognitoError
        var taken: @Sendable (_ name: String, _ poolId: String) -> CognitoError
        /// A rule the pool's settings must keep after a create or an update.
        var check: @Sendable (_ settings: [String: JSON]) throws -> Void = { _ in }
    }

    /// Resource servers: `Identifier`, `Name`, `Scopes`. A taken identifier is InvalidParameterException
    /// (moto's CreateResourceServer, after AWS), where a taken provider name is DuplicateProviderException.
    static let resourceServers = Kind(
        key: "resource_servers", id: "Identifier", shape: "ResourceServer", plural: "ResourceServers", settable: ["Identifier", "Name", "Scopes"],
        paging: .resourceServers, create: .createResourceServer, describe: .describeResourceServer, update: .updateResourceServer,
        list: .listResourceServers, notFound: { CognitoError(.resourceNotFound, "Resource server \($0) does not exist.") },
        taken: { CognitoError.invalid("\($0) already exists in user pool \($1).") })

    /// Identity providers: `ProviderName`, `ProviderType`, `ProviderDetails`, `AttributeMapping`, `IdpIdentifiers`.
    static let identityProviders = Kind(
        key: "identity_providers", id: "ProviderName", shape: "IdentityProvider", plural: "Providers",
        settable: ["ProviderName", "ProviderType", "ProviderDetails", "AttributeMapping", "IdpIdentifiers"], paging: .identityProviders,
        create: .createIdentityProvider, describe: .describeIdentityProvider, update: .updateIdentityProvider, list: .listIdentityProviders,
        notFound: { CognitoError(.resourceNotFound, "Identity provider \($0) does not exist.") },
        taken: { name, _ in CognitoError(.duplicateProvider, "IdentityProvider \(name) already exists.") },
        check: checkIdPInitiatedClients)

    /// Whether a SAML provider takes IdP-initiated sign-in: `ProviderDetails.IDPInit` "true".
    static func allowsIdPInitiated(_ idp: [String: JSON]) -> Bool { idp["ProviderDetails"]?["IDPInit"]?.stringValue?.lowercased() == "true" }

    /// AWS: an app client that supports a SAML provider with IdP-initiated sign-in (`IDPInit`) can support only SAML
    /// providers, not the pool's own users (`COGNITO`) nor a social or OIDC provider. Checked on what a change to a
    /// client or a provider leaves; AWS documents the rule, not its message.
    static func checkIdPInitiatedClients(_ settings: [String: JSON]) throws {
        let providers = (settings["identity_providers"]?.arrayValue ?? []).compactMap(\.objectValue).filter { $0["ProviderType"]?.stringValue == "SAML" }
        let saml = Set(providers.compactMap { $0["ProviderName"]?.stringValue })
        let idpInitiated = Set(providers.filter(allowsIdPInitiated).compactMap { $0["ProviderName"]?.stringValue })
        for client in (settings["clients"]?.arrayValue ?? []).compactMap(\.objectValue) {
            let supported = (client["SupportedIdentityProviders"]?.arrayValue ?? []).compactMap(\.stringValue)
            guard let initiated = supported.first(where: idpInitiated.contains) else { continue }
            let others = supported.filter { !saml.contains($0) }
            guard others.isEmpty else {
                throw CognitoError.invalid("App client \(client["ClientId"]?.stringValue ?? "") supports \(initiated), a SAML provider with IdP-initiated sign-in (IDPInit), so it can support only SAML providers, not \(others.joined(separator: ", ")).")
            }
        }
    }

    static func resourceServer(_ call: CognitoCall) async throws -> JSON { try collection(call, resourceServers) }

    static func identityProvider(_ call: CognitoCall) async throws -> JSON {
        if call.action == .createIdentityProvider || call.action == .updateIdentityProvider { try checkSAMLDetails(call) }
        return try collection(call, identityProviders)
    }

    /// `GetIdentityProviderByIdentifier`: the provider that has `IdpIdentifier` among its `IdpIdentifiers`, as
    /// `/oauth2/authorize`'s `idp_identifier` finds it.
    static func identityProviderByIdentifier(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let identifier = try call.body.required("IdpIdentifier")
        guard var idp = pool.identityProvider(identifier: identifier) else {
            throw CognitoError(.resourceNotFound, "Identity provider with identifier \(identifier) does not exist.")
        }
        idp["UserPoolId"] = .string(pool.id)
        return ["IdentityProvider": .object(idp)]
    }

    /// A SAML provider's `ProviderDetails` name its metadata, which must be readable: a `MetadataFile` is
    /// parsed now, as Cognito parses it; a `MetadataURL` must be HTTPS, or one of Fauxth's fake SAML
    /// identity providers (read at sign-in, since nothing else can be fetched offline).
    private static func checkSAMLDetails(_ call: CognitoCall) throws {
        var type = call.body.fields["ProviderType"]?.stringValue
        if type == nil, call.action == .updateIdentityProvider, let poolId = call.body.fields["UserPoolId"]?.stringValue,
           let name = call.body.fields["ProviderName"]?.stringValue {
            type = (try? call.pools.pool(poolId))?.identityProviders.first { $0["ProviderName"]?.stringValue == name }?["ProviderType"]?.stringValue
        }
        guard type == "SAML", let details = call.body.fields["ProviderDetails"]?.objectValue ?? (call.action == .createIdentityProvider ? [:] : nil) else {
            return
        }
        let file = details["MetadataFile"]?.stringValue, url = details["MetadataURL"]?.stringValue
        guard file != nil || url != nil else { throw CognitoError.invalid("Either MetadataFile or MetadataURL must be provided for a SAML identity provider.") }
        if let file {
            do throws(SAMLError) { _ = try SAMLMetadata.parseIdentityProvider(Array(file.utf8)) } catch {
                throw CognitoError.invalid("Invalid SAML metadata: \(error.reason)")
            }
        } else if let url, !(url.lowercased().hasPrefix("https://") || FakeSAMLMetadataURL.isFake(url)) {
            throw CognitoError.invalid("MetadataURL must be an HTTPS URL.")
        }
    }

    /// A page of the pool's resources of one kind, in key order.
    private static func list(_ call: CognitoCall, _ kind: Kind, poolId: String) throws -> JSON {
        let paging = try Paging(call, kind.paging, scope: "\(kind.list.rawValue) \(poolId)")
        let items = (try call.pools.pool(poolId).settings[kind.key]?.arrayValue ?? []).compactMap(\.objectValue)
        let (page, next) = paging.page(items) { $0[kind.id]?.stringValue ?? "" }
        return paging.answer(kind.plural, page.map { item in
            var o = item
            o["UserPoolId"] = .string(poolId)
            return .object(o)
        }, next: next)
    }

    /// CRUD over a list of objects in the pool's settings, keyed by their `id` member.
    private static func collection(_ call: CognitoCall, _ kind: Kind) throws -> JSON {
        let poolId = try call.body.required("UserPoolId")
        if call.action == kind.list { return try list(call, kind, poolId: poolId) }
        let now = JSON.double(call.emulator.clock.now.timeIntervalSince1970)
        let name = try call.body.required(kind.id)
        return try call.pools.update(poolId) { settings in
            var items = (settings[kind.key]?.arrayValue ?? []).compactMap(\.objectValue)
            let index = items.firstIndex { $0[kind.id]?.stringValue == name }
            var item: [String: JSON]
            switch call.action {
            case kind.create:
                guard index == nil else { throw kind.taken(name, poolId) }
                item = call.body.fields.filter { kind.settable.contains($0.key) }
                item["CreationDate"] = now
                item["LastModifiedDate"] = now
                items.append(item)
            case kind.describe:
                guard let index else { throw kind.notFound(name) }
                item = items[index]
            case kind.update:
                guard let index else { throw kind.notFound(name) }
                item = items[index].merging(call.body.fields.filter { kind.settable.contains($0.key) }) { $1 }
                item["LastModifiedDate"] = now
                items[index] = item
            default:
                guard let index else { throw kind.notFound(name) }
                items.remove(at: index)
                settings[kind.key] = .array(items.map(JSON.object))
                return [:]
            }
            settings[kind.key] = .array(items.map(JSON.object))
            if call.action != kind.describe { try kind.check(settings) }
            item["UserPoolId"] = .string(poolId)
            return [kind.shape: .object(item)]
        }
    }
}
