import Foundation

extension Emulator {
    /// A user's credential of `kind` (`password`, or one a dialect derives such as `srp`).
    public func credential(in tenant: String, userId: String, kind: String) throws -> String? {
        try db.withConnection { c in try credential(c, tenant: tenant, userId: userId, kind: kind) }
    }

    func credential(_ c: borrowing Connection, tenant: String, userId: String, kind: String) throws -> String? {
        try c.first("SELECT secret FROM credentials WHERE tenant = ? AND user_id = ? AND kind = ?",
                    [.text(tenant), .text(userId), .text(kind)])?.string("secret")
    }

    /// What the tenant's dialect derives from a password being set (nothing for most dialects).
    func derivedCredentials(in tenant: String, userId: String, username: String?, password: String?) throws -> [String: String] {
        guard let password, let row = try self.tenant(tenant), let derive = credentialDerivers[row.dialect] else { return [:] }
        return derive(row, userId, username, password, generator)
    }

    /// Sets the password credential and what derives from it; other derived credentials go, so none is
    /// left over from an earlier password.
    static func storePassword(_ c: borrowing Connection, tenant: String, userId: String, hash: String, derived: [String: String], at now: Date) throws {
        try c.run("DELETE FROM credentials WHERE tenant = ? AND user_id = ?", [.text(tenant), .text(userId)])
        for (kind, secret) in derived.merging(["password": hash], uniquingKeysWith: { $1 }) {
            try c.run("INSERT INTO credentials (tenant, user_id, kind, secret, updated_at) VALUES (?,?,?,?,?)",
                      [.text(tenant), .text(userId), .text(kind), .text(secret), SQLValue(now)])
        }
    }
}
