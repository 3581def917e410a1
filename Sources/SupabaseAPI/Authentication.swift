import AuthCore
import Foundation
import Hummingbird

/// GoTrue's `requireAuthentication` (`internal/api/auth.go`): a Bearer access token signed by the
/// project, unexpired on the emulator clock, naming an existing user and a live session. A logged-out
/// session's tokens therefore fail at once, before their `exp`.
struct Authentication {
    let emulator: Emulator

    struct Caller {
        let user: User
        let session: Session
        let claims: [String: JSON]
    }

    func require(_ request: Request, project: SupabaseProject) throws -> Caller {
        let claims = try verifiedClaims(request, project: project)
        // `maybeLoadUserOrSession`: the claims in GoTrue's order, each with its own answer.
        guard let sub = claims["sub"]?.stringValue, !sub.isEmpty else {
            throw SupabaseError(status: .forbidden, code: .badJWT, message: "invalid claim: missing sub claim")
        }
        guard let userId = Validation.uuid(sub) else {
            throw SupabaseError(status: .badRequest, code: .badJWT, message: "invalid claim: sub claim must be a UUID")
        }
        guard let user = try emulator.user(in: project.storeTenant, id: userId) ?? emulator.user(in: project.storeTenant, id: sub) else {
            throw SupabaseError(status: .forbidden, code: .userNotFound, message: "User from sub claim in JWT does not exist")
        }
        guard let sessionId = claims["session_id"]?.stringValue,
              let session = try emulator.session(in: project.storeTenant, id: Validation.uuid(sessionId) ?? sessionId), session.revokedAt == nil else {
            throw SupabaseError(status: .forbidden, code: .sessionNotFound, message: "Session from session_id claim in JWT does not exist")
        }
        // A token issued before a ban stops working with it (GoTrue's `requireAuthentication`): the core's gate.
        do {
            try emulator.checkCanSignIn(user, stage: .token)
        } catch AuthError.userBanned, AuthError.userDisabled {
            throw SupabaseError(status: .forbidden, code: .userBanned, message: "User is banned")
        }
        return Caller(user: user, session: session, claims: claims)
    }

    /// GoTrue's `requireAdminCredentials`: a Bearer JWT signed by the project whose `role` is one of
    /// `GOTRUE_JWT_ADMIN_ROLES`. It needs no `sub` and no `exp` (the service_role key has neither user
    /// nor session).
    func requireAdmin(_ request: Request, project: SupabaseProject) throws {
        let claims = try verifiedClaims(request, project: project)
        guard let role = claims["role"]?.stringValue, project.config.adminRoles.contains(role) else {
            throw SupabaseError(status: .forbidden, code: .notAdmin, message: "User not allowed")
        }
    }

    /// The claims of the request's Bearer token (or of the role its API key stands for), once its signature and
    /// `exp` (if any) check out.
    private func verifiedClaims(_ request: Request, project: SupabaseProject) throws -> [String: JSON] {
        let claims: [String: JSON]
        switch Self.gatewayAuthorization(request, project: project) {
        case .role(let role):
            claims = Self.apiKeyClaims(role: role)
        case .header(let header):
            // `Bearer <token>`, the scheme in any case, the token without whitespace (GoTrue's `(?i)^bearer (\S+$)`);
            // read by hand, as a Regex match cost more than the rest of the header's handling.
            guard let header, header.utf8.count > 7, header.prefix(7).lowercased() == "bearer ",
                  case let token = header.dropFirst(7), !token.contains(where: \.isWhitespace) else {
                throw SupabaseError(status: .unauthorized, code: .noAuthorization, message: "This endpoint requires a valid Bearer token")
            }
            do {
                claims = try JWS.verify(String(token), keys: project.config.verificationKeys).claims
            } catch {
                throw badJWT("\(error)")
            }
        }
        if emulator.clock.hasPassed(expiryOf: claims) {
            throw badJWT("token has invalid claims: token is expired")
        }
        return claims
    }

    /// What GoTrue receives as `Authorization` behind the Supabase gateway (the CLI's Kong `request-transformer`):
    /// the client's own header unless it is an opaque key (`Bearer sb_…`, which supabase-js sends when it has no
    /// session); otherwise the JWT of the role the `apikey` header's key stands for; otherwise the `apikey` value
    /// itself, which is no Bearer token.
    enum GatewayAuthorization: Equatable {
        /// The anon or service_role JWT the gateway puts in.
        case role(String)
        /// The header GoTrue sees, if any.
        case header(String?)
    }

    static func gatewayAuthorization(_ request: Request, project: SupabaseProject) -> GatewayAuthorization {
        if let header = request.headers[.authorization], !header.hasPrefix("Bearer sb_") { return .header(header) }
        let apikey = request.headers[.apikey]
        if let apikey {
            // Keys are secrets: compared in constant time.
            if constantTimeEquals(apikey, project.secretKey) { return .role("service_role") }
            if constantTimeEquals(apikey, project.publishableKey) { return .role("anon") }
        }
        return .header(apikey)
    }

    /// The claims of the key JWTs the Supabase CLI mints for a role (its issuer and expiry), which the gateway
    /// sends on for an opaque key; signed by the project, so GoTrue's check of them always passes.
    static func apiKeyClaims(role: String) -> [String: JSON] {
        ["iss": "supabase-demo", "role": .string(role), "exp": 1_983_812_996]
    }

    private func badJWT(_ detail: String) -> SupabaseError {
        SupabaseError(status: .forbidden, code: .badJWT, message: "invalid JWT: unable to parse or verify signature, \(detail)")
    }
}
