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

    init(row: Row) {
        self.init(id: row.string("id") ?? "", kind: row.string("kind") ?? "oidc", name: row.string("name") ?? "",
                  settings: row.json("settings").objectValue ?? [:])
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

    init(row: Row) {
        provider = row.string("provider") ?? ""
        sub = row.string("sub") ?? ""
        claims = row.json("claims").objectValue ?? [:]
        consentedClients = (row.json("consented_clients").arrayValue ?? []).compactMap(\.stringValue)
        createdAt = row.date("created_at") ?? .distantPast
    }

    public var email: String? { claims["email"]?.stringValue }
}

extension Emulator {
    /// The providers declared in the seed or through the control API, by id.
    public func identityProviders() throws -> [IdentityProviderRecord] {
        try db.withConnection { try $0.query("SELECT * FROM idp_providers ORDER BY created_at, id").map(IdentityProviderRecord.init(row:)) }
    }

    public func identityProvider(_ id: String) throws -> IdentityProviderRecord? {
        try db.withConnection { try $0.first("SELECT * FROM idp_providers WHERE id = ?", [.text(id)]).map(IdentityProviderRecord.init(row:)) }
    }

    /// Declares a provider, or replaces the one with the same id (its accounts stay).
    public func saveIdentityProvider(_ provider: IdentityProviderRecord) throws {
        try db.withConnection { c in
            _ = try c.run("""
                INSERT INTO idp_providers (id, kind, name, settings, created_at) VALUES (?,?,?,?,?)
                ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name, settings = excluded.settings
                """, [.text(provider.id), .text(provider.kind), .text(provider.name), SQLValue(JSON.object(provider.settings)), SQLValue(clock.now)])
        }
    }

    /// A provider's accounts, oldest first.
    public func identityProviderAccounts(_ provider: String) throws -> [IdentityProviderAccount] {
        try db.withConnection { c in
            try c.query("SELECT * FROM idp_accounts WHERE provider = ? ORDER BY created_at, rowid", [.text(provider)]).map(IdentityProviderAccount.init(row:))
        }
    }

    /// An account by subject, or by email (case-insensitive).
    public func identityProviderAccount(_ provider: String, subOrEmail key: String) throws -> IdentityProviderAccount? {
        try db.withConnection { c in
            if let bySub = try c.first("SELECT * FROM idp_accounts WHERE provider = ? AND sub = ?", [.text(provider), .text(key)]) {
                return IdentityProviderAccount(row: bySub)
            }
            return try c.first("SELECT * FROM idp_accounts WHERE provider = ? AND lower(json_extract(claims, '$.email')) = lower(?) ORDER BY created_at LIMIT 1",
                               [.text(provider), .text(key)]).map(IdentityProviderAccount.init(row:))
        }
    }

    /// Adds an account, or replaces the claims of the one with the same subject.
    @discardableResult
    public func saveIdentityProviderAccount(_ provider: String, sub: String, claims: [String: JSON]) throws -> IdentityProviderAccount {
        try db.withConnection { c in
            _ = try c.run("""
                INSERT INTO idp_accounts (provider, sub, claims, created_at) VALUES (?,?,?,?)
                ON CONFLICT (provider, sub) DO UPDATE SET claims = excluded.claims
                """, [.text(provider), .text(sub), SQLValue(JSON.object(claims)), SQLValue(clock.now)])
        }
        guard let account = try identityProviderAccount(provider, subOrEmail: sub) else { throw AuthError.userNotFound }
        return account
    }

    /// Records that an account consented to a client; true the first time.
    public func recordIdentityProviderConsent(_ provider: String, sub: String, clientId: String) throws -> Bool {
        try db.transaction { c in
            guard let row = try c.first("SELECT * FROM idp_accounts WHERE provider = ? AND sub = ?", [.text(provider), .text(sub)]) else { return false }
            var clients = IdentityProviderAccount(row: row).consentedClients
            guard !clients.contains(clientId) else { return false }
            clients.append(clientId)
            try c.run("UPDATE idp_accounts SET consented_clients = ? WHERE provider = ? AND sub = ?",
                      [SQLValue(JSON.array(clients.map(JSON.string))), .text(provider), .text(sub)])
            return true
        }
    }
}
