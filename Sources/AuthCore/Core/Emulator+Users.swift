import Foundation

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
        let email = try Identifiers.email(new.email)
        let phone = try Identifiers.phone(new.phone)
        let secret = new.passwordHash ?? new.password.map { passwordHasher.hash($0, generator: generator) }
        let derived = try derivedCredentials(in: tenant, userId: id, username: new.username, password: new.password)
        let unique = try uniqueAddresses(in: tenant)
        do {
            try db.transaction { c in
                // An SSO account may share its email with any other account (GoTrue's partial unique index).
                try Self.claimAddresses(c, tenant: tenant, userId: id, email: new.isSSOUser ? nil : email, phone: phone, unique: unique)
                try c.run("""
                    INSERT INTO users (tenant, id, email, phone, username, email_verified_at, phone_verified_at, disabled,
                        is_anonymous, user_metadata, app_metadata, created_at, updated_at, is_sso_user) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
                    """, [.text(tenant), .text(id), SQLValue(email), SQLValue(phone), SQLValue(new.username),
                          SQLValue(new.emailVerified && email != nil ? now : nil), SQLValue(new.phoneVerified && phone != nil ? now : nil),
                          SQLValue(new.disabled), SQLValue(new.isAnonymous), SQLValue(JSON.object(new.userMetadata)),
                          SQLValue(JSON.object(new.appMetadata)), SQLValue(new.createdAt ?? now), SQLValue(now), SQLValue(new.isSSOUser)])
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
    func uniqueAddresses(in tenant: String) throws -> Set<Channel> {
        guard let row = try self.tenant(tenant), let rule = addressUniqueness[row.dialect] else { return [.email, .sms] }
        return rule(row)
    }

    /// `emailTaken` or `phoneTaken` when another user of the tenant has an address that must be unique. Runs in
    /// the transaction that writes the address (the store's one connection takes one at a time), so two writers
    /// cannot both take it; nil addresses are not checked.
    static func claimAddresses(_ c: borrowing Connection, tenant: String, userId: String, email: String?, phone: String?,
                               unique: Set<Channel>) throws {
        if unique.contains(.email), let email,
           try c.first("SELECT id FROM users WHERE tenant = ? AND email = ? COLLATE NOCASE AND is_sso_user = 0 AND id <> ? LIMIT 1",
                       [.text(tenant), .text(email), .text(userId)]) != nil {
            throw AuthError.emailTaken
        }
        if unique.contains(.sms), let phone,
           try c.first("SELECT id FROM users WHERE tenant = ? AND phone = ? AND id <> ? LIMIT 1", [.text(tenant), .text(phone), .text(userId)]) != nil {
            throw AuthError.phoneTaken
        }
    }

    func insertIdentity(_ c: borrowing Connection, tenant: String, userId: String, provider: String, subject: String,
                                email: String?, data: [String: JSON], at now: Date) throws {
        try c.run("""
            INSERT INTO identities (tenant, id, user_id, provider, subject, email, data, created_at, updated_at)
            VALUES (?,?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(newID()), .text(userId), .text(provider), .text(subject), SQLValue(email),
                  SQLValue(JSON.object(data)), SQLValue(now), SQLValue(now)])
    }

    /// The user with `id`, with identities.
    public func user(in tenant: String, id: String) throws -> User? {
        try db.withConnection { c in try loadUser(c, "tenant = ? AND id = ?", [.text(tenant), .text(id)]) }
    }

    /// The user with `id`, or `userNotFound`.
    public func requireUser(in tenant: String, id: String) throws -> User {
        guard let user = try user(in: tenant, id: id) else { throw AuthError.userNotFound }
        return user
    }

    /// The user an email, phone or username belongs to (emails match case-insensitively); the oldest where
    /// the tenant lets users share an address.
    public func user(in tenant: String, _ identifier: Identifier) throws -> User? {
        try db.withConnection { c in try loadUser(c, tenant: tenant, identifier) }
    }

    /// Every user an email, phone or username belongs to, oldest first: several where the tenant lets
    /// users share an address.
    public func users(in tenant: String, having identifier: Identifier) throws -> [User] {
        try db.withConnection { c in
            let (condition, args) = Self.condition(tenant: tenant, identifier)
            return try c.query("\(Self.userColumns) WHERE \(condition)", args).map { row in
                User(row: row, identities: try identities(c, tenant: tenant, userId: row.string("id") ?? ""))
            }
        }
    }

    /// The user an identifier belongs to and its password hash, under one lock (a password sign-in).
    func userAndPasswordHash(in tenant: String, _ identifier: Identifier) throws -> (user: User, hash: String?)? {
        try db.withConnection { c in
            guard let user = try loadUser(c, tenant: tenant, identifier) else { return nil }
            return (user, try credential(c, tenant: tenant, userId: user.id, kind: "password"))
        }
    }

    func loadUser(_ c: borrowing Connection, tenant: String, _ identifier: Identifier) throws -> User? {
        let (condition, args) = Self.condition(tenant: tenant, identifier)
        return try loadUser(c, condition, args)
    }

    /// The users an identifier names, oldest first (an address may be several users' in some tenants).
    static func condition(tenant: String, _ identifier: Identifier) -> (String, [SQLValue]) {
        switch identifier {
        // An SSO account's email is its provider's to vouch for: nobody signs in as it by the address (GoTrue's
        // `is_sso_user = false` in every lookup by email).
        case .email(let e): ("tenant = ? AND email = ? COLLATE NOCASE AND is_sso_user = 0 ORDER BY created_at, rowid", [.text(tenant), .text(e)])
        case .phone(let p): ("tenant = ? AND phone = ? ORDER BY created_at, rowid", [.text(tenant), .text((try? Identifiers.phone(p)) ?? p)])
        case .username(let u): ("tenant = ? AND username = ?", [.text(tenant), .text(u)])
        }
    }

    /// Users of a tenant, oldest first (or newest first, as GoTrue's admin list sorts by default);
    /// `query` matches email, phone, username or id (substring).
    public func users(in tenant: String, query: String? = nil, limit: Int = 500, offset: Int = 0, newestFirst: Bool = false) throws -> [User] {
        try db.withConnection { c in
            var sql = "\(Self.userColumns) WHERE tenant = ?"
            var args: [SQLValue] = [.text(tenant)]
            if let query, !query.isEmpty {
                sql += " AND (email LIKE ? OR phone LIKE ? OR username LIKE ? OR id = ?)"
                let like = "%\(query)%"
                args += [.text(like), .text(like), .text(like), .text(query)]
            }
            sql += newestFirst ? " ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?" : " ORDER BY created_at, rowid LIMIT ? OFFSET ?"
            args += [.int(Int64(max(1, min(limit, 10_000)))), .int(Int64(max(0, offset)))]
            return try c.query(sql, args).map { row in User(row: row, identities: try identities(c, tenant: tenant, userId: row.string("id") ?? "")) }
        }
    }

    /// Users of a tenant in id order, `limit` at a time after the id `after` (a page cursor), only those
    /// `filter` matches when given. One query for the page's users and one for their identities, whatever the
    /// tenant's size: the filter runs in SQLite, in id order along the primary key, and stops at `limit`.
    public func usersByID(in tenant: String, after: String? = nil, limit: Int, matching filter: UserFilter? = nil) throws -> [User] {
        var sql = "\(Self.userColumns) WHERE tenant = ? AND id > ?"
        var arguments: [SQLValue] = [.text(tenant), .text(after ?? "")]
        if let condition = filter?.condition {
            sql += " AND \(condition.sql)"
            arguments += condition.arguments
        }
        sql += " ORDER BY id LIMIT ?"
        arguments.append(.int(Int64(max(1, limit))))
        return try db.withConnection { c in try usersWithIdentities(c, tenant: tenant, rows: try c.query(sql, arguments)) }
    }

    /// Users from their rows, with every one's identities read in one query.
    private func usersWithIdentities(_ c: borrowing Connection, tenant: String, rows: [Row]) throws -> [User] {
        guard !rows.isEmpty else { return [] }
        let ids = JSON.array(rows.map { JSON($0.string("id")) }).serialized()
        let identities = Dictionary(grouping: try c.query("""
            SELECT * FROM identities WHERE tenant = ? AND user_id IN (SELECT value FROM json_each(?))
            ORDER BY created_at, rowid
            """, [.text(tenant), .text(ids)]).map(Identity.init(row:)), by: \.userId)
        return rows.map { row in User(row: row, identities: identities[row.string("id") ?? ""] ?? []) }
    }

    /// How many users a tenant has.
    public func userCount(in tenant: String) throws -> Int {
        try db.withConnection { try $0.first("SELECT COUNT(*) AS n FROM users WHERE tenant = ?", [.text(tenant)])?.int("n") ?? 0 }
    }

    /// Deletes a user and everything attached to it.
    public func deleteUser(in tenant: String, id: String, origin: RequestOrigin = RequestOrigin()) throws {
        let removed = try db.transaction { c in
            for table in ["identities", "credentials", "factors", "sessions", "devices", "webauthn_credentials", "webauthn_challenges"] {
                try c.run("DELETE FROM \(table) WHERE tenant = ? AND user_id = ?", [.text(tenant), .text(id)])
            }
            return try c.run("DELETE FROM users WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
        }
        guard removed > 0 else { throw AuthError.userNotFound }
        record(.userDeleted, tenant: tenant, userId: id, origin: origin)
    }

    /// Stamps when the last verification message went out (GoTrue's `confirmation_sent_at`).
    public func markVerificationSent(in tenant: String, userId: String) throws {
        _ = try db.withConnection { c in
            try c.run("UPDATE users SET verification_sent_at = ? WHERE tenant = ? AND id = ?", [SQLValue(clock.now), .text(tenant), .text(userId)])
        }
    }

    /// Stamps an invitation (GoTrue's `invited_at`, set each time one is sent).
    public func markInvited(in tenant: String, userId: String) throws {
        _ = try db.withConnection { c in
            try c.run("UPDATE users SET invited_at = ? WHERE tenant = ? AND id = ?", [SQLValue(clock.now), .text(tenant), .text(userId)])
        }
    }

    /// A user row with when its password was last set.
    static let userColumns = """
        SELECT users.*, (SELECT updated_at FROM credentials WHERE credentials.tenant = users.tenant
            AND credentials.user_id = users.id AND kind = 'password') AS password_updated_at FROM users
        """

    func loadUser(_ c: borrowing Connection, _ condition: String, _ args: [SQLValue]) throws -> User? {
        guard let row = try c.first("\(Self.userColumns) WHERE \(condition)", args) else { return nil }
        return User(row: row, identities: try identities(c, tenant: row.string("tenant") ?? "", userId: row.string("id") ?? ""))
    }

    private func identities(_ c: borrowing Connection, tenant: String, userId: String) throws -> [Identity] {
        try c.query("SELECT * FROM identities WHERE tenant = ? AND user_id = ? ORDER BY created_at, rowid", [.text(tenant), .text(userId)])
            .map(Identity.init(row:))
    }
}
