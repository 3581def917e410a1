import AuthCore
import Foundation

/// A signed GoTrue access token (`tokens/service.go` `GenerateAccessToken`).
struct AccessToken {
    let jwt: String
    let expiresAt: Int
    let expiresIn: Int

    /// Claims as GoTrue sets them: `aud` a single string, `email`/`phone` always present, integer
    /// `iat`/`exp`, `amr` newest first, no `jti` or `nbf`. With the custom access token hook on, the
    /// hook's claims replace them (checked against GoTrue's minimum schema).
    init(user: User, session: Session, factors: [Factor], config: SupabaseConfig, now: Date,
         customize: ([String: JSON]) async throws -> [String: JSON]) async throws {
        let times = Times(session: session, factors: factors, config: config, now: now)
        let claims = JSONObjectBuilder.members { Self.claims(user: user, session: session, config: config, times: times, into: &$0) }
        jwt = try JWS.sign(try await customize(claims), with: config.signingKey)
        (expiresAt, expiresIn) = (times.expiresAt, times.expiresIn)
    }

    /// The token with GoTrue's own claims, signed. Not async: a sign-in without the custom access token hook makes its
    /// token without a suspension (each costs the task a trip through the event loop's queue). The claims are written
    /// as they are added, with no dictionary to build and sort (`JSONObjectWriter`).
    init(user: User, session: Session, factors: [Factor], config: SupabaseConfig, now: Date) throws {
        let times = Times(session: session, factors: factors, config: config, now: now)
        let payload = JSONObjectWriter.bytes { Self.claims(user: user, session: session, config: config, times: times, into: &$0) }
        jwt = try JWS.sign(payload: payload, with: config.signingKey)
        (expiresAt, expiresIn) = (times.expiresAt, times.expiresIn)
    }

    /// When a token is issued and when it expires: `GOTRUE_JWT_EXP` after, or sooner when the session is below the
    /// level its user can reach (`factors`) and `GOTRUE_SESSIONS_ALLOW_LOW_AAL` ends it sooner. The timebox does not
    /// shorten a token: GoTrue's `GenerateAccessToken` reads only the low-assurance allowance.
    private struct Times {
        let issuedAt: Int, expiresAt: Int
        var expiresIn: Int { expiresAt - issuedAt }

        init(session: Session, factors: [Factor], config: SupabaseConfig, now: Date) {
            issuedAt = Int(now.timeIntervalSince1970)
            let allowanceEnd = config.refreshPolicy.lowAssuranceEnd(of: session)
                .flatMap { factors.contains(where: \.verified) ? Int($0.timeIntervalSince1970) : nil } ?? Int.max
            expiresAt = min(issuedAt + config.jwtExpiry, allowanceEnd)
        }
    }

    /// GoTrue's claims, in key order (see `JSONObjectSink`).
    private static func claims<Sink: JSONObjectSink>(user: User, session: Session, config: SupabaseConfig, times: Times, into o: inout Sink) {
        // A session an OAuth client opened says so in every token it mints (GoTrue's `client_id`, `scope`).
        func oauth(_ key: String) -> JSON? { session.claims[key]?.stringValue.flatMap { $0.isEmpty ? nil : .string($0) } }
        o.member("aal", .string(session.aal))
        o.objects("amr", session.amr.sorted { $0.at > $1.at }) { m, method in
            m.member("method", .string(method.method))
            m.member("timestamp", .int(Int(method.at.timeIntervalSince1970)))
        }
        o.member("app_metadata", .object(GoTrueJSON.appMetadata(user)))
        o.member("aud", .string(config.jwtAudience))
        o.member("client_id", ifPresent: oauth("client_id"))
        o.member("email", .string(user.email ?? ""))
        o.member("exp", .int(times.expiresAt))
        o.member("iat", .int(times.issuedAt))
        o.member("is_anonymous", .bool(user.isAnonymous))
        o.member("iss", ifPresent: config.jwtIssuer.flatMap { $0.isEmpty ? nil : .string($0) })
        o.member("phone", .string(GoTrueJSON.phone(user.phone)))
        o.member("role", .string(GoTrueJSON.role(of: user)))
        o.member("scope", ifPresent: oauth("scope"))
        o.member("session_id", .string(session.id))
        o.member("sub", .string(user.id))
        o.member("user_metadata", .object(user.userMetadata))
    }
}

extension Emulator {
    /// Opens a GoTrue session (v1 refresh tokens: 12 lowercase alphanumerics) and signs its access token.
    /// A custom access token hook that fails ends the new session again: GoTrue issues the token in the
    /// transaction that creates the session, so the session never exists.
    func goTrueSession(for user: User, method: String, project: SupabaseProject, origin: RequestOrigin) async throws -> GoTrueSession {
        let issued = try startSession(for: user, method: method, origin: origin, refreshToken: Self.goTrueRefreshToken)
        do {
            return try await goTrueSessionResponse(issued, userId: user.id, project: project, method: method, origin: origin)
        } catch {
            _ = try? revokeSessions(in: project.storeTenant, userId: user.id, .only(issued.session.id), reason: "hook_failed", origin: origin)
            throw error
        }
    }

    /// The session response for a session just opened or refreshed (the user read again unless the
    /// sign-in brought it along). `method` is GoTrue's authentication method, which the custom access
    /// token hook is told.
    func goTrueSessionResponse(_ issued: IssuedSession, userId: String, project: SupabaseProject, method: String,
                               origin: RequestOrigin) async throws -> GoTrueSession {
        let user = try issued.user ?? requireUser(in: project.storeTenant, id: userId)
        let factors = try issued.factors ?? factors(in: project.storeTenant, userId: userId)
        let hooks = AuthHooks(emulator: self, project: project)
        let token = hooks.enabled(.customAccessToken)
            ? try await AccessToken(user: user, session: issued.session, factors: factors, config: project.config, now: clock.now) { claims in
                try await hooks.customizeClaims(claims, userId: user.id, method: method, origin: origin)
            }
            : try AccessToken(user: user, session: issued.session, factors: factors, config: project.config, now: clock.now)
        return GoTrueSession(token: token, refreshToken: issued.refreshToken, user: user, config: project.config, factors: factors)
    }

    /// GoTrue's v1 refresh tokens: 12 lowercase letters and digits.
    static func goTrueRefreshToken(_ generator: Generator) -> String { generator.lowerAlphanumeric(12) }
}
