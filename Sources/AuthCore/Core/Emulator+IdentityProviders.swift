import Foundation

/// A fake identity provider as the core keeps it: its id (`google`, `apple`, or a name for a generic
/// OIDC provider), its kind, and settings the provider module reads (issuer, claims every token carries…).
public struct IdentityProviderRecord: Sendable, Equatable {
    public var id: String
    /// `google`, `apple` or `oidc`.
    public var kind: String
    public var name: String
    public var settings: [String: JSON]

    public init(id: String, kind: String, name: String, settings: [String: JSON] = [:]) {
        self.id = id; self.kind = kind; self.name = name; self.settings = settings
    }
}

/// An account at a fake identity provider: its subject and the claims it signs in with (`email`,
/// `name`, …), and the clients it has consented to (Apple sends the user's name on the first consent only).
public struct IdentityProviderAccount: Sendable, Equatable {
    public var provider: String
    public var sub: String
    public var claims: [String: JSON]
    public var consentedClients: [String]
    public var createdAt: Date

    public var email: String? { claims["email"]?.stringValue }
}

extension Emulator {
    /// The providers declared in the seed or through the control API, by id.
    public func identityProviders() throws -> [IdentityProviderRecord] {
        try db.withConnection { c in try IdentityProviders.all(c) }
    }

    public func identityProvider(_ id: String) throws -> IdentityProviderRecord? {
        try db.withConnection { c in try IdentityProviders.find(c, id: id) }
    }

    /// Declares a provider, or replaces the one with the same id (its accounts stay).
    public func saveIdentityProvider(_ provider: IdentityProviderRecord) throws {
        try db.withConnection { c in try IdentityProviders.save(c, provider, at: clock.now) }
    }

    /// A provider's accounts, oldest first.
    public func identityProviderAccounts(_ provider: String) throws -> [IdentityProviderAccount] {
        try db.withConnection { c in try IdentityProviders.accounts(c, provider: provider) }
    }

    /// An account by subject, or by email (case-insensitive).
    public func identityProviderAccount(_ provider: String, subOrEmail key: String) throws -> IdentityProviderAccount? {
        try db.withConnection { c in
            try IdentityProviders.account(c, provider: provider, sub: key) ?? IdentityProviders.account(c, provider: provider, email: key)
        }
    }

    /// Adds an account, or replaces the claims of the one with the same subject.
    @discardableResult
    public func saveIdentityProviderAccount(_ provider: String, sub: String, claims: [String: JSON]) throws -> IdentityProviderAccount {
        try db.withConnection { c in try IdentityProviders.saveAccount(c, provider: provider, sub: sub, claims: claims, at: clock.now) }
        guard let account = try identityProviderAccount(provider, subOrEmail: sub) else { throw AuthError.userNotFound }
        return account
    }

    /// Records that an account consented to a client; true the first time.
    public func recordIdentityProviderConsent(_ provider: String, sub: String, clientId: String) throws -> Bool {
        try db.transaction { c in
            guard var clients = try IdentityProviders.account(c, provider: provider, sub: sub)?.consentedClients else { return false }
            guard !clients.contains(clientId) else { return false }
            clients.append(clientId)
            try IdentityProviders.setConsentedClients(c, provider: provider, sub: sub, clients)
            return true
        }
    }
}
