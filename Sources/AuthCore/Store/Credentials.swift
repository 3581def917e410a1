import Foundation

/// The `credentials` table: a user's password hash and what a dialect derives from the password (Cognito's
/// SRP verifier), one secret per kind.
enum Credentials {
    static func secret(_ c: borrowing Connection, tenant: String, userId: String, kind: String) throws -> String? {
        try c.first("SELECT secret FROM credentials WHERE tenant = ? AND user_id = ? AND kind = ?",
                    [.text(tenant), .text(userId), .text(kind)])?.string("secret")
    }

    /// Replaces every secret of a user with `secrets`, by kind.
    static func replace(_ c: borrowing Connection, tenant: String, userId: String, with secrets: [String: String], at now: Date) throws {
        try delete(c, tenant: tenant, userId: userId)
        for (kind, secret) in secrets.sorted(by: { $0.key < $1.key }) {
            try c.run("INSERT INTO credentials (tenant, user_id, kind, secret, updated_at) VALUES (?,?,?,?,?)",
                      [.text(tenant), .text(userId), .text(kind), .text(secret), SQLValue(now)])
        }
    }

    /// Deletes every secret of a user.
    static func delete(_ c: borrowing Connection, tenant: String, userId: String) throws {
        try c.run("DELETE FROM credentials WHERE tenant = ? AND user_id = ?", [.text(tenant), .text(userId)])
    }
}
