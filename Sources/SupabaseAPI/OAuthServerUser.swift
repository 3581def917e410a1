import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// What the signed-in user sees of the OAuth server: the OIDC userinfo, and the clients they let in
/// (`UserListOAuthGrants`, `UserRevokeOAuthGrant`, `OAuthUserInfo`).
enum OAuthServerUser {
    /// `GET /oauth/userinfo`: `sub`, and the claims the session's granted scopes allow. A session no OAuth
    /// client opened has no scopes, so it gets `sub` alone.
    static func userInfo(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        let caller = try Authentication(emulator: call.emulator).require(call.request, project: project)
        let user = caller.user
        let scopes = OAuthScopes.parse(caller.session.claims["scope"]?.stringValue ?? "")
        var info: [String: JSON] = ["sub": .string(user.id)]
        if scopes.contains("email") {
            if let email = user.email, !email.isEmpty { info["email"] = .string(email) }
            if user.emailVerifiedAt != nil { info["email_verified"] = true }
        }
        if scopes.contains("profile") { info.merge(Profile.claims(of: user, withMetadata: true)) { $1 } }
        if scopes.contains("phone") {
            let phone = GoTrueJSON.phone(user.phone)
            if !phone.isEmpty { info["phone"] = .string(phone) }
            if user.phoneVerifiedAt != nil { info["phone_verified"] = true }
        }
        return .json(.object(info))
    }

    /// `GET /user/oauth/grants`: the live consents, newest first, skipping clients deleted since.
    static func grants(_ call: Call) throws -> Response {
        let (project, user) = try signedIn(call)
        let grants = try call.emulator.oauthConsents(in: project.storeTenant, userId: user.id).compactMap { consent -> JSON? in
            guard let client = try call.emulator.oauthClient(in: project.storeTenant, id: consent.clientId) else { return nil }
            return ["client": OAuthServer.clientDetails(client), "scopes": .array(consent.scopes.map(JSON.string)),
                    "granted_at": GoTrueJSON.time(consent.grantedAt)]
        }
        return .json(.array(grants))
    }

    /// `DELETE /user/oauth/grants?client_id=…`: withdraws the consent and ends the client's sessions for the user.
    static func revoke(_ call: Call) throws -> Response {
        let (project, user) = try signedIn(call)
        let raw = call.request.queryFields["client_id"] ?? ""
        guard !raw.isEmpty else { throw SupabaseError.validation("client_id query parameter is required") }
        guard let clientId = Validation.uuid(raw) else { throw SupabaseError.validation("invalid client_id format") }
        guard try call.emulator.revokeOAuthConsent(in: project.storeTenant, userId: user.id, clientId: clientId, origin: call.origin) else {
            throw SupabaseError(status: .notFound, code: .oauthConsentNotFound, message: "No active grant found for this client")
        }
        return Response(status: .noContent)
    }

    /// `/user` routes check the token before the OAuth server's switch, as GoTrue's middleware order does.
    private static func signedIn(_ call: Call) throws -> (SupabaseProject, User) {
        let caller = try Authentication(emulator: call.emulator).require(call.request, project: try call.project())
        return (try OAuthServer.project(call), caller.user)
    }
}
