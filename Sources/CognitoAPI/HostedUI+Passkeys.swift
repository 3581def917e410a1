import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Passkeys in the hosted UI, as Cognito's managed login offers them in a pool that allows `WEB_AUTHN`:
/// "Sign in with passkey" on the sign-in page (the username, then the browser's `navigator.credentials.get`
/// over that user's passkeys: `USER_AUTH`'s `WEB_AUTHN` factor, checked by the core), and `/passkeys/add`
/// (`client_id`, `redirect_uri`), where a browser signed in to the hosted UI registers a passkey and goes
/// back to the app. The page's script turns the options into the browser's call and its answer into the
/// `PublicKeyCredential` JSON the API takes.
extension HostedUI {
    func passkeySignIn(_ username: String, _ a: Authorization, flow: SignInFlow, csrf: CSRF, origin: RequestOrigin) async throws -> Response {
        guard !username.isEmpty else {
            return page(.login, a, csrf: csrf, username: "", alert: "Enter your \(content(.login, a, csrf: "").usernameLabel.lowercased()) to sign in with a passkey.")
        }
        // A client that hides whether a user exists answers an unknown one as one without a passkey.
        guard let user = try flow.user(named: username), flow.availableFirstFactors(user).contains("WEB_AUTHN") else {
            return page(.login, a, csrf: csrf, username: username, alert: "There is no passkey for this account. Sign in with your password, then add one.")
        }
        return try await finish(try flow.startWebAuthn(user), a, flow: flow, csrf: csrf, origin: origin)
    }

    /// `GET /passkeys/add`: the registration page for the browser's signed-in user.
    func addPasskeyPage(_ call: HostedUICall) throws -> Response {
        let (a, user) = try passkeyAddition(call.request.queryFields, request: call.request)
        let csrf = CSRF(call.request, generator: emulator.generator)
        var content = self.content(.passkey, a, csrf: csrf.token)
        content.heading = "Add a passkey"
        content.message = "Save a passkey for \(CognitoUsers.username(user, pool: a.pool)) to sign in without a password next time."
        content.passkeyCeremony = "create"
        content.passkeyAction = "/passkeys/add"
        content.submitLabel = "Add passkey"
        do {
            content.passkeyOptions = try WebAuthnCredentials.beginRegistration(user, pool: a.pool, emulator: emulator).serialized()
        } catch let error as CognitoError {
            return pages.error(error.message)
        }
        return page(content, csrf: csrf)
    }

    /// `POST /passkeys/add`: the browser's answer, kept as the user's passkey; then back to the app.
    func addPasskey(_ call: HostedUICall) throws -> Response {
        let form = try call.form()
        let (a, user) = try passkeyAddition(form, request: call.request)
        guard CSRF(call.request, generator: emulator.generator).matches(form["_csrf"]) else {
            return pages.error("This page expired. Open it again from the app.", status: .forbidden)
        }
        guard let credential = try? JSON.parse(text: form["credential"] ?? ""), credential.objectValue != nil else {
            return pages.error("The browser sent no passkey.")
        }
        do {
            try WebAuthnCredentials.finishRegistration(user, pool: a.pool, credential: credential, emulator: emulator, origin: call.origin)
        } catch let error as CognitoError {
            return pages.error("The passkey was not saved: \(error.message)")
        } catch let error as AuthError {
            return pages.error("The passkey was not saved: \(CognitoError(core: error).message)")
        }
        return Response(status: .found, headers: [.location: a.redirectURI, .cacheControl: "no-store"])
    }

    /// The app asking (its client and callback URL, checked as `/oauth2/authorize` checks them) and the user
    /// the browser is signed in as; a page saying what is missing otherwise.
    private func passkeyAddition(_ fields: [String: String], request: Request) throws -> (Authorization, User) {
        var parameters = fields
        parameters["response_type"] = parameters["response_type"] ?? "code"
        let a: Authorization
        do {
            a = try validate(AuthorizeRequest(parameters), baseURL: request.baseURL)
        } catch let refusal as Refusal {
            throw Answered(response: render(refusal))
        }
        guard let (user, _) = try signedIn(request, pool: a.pool) else {
            throw Answered(response: pages.error("Sign in first: a passkey is added for the account this browser is signed in to.", status: .unauthorized))
        }
        return (a, user)
    }
}
