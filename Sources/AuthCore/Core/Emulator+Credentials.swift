import Foundation

extension Emulator {
    /// A user's credential of `kind` (`password`, or one a dialect derives such as `srp`).
    public func credential(in tenant: String, userId: String, kind: String) throws -> String? {
        try db.withConnection { c in try credential(c, tenant: tenant, userId: userId, kind: kind) }
    }

    func credential(_ c: borrowing Connection, tenant: String, userId: String, kind: String) throws -> String? {
        try Credentials.secret(c, tenant: tenant, userId: userId, kind: kind)
    }

    /// Takes a user's password away, with what derives from it: signing in with a password fails from then on, as for
    /// any wrong one, until a new one is set (Cognito's `AdminDisableProviderForUser` for a native user).
    public func removePassword(in tenant: String, userId: String, origin: RequestOrigin = RequestOrigin()) throws {
        let now = clock.now
        try db.transaction { c in
            try Credentials.delete(c, tenant: tenant, userId: userId)
            try Accounts.set(c, tenant: tenant, id: userId, [.updatedAt: SQLValue(now)])
        }
        record(.userUpdated, tenant: tenant, userId: userId, origin: origin, detail: ["password": "removed"])
    }

    /// What the tenant's dialect derives from a password being set (nothing for most dialects).
    func derivedCredentials(in tenant: String, userId: String, username: String?, password: String?) throws -> [String: String] {
        guard let password, let row = try self.tenant(tenant), let derive = credentialDerivers[row.dialect] else { return [:] }
        return derive(row, userId, username, password, generator)
    }

    /// Sets the password credential and what derives from it; other derived credentials go, so none is
    /// left over from an earlier password.
    static func storePassword(_ c: borrowing Connection, tenant: String, userId: String, hash: String, derived: [String: String], at now: Date) throws {
        try Credentials.replace(c, tenant: tenant, userId: userId, with: derived.merging(["password": hash], uniquingKeysWith: { $1 }), at: now)
    }
}
