import Foundation

/// A tenant's SAML identity provider, as GoTrue keeps one (`sso_providers` with its `saml_providers` row and
/// `sso_domains`): the IdP's metadata as it was given, the entity id read from it, and how its assertions
/// map to a user. The Supabase dialect is its only user today; Cognito keeps its SAML providers among the
/// pool's identity providers.
public struct SSOProvider: Sendable, Equatable {
    public var tenant: String
    public var id: String
    /// An id of the caller's choosing that names the provider in admin routes (`resource_<id>`).
    public var resourceId: String?
    /// nil when never set: GoTrue writes `disabled` as null until an update sets it.
    public var disabled: Bool?
    public var entityID: String
    public var metadataXML: String
    public var metadataURL: String?
    public var nameIDFormat: String?
    /// GoTrue's `attribute_mapping`: `{"keys": {"<claim>": {"name", "names", "default", "array"}}}`.
    public var attributeMapping: JSON
    /// Email domains whose users `/sso` sends to this provider; each is one provider's at most in a tenant.
    public var domains: [String]
    public var createdAt: Date
    public var updatedAt: Date

    public var isEnabled: Bool { disabled != true }

    public init(tenant: String, id: String = "", resourceId: String? = nil, disabled: Bool? = nil, entityID: String, metadataXML: String,
                metadataURL: String? = nil, nameIDFormat: String? = nil, attributeMapping: JSON = [:], domains: [String] = [],
                createdAt: Date = .distantPast, updatedAt: Date = .distantPast) {
        self.tenant = tenant; self.id = id; self.resourceId = resourceId; self.disabled = disabled; self.entityID = entityID
        self.metadataXML = metadataXML; self.metadataURL = metadataURL; self.nameIDFormat = nameIDFormat
        self.attributeMapping = attributeMapping; self.domains = domains; self.createdAt = createdAt; self.updatedAt = updatedAt
    }

}

/// Why an SSO provider cannot be written: another provider of the tenant already has its entity id or one
/// of its domains.
public enum SSOProviderConflict: Error, Sendable, Equatable {
    case entityID(String)
    case domain(String, provider: String)
}

/// An authentication request a service provider sent to a SAML identity provider and waits for the
/// answer to: the relay state names it, and it is good once.
public struct SAMLPendingRequest: Sendable, Equatable {
    public var tenant: String
    /// The relay state.
    public var id: String
    public var providerId: String
    /// The AuthnRequest's `ID`, which the answer's `InResponseTo` must carry.
    public var requestId: String
    /// What the dialect needs to finish the sign-in (where to go back to, PKCE…).
    public var data: [String: JSON]
    public var createdAt: Date
    public var expiresAt: Date
}
