import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The hosted UI's other pages: sign-up and confirmation, password reset, and the challenge pages a
/// sign-in can lead to (a new password, an MFA code).
@Suite struct LoginPageTests {
    let query = HostedUITests.authorize()

    /// The CSRF token of a fresh page, and the cookie that goes with it.
    func freshCSRF(_ client: Client, _ page: String = "/login") async throws -> (String, [String: String]) {
        let reply = try await client.send(.get, page + "?" + formEncode(query))
        let token = try #require(reply.cookie("XSRF-TOKEN"))
        return (token, ["XSRF-TOKEN": token])
    }

    /// The value of the hidden `session` field of a challenge page.
    func session(_ page: Reply) throws -> String {
        let match = try #require(page.text.firstMatch(of: #/name="session" value="([^"]+)"/#))
        return String(match.1)
    }

    @Test func theSignUpAndConfirmPagesMakeAnAccount() async throws {
        let harness = try Harness()
        try await harness.run { client in
                        let (csrf, cookies) = try await freshCSRF(client, "/signup")
            let signedUp = try await client.form("/signup", query + [("username", "page@example.com"), ("password", password), ("_csrf", csrf)], cookies: cookies)
            #expect(signedUp.status == .ok)
            #expect(signedUp.text.contains("We sent a code to p***@e***"))
            let code = try latestCode(harness, to: "page@example.com")
            let wrong = try await client.form("/confirm", query + [("username", "page@example.com"), ("code", code == "000000" ? "111111" : "000000"),
                                                                  ("_csrf", csrf)], cookies: cookies)
            #expect(wrong.text.contains("Invalid verification code provided"))
            let confirmed = try await client.form("/confirm", query + [("username", "page@example.com"), ("code", code), ("_csrf", csrf)], cookies: cookies)
            #expect(confirmed.text.contains("Your account is confirmed"))
            #expect(try await client.cognito("AdminGetUser", ["UserPoolId": .string(seedPool), "Username": "page@example.com"]).json["UserStatus"] == "CONFIRMED")
            let loggedIn = try await client.form("/login", query + [("username", "page@example.com"), ("password", password), ("_csrf", csrf)], cookies: cookies)
            #expect(loggedIn.location?.hasPrefix(HostedUITests.callback) == true)
        }
    }

    @Test func theForgotPasswordPagesResetThePassword() async throws {
        let harness = try Harness()
        try await harness.run { client in
                        let (csrf, cookies) = try await freshCSRF(client, "/forgotPassword")
            let sent = try await client.form("/forgotPassword", query + [("username", "alice@example.com"), ("_csrf", csrf)], cookies: cookies)
            #expect(sent.text.contains("We sent a code to a***@e***"))
            let code = try latestCode(harness, to: "alice@example.com", purpose: .resetPassword)
            let reset = try await client.form("/confirmForgotPassword", query + [("username", "alice@example.com"), ("code", code), ("password", "fresh1234"),
                                                                                ("_csrf", csrf)], cookies: cookies)
            #expect(reset.text.contains("Your password has been changed"))
            #expect(try await client.passwordAuth("alice@example.com", "fresh1234").json["AuthenticationResult"] != nil)
            // An unconfirmed user who signs in is sent to confirm, with a fresh code.
            let bob = try await client.form("/login", query + [("username", "bob@example.com"), ("password", password), ("_csrf", csrf)], cookies: cookies)
            #expect(bob.text.contains("Your account is not confirmed yet"))
            #expect(try harness.emulator.messages(MessageFilter(to: "bob@example.com", purpose: .verifyEmail)).count == 1)
        }
    }

    @Test func aTemporaryPasswordIsChangedOnThePage() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(seedPool), "Username": "temp@example.com", "TemporaryPassword": "temp12345",
                                                            "MessageAction": "SUPPRESS"])
            let (csrf, cookies) = try await freshCSRF(client)
            let page = try await client.form("/login", query + [("username", "temp@example.com"), ("password", "temp12345"), ("_csrf", csrf)], cookies: cookies)
            #expect(page.status == .ok)
            #expect(page.text.contains("Change your password"))
            let sealed = try session(page)
            let weak = try await client.form("/login", query + [("session", sealed), ("new_password", "short"), ("_csrf", csrf)], cookies: cookies)
            #expect(weak.text.contains("Password did not conform with policy"))
            let done = try await client.form("/login", query + [("session", sealed), ("new_password", "chosen123"), ("_csrf", csrf)], cookies: cookies)
            #expect(try callbackCode(done).isEmpty == false)
            #expect(try await client.passwordAuth("temp@example.com", "chosen123").json["AuthenticationResult"] != nil)
        }
    }

    @Test func anSMSCodeIsAskedForOnThePage() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await client.cognito("AdminSetUserMFAPreference", ["UserPoolId": .string(seedPool), "Username": "carol@example.com",
                                                                      "SMSMfaSettings": ["Enabled": true, "PreferredMfa": true]])
            let (csrf, cookies) = try await freshCSRF(client)
            let page = try await client.form("/login", query + [("username", "carol@example.com"), ("password", password), ("_csrf", csrf)], cookies: cookies)
            #expect(page.text.contains("We sent a code to +*******0100"))
            let sealed = try session(page)
            let code = try latestCode(harness, to: "+15555550100", purpose: .mfa)
            let wrong = try await client.form("/login", query + [("session", sealed), ("code", code == "000000" ? "111111" : "000000"), ("_csrf", csrf)],
                                              cookies: cookies)
            #expect(wrong.status == .ok && wrong.location == nil)
            #expect(wrong.text.contains("Invalid code or auth state for the user."))
            let done = try await client.form("/login", query + [("session", sealed), ("code", code), ("_csrf", csrf)], cookies: cookies)
            let tokens = try await client.form("/oauth2/token", [("grant_type", "authorization_code"), ("client_id", seedClient),
                                                                  ("code", try callbackCode(done)), ("redirect_uri", HostedUITests.callback)])
            #expect(try claims(tokens.json["access_token"])["sub"] == .string(carolId))
        }
    }

    @Test func aPoolThatRequiresMFAHasANewUserSetUpAnAuthenticatorOnThePage() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let configured = try await client.cognito("SetUserPoolMfaConfig", ["UserPoolId": .string(seedPool), "MfaConfiguration": "ON",
                                                                               "SoftwareTokenMfaConfiguration": ["Enabled": true]])
            #expect(configured.status == .ok)
            let (csrf, cookies) = try await freshCSRF(client)
            let page = try await client.form("/login", query + [("username", "alice@example.com"), ("password", password), ("_csrf", csrf)], cookies: cookies)
            #expect(page.status == .ok && page.location == nil)
            #expect(page.text.contains("Set up an authenticator app"))
            #expect(page.text.contains("<svg"), "the QR code is drawn on the page")
            let key = String(try #require(page.text.firstMatch(of: #/id="authenticator-key">([A-Z2-7]+)</#)).1)
            let code = TOTP(secret: try #require(Base32.decode(key))).code(at: harness.emulator.clock.now)
            let sealed = try session(page)
            // A wrong code shows the same key again, and spends nothing.
            let wrong = try await client.form("/login", query + [("session", sealed), ("code", code == "000000" ? "111111" : "000000"), ("_csrf", csrf)],
                                              cookies: cookies)
            #expect(wrong.status == .ok && wrong.location == nil)
            #expect(wrong.text.contains("Code mismatch") && wrong.text.contains(key))
            let done = try await client.form("/login", query + [("session", sealed), ("code", code), ("_csrf", csrf)], cookies: cookies)
            let tokens = try await client.form("/oauth2/token", [("grant_type", "authorization_code"), ("client_id", seedClient),
                                                                  ("code", try callbackCode(done)), ("redirect_uri", HostedUITests.callback)])
            #expect(try claims(tokens.json["access_token"])["sub"] == .string(aliceId))
            #expect(try await client.cognito("AdminGetUser", ["UserPoolId": .string(seedPool), "Username": "alice@example.com"])
                .json["PreferredMfaSetting"] == "SOFTWARE_TOKEN_MFA")
            // The set-up session is spent; the next sign-in asks the authenticator.
            let replayed = try await client.form("/login", query + [("session", sealed), ("code", code), ("_csrf", csrf)], cookies: cookies)
            #expect(replayed.location == nil)
            let next = try await client.form("/login", query + [("username", "alice@example.com"), ("password", password), ("_csrf", csrf)], cookies: cookies)
            #expect(next.text.contains("Enter the 6-digit code from your authenticator app."))
        }
    }
}
