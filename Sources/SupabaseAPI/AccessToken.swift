import AuthCore
import Foundation

/// A signed GoTrue access token (`tokens/service.go` `GenerateAccessToken`).
struct AccessToken {
    private(set) var jwt: String
    let expiresAt: Int
    let expiresIn: Int
    /// GoTrue's claims, before a hook's changes.
    private let claims: [String: JSON]

    /// Claims as GoTrue sets them: `aud` a single string, `email`/`phone` always present, integer
    /// `iat`/`exp`, `amr` newest first, no `jti` or `nbf`. With the custom access token hook on, the
    /// hook's claims replace them (checked against GoTrue's minimum schema).
    init(user: User, session: Session, config: SupabaseConfig, now: Date,
         customize: ([String: JSON]) async throws -> [String: JSON]) async throws {
        var token = try AccessToken(user: user, session: session, config: config, now: now)
        token.jwt = try JWS.sign(try await customize(token.claims), with: config.signingKey)
        self = token
    }

    /// The token with GoTrue's own claims, signed. Not async: a sign-in without the custom access token hook makes its
    /// token without a suspension (each costs the task a trip through the event loop's queue).
    init(user: User, session: Session, config: SupabaseConfig, now: Date) throws {
        let iat = Int(now.timeIntervalSince1970)
        // GoTrue never lets an access token outlive its session's timebox.
        let sessionEnd = config.refreshPolicy.timebox.map { Int(session.createdAt.timeIntervalSince1970 + $0) } ?? Int.max
        expiresAt = min(iat + config.jwtExpiry, sessionEnd)
        expiresIn = expiresAt - iat
        var claims: [String: JSON] = [
            "sub": .string(user.id), "aud": .string(config.jwtAudience), "exp": .int(expiresAt), "iat": .int(iat),
            "email": .string(user.email ?? ""), "phone": .string(GoTrueJSON.phone(user.phone)),
            "app_metadata": .object(GoTrueJSON.appMetadata(user)), "user_metadata": .object(user.userMetadata),
            "role": .string(GoTrueJSON.role(of: user)), "aal": .string(session.aal),
            "amr": .array(session.amr.sorted { $0.at > $1.at }.map { ["method": .string($0.method), "timestamp": .int(Int($0.at.timeIntervalSince1970))] }),
            "session_id": .string(session.id), "is_anonymous": .bool(user.isAnonymous),
        ]
        if let issuer = config.jwtIssuer, !issuer.isEmpty { claims["iss"] = .string(issuer) }
        // A session an OAuth client opened says so in every token it mints (GoTrue's `client_id`, `scope`).
        for key in ["client_id", "scope"] {
            if let value = session.claims[key]?.stringValue, !value.isEmpty { claims[key] = .string(value) }
        }
        self.claims = claims
        jwt = try JWS.sign(claims, with: config.signingKey)
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
            try? revokeSessions(in: project.storeTenant, userId: user.id, .only(issued.session.id), reason: "hook_failed", origin: origin)
            throw error
        }
    }

    /// The session response for a session just opened or refreshed (the user read again unless the
    /// sign-in brought it along). `method` is GoTrue's authentication method, which the custom access
    /// token hook is told.
    func goTrueSessionResponse(_ issued: IssuedSession, userId: String, project: SupabaseProject, method: String,
                               origin: RequestOrigin) async throws -> GoTrueSession {
        let user = try issued.user ?? requireUser(in: project.storeTenant, id: userId)
        let hooks = AuthHooks(emulator: self, project: project)
        let token = hooks.enabled(.customAccessToken)
            ? try await AccessToken(user: user, session: issued.session, config: project.config, now: clock.now) { claims in
                try await hooks.customizeClaims(claims, userId: user.id, method: method, origin: origin)
            }
            : try AccessToken(user: user, session: issued.session, config: project.config, now: clock.now)
        return GoTrueSession(token: token, refreshToken: issued.refreshToken, user: user, config: project.config,
                             factors: try issued.factors ?? factors(in: project.storeTenant, userId: userId))
    }

    /// GoTrue's v1 refresh tokens: 12 lowercase letters and digits.
    static func goTrueRefreshToken(_ generator: Generator) -> String { generator.lowerAlphanumeric(12) }
}
