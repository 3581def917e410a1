import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Fauxth's consent page (`web/supabase-oauth-consent.html`): where `/oauth/authorize` sends the browser
/// when the project names no `GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH` of its own. The user signs in with
/// email and password and approves or denies in one form; the decision goes through the same core rules
/// as GoTrue's consent API, and the browser is sent on to the client.
enum OAuthServerConsentPage {
    /// Under `/auth/v1`, in Fauxth's own `_emu` namespace, so it can never shadow a GoTrue route.
    static let path = "_emu/oauth/consent"

    /// What each scope lets the client see, in the user's words.
    static let scopeDescriptions = ["openid": "Confirm who you are", "profile": "See your name and profile picture",
                                    "email": "See your email address", "phone": "See your phone number",
                                    "offline_access": "Stay signed in when you are not using it"]

    static func show(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        return try render(call, project: project, id: call.request.queryFields["authorization_id"] ?? "", email: "", alert: nil)
    }

    static func submit(_ call: Call) throws -> Response {
        let project = try OAuthServer.project(call)
        let form = FormBody.decode(String(buffer: try call.received.raw()))
        let id = form["authorization_id"] ?? "", email = (form["email"] ?? "").trimmingSpaces()
        let user: User
        do {
            user = try call.emulator.authenticate(in: project.storeTenant, PasswordSignIn(identifier: .email(email), password: form["password"] ?? "",
                                                                                          requireVerified: true), origin: call.origin)
        } catch let error as AuthError {
            return try render(call, project: project, id: id, email: email, alert: SupabaseError(error).message, status: .badRequest)
        }
        let location: String
        do {
            location = try call.emulator.decideOAuthAuthorization(in: project.storeTenant, id: id, userId: user.id, approve: form["action"] == "approve")
        } catch is OAuthAuthorizationError {
            return try render(call, project: project, id: id, email: email, alert: nil, status: .notFound)
        }
        _ = try call.emulator.captureIfAppLink(location, tenant: project.storeTenant, source: "oauth_consent", userId: user.id)
        return Response(status: .seeOther, headers: [.location: location])
    }

    /// The form for a pending, unexpired request; otherwise a page saying it cannot be answered.
    private static func render(_ call: Call, project: SupabaseProject, id: String, email: String, alert: String?,
                               status: HTTPResponse.Status = .ok) throws -> Response {
        guard let template = call.page?("supabase-oauth-consent.html") else {
            throw SupabaseError(status: .notFound, code: .notFound, message: "Not Found")
        }
        let now = call.emulator.clock.now
        guard let authorization = try call.emulator.oauthAuthorization(in: project.storeTenant, id: id), authorization.status == .pending,
              authorization.expiresAt >= now, let client = try call.emulator.oauthClient(in: project.storeTenant, id: authorization.clientId) else {
            let html = HTMLPage.fill(template, values: ["class": "error", "heading": "This request cannot be answered",
                                                        "message": "The authorization request is unknown, expired or already answered."],
                                     sections: ["consent": false])
            return HTMLPage.response(html, status: status == .ok ? .notFound : status)
        }
        let scopes = authorization.scopes.map { scope in
            "<li><code>\(HTMLPage.escape(scope))</code> · \(HTMLPage.escape(scopeDescriptions[scope] ?? scope))</li>"
        }.joined(separator: "\n      ")
        let html = HTMLPage.fill(template, values: [
            "class": "consent", "heading": "Authorize \(client.name ?? "an application")",
            "message": "Sign in to decide whether this application may use your account.", "client": client.name ?? client.id,
            "client_uri": client.uri ?? "", "redirect_uri": authorization.redirectURI, "authorization_id": authorization.id,
            "email": email, "alert": alert ?? "", "action": call.request.uri.path,
        ], markup: ["scopes": scopes], sections: ["consent": true, "alert": alert != nil])
        return HTMLPage.response(html, status: status, formsMayRedirect: true)
    }
}
