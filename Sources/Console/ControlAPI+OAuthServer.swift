import AuthCore
import Foundation
import Hummingbird

extension ControlAPI {
    /// `/tenants/{tenant}/oauth/authorizations`: a Supabase project's OAuth 2.1 authorization requests waiting
    /// for consent, and answering one as a user would on the consent page, so a test need not drive a browser.
    func addOAuthServerRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get(":tenant/oauth/authorizations") { _, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant"))
            let pending = try emulator.pendingOAuthAuthorizations(in: tenant.id)
            return ControlJSON.response(["authorizations": .array(pending.map(Self.authorizationJSON))])
        }
        group.post(":tenant/oauth/authorizations/:id") { request, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant"))
            let id = try context.parameters.decoded("id")
            let body = try await ControlRequest(request: request).body()
            let action = body["action"]?.stringValue ?? ""
            guard action == "approve" || action == "deny" else { throw ControlError.badRequest("action must be approve or deny") }
            let who = body["user"]?.stringValue ?? ""
            guard let user = try emulator.user(in: tenant.id, id: who) ?? emulator.user(in: tenant.id, .email(who)) else {
                throw ControlError(.notFound, "user_not_found", "no user \(who) in \(tenant.id): give a user id or email")
            }
            let location: String
            do {
                location = try emulator.decideOAuthAuthorization(in: tenant.id, id: id, userId: user.id, approve: action == "approve")
            } catch is OAuthAuthorizationError {
                throw ControlError(.notFound, "authorization_not_found",
                                   "no pending authorization \(id) that \(who) may answer (unknown, expired, answered, or opened by another user)")
            }
            _ = try emulator.captureIfAppLink(location, tenant: tenant.id, source: "oauth_consent", userId: user.id)
            return ControlJSON.response(["redirect_url": .string(location)])
        }
    }

    private static func authorizationJSON(_ authorization: OAuthAuthorization) -> JSON {
        ["id": .string(authorization.id), "client_id": .string(authorization.clientId), "redirect_uri": .string(authorization.redirectURI),
         "scope": .string(authorization.scope), "state": authorization.state.map(JSON.string) ?? .null,
         "user_id": authorization.userId.map(JSON.string) ?? .null,
         "created_at": .string(RFC3339.string(from: authorization.createdAt)), "expires_at": .string(RFC3339.string(from: authorization.expiresAt))]
    }
}
