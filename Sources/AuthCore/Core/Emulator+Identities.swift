import Foundation

extension Emulator {
    /// Removes one of a user's sign-in methods. The last one cannot go (`lastIdentity`). Removing the
    /// phone identity clears the phone; removing another one re-derives the email from what remains, as
    /// GoTrue's `UpdateUserEmailFromIdentities` does (`emailTaken` if that address belongs to someone else).
    @discardableResult
    public func unlinkIdentity(in tenant: String, userId: String, identityId: String, origin: RequestOrigin = RequestOrigin()) throws -> User {
        let user = try requireUser(in: tenant, id: userId)
        guard user.identities.count > 1 else { throw AuthError.lastIdentity }
        guard let removed = user.identities.first(where: { $0.id == identityId }) else { throw AuthError.identityNotFound }
        let remaining = user.identities.filter { $0.id != identityId }
        let now = clock.now
        do {
            try db.transaction { c in
                try c.run("DELETE FROM identities WHERE tenant = ? AND id = ?", [.text(tenant), .text(identityId)])
                if removed.provider == "phone" {
                    try c.run("UPDATE users SET phone = NULL, phone_verified_at = NULL, updated_at = ? WHERE tenant = ? AND id = ?",
                              [SQLValue(now), .text(tenant), .text(userId)])
                } else if let (email, verified) = Self.emailAfterUnlink(current: user.email, remaining: remaining) {
                    try c.run("UPDATE users SET email = ?, email_verified_at = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                              [SQLValue(email), SQLValue(verified ? (user.emailVerifiedAt ?? now) : nil), SQLValue(now), .text(tenant), .text(userId)])
                }
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw Self.clash(error)
        }
        record(.identityUnlinked, tenant: tenant, userId: userId, origin: origin,
               detail: ["identity_id": .string(identityId), "provider": .string(removed.provider)])
        return try requireUser(in: tenant, id: userId)
    }

    /// The email a user keeps once an identity is gone: the current one while a remaining identity still
    /// carries it, else the first remaining identity's. Nil when nothing changes.
    static func emailAfterUnlink(current: String?, remaining: [Identity]) -> (String?, Bool)? {
        let withEmail = remaining.filter { $0.email != nil && $0.provider != "phone" }
        if let current, withEmail.contains(where: { $0.email?.caseInsensitiveCompare(current) == .orderedSame }) { return nil }
        guard let next = withEmail.first else { return current == nil ? nil : (nil, false) }
        return (next.email, next.data["email_verified"]?.boolValue ?? (next.provider == "email"))
    }
}
