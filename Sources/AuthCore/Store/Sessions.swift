import Foundation

/// The sessions repository: sessions and their refresh tokens (live, rotated, and the hashes the sweep keeps of
/// spent ones). The rules (rotation, reuse detection, grace periods, expiry) stay in `Emulator+Refresh.swift` and
/// `Emulator+Sessions.swift`, which call these under the store's lock; only token hashes are stored here.
enum Sessions {
    /// A refresh token as stored.
    struct RefreshToken {
        var hash: String
        var sessionId: String
        /// The token this one replaced; nil for a session's first and for one reissued after a step-up.
        var parentHash: String?
        var revokedAt: Date?
    }

    /// A session with why it ended, when it did.
    struct Found {
        var session: Session
        var revokedReason: String?
    }

    // MARK: Sessions

    /// Opens a session.
    static func insert(_ c: borrowing Connection, _ session: Session) throws {
        try c.run("""
            INSERT INTO sessions (tenant, id, user_id, aal, amr, user_agent, ip, created_at, claims) VALUES (?,?,?,?,?,?,?,?,?)
            """, [.text(session.tenant), .text(session.id), .text(session.userId), .text(session.aal),
                  SQLValue(JSON.array(session.amr.map(\.json))), SQLValue(session.userAgent), SQLValue(session.ip),
                  SQLValue(session.createdAt), SQLValue(JSON.object(session.claims))])
    }

    /// A session by id, revoked or not.
    static func find(_ c: borrowing Connection, tenant: String, id: String) throws -> Found? {
        try c.first("SELECT * FROM sessions WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
            .map { Found(session: Session(row: $0), revokedReason: $0.string("revoked_reason")) }
    }

    /// A user's sessions, newest first (revoked ones included, marked).
    static func of(_ c: borrowing Connection, tenant: String, userId: String) throws -> [Session] {
        try c.query("SELECT * FROM sessions WHERE tenant = ? AND user_id = ? ORDER BY created_at DESC, id", [.text(tenant), .text(userId)])
            .map(Session.init(row:))
    }

    /// A tenant's live sessions across users, newest first, at most `limit`.
    static func live(_ c: borrowing Connection, tenant: String, limit: Int) throws -> [Session] {
        try c.query("SELECT * FROM sessions WHERE tenant = ? AND revoked_at IS NULL ORDER BY created_at DESC, id LIMIT ?",
                    [.text(tenant), .int(Int64(clamping: max(0, limit)))]).map(Session.init(row:))
    }

    /// The users of a tenant with a live session.
    static func usersWithLiveSessions(_ c: borrowing Connection, tenant: String) throws -> [String] {
        try c.query("SELECT DISTINCT user_id FROM sessions WHERE tenant = ? AND revoked_at IS NULL", [.text(tenant)]).compactMap { $0.string("user_id") }
    }

    /// When the user's newest session began.
    static func newestStart(_ c: borrowing Connection, tenant: String, userId: String) throws -> Date? {
        try c.first("SELECT MAX(created_at) AS newest FROM sessions WHERE tenant = ? AND user_id = ?", [.text(tenant), .text(userId)])?.date("newest")
    }

    /// When each of `userIds` last made or refreshed a session: one query.
    static func lastActivity(_ c: borrowing Connection, tenant: String, userIds: [String]) throws -> [String: Date] {
        let ids = JSON.array(userIds.map { JSON($0) }).serialized()
        let rows = try c.query("""
            SELECT user_id, MAX(COALESCE(refreshed_at, created_at)) AS at FROM sessions
            WHERE tenant = ? AND user_id IN (SELECT value FROM json_each(?)) GROUP BY user_id
            """, [.text(tenant), .text(ids)])
        return Dictionary(rows.compactMap { row in row.string("user_id").flatMap { id in row.date("at").map { (id, $0) } } }) { a, _ in a }
    }

    /// Which of a user's live sessions a revocation ends.
    static func liveIDs(_ c: borrowing Connection, tenant: String, userId: String, _ scope: Emulator.RevocationScope) throws -> [String] {
        let (condition, extra): (String, [SQLValue]) = switch scope {
        case .all: ("", [])
        case .only(let id): (" AND id = ?", [.text(id)])
        case .allExcept(let id): (" AND id <> ?", [.text(id)])
        case .belowAAL2Except(let id): (" AND aal <> 'aal2' AND id <> ?", [.text(id)])
        case .startedBefore(let instant): (" AND created_at < ?", [SQLValue(instant)])
        }
        return try c.query("SELECT id FROM sessions WHERE tenant = ? AND user_id = ? AND revoked_at IS NULL\(condition)",
                           [.text(tenant), .text(userId)] + extra).compactMap { $0.string("id") }
    }

    /// The ids of a user's live sessions that an OAuth client holds (the `client_id` of the claims it was issued
    /// with).
    static func liveIDs(_ c: borrowing Connection, tenant: String, userId: String, client clientId: String) throws -> [String] {
        try c.query("""
            SELECT id FROM sessions WHERE tenant = ? AND user_id = ? AND revoked_at IS NULL AND json_extract(claims, '$.client_id') = ?
            """, [.text(tenant), .text(userId), .text(clientId)]).compactMap { $0.string("id") }
    }

    /// Stamps a refresh; answers whether the session was there.
    @discardableResult
    static func stampRefresh(_ c: borrowing Connection, tenant: String, id: String, at now: Date) throws -> Bool {
        try c.run("UPDATE sessions SET refreshed_at = ? WHERE tenant = ? AND id = ?", [SQLValue(now), .text(tenant), .text(id)]) > 0
    }

    /// Sets a session's assurance level and authentication methods (raised by a second factor, or lowered when one goes).
    static func setAssurance(_ c: borrowing Connection, tenant: String, id: String, aal: String, amr: [AuthenticationMethod]) throws {
        try c.run("UPDATE sessions SET aal = ?, amr = ? WHERE tenant = ? AND id = ?",
                  [.text(aal), SQLValue(JSON.array(amr.map(\.json))), .text(tenant), .text(id)])
    }

    /// Ends a session and every refresh token of it.
    static func revoke(_ c: borrowing Connection, tenant: String, id: String, reason: String, at now: Date) throws {
        try c.run("UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(now), .text(reason), .text(tenant), .text(id)])
        try revokeTokens(c, tenant: tenant, sessionId: id, at: now)
    }

    // MARK: Refresh tokens

    /// Issues a refresh token (by its hash) to a session.
    static func insertToken(_ c: borrowing Connection, tenant: String, hash: String, sessionId: String, parentHash: String?, at now: Date,
                            revokedAt: Date? = nil) throws {
        try c.run("INSERT INTO refresh_tokens (tenant, token_hash, session_id, parent_hash, created_at, revoked_at) VALUES (?,?,?,?,?,?)",
                  [.text(tenant), .text(hash), .text(sessionId), SQLValue(parentHash), SQLValue(now), SQLValue(revokedAt)])
    }

    /// The session of a spent token the sweep removed, from the hash it kept.
    static func sessionOfSpentToken(_ c: borrowing Connection, tenant: String, hash: String) throws -> String? {
        try c.first("SELECT session_id FROM spent_refresh_tokens WHERE tenant = ? AND token_hash = ?", [.text(tenant), .text(hash)])?
            .string("session_id")
    }

    /// Retires one token.
    static func revokeToken(_ c: borrowing Connection, tenant: String, hash: String, at now: Date) throws {
        try c.run("UPDATE refresh_tokens SET revoked_at = ? WHERE tenant = ? AND token_hash = ?", [SQLValue(now), .text(tenant), .text(hash)])
    }

    /// Retires one token if it is live; answers whether it was.
    static func revokeLiveToken(_ c: borrowing Connection, tenant: String, hash: String, at now: Date) throws -> Bool {
        try c.run("UPDATE refresh_tokens SET revoked_at = ? WHERE tenant = ? AND token_hash = ? AND revoked_at IS NULL",
                  [SQLValue(now), .text(tenant), .text(hash)]) > 0
    }

    /// Retires every token of a session not yet retired (those already retired keep their time).
    static func revokeTokens(_ c: borrowing Connection, tenant: String, sessionId: String, at now: Date) throws {
        try c.run("UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE tenant = ? AND session_id = ?",
                  [SQLValue(now), .text(tenant), .text(sessionId)])
    }

    /// Retires the live tokens of a user about to be deleted (its sessions go with it). They stay, hashed,
    /// so a refresh with one is still told apart from a made-up token ("user not found", as Firebase's
    /// securetoken answers), and go with the other revoked tokens in the sweep, `--keep-spent` later:
    /// kept for ever, every deleted account's tokens grew the store without bound (the soak, issue 30).
    static func retireTokens(_ c: borrowing Connection, tenant: String, userId: String, at now: Date) throws {
        try c.run("""
            UPDATE refresh_tokens SET revoked_at = ? WHERE tenant = ? AND revoked_at IS NULL
                AND session_id IN (SELECT id FROM sessions WHERE tenant = ? AND user_id = ?)
            """, [SQLValue(now), .text(tenant), .text(tenant), .text(userId)])
    }

    /// A token with its session, for tokens that do not rotate (Firebase's): whether the token was retired, and
    /// the session, nil when it is gone (it went with its user).
    static func tokenWithSession(_ c: borrowing Connection, tenant: String, hash: String) throws -> (tokenRevoked: Bool, session: Session?)? {
        guard let found = try c.first("""
            SELECT refresh_tokens.revoked_at AS token_revoked, sessions.* FROM refresh_tokens
            LEFT JOIN sessions ON sessions.tenant = refresh_tokens.tenant AND sessions.id = refresh_tokens.session_id
            WHERE refresh_tokens.tenant = ? AND refresh_tokens.token_hash = ?
            """, [.text(tenant), .text(hash)]) else { return nil }
        return (found.date("token_revoked") != nil, found.string("id") != nil ? Session(row: found) : nil)
    }

    /// What a rotation reads about a presented token, in one statement: the token, its session (nil when gone), and the
    /// session's live token (nil when it has none).
    struct RotationRead {
        var token: RefreshToken
        var session: Found?
        var live: RefreshToken?
    }

    /// The token, its session and the session's live token: a rotation's three reads in one statement, under the lock.
    static func forRotation(_ c: borrowing Connection, tenant: String, hash: String) throws -> RotationRead? {
        guard let row = try c.first("""
            SELECT t.token_hash AS t_hash, t.session_id AS t_session, t.parent_hash AS t_parent, t.revoked_at AS t_revoked,
                   live.token_hash AS live_hash, live.parent_hash AS live_parent, sessions.*
            FROM refresh_tokens AS t
            LEFT JOIN sessions ON sessions.tenant = t.tenant AND sessions.id = t.session_id
            LEFT JOIN refresh_tokens AS live ON live.tenant = t.tenant AND live.session_id = t.session_id AND live.revoked_at IS NULL
            WHERE t.tenant = ? AND t.token_hash = ?
            """, [.text(tenant), .text(hash)]) else { return nil }
        let sessionId = row.string("t_session") ?? ""
        return RotationRead(
            token: RefreshToken(hash: row.string("t_hash") ?? "", sessionId: sessionId, parentHash: row.string("t_parent"),
                                revokedAt: row.date("t_revoked")),
            session: row.string("id") != nil ? Found(session: Session(row: row), revokedReason: row.string("revoked_reason")) : nil,
            live: row.string("live_hash").map { RefreshToken(hash: $0, sessionId: sessionId, parentHash: row.string("live_parent"), revokedAt: nil) })
    }

    /// The session a token belongs to, revoked or not.
    static func sessionOfToken(_ c: borrowing Connection, tenant: String, hash: String) throws -> Session? {
        try c.first("""
            SELECT sessions.* FROM refresh_tokens JOIN sessions ON sessions.tenant = refresh_tokens.tenant
            AND sessions.id = refresh_tokens.session_id WHERE refresh_tokens.tenant = ? AND refresh_tokens.token_hash = ?
            """, [.text(tenant), .text(hash)]).map(Session.init(row:))
    }

    /// The tenant a token belongs to.
    static func tenantOfToken(_ c: borrowing Connection, hash: String) throws -> String? {
        try c.first("SELECT tenant FROM refresh_tokens WHERE token_hash = ?", [.text(hash)])?.string("tenant")
    }

    // MARK: The sweep

    /// Removes sessions ended before `cutoff` with their tokens, and tokens retired before it, keeping the hash of
    /// each retired token of a live session (so presenting it later is still reuse); answers how many sessions
    /// and tokens went.
    static func sweep(_ c: borrowing Connection, endedBefore cutoff: Date) throws -> (sessions: Int, tokens: Int) {
        let at = SQLValue(cutoff)
        var tokens = try c.run("""
            DELETE FROM refresh_tokens WHERE (tenant, session_id) IN (SELECT tenant, id FROM sessions WHERE revoked_at < ?)
            """, [at])
        try c.run("""
            DELETE FROM spent_refresh_tokens WHERE (tenant, session_id) IN (SELECT tenant, id FROM sessions WHERE revoked_at < ?)
            """, [at])
        try c.run("""
            INSERT OR IGNORE INTO spent_refresh_tokens (tenant, token_hash, session_id)
            SELECT tenant, token_hash, session_id FROM refresh_tokens WHERE revoked_at < ?
            """, [at])
        tokens += try c.run("DELETE FROM refresh_tokens WHERE revoked_at < ?", [at])
        let sessions = try c.run("DELETE FROM sessions WHERE revoked_at < ?", [at])
        try c.run("""
            DELETE FROM spent_refresh_tokens WHERE NOT EXISTS (SELECT 1 FROM sessions
                WHERE sessions.tenant = spent_refresh_tokens.tenant AND sessions.id = spent_refresh_tokens.session_id)
            """)
        return (sessions, tokens)
    }
}

extension Session {
    /// A session from a `sessions` row.
    init(row: Row) {
        tenant = row.string("tenant") ?? ""
        id = row.string("id") ?? ""
        userId = row.string("user_id") ?? ""
        aal = row.string("aal") ?? "aal1"
        amr = (row.json("amr").arrayValue ?? []).compactMap(AuthenticationMethod.init(json:))
        userAgent = row.string("user_agent")
        ip = row.string("ip")
        createdAt = row.date("created_at") ?? .distantPast
        refreshedAt = row.date("refreshed_at")
        revokedAt = row.date("revoked_at")
        claims = row.json("claims").objectValue ?? [:]
    }
}
