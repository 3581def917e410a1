import Foundation

/// The fake identity providers' tables: the providers (`idp_providers`) and their accounts (`idp_accounts`),
/// with the clients each account consented to.
enum IdentityProviders {
    static func all(_ c: borrowing Connection) throws -> [IdentityProviderRecord] {
        try c.query("SELECT * FROM idp_providers ORDER BY created_at, id").map(IdentityProviderRecord.init(row:))
    }

    static func find(_ c: borrowing Connection, id: String) throws -> IdentityProviderRecord? {
        try c.first("SELECT * FROM idp_providers WHERE id = ?", [.text(id)]).map(IdentityProviderRecord.init(row:))
    }

    /// Inserts a provider, or replaces the one with the same id (its accounts stay).
    static func save(_ c: borrowing Connection, _ provider: IdentityProviderRecord, at now: Date) throws {
        try c.run("""
            INSERT INTO idp_providers (id, kind, name, settings, created_at) VALUES (?,?,?,?,?)
            ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name, settings = excluded.settings
            """, [.text(provider.id), .text(provider.kind), .text(provider.name), SQLValue(JSON.object(provider.settings)), SQLValue(now)])
    }

    /// A provider's accounts, oldest first.
    static func accounts(_ c: borrowing Connection, provider: String) throws -> [IdentityProviderAccount] {
        try c.query("SELECT * FROM idp_accounts WHERE provider = ? ORDER BY created_at, rowid", [.text(provider)]).map(IdentityProviderAccount.init(row:))
    }

    static func account(_ c: borrowing Connection, provider: String, sub: String) throws -> IdentityProviderAccount? {
        try c.first("SELECT * FROM idp_accounts WHERE provider = ? AND sub = ?", [.text(provider), .text(sub)]).map(IdentityProviderAccount.init(row:))
    }

    /// The oldest account whose `email` claim is `email`, in any case.
    static func account(_ c: borrowing Connection, provider: String, email: String) throws -> IdentityProviderAccount? {
        try c.first("SELECT * FROM idp_accounts WHERE provider = ? AND lower(json_extract(claims, '$.email')) = lower(?) ORDER BY created_at LIMIT 1",
                    [.text(provider), .text(email)]).map(IdentityProviderAccount.init(row:))
    }

    /// Inserts an account, or replaces the claims of the one with the same subject.
    static func saveAccount(_ c: borrowing Connection, provider: String, sub: String, claims: [String: JSON], at now: Date) throws {
        try c.run("""
            INSERT INTO idp_accounts (provider, sub, claims, created_at) VALUES (?,?,?,?)
            ON CONFLICT (provider, sub) DO UPDATE SET claims = excluded.claims
            """, [.text(provider), .text(sub), SQLValue(JSON.object(claims)), SQLValue(now)])
    }

    static func setConsentedClients(_ c: borrowing Connection, provider: String, sub: String, _ clients: [String]) throws {
        try c.run("UPDATE idp_accounts SET consented_clients = ? WHERE provider = ? AND sub = ?",
                  [SQLValue(JSON.array(clients.map(JSON.string))), .text(provider), .text(sub)])
    }
}

extension IdentityProviderRecord {
    /// A provider from an `idp_providers` row.
    init(row: Row) {
        self.init(id: row.string("id") ?? "", kind: row.string("kind") ?? "oidc", name: row.string("name") ?? "",
                  settings: row.json("settings").objectValue ?? [:])
    }
}

extension IdentityProviderAccount {
    /// An account from an `idp_accounts` row.
    init(row: Row) {
        self.init(provider: row.string("provider") ?? "", sub: row.string("sub") ?? "", claims: row.json("claims").objectValue ?? [:],
                  consentedClients: (row.json("consented_clients").arrayValue ?? []).compactMap(\.stringValue),
                  createdAt: row.date("created_at") ?? .distantPast)
    }
}
