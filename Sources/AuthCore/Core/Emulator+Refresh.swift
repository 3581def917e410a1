import Foundation

/// A tenant's refresh-token rules, as the vendors configure them.
public struct RefreshPolicy: Sendable {
    /// Whether presenting a revoked token (outside the grace rules) revokes the whole session.
    public var rotationEnabled: Bool
    /// How long after its rotation a token may still be exchanged (GoTrue's reuse interval).
    public var reuseInterval: TimeInterval

    /// A session's absolute lifetime (GoTrue's `GOTRUE_SESSIONS_TIMEBOX`); nil for none.
    public var timebox: TimeInterval?
    /// How long a session may go unrefreshed (`GOTRUE_SESSIONS_INACTIVITY_TIMEOUT`); nil for ever.
    public var inactivityTimeout: TimeInterval?
    /// Only the user's newest session may refresh (`GOTRUE_SESSIONS_SINGLE_PER_USER`).
    public var singlePerUser: Bool
    /// The token the live one replaced still works, for a client that lost the last answer (GoTrue's
    /// rule); without it only `reuseInterval` lets a replaced token through (Cognito's grace period).
    public var parentOfLiveAllowed: Bool
    /// A replaced token presented outside the grace rules ends the whole session (GoTrue's reuse
    /// detection); without it the token is merely refused.
    public var reuseRevokesSession: Bool
    /// A refresh token of an ended session is unknown rather than refused for its session (GoTrue deletes
    /// ended sessions with their tokens).
    public var endedSessionsForgetTokens: Bool

    public init(rotationEnabled: Bool = true, reuseInterval: TimeInterval = 0, timebox: TimeInterval? = nil,
                inactivityTimeout: TimeInterval? = nil, singlePerUser: Bool = false, parentOfLiveAllowed: Bool = true,
                reuseRevokesSession: Bool = true, endedSessionsForgetTokens: Bool = false) {
        self.endedSessionsForgetTokens = endedSessionsForgetTokens
        self.rotationEnabled = rotationEnabled
        self.reuseInterval = reuseInterval
        self.timebox = timebox
        self.inactivityTimeout = inactivityTimeout
        self.singlePerUser = singlePerUser
        self.parentOfLiveAllowed = parentOfLiveAllowed
        self.reuseRevokesSession = reuseRevokesSession
    }

    /// Whether `session` may still be refreshed at `now`; `newest` is the user's latest sign-in.
    func expiry(of session: Session, newest: Date?, at now: Date) -> AuthError? {
        if let timebox, now.timeIntervalSince(session.createdAt) > timebox { return .sessionExpired(reason: nil) }
        if let inactivityTimeout, now.timeIntervalSince(session.refreshedAt ?? session.createdAt) > inactivityTimeout {
            return .sessionExpired(reason: .inactivity)
        }
        if singlePerUser, let newest, newest > session.createdAt { return .sessionExpired(reason: .newerLogin) }
        return nil
    }

    /// How a refresh token of an ended session is answered. GoTrue deletes a session that ends (a
    /// logout, a new password, a second factor proven elsewhere), so its tokens are not found; a family
    /// revoked for a reused token stays, and every token of it is reuse again.
    func endedSessionError(reason: String?) -> AuthError {
        guard endedSessionsForgetTokens else { return .sessionNotFound }
        return reason == Emulator.reuseRevocation ? .refreshTokenReused : .refreshTokenNotFound
    }
}

extension Emulator {
    /// GoTrue's answer to a spent token presented again: the whole session (the token's family) ends.
    static func revokeFamilyForReuse(_ c: borrowing Connection, tenant: String, sessionId: String, at now: Date) throws {
        try Sessions.revoke(c, tenant: tenant, id: sessionId, reason: reuseRevocation, at: now)
    }

    /// Exchanges a refresh token for a new one (rotation), in one transaction so two concurrent uses of
    /// the same token cannot both rotate it.
    ///
    /// A revoked token is still honoured when it is the parent of the session's live token (the client
    /// lost the last answer) or was rotated less than `reuseInterval` ago: the live token is then
    /// rotated in turn, so the caller ends up with the only valid token. Any other reuse revokes the
    /// session when rotation is on (`refreshTokenReused`).
    ///
    /// - Parameter admit: the dialect's say over which sessions this request may refresh (GoTrue keeps an OAuth
    ///   client's sessions to that client), asked about the session of a token that is still on record, before
    ///   anything is checked or written; what it throws is the answer. In the transaction, so the check and
    ///   the rotation take the store once.
    public func refresh(in tenant: String, token: String, policy: RefreshPolicy, origin: RequestOrigin = RequestOrigin(),
                        admit: (Session) throws -> Void = { _ in },
                        newToken: (Generator) -> String) throws -> (user: User, issued: IssuedSession) {
        let now = clock.now
        let next = newToken(generator)
        // Hashed before the store is taken: every refresh holds it, and two event loops that refresh at once wait
        // for each other there (scripts/bench).
        let presented = Self.tokenHash(token), nextHash = Self.tokenHash(next)
        var refused: (User, String)?
        // The rotation, the user and session the answer describes, and the event, under one lock.
        let outcome: Result<Refreshed, AuthError> = try db.transaction { c in
            // The session as read before its refreshed_at was stamped, and the token the caller gets.
            func refreshed(_ session: Session, _ token: String, _ user: User) throws -> Result<Refreshed, AuthError> {
                var session = session
                session.refreshedAt = now
                // In the rotation's transaction: the store is taken anyway, and a journaled event would be made in a
                // transaction of its own when the next refresh takes it.
                let event = try? insertEvent(c, .tokenRefreshed, tenant: tenant, userId: user.id, origin: origin,
                                             detail: ["session_id": .string(session.id)])
                return .success(Refreshed(user: user, session: session, token: token, event: event))
            }
            guard let read = try Sessions.forRotation(c, tenant: tenant, hash: presented) else {
                // Swept long after its rotation: still a spent token of its family, so still reuse.
                guard let sessionId = try Sessions.sessionOfSpentToken(c, tenant: tenant, hash: presented),
                      let found = try Sessions.find(c, tenant: tenant, id: sessionId) else {
                    return .failure(.refreshTokenNotFound)
                }
                if found.session.revokedAt != nil { return .failure(policy.endedSessionError(reason: found.revokedReason)) }
                guard policy.rotationEnabled else { return .failure(.refreshTokenNotFound) }
                guard policy.reuseRevokesSession else { return .failure(.sessionNotFound) }
                try Self.revokeFamilyForReuse(c, tenant: tenant, sessionId: sessionId, at: now)
                return .failure(.refreshTokenReused)
            }
            let row = read.token, sessionId = row.sessionId
            // A session that is gone went with its user (deleted), or was swept: ended either way.
            guard let found = read.session else {
                return .failure(policy.endedSessionError(reason: nil))
            }
            try admit(found.session)
            let session = found.session
            if session.revokedAt != nil { return .failure(policy.endedSessionError(reason: found.revokedReason)) }
            // Only the single-session rule reads the user's newest sign-in: a query fewer for every other refresh.
            let newest = policy.singlePerUser ? try Sessions.newestStart(c, tenant: tenant, userId: session.userId) : nil
            if let expired = policy.expiry(of: session, newest: newest, at: now) { return .failure(expired) }
            // The gate before anything is written: a refused refresh rotates nothing. The user as last read while no
            // account changed, not even by a sign-in's stamp: a client refreshes again and again.
            let user = try userReads.value("\(tenant)\u{0}\(session.userId)", on: c, of: db, keep: { $0 != nil }) { c in
                try Accounts.user(c, tenant: tenant, id: session.userId)
            }
            guard let user else {
                return .failure(.sessionNotFound)
            }
            if let (error, reason) = signInRefusal(user, at: now) {
                refused = (user, reason)
                return .failure(error)
            }
            var parent = row.hash
            if let revokedAt = row.revokedAt {
                let live = read.live
                let isParentOfLive = policy.parentOfLiveAllowed && live?.parentHash == parent
                // GoTrue answers a lost answer's retry with the live token itself, creating nothing: every
                // concurrent refresh of one token then gets the same new token. Only hashes are stored, so
                // that needs the live token's text from the last rotations, kept in memory.
                if isParentOfLive, let liveHash = live?.hash, let text = recentRefreshTokens.withLock({ $0[liveHash] }) {
                    try Sessions.stampRefresh(c, tenant: tenant, id: sessionId, at: now)
                    return try refreshed(session, text, user)
                }
                let withinInterval = now.timeIntervalSince(revokedAt) < policy.reuseInterval
                if isParentOfLive || withinInterval || !policy.rotationEnabled, let liveHash = live?.hash {
                    parent = liveHash
                } else if policy.rotationEnabled {
                    guard policy.reuseRevokesSession else { return .failure(.sessionNotFound) }
                    try Self.revokeFamilyForReuse(c, tenant: tenant, sessionId: sessionId, at: now)
                    return .failure(.refreshTokenReused)
                }
            }
            try Sessions.revokeToken(c, tenant: tenant, hash: parent, at: now)
            try Sessions.insertToken(c, tenant: tenant, hash: nextHash, sessionId: sessionId, parentHash: parent, at: now)
            try Sessions.stampRefresh(c, tenant: tenant, id: sessionId, at: now)
            recentRefreshTokens.withLock { recent in
                if recent.count >= 10_000 { recent.removeAll() }
                recent[nextHash] = next
            }
            return try refreshed(session, next, user)
        }
        if let (user, reason) = refused { recordRefusal(user, reason: reason, stage: .refresh, origin: origin) }
        switch outcome {
        case .failure(let error):
            if error == .refreshTokenReused { record(.sessionRevoked, tenant: tenant, origin: origin, detail: ["reason": "refresh_token_reused"]) }
            throw error
        case .success(let refreshed):
            if let event = refreshed.event { announce(event) }
            // Kept until an account table changes (`factors(in:userId:)`), which a rotation does not do.
            let factors = try factors(in: tenant, userId: refreshed.user.id)
            return (refreshed.user, IssuedSession(session: refreshed.session, refreshToken: refreshed.token, user: refreshed.user,
                                                  factors: factors))
        }
    }

    /// What a successful rotation read back in its transaction.
    private struct Refreshed {
        var user: User
        var session: Session
        var token: String
        var event: Event?
    }

    /// Gives a live session a new refresh token and retires its others: after a step-up (MFA) the old
    /// aal1 token must not mint aal2 sessions.
    public func reissueRefreshToken(in tenant: String, sessionId: String, newToken: (Generator) -> String) throws -> IssuedSession {
        let now = clock.now
        let token = newToken(generator)
        try db.transaction { c in
            try Sessions.revokeTokens(c, tenant: tenant, sessionId: sessionId, at: now)
            // No parent: the retired token must not count as the lost-answer parent of this one.
            try Sessions.insertToken(c, tenant: tenant, hash: Self.tokenHash(token), sessionId: sessionId, parentHash: nil, at: now)
        }
        guard let session = try session(in: tenant, id: sessionId), session.revokedAt == nil else { throw AuthError.sessionNotFound }
        return IssuedSession(session: session, refreshToken: token)
    }

    /// A session by id, revoked or not.
    public func session(in tenant: String, id: String) throws -> Session? {
        try db.withConnection { c in try Sessions.find(c, tenant: tenant, id: id)?.session }
    }

    /// Which of a user's sessions to end.
    public enum RevocationScope: Sendable {
        case all
        case only(String)
        case allExcept(String)
        /// Every session still below aal2 except the one given: GoTrue ends them once a second factor is verified.
        case belowAAL2Except(String)
        /// Every session begun before the instant (`revokeTokens`).
        case startedBefore(Date)
    }

    /// Ends sessions and their refresh tokens; returns how many sessions were ended.
    @discardableResult
    public func revokeSessions(in tenant: String, userId: String, _ scope: RevocationScope, reason: String,
                               origin: RequestOrigin = RequestOrigin()) throws -> Int {
        let now = clock.now
        let ended = try db.transaction { c in
            let ids = try Sessions.liveIDs(c, tenant: tenant, userId: userId, scope)
            for id in ids { try Sessions.revoke(c, tenant: tenant, id: id, reason: reason, at: now) }
            return ids
        }
        for id in ended {
            record(.sessionRevoked, tenant: tenant, userId: userId, origin: origin, detail: ["session_id": .string(id), "reason": .string(reason)])
        }
        return ended.count
    }
}

extension Emulator {
    /// Uses a refresh token that does not rotate (Firebase's): the same token keeps working until its
    /// session is revoked or older than `maxAge`. `refreshTokenNotFound` for an unknown token,
    /// `sessionNotFound` for a revoked one, `userNotFound`/`userDisabled` when the account is gone or off.
    /// Tokens of deleted users stay behind (hashed, retired) so that they can be told apart from made-up
    /// ones until the sweep drops them, `--keep-spent` after the deletion; then they are unknown.
    public func continueSession(in tenant: String, token: String, maxAge: TimeInterval?, origin: RequestOrigin = RequestOrigin()) throws
        -> (user: User, session: Session) {
        let now = clock.now
        let hash = Self.tokenHash(token)
        // The token, its session and its user, kept until their tables change (`ReadCache`): a client refreshes one
        // token again and again. The journal's stamps change the session's `refreshed_at`, which no rule here reads.
        // An unknown token is not kept: a journaled sign-in, which moves no generation, may issue it later.
        let kept = try refreshReads.value("\(tenant)\u{0}\(hash)", in: db, keep: { $0 != nil }) { c -> KeptRefresh? in
            guard let found = try Sessions.tokenWithSession(c, tenant: tenant, hash: hash) else { return nil }
            return KeptRefresh(tokenRevoked: found.tokenRevoked, session: found.session,
                               user: try found.session.flatMap { try Accounts.user(c, tenant: tenant, id: $0.userId) })
        }
        guard let kept else { throw AuthError.refreshTokenNotFound }
        // Sessions go only with their user: a token whose session is gone belonged to a deleted account.
        guard var session = kept.session else { throw AuthError.userNotFound }
        guard !kept.tokenRevoked, session.revokedAt == nil else { throw AuthError.sessionNotFound }
        if let maxAge, now.timeIntervalSince(session.createdAt) > maxAge { throw AuthError.sessionExpired(reason: nil) }
        guard let user = kept.user else { throw AuthError.userNotFound }
        if let (error, reason) = signInRefusal(user, at: now) {
            recordRefusal(user, reason: reason, stage: .refresh, origin: origin)
            throw error
        }
        session.refreshedAt = now
        // The stamp and the event journaled, as a sign-in's are (`startSession`); a session gone since the read (its
        // user deleted) keeps nothing of the refresh.
        let sessionId = session.id
        journal(newEvent(.tokenRefreshed, tenant: tenant, userId: user.id, origin: origin, detail: ["session_id": .string(sessionId)])) { c in
            try Sessions.stampRefresh(c, tenant: tenant, id: sessionId, at: now)
        }
        return (user, session)
    }

    /// What a refresh of a token that does not rotate reads: whether the token was retired, its session (nil when
    /// it went with its user) and the session's user.
    struct KeptRefresh: Sendable {
        var tokenRevoked: Bool
        var session: Session?
        var user: User?
    }
}

extension Emulator {
    /// The session a refresh token belongs to, revoked or not; nil for a token never issued.
    public func session(in tenant: String, refreshToken token: String) throws -> Session? {
        let hash = Self.tokenHash(token)
        return try db.withConnection { c in try Sessions.sessionOfToken(c, tenant: tenant, hash: hash) }
    }

    /// The tenant a refresh token belongs to, for protocols whose token requests name no tenant.
    public func tenantOfRefreshToken(_ token: String) throws -> String? {
        let hash = Self.tokenHash(token)
        return try tokenTenantReads.value(hash, in: db, keep: { $0 != nil }) { c in try Sessions.tenantOfToken(c, hash: hash) }
    }
}
