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
    /// How long a session below the level its user can reach (a verified factor not proven in it) lasts
    /// (`GOTRUE_SESSIONS_ALLOW_LOW_AAL`); nil for as long as any other session.
    public var lowAssuranceAllowance: TimeInterval?
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
                inactivityTimeout: TimeInterval? = nil, lowAssuranceAllowance: TimeInterval? = nil, singlePerUser: Bool = false,
                parentOfLiveAllowed: Bool = true, reuseRevokesSession: Bool = true, endedSessionsForgetTokens: Bool = false) {
        self.endedSessionsForgetTokens = endedSessionsForgetTokens
        self.lowAssuranceAllowance = lowAssuranceAllowance
        self.rotationEnabled = rotationEnabled
        self.reuseInterval = reuseInterval
        self.timebox = timebox
        self.inactivityTimeout = inactivityTimeout
        self.singlePerUser = singlePerUser
        self.parentOfLiveAllowed = parentOfLiveAllowed
        self.reuseRevokesSession = reuseRevokesSession
    }

    /// Whether `session` may still be refreshed at `now`, in GoTrue's order (`Session.CheckValidity`, then the newer
    /// login); `newest` is the user's latest sign-in, `reachesAAL2` whether the user has a verified factor (asked only
    /// when the low-assurance allowance has run out for an aal1 session).
    func expiry(of session: Session, newest: Date?, at now: Date, reachesAAL2: () throws -> Bool) rethrows -> AuthError? {
        if let timebox, now.timeIntervalSince(session.createdAt) > timebox { return .sessionExpired(reason: nil) }
        if let inactivityTimeout, now.timeIntervalSince(session.refreshedAt ?? session.createdAt) > inactivityTimeout {
            return .sessionExpired(reason: .inactivity)
        }
        if let end = lowAssuranceEnd(of: session), now > end, try reachesAAL2() { return .sessionExpired(reason: .lowAssurance) }
        if singlePerUser, let newest, newest > session.createdAt { return .sessionExpired(reason: .newerLogin) }
        return nil
    }

    /// When `session`'s low-assurance allowance ends, if it is an aal1 session and the policy sets one; it applies only
    /// when its user has a verified factor, which the caller knows. GoTrue also ends the session's access tokens then
    /// (`GenerateAccessToken`); nothing else, not the timebox, shortens them.
    public func lowAssuranceEnd(of session: Session) -> Date? {
        guard let lowAssuranceAllowance, session.aal == "aal1" else { return nil }
        return session.createdAt.addingTimeInterval(lowAssuranceAllowance)
    }

    /// How a refresh token of an ended session is answered. GoTrue deletes a session that ends (a
    /// logout, a new password, a second factor proven elsewhere), so its tokens are not found; a family
    /// revoked for a reused token stays, and every token of it is reuse again.
    func endedSessionError(reason: String?) -> AuthError {
        guard endedSessionsForgetTokens else { return .sessionNotFound }
        return reason == Emulator.reuseRevocation ? .refreshTokenReused : .refreshTokenNotFound
    }
}

/// What a session's last rotation left: its live token (hash and text), the token that one replaced, and the session
/// and user it answered with, as they stood at `generation` (`Database.Dependency.sessionsAsStamped`). While the store
/// stays at that generation nothing else has changed them, so the next refresh of either token is answered from here
/// (`Emulator.refresh`). The rotations made from here are journaled, which moves no generation; every other change to
/// an account or a session (its end, a ban, a step-up's new token, a sign-in's stamp) moves it, and so does a restore.
struct KeptRotation: Sendable {
    var live: String
    var liveText: String
    var parent: String
    var session: Session
    var user: User
    var generation: UInt64
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
    /// The plain cases, a live token or its parent presented again, answer from what the session's last rotation kept
    /// (`rotateKept`) while nothing it read has changed since, without taking the store.
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
        if let kept = try rotateKept(in: tenant, presented: presented, next: next, nextHash: nextHash, policy: policy,
                                     origin: origin, admit: admit, at: now) {
            return try answer(kept)
        }
        var refused: (User, String)?
        // The rotation, the user and session the answer describes, and the event, under one lock; and the kept
        // rotations' too, so no refresh answers from them while this one decides (`rotateKept`).
        let outcome: Result<Refreshed, AuthError> = try keptRotations.withLock { kept in try db.transaction { c in
            // What the rotation kept is kept at: the store as this reads it, its own writes to come.
            let readAt = db.generation(of: .sessionsAsStamped)
            // The session as read before its refreshed_at was stamped, and the token the caller gets: its live token,
            // whose hash is `live`, and the token that one replaced, kept for the next refresh.
            func refreshed(_ session: Session, _ token: String, _ user: User, live: String, parent: String) throws -> Result<Refreshed, AuthError> {
                var session = session
                session.refreshedAt = now
                // In the rotation's transaction: the store is taken anyway, and a journaled event would be made in a
                // transaction of its own when the next refresh takes it.
                let event = try? insertEvent(c, .tokenRefreshed, tenant: tenant, userId: user.id, origin: origin,
                                             detail: ["session_id": .string(session.id)])
                let rotation = KeptRotation(live: live, liveText: token, parent: parent, session: session, user: user,
                                            generation: db.generation(readAt, of: .sessionsAsStamped, onRelease: c))
                Self.keep(rotation, in: &kept)
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
            let expired = try policy.expiry(of: session, newest: newest, at: now) {
                try Factors.of(c, tenant: tenant, userId: session.userId).contains(where: \.verified)
            }
            if let expired { return .failure(expired) }
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
                if isParentOfLive, let liveHash = live?.hash,
                   let text = kept[liveHash].flatMap({ $0.live == liveHash && $0.session.tenant == tenant ? $0.liveText : nil }) {
                    try Sessions.stampRefresh(c, tenant: tenant, id: sessionId, at: now)
                    return try refreshed(session, text, user, live: liveHash, parent: parent)
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
            return try refreshed(session, next, user, live: nextHash, parent: parent)
        } }
        if let (user, reason) = refused { recordRefusal(user, reason: reason, stage: .refresh, origin: origin) }
        switch outcome {
        case .failure(let error):
            if error == .refreshTokenReused { record(.sessionRevoked, tenant: tenant, origin: origin, detail: ["reason": "refresh_token_reused"]) }
            throw error
        case .success(let refreshed):
            if let event = refreshed.event { announce(event) }
            return try answer(refreshed)
        }
    }

    /// A rotation's answer: the user, the session and its factors.
    private func answer(_ refreshed: Refreshed) throws -> (user: User, issued: IssuedSession) {
        // Kept until an account table changes (`factors(in:userId:)`), which a rotation does not do.
        let factors = try factors(in: refreshed.session.tenant, userId: refreshed.user.id)
        return (refreshed.user, IssuedSession(session: refreshed.session, refreshToken: refreshed.token, user: refreshed.user,
                                              factors: factors))
    }

    /// The refresh answered from the session's last rotation (`KeptRotation`), with its writes journaled: a token that
    /// is the session's live one rotates, its parent is answered with the live token (a lost answer's retry), while
    /// nothing the rotation read has changed (its generation). Nil for anything else (an unknown token, any refusal, a
    /// reuse, the single-session rule), which the store's path answers as it always did.
    ///
    /// Under the kept rotations' lock, which the store's path holds while it decides: no two refreshes of one session
    /// decide at once, and a write queued here is in the journal before the store's path reads. Another change to the
    /// session (its end, a step-up's new token) may be made while this decides; the refresh came first then, and its
    /// journaled write keeps that order: a token rotated here after its session ended is stored as ended too.
    private func rotateKept(in tenant: String, presented: String, next: String, nextHash: String, policy: RefreshPolicy,
                            origin: RequestOrigin, admit: (Session) throws -> Void, at now: Date) throws -> Refreshed? {
        // The single-session rule reads the user's newest sign-in, which a journaled sign-in writes.
        guard !policy.singlePerUser else { return nil }
        var queued = 0
        let refreshed = try keptRotations.withLock { kept -> Refreshed? in
            guard var rotation = kept[presented], rotation.generation == db.generation(of: .sessionsAsStamped),
                  rotation.session.tenant == tenant else { return nil }
            let rotates = rotation.live == presented
            guard rotates || (policy.parentOfLiveAllowed && rotation.parent == presented) else { return nil }
            try admit(rotation.session)
            // A refusal is answered, and recorded, by the store's path, which also reads the factors that decide the
            // low-assurance allowance's end (taken as reached here).
            guard policy.expiry(of: rotation.session, newest: nil, at: now, reachesAAL2: { true }) == nil,
                  signInRefusal(rotation.user, at: now) == nil else {
                return nil
            }
            let sessionId = rotation.session.id
            let event = newEvent(.tokenRefreshed, tenant: tenant, userId: rotation.user.id, origin: origin,
                                 detail: ["session_id": .string(sessionId)])
            rotation.session.refreshedAt = now
            if rotates {
                queued = queueJournal(event) { c in
                    // Not live any more only when its session ended since (every token with it): so does the new one.
                    let wasLive = try Sessions.revokeLiveToken(c, tenant: tenant, hash: presented, at: now)
                    try Sessions.insertToken(c, tenant: tenant, hash: nextHash, sessionId: sessionId, parentHash: presented, at: now,
                                             revokedAt: wasLive ? nil : now)
                    _ = try Sessions.stampRefresh(c, tenant: tenant, id: sessionId, at: now)
                    return true
                }
                kept[rotation.parent] = nil
                rotation.live = nextHash
                rotation.liveText = next
                rotation.parent = presented
            } else {
                queued = queueJournal(event) { c in try Sessions.stampRefresh(c, tenant: tenant, id: sessionId, at: now) }
            }
            Self.keep(rotation, in: &kept)
            return Refreshed(user: rotation.user, session: rotation.session, token: rotation.liveText, event: nil)
        }
        if queued > 0 { db.scheduleJournal(afterQueuing: queued) }
        return refreshed
    }

    /// Keeps `rotation` under its live token's hash and its parent's.
    private static func keep(_ rotation: KeptRotation, in kept: inout [String: KeptRotation]) {
        // Enough for every session a test suite or a load refreshes; past it they start over (the next refresh of each
        // takes the store's path, and a lost answer's retry rotates the live token in turn, as GoTrue does without it).
        if kept.count >= 20_000 { kept.removeAll(keepingCapacity: true) }
        kept[rotation.live] = rotation
        kept[rotation.parent] = rotation
    }

    /// What a successful rotation read back in its transaction, or answered from what the last one kept.
    private struct Refreshed {
        var user: User
        var session: Session
        var token: String
        /// The event to announce; nil when journaled (announced once the journal is made).
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
