import Foundation

/// The accounts repository: users with their identities, read, listed and written (identities on their own in
/// `Identities`, passwords in `Credentials`). The SQL for accounts lives here and
/// the rules that decide what to read (who may sign in, which addresses must be unique) stay in the core's
/// operations, which call these under the store's lock (`Database.withConnection` or `transaction`).
///
/// A user always comes with its identities. A list reads them for the whole page in one more query, so a page
/// costs two queries whatever its size; the users' order and their filter are SQL, so SQLite stops at the page.
enum Accounts {
    /// A user row with when its password was last set.
    static let columns = """
        SELECT users.*, (SELECT updated_at FROM credentials WHERE credentials.tenant = users.tenant
            AND credentials.user_id = users.id AND kind = 'password') AS password_updated_at FROM users
        """

    /// The order of a listing.
    enum Order {
        /// Oldest first (`created_at`, then insertion order), the order of the console and of Firebase.
        case oldestFirst
        /// Newest first: GoTrue's admin list by default.
        case newestFirst
        /// By id, for lists paged by an id cursor (Cognito's and Firebase's page tokens).
        case id
        /// By id, descending (Firebase's `accounts:query` with `order` `DESC`).
        case idDescending
        /// Oldest first among the few users a lookup finds by an address: sorted after the address's index finds
        /// them. Written `+created_at`, which no index can serve, because otherwise the planner walks the whole
        /// tenant along `users_created` to skip that sort (it did: every sign-in by email scanned every user).
        case oldestFound

        var sql: String {
            switch self {
            case .oldestFound: "ORDER BY +users.created_at, users.rowid"
            case .oldestFirst: "ORDER BY users.created_at, users.rowid"
            case .newestFirst: "ORDER BY users.created_at DESC, users.rowid DESC"
            case .id: "ORDER BY users.id"
            case .idDescending: "ORDER BY users.id DESC"
            }
        }
    }

    /// Which users of a tenant (or of every tenant) a listing holds: a WHERE condition over `users` with its arguments.
    struct Selection {
        var sql: String
        var arguments: [SQLValue]

        /// The users of `tenant`; of every tenant for nil (the console's "all tenants").
        init(tenant: String?) {
            if let tenant {
                sql = "users.tenant = ?"
                arguments = [.text(tenant)]
            } else {
                sql = "1"
                arguments = []
            }
        }

        /// Narrowed by one more condition.
        func and(_ condition: String, _ more: [SQLValue]) -> Selection {
            var next = self
            next.sql += " AND (\(condition))"
            next.arguments += more
            return next
        }

        /// Those `search` finds; everyone for nil or an empty text.
        func searching(_ search: UserSearch?) -> Selection {
            guard let condition = search?.condition else { return self }
            return and(condition.sql, condition.arguments)
        }

        /// Those `filter` matches.
        func matching(_ filter: UserFilter?) -> Selection {
            guard let condition = filter?.condition else { return self }
            return and(condition.sql, condition.arguments)
        }

        /// Those after the id `cursor` (in id order).
        func after(_ cursor: String?) -> Selection {
            guard let cursor else { return self }
            return and("users.id > ?", [.text(cursor)])
        }
    }

    /// The first user `selection` holds in `order`, with identities.
    static func first(_ c: borrowing Connection, _ selection: Selection, _ order: Order = .oldestFound) throws -> User? {
        try list(c, selection, order, limit: 1).first
    }

    /// The user with `id`.
    static func user(_ c: borrowing Connection, tenant: String, id: String) throws -> User? {
        try first(c, Selection(tenant: tenant).and("users.id = ?", [.text(id)]))
    }

    /// The users an email, phone or username belongs to, oldest first (an address may be several users' in some
    /// tenants). An SSO account's email is its provider's to vouch for: nobody signs in as it by the address
    /// (GoTrue's `is_sso_user = false` in every lookup by email).
    static func having(_ identifier: Identifier, in tenant: String) -> Selection {
        let tenantOnly = Selection(tenant: tenant)
        return switch identifier {
        case .email(let e): tenantOnly.and("users.email = ? COLLATE NOCASE AND users.is_sso_user = 0", [.text(e)])
        case .phone(let p): tenantOnly.and("users.phone = ?", [.text((try? Identifiers.phone(p)) ?? p)])
        case .username(let u): tenantOnly.and("users.username = ?", [.text(u)])
        }
    }

    /// A page of the users `selection` holds, in `order`, with every one's identities: two queries.
    static func list(_ c: borrowing Connection, _ selection: Selection, _ order: Order, limit: Int, offset: Int = 0) throws -> [User] {
        let (sql, arguments) = listing(selection, order, limit: limit, offset: offset)
        return try withIdentities(c, rows: try c.query(sql, arguments))
    }

    /// The query `list` runs.
    static func listing(_ selection: Selection, _ order: Order, limit: Int, offset: Int = 0) -> (String, [SQLValue]) {
        ("\(columns) WHERE \(selection.sql) \(order.sql) LIMIT ? OFFSET ?",
         selection.arguments + [.int(Int64(clamping: max(0, limit))), .int(Int64(clamping: max(0, offset)))])
    }

    /// How many users `selection` holds.
    static func count(_ c: borrowing Connection, _ selection: Selection) throws -> Int {
        try c.first("SELECT COUNT(*) AS n FROM users WHERE \(selection.sql)", selection.arguments)?.int("n") ?? 0
    }

    /// Whether a user other than `userId` holds the address.
    /// The users other than `userId` who have `identifier`'s email or phone verified.
    static func verifiedHolders(_ c: borrowing Connection, _ identifier: Identifier, in tenant: String, otherThan userId: String) throws -> [String] {
        let verified = if case .phone = identifier { "users.phone_verified_at IS NOT NULL" } else { "users.email_verified_at IS NOT NULL" }
        let selection = having(identifier, in: tenant).and("users.id <> ? AND \(verified)", [.text(userId)])
        return try c.query("SELECT users.id FROM users WHERE \(selection.sql)", selection.arguments).compactMap { $0.string("id") }
    }

    static func isHeld(_ c: borrowing Connection, _ identifier: Identifier, in tenant: String, byOtherThan userId: String) throws -> Bool {
        let selection = having(identifier, in: tenant).and("users.id <> ?", [.text(userId)])
        return try c.first("SELECT users.id FROM users WHERE \(selection.sql) LIMIT 1", selection.arguments) != nil
    }

    /// Users from their rows, with their identities read in one query per tenant among them (one, but for a listing
    /// across tenants).
    static func withIdentities(_ c: borrowing Connection, rows: [Row]) throws -> [User] {
        guard let tenant = rows.first?.string("tenant") else { return [] }
        if rows.count == 1, let id = rows[0].string("id") {
            return [User(row: rows[0], identities: try Identities.of(c, tenant: tenant, userId: id))]
        }
        var identities: [String: [String: [Identity]]] = [:]
        for (tenant, ids) in Dictionary(grouping: rows, by: { $0.string("tenant") ?? "" }).mapValues({ $0.compactMap { $0.string("id") } }) {
            identities[tenant] = try Identities.of(c, tenant: tenant, userIds: ids)
        }
        return rows.map { row in User(row: row, identities: identities[row.string("tenant") ?? ""]?[row.string("id") ?? ""] ?? []) }
    }

    /// The columns of a user's row that operations write, by name.
    enum Column: String {
        case email, phone, username
        case emailVerifiedAt = "email_verified_at", phoneVerifiedAt = "phone_verified_at"
        case pendingEmail = "pending_email", pendingPhone = "pending_phone"
        case userMetadata = "user_metadata", appMetadata = "app_metadata"
        case disabled, bannedUntil = "banned_until", isAnonymous = "is_anonymous", isSSOUser = "is_sso_user"
        case createdAt = "created_at", updatedAt = "updated_at"
        case lastSignInAt = "last_sign_in_at", tokensValidAfter = "tokens_valid_after", invitedAt = "invited_at", deletedAt = "deleted_at", role
        case verificationSentAt = "verification_sent_at", recoverySentAt = "recovery_sent_at", emailChangeSentAt = "email_change_sent_at"
        case phoneChangeSentAt = "phone_change_sent_at", reauthenticationSentAt = "reauthentication_sent_at"

        /// The column that stamps `message`.
        init(_ message: SentMessage) { self.init(rawValue: message.rawValue)! }
    }

    /// Inserts a user's row with `values` (the rest take their defaults).
    static func insert(_ c: borrowing Connection, tenant: String, id: String, _ values: KeyValuePairs<Column, SQLValue>) throws {
        let names = values.map(\.key.rawValue).joined(separator: ", ")
        let marks = Array(repeating: "?", count: values.count + 2).joined(separator: ",")
        try c.run("INSERT INTO users (tenant, id, \(names)) VALUES (\(marks))", [.text(tenant), .text(id)] + values.map(\.value))
    }

    /// Sets columns of a user's row; answers whether there was one. The columns are named in `values`' order,
    /// so one call site always writes the same statement (and reuses its prepared form).
    @discardableResult
    static func set(_ c: borrowing Connection, tenant: String, id: String, _ values: KeyValuePairs<Column, SQLValue>) throws -> Bool {
        let assignments = values.map { "\($0.key.rawValue) = ?" }.joined(separator: ", ")
        return try c.run("UPDATE users SET \(assignments) WHERE tenant = ? AND id = ?", values.map(\.value) + [.text(tenant), .text(id)]) == 1
    }

    /// Clears every `SentMessage` stamp of a user, whatever kinds there are.
    static func clearSentStamps(_ c: borrowing Connection, tenant: String, id: String) throws {
        try c.run("UPDATE users SET \(clearedStamps) WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
    }

    private static let clearedStamps = SentMessage.allCases.map { "\($0.rawValue) = NULL" }.joined(separator: ", ")

    /// Stamps a sign-in on the user; false when there is no such user. Its identities keep the stamp they were made with:
    /// GoTrue sets an identity's `last_sign_in_at` when it makes it and never after (`models.NewIdentity`; the OAuth
    /// sign-in writes back the value it read), and no other vendor shows one.
    static func stampSignIn(_ c: borrowing Connection, tenant: String, userId: String, at now: Date) throws -> Bool {
        // The text written out rather than built by `set`: every sign-in's journal runs it.
        try c.run("UPDATE users SET last_sign_in_at = ? WHERE tenant = ? AND id = ?", [SQLValue(now), .text(tenant), .text(userId)]) == 1
    }

    /// Deletes a user and everything attached to it; answers whether there was one.
    static func delete(_ c: borrowing Connection, tenant: String, id: String) throws -> Bool {
        for table in ownedTables {
            try c.run("DELETE FROM \(table) WHERE tenant = ? AND user_id = ?", [.text(tenant), .text(id)])
        }
        return try c.run("DELETE FROM users WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)]) > 0
    }

    /// Deletes what a soft-deleted user can sign in with: its password, codes, second factors (with their challenges),
    /// passkeys and sessions (their refresh tokens retired, as a deleted user's are). Identities, consents and devices stay.
    static func deleteCredentials(_ c: borrowing Connection, tenant: String, id: String, at now: Date) throws {
        try Sessions.retireTokens(c, tenant: tenant, userId: id, at: now)
        try c.run("UPDATE codes SET used_at = ? WHERE tenant = ? AND user_id = ? AND used_at IS NULL", [SQLValue(now), .text(tenant), .text(id)])
        try c.run("DELETE FROM challenges WHERE tenant = ? AND factor_id IN (SELECT id FROM factors WHERE tenant = ? AND user_id = ?)",
                  [.text(tenant), .text(tenant), .text(id)])
        for table in ["credentials", "factors", "sessions", "webauthn_credentials", "webauthn_challenges"] {
            try c.run("DELETE FROM \(table) WHERE tenant = ? AND user_id = ?", [.text(tenant), .text(id)])
        }
    }

    /// Deletes every user of a tenant with what they own, and their refresh tokens, MFA challenges and flow
    /// states outright (the Firebase emulator's "clear accounts", which starts the project's accounts over);
    /// codes and the outbox stay, as it leaves them.
    static func deleteAll(_ c: borrowing Connection, tenant: String) throws {
        for table in ownedTables + ["challenges", "refresh_tokens", "spent_refresh_tokens", "flow_states", "users"] {
            try c.run("DELETE FROM \(table) WHERE tenant = ?", [.text(tenant)])
        }
    }

    /// The tables whose rows belong to a user and go with it. Codes, events, deep links and the short-lived
    /// rows of flows in progress (authorization codes, OAuth authorizations) stay, named by user id, until the
    /// sweep or the history limits take them. Refresh tokens go with their sessions' users at the sweep
    /// (`Sessions.retireTokens`).
    static let ownedTables = ["identities", "credentials", "factors", "sessions", "devices", "webauthn_credentials", "webauthn_challenges",
                              "oauth_consents"]
}

extension User {
    /// A user from an `Accounts.columns` row.
    init(row: Row, identities: [Identity]) {
        self.init(
            tenant: row.string("tenant") ?? "", id: row.string("id") ?? "", email: row.string("email"),
            phone: row.string("phone"), username: row.string("username"),
            emailVerifiedAt: row.date("email_verified_at"), phoneVerifiedAt: row.date("phone_verified_at"),
            disabled: row.bool("disabled"), bannedUntil: row.date("banned_until"), isAnonymous: row.bool("is_anonymous"),
            userMetadata: row.json("user_metadata").objectValue ?? [:], appMetadata: row.json("app_metadata").objectValue ?? [:],
            sentAt: SentMessage.allCases.reduce(into: [:]) { stamps, message in stamps[message] = row.date(message.rawValue) },
            createdAt: row.date("created_at") ?? .distantPast,
            updatedAt: row.date("updated_at") ?? .distantPast, lastSignInAt: row.date("last_sign_in_at"), identities: identities)
        pendingEmail = row.string("pending_email")
        pendingPhone = row.string("pending_phone")
        tokensValidAfter = row.date("tokens_valid_after")
        passwordUpdatedAt = row.date("password_updated_at")
        invitedAt = row.date("invited_at")
        isSSOUser = row.bool("is_sso_user")
        deletedAt = row.date("deleted_at")
        role = row.string("role")
    }
}
