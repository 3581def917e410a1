import Foundation

/// Changes to an account; nil leaves a field as it is.
public struct UserChanges: Sendable {
    public var email: String?
    public var phone: String?
    /// A new plaintext password, hashed before it is stored.
    public var password: String?
    public var emailVerified: Bool?
    public var phoneVerified: Bool?
    /// Shallow-merged into the user metadata; a `null` value removes the key (GoTrue's rule).
    public var userMetadata: [String: JSON]?
    /// Shallow-merged into the app metadata, the same way.
    public var appMetadata: [String: JSON]?
    /// `appMetadata` replaces the app metadata whole, `null` values kept (Firebase's custom claims, which are set as
    /// one object and may hold a null claim).
    public var replacesAppMetadata = false
    /// `.some(nil)` lifts a ban.
    public var bannedUntil: Date??
    public var disabled: Bool?
    /// `false` turns an anonymous user into a permanent one.
    public var isAnonymous: Bool?
    /// A verified address another user has verified moves to this one rather than failing (`NewUser.takeVerifiedAddresses`).
    public var takeVerifiedAddresses = false
    /// A new password also retires the user's unused codes (but MFA challenges') and forgets when their messages went
    /// out, in the same transaction: GoTrue's `UpdatePassword`, so a link sent before the change stops working.
    public var passwordRetiresCodes = false
    /// Whether a new address gets its own `email`/`phone` identity (`NewUser.addressIdentities`); GoTrue gives none to an
    /// address a user takes from an identity it links.
    public var addsAddressIdentities = true
    /// A new role (GoTrue's admin `role`).
    public var role: String?
    /// A new address keeps the confirmation the old one had (GoTrue's admin `SetEmail`/`SetPhone`, which write the
    /// address alone); `emailVerified`/`phoneVerified` still set it when given.
    public var keepsConfirmation = false

    public init(email: String? = nil, phone: String? = nil, password: String? = nil, emailVerified: Bool? = nil,
                phoneVerified: Bool? = nil, userMetadata: [String: JSON]? = nil, appMetadata: [String: JSON]? = nil,
                bannedUntil: Date?? = nil, disabled: Bool? = nil, isAnonymous: Bool? = nil) {
        self.email = email; self.phone = phone; self.password = password; self.emailVerified = emailVerified
        self.phoneVerified = phoneVerified; self.userMetadata = userMetadata; self.appMetadata = appMetadata
        self.bannedUntil = bannedUntil; self.disabled = disabled; self.isAnonymous = isAnonymous
    }
}

extension Emulator {
    /// Applies `changes` in one transaction; `emailTaken`/`phoneTaken` on a clash.
    @discardableResult
    public func updateUser(in tenant: String, id: String, _ changes: UserChanges, origin: RequestOrigin = RequestOrigin()) throws -> User {
        let user = try requireUser(in: tenant, id: id)
        let now = clock.now
        let email = try changes.email.map { try Identifiers.email($0) } ?? user.email
        let phone = try changes.phone.map { try Identifiers.phone($0) } ?? user.phone
        var emailVerifiedAt = email?.lowercased() == user.email?.lowercased() || changes.keepsConfirmation ? user.emailVerifiedAt : nil
        if let verified = changes.emailVerified { emailVerifiedAt = verified ? (emailVerifiedAt ?? now) : nil }
        var phoneVerifiedAt = phone == user.phone || changes.keepsConfirmation ? user.phoneVerifiedAt : nil
        if let verified = changes.phoneVerified { phoneVerifiedAt = verified ? (phoneVerifiedAt ?? now) : nil }
        let secret = changes.password.map { passwordHasher.hash($0, generator: generator) }
        let derived = try derivedCredentials(in: tenant, userId: id, username: user.username, password: changes.password)
        let unique = try uniqueAddresses(in: tenant)
        do {
            try db.transaction { c in
                // Only an address the user takes, or now has verified, is checked: one kept as it was needs no claim.
                let emailClaim = email.flatMap { email in
                    email.lowercased() == user.email?.lowercased() && (user.emailVerifiedAt != nil || emailVerifiedAt == nil)
                        ? nil : AddressClaim(email, verified: emailVerifiedAt != nil)
                }
                let phoneClaim = phone.flatMap { phone in
                    phone == user.phone && (user.phoneVerifiedAt != nil || phoneVerifiedAt == nil)
                        ? nil : AddressClaim(phone, verified: phoneVerifiedAt != nil)
                }
                try claimAddresses(c, tenant: tenant, userId: id, email: emailClaim, phone: phoneClaim, unique: unique,
                                   takingVerified: changes.takeVerifiedAddresses)
                try Accounts.set(c, tenant: tenant, id: id, [
                    .email: SQLValue(email), .phone: SQLValue(phone), .emailVerifiedAt: SQLValue(emailVerifiedAt),
                    .phoneVerifiedAt: SQLValue(phoneVerifiedAt),
                    .userMetadata: SQLValue(JSON.object(Self.merge(user.userMetadata, changes.userMetadata))),
                    .appMetadata: SQLValue(JSON.object(changes.replacesAppMetadata ? changes.appMetadata ?? user.appMetadata
                                                                                   : Self.merge(user.appMetadata, changes.appMetadata))),
                    .bannedUntil: SQLValue(changes.bannedUntil ?? user.bannedUntil), .disabled: SQLValue(changes.disabled ?? user.disabled),
                    .isAnonymous: SQLValue(changes.isAnonymous ?? user.isAnonymous), .updatedAt: SQLValue(now),
                ])
                if let role = changes.role { try Accounts.set(c, tenant: tenant, id: id, [.role: .text(role)]) }
                if let secret { try Self.storePassword(c, tenant: tenant, userId: id, hash: secret, derived: derived, at: now) }
                if secret != nil, changes.passwordRetiresCodes {
                    try Codes.retire(c, tenant: tenant, userId: id, except: .mfa, at: now)
                    try Accounts.clearSentStamps(c, tenant: tenant, id: id)
                }
                try syncIdentities(c, tenant: tenant, userId: id, email: email, phone: phone, inserting: changes.addsAddressIdentities, at: now)
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw Self.clash(error)
        }
        record(.userUpdated, tenant: tenant, userId: id, origin: origin,
               detail: ["password_changed": .bool(secret != nil), "email": JSON(email), "phone": JSON(phone)])
        // A new password lifts a password lockout at once, as Firebase's lockout message promises.
        if secret != nil { clearLockouts(in: tenant, kinds: [.password], userId: id, reason: "password_changed") }
        return try requireUser(in: tenant, id: id)
    }

    /// Records (or, with nil, clears) an email change waiting for confirmation; `emailTaken` if another
    /// user has the address and the tenant keeps emails unique whether verified or not (a pending address is not).
    public func setPendingEmail(in tenant: String, userId: String, _ email: String?) throws {
        if let email, try uniqueAddresses(in: tenant).always.contains(.email),
           try users(in: tenant, having: .email(email)).contains(where: { $0.id != userId }) { throw AuthError.emailTaken }
        try setPending(.pendingEmail, email, in: tenant, userId: userId)
    }

    /// Records (or clears) a phone change waiting for its code; `phoneTaken` if another user has it and the
    /// tenant keeps phones unique.
    public func setPendingPhone(in tenant: String, userId: String, _ phone: String?) throws {
        if let phone, try uniqueAddresses(in: tenant).always.contains(.sms),
           try users(in: tenant, having: .phone(phone)).contains(where: { $0.id != userId }) { throw AuthError.phoneTaken }
        try setPending(.pendingPhone, phone, in: tenant, userId: userId)
    }

    private func setPending(_ column: Accounts.Column, _ value: String?, in tenant: String, userId: String) throws {
        try db.withConnection { c in _ = try Accounts.set(c, tenant: tenant, id: userId, [column: SQLValue(value), .updatedAt: SQLValue(clock.now)]) }
    }

    /// Keeps the `email`/`phone` identities in step with the user's addresses.
    private func syncIdentities(_ c: borrowing Connection, tenant: String, userId: String, email: String?, phone: String?, inserting: Bool,
                                at now: Date) throws {
        for (provider, value) in [("email", email), ("phone", phone)] {
            if let value {
                if try Identities.setEmail(c, tenant: tenant, userId: userId, provider: provider, email, at: now) == 0, inserting {
                    try insertIdentity(c, tenant: tenant, userId: userId, provider: provider, subject: userId, email: email,
                                       data: ["sub": .string(userId), provider: .string(value)], at: now)
                }
            } else {
                try Identities.delete(c, tenant: tenant, userId: userId, provider: provider)
            }
        }
    }

    /// GoTrue's metadata update: a shallow merge where `null` deletes the key.
    static func merge(_ base: [String: JSON], _ changes: [String: JSON]?) -> [String: JSON] {
        guard let changes else { return base }
        var merged = base
        for (key, value) in changes {
            // Not `merged[key] = value.isNull ? nil : value`: JSON is nil-literal-expressible, so that
            // `nil` would become `.null` instead of a removal.
            if value.isNull { merged.removeValue(forKey: key) } else { merged[key] = value }
        }
        return merged
    }
}
