import AuthCore
import Foundation

/// A signed GoTrue access token (`tokens/service.go` `GenerateAccessToken`).
struct AccessToken {
    let jwt: String
    let expiresAt: Int
    let expiresIn: Int

    /// Claims as GoTrue sets them: `aud` a single string, `email`/`phone` always present, integer
    /// `iat`/`exp`, `amr` newest first, no `jti` or `nbf`.
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
        jwt = try JWS.sign(claims, with: config.signingKey)
    }
}

extension Emulator {
    /// Opens a GoTrue session (v1 refresh tokens: 12 lowercase alphanumerics) and signs its access token.
    func goTrueSession(for user: User, method: String, project: SupabaseProject, origin: RequestOrigin) throws -> JSON {
        let issued = try startSession(for: user, method: method, origin: origin, refreshToken: Self.goTrueRefreshToken)
        return try goTrueSessionResponse(issued, userId: user.id, project: project)
    }

    /// The session response for a session just opened or refreshed (the user read again unless the
    /// sign-in brought it along).
    func goTrueSessionResponse(_ issued: IssuedSession, userId: String, project: SupabaseProject) throws -> JSON {
        let user = try issued.user ?? requireUser(in: project.storeTenant, id: userId)
        let token = try AccessToken(user: user, session: issued.session, config: project.config, now: clock.now)
        return GoTrueJSON.session(token, refreshToken: issued.refreshToken, user: user, config: project.config,
                                  factors: try issued.factors ?? factors(in: project.storeTenant, userId: userId))
    }

    /// GoTrue's v1 refresh tokens: 12 lowercase letters and digits.
    static func goTrueRefreshToken(_ generator: Generator) -> String { generator.lowerAlphanumeric(12) }
}
