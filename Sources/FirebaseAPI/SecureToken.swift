import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `POST /securetoken.googleapis.com/v1/token`: a refresh token for a fresh ID token. Firebase's refresh
/// tokens do not rotate; they stop working when the user's tokens are revoked, the user is disabled or
/// deleted, or the project's `refresh_token_ttl` passes.
enum SecureToken {
    static func refresh(_ call: FirebaseCall) async throws -> Response {
        let body = call.body
        guard let grant = try body.string("grantType"), !grant.isEmpty else { throw FirebaseError(.missingGrantType) }
        guard grant == "refresh_token" else { throw FirebaseError(.invalidGrantType) }
        guard let token = try body.string("refreshToken"), !token.isEmpty else { throw FirebaseError(.missingRefreshToken) }
        let project = try call.projectId()
        guard let tenant = try call.emulator.tenantOfRefreshToken(token), tenant == project || tenant.hasPrefix(project + ":") else {
            throw FirebaseError(.invalidRefreshToken)
        }
        let tenantId = tenant == project ? nil : String(tenant.dropFirst(project.count + 1))
        let scope = try call.projects.scope(project: project, tenant: tenantId)
        let (user, session) = try call.emulator.continueSession(in: tenant, token: token, maxAge: scope.settings.refreshTokenTTL, origin: call.origin)
        let issued = try call.tokens(for: session, refreshToken: token, scope: scope, user: user)
        return .json(["access_token": .string(issued.idToken), "expires_in": .string(String(issued.expiresIn)), "token_type": "Bearer",
                      "refresh_token": .string(token), "id_token": .string(issued.idToken), "user_id": .string(issued.user.id),
                      "project_id": "12345"])
    }
}
