import AuthCore
import Foundation
import HTTPSupport

/// `GlobalSignOut`, `AdminUserGlobalSignOut` and `RevokeToken`. Ending a session ends its refresh token
/// and every access token minted from it (they name it as `origin_jti`).
enum SignOut {
    static func global(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        try call.emulator.revokeSessions(in: pool.id, userId: user.id, .all, reason: "global_sign_out", origin: call.origin)
        return [:]
    }

    static func adminGlobal(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        try call.emulator.revokeSessions(in: pool.id, userId: user.id, .all, reason: "admin_global_sign_out", origin: call.origin)
        return [:]
    }

    /// Revokes the session of a refresh token the client holds. A token the client does not own, or one
    /// already gone, revokes nothing and is no error (RFC 7009).
    static func revoke(_ call: CognitoCall) async throws -> JSON {
        let (pool, client) = try call.poolAndClient()
        let token = try call.body.required("Token")
        try revoke(token, pool: pool, client: client, secret: try call.body.string("ClientSecret"), emulator: call.emulator, origin: call.origin)
        return [:]
    }

    /// Shared with the hosted UI's `/oauth2/revoke`.
    static func revoke(_ token: String, pool: CognitoPool, client: CognitoClient, secret: String?, emulator: Emulator, origin: RequestOrigin) throws {
        if let expected = client.secret {
            guard let secret, constantTimeEquals(secret, expected) else {
                throw CognitoError(.unauthorized, "Unable to verify secret for client \(client.id)")
            }
        }
        guard client.tokenRevocation else { throw CognitoError(.unsupportedOperation, "Token revocation is not enabled for this client.") }
        if JWS.unverifiedClaims(token) != nil {
            throw CognitoError(.unsupportedTokenType, "Only refresh tokens can be revoked.")
        }
        guard let session = try emulator.session(in: pool.id, refreshToken: token), session.claims["client_id"]?.stringValue == client.id,
              session.revokedAt == nil else { return }
        try emulator.revokeSessions(in: pool.id, userId: session.userId, .only(session.id), reason: "token_revoked", origin: origin)
    }
}
