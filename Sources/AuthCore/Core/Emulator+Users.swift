import Foundation

/// A user's factors and when it last made or refreshed a session, as account lists show them.
public struct AccountActivity: Sendable, Equatable {
    public var factors: [Factor]
    public var lastRefreshAt: Date?
    /// The user's passkeys (first-factor WebAuthn credentials), oldest first: Firebase's `passkeyInfo`.
    public var passkeys: [WebAuthnCredential] = []
}

/// How a user is looked up for sign-in.
public enum Identifier: Sendable, Equatable {
    case email(String)
    case phone(String)
    case username(String)
}

extension Emulator {
    /// Creates an account with its password identity; `emailTaken`/`phoneTaken` on a clash.
    @discardableResult
    public func createUser(in tenant: String, _ new: NewUser, origin: RequestOrigin = RequestOrigin(),
                           event: EventType = .userCreated) throws -> User {
        let now = clock.now
        let id = new.id ?? newID()
        try Self.requireRepresentable(new.createdAt, "createdAt")
        let email = try Identifiers.email(new.email)
        let phone = try Identifiers.phone(new.phone)
        let secret = new.passwordHash ?? new.password.map { passwordHasher.hash($0, generator: generator) }
        let derived = try derivedCredentials(in: tenant, userId: id, username: new.username, password: new.password)
        let unique = try uniqueAddresses(in: tenant)
        do {
            try db.transaction { c in
                // An SSO account may share its email with any other account (GoTrue's partial unique index).
                try claimAddresses(c, tenant: tenant, userId: id, email: new.isSSOUser ? nil : email.map { AddressClaim($0, verified: new.emailVerified) },
                                   phone: phone.map { AddressClaim($0, verified: new.phoneVerified) }, unique: unique,
                                   takingVerified: new.takeVerifiedAddresses)
                try Accounts.insert(c, tenant: tenant, id: id, [
                    .email: SQLValue(email), .phone: SQLValue(phone), .username: SQLValue(new.username),
                    .emailVerifiedAt: SQLValue(new.emailVerified && email != nil ? now : nil),
                    .phoneVerifiedAt: SQLValue(new.phoneVerified && phone != nil ? now : nil),
                    .disabled: SQLValue(new.disabled), .isAnonymous: SQLValue(new.isAnonymous),
                    .userMetadata: SQLValue(JSON.object(new.userMetadata)), .appMetadata: SQLValue(JSON.object(new.appMetadata)),
                    .createdAt: SQLValue(new.createdAt ?? now), .updatedAt: SQLValue(now), .isSSOUser: SQLValue(new.isSSOUser),
                    .role: SQLValue(new.role),
                ])
                if let secret { try Self.storePassword(c, tenant: tenant, userId: id, hash: secret, derived: derived, at: now) }
                for (provider, identifier) in [("email", email), ("phone", phone)] {
                    guard let identifier, !new.isAnonymous, new.addressIdentities else { continue }
                    var data = new.identityData
                    data["sub"] = .string(id)
                    data[provider] = .string(identifier)
                    try insertIdentity(c, tenant: tenant, userId: id, provider: provider, subject: id, email: email, data: data, at: now)
                }
                for identity in new.identities {
                    try insertIdentity(c, tenant: tenant, userId: id, provider: identity.provider, subject: identity.subject,
                                       email: identity.email, data: identity.data, at: now)
                }
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw Self.clash(error)
        }
        record(event, tenant: tenant, userId: id, origin: origin, detail: ["email": JSON(email), "phone": JSON(phone)])
        return try requireUser(in: tenant, id: id)
    }

    /// Which unique value a constraint failure was about (SQLite names the column).
    static func clash(_ error: SQLiteError) -> AuthError {
        if error.message.contains("users.username") { return .invalidInput(field: "username", reason: "is taken") }
        if error.message.contains("identities.") { return .identityTaken }
        return .invalidInput(field: "id", reason: "is taken")
    }

    /// The addresses of `tenant` that one user at most may have: its dialect's rule, else both.
    func uniqueAddresses(in tenant: String) throws -> UniqueAddresses {
        guard let row = try self.tenant(tenant), let rule = addressUniqueness[row.dialect] else { return .both }
        return rule(row)
    }

    /// An address a user takes or has verified, as `claimAddresses` checks it.
    struct AddressClaim {
        let value: String
        let verified: Bool
        init(_ value: String, verified: Bool) { self.value = value; self.verified = verified }
    }

    /// `emailTaken` or `phoneTaken` when another user of the tenant has an address that must be unique: any other
    /// holder for an `always` address, another verified holder for a verified `whenVerified` one, whose verification
    /// instead goes when `takingVerified` (Cognito's `ForceAliasCreation`: the alias moves to this user). Runs in the
    /// transaction that writes the address (the store's one connection takes one at a time), so two writers cannot
    /// both take it; nil claims are not checked.
    func claimAddresses(_ c: borrowing Connection, tenant: String, userId: String, email: AddressClaim?, phone: AddressClaim?,
                        unique: UniqueAddresses, takingVerified: Bool = false) throws {
        for (channel, claim) in [(Channel.email, email), (.sms, phone)] {
            guard let claim else { continue }
            let identifier: Identifier = channel == .email ? .email(claim.value) : .phone(claim.value)
            let taken = channel == .email ? AuthError.emailTaken : AuthError.phoneTaken
            if unique.always.contains(channel), try Accounts.isHeld(c, identifier, in: tenant, byOtherThan: userId) { throw taken }
            guard unique.whenVerified.contains(channel), claim.verified else { continue }
            let holders = try Accounts.verifiedHolders(c, identifier, in: tenant, otherThan: userId)
            if holders.isEmpty { continue }
            guard takingVerified else { throw taken }
            let column: Accounts.Column = channel == .email ? .emailVerifiedAt : .phoneVerifiedAt
            for holder in holders { _ = try Accounts.set(c, tenant: tenant, id: holder, [column: .null, .updatedAt: SQLValue(clock.now)]) }
        }
    }

    func insertIdentity(_ c: borrowing Connection, tenant: String, userId: String, provider: String, subject: String,
                                email: String?, data: [String: JSON], at now: Date) throws {
        try Identities.insert(c, tenant: tenant, id: newID(), userId: userId, provider: provider, subject: subject,
                              email: email, data: data, at: now)
    }

    /// The user with `id`, with identities.
    public func user(in tenant: String, id: String) throws -> User? {
        try db.withConnection { c in try Accounts.user(c, tenant: tenant, id: id) }
    }

    /// The user with `id`, or `userNotFound`.
    public func requireUser(in tenant: String, id: String) throws -> User {
        guard let user = try user(in: tenant, id: id) else { throw AuthError.userNotFound }
        return user
    }

    /// The user an email, phone or username belongs to (emails match case-insensitively); the oldest where
    /// the tenant lets users share an address.
    public func user(in tenant: String, _ identifier: Identifier) throws -> User? {
        try db.withConnection { c in try Accounts.first(c, Accounts.having(identifier, in: tenant)) }
    }

    /// The same, kept in memory while no account table changes: a sign-in under load finds the same user again and
    /// again. Its `last_sign_in_at`, and its identities', may be older than the rows' (the journal's sign-in stamps move
    /// no generation), so it serves the dialects that never show them (Cognito's).
    public func keptUser(in tenant: String, _ identifier: Identifier) throws -> User? {
        try userAndPasswordHash(in: tenant, identifier)?.user
    }

    /// The user who has `identifier`'s email or phone verified (other than `userId`): where the tenant keeps verified
    /// addresses to one user (`UniqueAddresses.whenVerified`), the one the address belongs to among those who share it.
    public func verifiedHolder(in tenant: String, _ identifier: Identifier, otherThan userId: String = "") throws -> User? {
        try db.withConnection { c in
            try Accounts.verifiedHolders(c, identifier, in: tenant, otherThan: userId).first.flatMap { try Accounts.user(c, tenant: tenant, id: $0) }
        }
    }

    /// Every user an email, phone or username belongs to, oldest first: several where the tenant lets
    /// users share an address.
    public func users(in tenant: String, having identifier: Identifier) throws -> [User] {
        try db.withConnection { c in try Accounts.list(c, Accounts.having(identifier, in: tenant), .oldestFound, limit: Int.max) }
    }

    /// The user an identifier belongs to and its password hash, under one lock (a password sign-in).
    func userAndPasswordHash(in tenant: String, _ identifier: Identifier) throws -> (user: User, hash: String?)? {
        let key = switch identifier {
        case .email(let email): "\(tenant)\u{0}e\(email)"
        case .phone(let phone): "\(tenant)\u{0}p\(phone)"
        case .username(let name): "\(tenant)\u{0}u\(name)"
        }
        return try signInReads.value(key, in: db) { c in
            guard let user = try Accounts.first(c, Accounts.having(identifier, in: tenant)) else { return nil }
            return (user, try credential(c, tenant: tenant, userId: user.id, kind: "password"))
        }
    }

    /// Users of a tenant, or of every tenant for nil, oldest first (or newest first, as GoTrue's admin list sorts by
    /// default), those `search` finds. Two queries, whatever the page's size (one more per further tenant on the page,
    /// across tenants).
    public func users(in tenant: String?, search: UserSearch? = nil, limit: Int = 500, offset: Int = 0, newestFirst: Bool = false) throws -> [User] {
        try db.withConnection { c in
            try Accounts.list(c, Accounts.Selection(tenant: tenant).searching(search), newestFirst ? .newestFirst : .oldestFirst,
                              limit: limit, offset: offset)
        }
    }

    /// What a page of users is sorted by (Firebase's `accounts:query` `sortBy`).
    public enum UserSort: Sendable { case id, createdAt }

    /// A page of a tenant's users sorted by id or by creation, either way.
    public func users(in tenant: String, sortedBy sort: UserSort, descending: Bool, limit: Int, offset: Int) throws -> [User] {
        let order: Accounts.Order = switch sort {
        case .id: descending ? .idDescending : .id
        case .createdAt: descending ? .newestFirst : .oldestFirst
        }
        return try db.withConnection { c in try Accounts.list(c, Accounts.Selection(tenant: tenant), order, limit: limit, offset: offset) }
    }

    /// How many users `users(in:search:)` would list without a limit: one COUNT.
    public func userCount(in tenant: String?, search: UserSearch?) throws -> Int {
        try db.withConnection { c in try Accounts.count(c, Accounts.Selection(tenant: tenant).searching(search)) }
    }

    /// Users of a tenant in id order, `limit` at a time after the id `after` (a page cursor), only those
    /// `filter` matches when given. One query for the page's users and one for their identities, whatever the
    /// tenant's size: the filter runs in SQLite, in id order along the primary key, and stops at `limit`.
    public func usersByID(in tenant: String, after: String? = nil, limit: Int, matching filter: UserFilter? = nil) throws -> [User] {
        try db.withConnection { c in
            try Accounts.list(c, Accounts.Selection(tenant: tenant).after(after).matching(filter), .id, limit: max(1, limit))
        }
    }

    /// What a list of accounts shows beside each user (Firebase's `mfaInfo`, `passkeyInfo` and `lastRefreshAt`), for
    /// a whole page in three queries rather than three per user.
    public func activity(in tenant: String, of users: [User]) throws -> [String: AccountActivity] {
        let ids = users.map(\.id)
        guard !ids.isEmpty else { return [:] }
        return try db.withConnection { c in
            let factors = try Factors.of(c, tenant: tenant, userIds: ids)
            let refreshed = try Sessions.lastActivity(c, tenant: tenant, userIds: ids)
            let passkeys = try Passkeys.passkeys(c, tenant: tenant, userIds: ids)
            return Dictionary(uniqueKeysWithValues: ids.map {
                ($0, AccountActivity(factors: factors[$0] ?? [], lastRefreshAt: refreshed[$0], passkeys: passkeys[$0] ?? []))
            })
        }
    }

    /// How many users a tenant has.
    public func userCount(in tenant: String) throws -> Int {
        try userCount(in: tenant, search: nil)
    }

    /// Deletes a user and everything attached to it.
    public func deleteUser(in tenant: String, id: String, origin: RequestOrigin = RequestOrigin()) throws {
        let now = clock.now
        let removed = try db.transaction { c in
            try Sessions.retireTokens(c, tenant: tenant, userId: id, at: now)
            return try Accounts.delete(c, tenant: tenant, id: id)
        }
        guard removed else { throw AuthError.userNotFound }
        record(.userDeleted, tenant: tenant, userId: id, origin: origin)
    }

    /// Stamps when the last message of a kind went out (GoTrue's `confirmation_sent_at`, `recovery_sent_at`…).
    public func markSent(_ message: SentMessage, in tenant: String, userId: String) throws {
        _ = try db.withConnection { c in try Accounts.set(c, tenant: tenant, id: userId, [Accounts.Column(message): SQLValue(clock.now)]) }
    }

    /// Stamps an invitation (GoTrue's `invited_at`, set each time one is sent).
    public func markInvited(in tenant: String, userId: String) throws {
        _ = try db.withConnection { c in try Accounts.set(c, tenant: tenant, id: userId, [.invitedAt: SQLValue(clock.now)]) }
    }
}
