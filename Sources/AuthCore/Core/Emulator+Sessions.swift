import Crypto
import Foundation

extension Emulator {
    /// Opens a session for `user` and issues its first refresh token; stamps the sign-in.
    ///
    /// - Parameter refreshToken: makes the plaintext token in the vendor's format; only its SHA-256
    ///   is stored.
    public func startSession(for user: User, aal: String = "aal1", method: String, origin: RequestOrigin = RequestOrigin(),
                             claims: [String: JSON] = [:], refreshToken: (Generator) -> String) throws -> IssuedSession {
        let now = clock.now
        let id = newID()
        let token = refreshToken(generator)
        let method = AuthenticationMethod(method: method, at: now)
        // Built from what is written rather than read back: a sign-in under load is a handful of statements.
        let session = Session(tenant: user.tenant, id: id, userId: user.id, aal: aal, amr: [method], userAgent: origin.userAgent,
                              ip: origin.ip, createdAt: now, claims: claims)
        let tenant = user.tenant, userId = user.id, tokenHash = Self.tokenHash(token)
        let factors = try self.factors(in: tenant, userId: userId)
        let signedIn = newEvent(.signInSucceeded, tenant: tenant, userId: userId, origin: origin,
                                detail: ["method": .string(method.method), "session_id": .string(id)])
        // Journaled: the sign-in answers without waiting for the store, and every read or snapshot after it sees its
        // session as if it had been written at once. A user deleted since the caller read it keeps nothing of it (a
        // refresh with its token finds no session).
        journal(signedIn, stampsAccounts: true) { c in
            guard try Accounts.stampSignIn(c, tenant: tenant, userId: userId, at: now) else { return false }
            try Sessions.insert(c, session)
            try Sessions.insertToken(c, tenant: tenant, hash: tokenHash, sessionId: id, parentHash: nil, at: now)
            return true
        }
        var stamped = user
        stamped.lastSignInAt = now
        return IssuedSession(session: session, refreshToken: token, user: stamped, factors: factors)
    }

    /// A user's sessions, newest first (revoked ones included, marked).
    public func sessions(in tenant: String, userId: String) throws -> [Session] {
        try db.withConnection { c in try Sessions.of(c, tenant: tenant, userId: userId) }
    }

    /// A tenant's live sessions across users, newest first (at most `limit`).
    public func activeSessions(in tenant: String, limit: Int = 500) throws -> [Session] {
        try db.withConnection { c in try Sessions.live(c, tenant: tenant, limit: limit) }
    }

    /// Ends every live session of a tenant; returns how many.
    @discardableResult
    public func revokeAllSessions(in tenant: String, reason: String, origin: RequestOrigin = RequestOrigin()) throws -> Int {
        let users = try db.withConnection { c in try Sessions.usersWithLiveSessions(c, tenant: tenant) }
        return try users.reduce(0) { $0 + (try revokeSessions(in: tenant, userId: $1, .all, reason: reason, origin: origin)) }
    }

    /// The `revoked_reason` of a session whose family a reused refresh token revoked.
    static let reuseRevocation = "refresh_token_reused"

    /// How refresh tokens are stored: hex SHA-256, so a snapshot never holds a usable token.
    static func tokenHash(_ token: String) -> String { SHA256.hash(data: Array(token.utf8)).hex }
}
