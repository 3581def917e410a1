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
        let unique = try uniqueAddresses(in: tenant)
        do {
            try db.transaction { c in
                try Identities.delete(c, tenant: tenant, id: identityId)
                if removed.provider == "phone" {
                    try Accounts.set(c, tenant: tenant, id: userId, [.phone: .null, .phoneVerifiedAt: .null, .updatedAt: SQLValue(now)])
                } else if let (email, verified) = Self.emailAfterUnlink(current: user.email, remaining: remaining) {
                    try claimAddresses(c, tenant: tenant, userId: userId, email: email.map { AddressClaim($0, verified: verified) }, phone: nil,
                                       unique: unique)
                    try Accounts.set(c, tenant: tenant, id: userId, [.email: SQLValue(email),
                                                                     .emailVerifiedAt: SQLValue(verified ? (user.emailVerifiedAt ?? now) : nil),
                                                                     .updatedAt: SQLValue(now)])
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

extension Emulator {
    /// The user linked to a provider account, if any.
    /// The oldest user one of whose provider identities carries `email` (any case): the Firebase emulator's
    /// `getUsersByEmailOrProviderEmail`, after the account's own address.
    public func user(in tenant: String, providerEmail email: String) throws -> User? {
        try db.withConnection { c in
            try Accounts.first(c, Accounts.Selection(tenant: tenant).and(
                "users.id IN (SELECT user_id FROM identities WHERE identities.tenant = users.tenant AND identities.email = ? COLLATE NOCASE)",
                [.text(email)]))
        }
    }

    public func user(in tenant: String, provider: String, subject: String) throws -> User? {
        try db.withConnection { c in
            guard let identity = try Identities.find(c, tenant: tenant, provider: provider, subject: subject) else { return nil }
            return try Accounts.user(c, tenant: tenant, id: identity.userId)
        }
    }

    /// A tenant's accounts at one provider, oldest first (the Firebase sign-in widget lists them).
    public func identities(in tenant: String, provider: String, limit: Int = 200) throws -> [Identity] {
        try db.withConnection { c in try Identities.at(c, tenant: tenant, provider: provider, limit: limit) }
    }

    /// Links a provider account to a user, or refreshes what the provider said if it is linked already;
    /// `identityTaken` when it belongs to another user.
    @discardableResult
    public func linkIdentity(in tenant: String, userId: String, _ identity: NewIdentity, origin: RequestOrigin = RequestOrigin()) throws -> User {
        let now = clock.now
        do {
            try db.transaction { c in
                if let linked = try Identities.find(c, tenant: tenant, provider: identity.provider, subject: identity.subject) {
                    guard linked.userId == userId else { throw AuthError.identityTaken }
                    try Identities.update(c, tenant: tenant, id: linked.id, email: identity.email, data: identity.data, at: now)
                } else {
                    try insertIdentity(c, tenant: tenant, userId: userId, provider: identity.provider, subject: identity.subject,
                                       email: identity.email, data: identity.data, at: now)
                }
                try Accounts.set(c, tenant: tenant, id: userId, [.updatedAt: SQLValue(now)])
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw Self.clash(error)
        }
        record(.identityLinked, tenant: tenant, userId: userId, origin: origin,
               detail: ["provider": .string(identity.provider), "subject": .string(identity.subject)])
        return try requireUser(in: tenant, id: userId)
    }

    /// Removes every identity of `provider` from a user (Firebase's `deleteProvider`); the `email`
    /// identity takes the address and password with it, the `phone` identity the number.
    @discardableResult
    public func removeIdentities(in tenant: String, userId: String, provider: String) throws -> User {
        let now = clock.now
        try db.transaction { c in
            try Identities.delete(c, tenant: tenant, userId: userId, provider: provider)
            if provider == "phone" {
                try Accounts.set(c, tenant: tenant, id: userId, [.phone: .null, .phoneVerifiedAt: .null])
            }
            if provider == "email" {
                try Credentials.delete(c, tenant: tenant, userId: userId)
                try Accounts.set(c, tenant: tenant, id: userId, [.email: .null, .emailVerifiedAt: .null])
            }
            try Accounts.set(c, tenant: tenant, id: userId, [.updatedAt: SQLValue(now)])
        }
        record(.identityUnlinked, tenant: tenant, userId: userId, detail: ["provider": .string(provider)])
        return try requireUser(in: tenant, id: userId)
    }

    /// A provider now vouches for the address of an account no one has proven: what an unproven sign-up left goes, its
    /// password and every identity `keep` does not hold, so an address someone registered first cannot be used to take
    /// the account over once its owner signs in. Firebase's signInWithIdp and GoTrue's RemoveUnconfirmedIdentities both
    /// do it; each dialect says which identities stay (Firebase keeps the email one, GoTrue only the provider's).
    @discardableResult
    public func clearUnprovenSignUp(in tenant: String, userId: String, keeping keep: (Identity) -> Bool,
                                    origin: RequestOrigin = RequestOrigin()) throws -> User {
        for identity in try requireUser(in: tenant, id: userId).identities where !keep(identity) {
            try unlinkIdentity(in: tenant, userId: userId, identityId: identity.id, origin: origin)
        }
        if try requireUser(in: tenant, id: userId).hasPassword { try removePassword(in: tenant, userId: userId, origin: origin) }
        return try requireUser(in: tenant, id: userId)
    }

    /// Revokes the tokens a user was issued before this second (Firebase's `validSince`): ID tokens issued
    /// before it stop being accepted, and the sessions begun before it end with their refresh tokens.
    ///
    /// Whole seconds, as Firebase keeps `validSince` and compares `iat` with it: a token issued in this very
    /// second stays valid, and so does the session it came from. A password changed in the second of the
    /// sign-in is answered with the very ID token the client holds, so the Firebase JS SDK keeps its refresh
    /// token (`_updateTokensIfNecessary`); that token must keep working.
    public func revokeTokens(in tenant: String, userId: String, reason: String, origin: RequestOrigin = RequestOrigin()) throws {
        _ = try requireUser(in: tenant, id: userId)
        let instant = Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down))
        try setTokensValidAfter(in: tenant, userId: userId, instant)
        try revokeSessions(in: tenant, userId: userId, .startedBefore(instant), reason: reason, origin: origin)
    }

    /// Sets `tokens_valid_after` directly (Firebase admin's `validSince`, and imports).
    public func setTokensValidAfter(in tenant: String, userId: String, _ instant: Date?) throws {
        try Self.requireRepresentable(instant, "validSince")
        try db.withConnection { c in _ = try Accounts.set(c, tenant: tenant, id: userId, [.tokensValidAfter: SQLValue(instant)]) }
    }
}

extension Emulator {
    /// Takes away a user's email, its verification and its `email` identity (Firebase's
    /// `deleteAttribute: EMAIL`); the password stays.
    public func clearEmail(in tenant: String, userId: String) throws { try clearAddress("email", in: tenant, userId: userId) }

    /// Takes away a user's phone number, its verification and its `phone` identity (Cognito's
    /// `DeleteUserAttributes` of `phone_number`).
    public func clearPhone(in tenant: String, userId: String) throws { try clearAddress("phone", in: tenant, userId: userId) }

    /// `provider` is `email` or `phone`: the identity provider, and the users column with its `_verified_at` twin.
    private func clearAddress(_ provider: String, in tenant: String, userId: String) throws {
        let now = clock.now
        try db.transaction { c in
            try Identities.delete(c, tenant: tenant, userId: userId, provider: provider)
            if provider == "email" {
                try Accounts.set(c, tenant: tenant, id: userId, [.email: .null, .emailVerifiedAt: .null, .updatedAt: SQLValue(now)])
            } else {
                try Accounts.set(c, tenant: tenant, id: userId, [.phone: .null, .phoneVerifiedAt: .null, .updatedAt: SQLValue(now)])
            }
        }
    }

    /// The tenant a code's link token or handle belongs to (Firebase's action links name no project).
    public func tenantOfCode(linkToken: String) throws -> String? {
        try db.withConnection { c in try Codes.tenantOf(c, linkToken: linkToken) }
    }

}

extension Emulator {
    /// A time a caller gives for a user to keep must fall in the years 0001-9999, as the clock's must: every vendor writes
    /// times as seconds or milliseconds in an integer or as RFC 3339, and one far outside (`validSince` of 1e300) ended
    /// the process at the next read of the user.
    static func requireRepresentable(_ instant: Date?, _ field: String) throws {
        guard let instant, !RFC3339.representable.contains(instant) else { return }
        throw AuthError.invalidInput(field: field, reason: "must fall in the years 0001-9999")
    }
}
