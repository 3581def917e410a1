import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A seed with one Supabase project whose GoTrue settings each test chooses.
func project(_ env: [String: String] = [:], users: [Seed.UserSeed] = []) -> Seed {
    var gotrue = ["GOTRUE_JWT_SECRET": "test-secret-with-at-least-32-characters!", "GOTRUE_SITE_URL": "http://127.0.0.1:3000",
                  "GOTRUE_URI_ALLOW_LIST": "myapp://**"]
    gotrue.merge(env) { $1 }
    return Seed(tenants: [Seed.TenantSeed(id: "p", dialect: .supabase, name: nil,
                                          settings: ["gotrue_env": .object(gotrue.mapValues(JSON.string))], users: users)])
}

let confirmedUser = Seed.UserSeed(id: "11111111-1111-4111-8111-111111111111", email: "done@example.com", phone: nil, username: nil,
                                  password: "secret123", emailVerified: true, phoneVerified: false, disabled: false,
                                  userMetadata: [:], appMetadata: [:])

@Suite struct SignupTests {
    @Test func signupWithoutAutoconfirmReturnsAUserAndSendsTheConfirmation() async throws {
        let harness = try Harness(seed: project())
        let reply = try await harness.run { client in
            try await client.send(.post, "/auth/v1/signup?redirect_to=myapp://welcome", json: [
                "email": "New@Example.com", "password": "secret123", "data": ["plan": "pro"], "gotrue_meta_security": ["captcha_token": nil],
            ], headers: .supabaseClient)
        }
        #expect(reply.status == .ok)
        let user = reply.json
        // GoTrue's `validateEmail` lower-cases the address.
        #expect(user["email"] == "new@example.com")
        #expect(user["aud"] == "authenticated")
        #expect(user["phone"] == "")
        #expect(user["user_metadata"] == ["plan": "pro"])
        #expect(user["app_metadata"] == ["provider": "email", "providers": ["email"]])
        #expect(user["email_confirmed_at"] == nil)
        #expect(user["confirmation_sent_at"] == .string(RFC3339.string(from: Harness.epoch)))
        #expect(user["identities"]?[0]?["identity_data"]?["email_verified"] == false)
        #expect(user["access_token"] == nil)

        let message = try #require(try harness.emulator.messages().first)
        #expect(message.to == "new@example.com")
        #expect(message.purpose == .verifyEmail)
        let code = try #require(message.codes.first)
        #expect(code.count == 6)
        // GoTrue's link token: hex SHA-224 of the (lowercased) email followed by the OTP.
        let tokenHash = SHA224.hash(Array(("new@example.com" + code).utf8)).hex
        let link = try #require(message.links.first)
        #expect(message.links.count == 1)
        #expect(link.hasPrefix("http://"))
        #expect(link.hasSuffix("/auth/v1/verify?token=\(tokenHash)&type=signup&redirect_to=myapp://welcome"))
    }

    @Test func aRedirectOffTheAllowListFallsBackToTheSiteURL() async throws {
        let harness = try Harness(seed: project())
        _ = try await harness.run { client in
            try await client.send(.post, "/auth/v1/signup?redirect_to=https://evil.example/steal", json: ["email": "a@example.com", "password": "secret123"])
        }
        #expect(try harness.emulator.messages().first?.links.first?.hasSuffix("redirect_to=http://127.0.0.1:3000") == true)
    }

    /// GoTrue's `GetReferrer`: with no valid `redirect_to`, a valid `Referer` (what a browser's fetch sends from the
    /// app's page) is where the link goes; an invalid one is not.
    @Test(arguments: [(nil as String?, "http://127.0.0.1:5173/", "http://127.0.0.1:5173/"),
                      ("https://evil.example/steal", "http://127.0.0.1:5173/", "http://127.0.0.1:5173/"),
                      ("myapp://welcome", "http://127.0.0.1:5173/", "myapp://welcome"),
                      (nil, "https://evil.example/", "http://127.0.0.1:3000")])
    func aValidRefererStandsInForAMissingOrRefusedRedirect(_ redirect: String?, _ referer: String, _ expected: String) async throws {
        let harness = try Harness(seed: project())
        _ = try await harness.run { client in
            try await client.send(.post, "/auth/v1/signup" + (redirect.map { "?redirect_to=" + $0 } ?? ""),
                                  json: ["email": "a@example.com", "password": "secret123"], headers: [HTTPField.Name("Referer")!: referer])
        }
        #expect(try harness.emulator.messages().first?.links.first?.hasSuffix("redirect_to=" + expected) == true)
    }

    @Test func signupWithAutoconfirmReturnsASessionWithASignedToken() async throws {
        let harness = try Harness(seed: project(["GOTRUE_MAILER_AUTOCONFIRM": "true"]))
        let reply = try await harness.run { client in
            try await client.send(.post, "/auth/v1/signup", json: ["email": "auto@example.com", "password": "secret123"])
        }
        #expect(reply.status == .ok)
        let session = reply.json
        #expect(session["token_type"] == "bearer")
        #expect(session["expires_in"] == 3600)
        #expect(session["expires_at"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 3600))
        #expect(session["refresh_token"]?.stringValue?.wholeMatch(of: #/[a-z0-9]{12}/#) != nil)
        #expect(session["user"]?["user_metadata"]?["email_verified"] == true)
        let token = try #require(session["access_token"]?.stringValue)
        let key = SigningKey.hmac(secret: Array("test-secret-with-at-least-32-characters!".utf8), kid: nil)
        let verified = try JWS.verify(token, keys: [key.verificationKey])
        #expect(verified.header["typ"] == "JWT")
        #expect(verified.claims["sub"] == session["user"]?["id"])
        #expect(verified.claims["aud"] == "authenticated")
        #expect(verified.claims["role"] == "authenticated")
        #expect(verified.claims["aal"] == "aal1")
        #expect(verified.claims["amr"] == [["method": "password", "timestamp": .int(Int(Harness.epoch.timeIntervalSince1970))]])
        #expect(verified.claims["iat"] == .int(Int(Harness.epoch.timeIntervalSince1970)))
        #expect(verified.claims["session_id"]?.stringValue != nil)
        #expect(verified.claims["is_anonymous"] == false)
        #expect(try harness.emulator.messages().isEmpty)
    }

    /// GoTrue's `sanitizeUser`: the made-up user looks like a new one (the request's data, the provider's metadata, a
    /// confirmation just sent), and keeps what it does not reset, an earlier recovery's stamp among them.
    @Test func signingUpAConfirmedEmailAgainHidesThatItExists() async throws {
        var known = confirmedUser
        known.phone = "+15550100042"
        known.userMetadata = ["secret": "kept"]
        let harness = try Harness(seed: project(users: [known]))
        let (recovered, reply) = try await harness.run { client in
            let recovered = try await client.send(.post, "/auth/v1/recover", json: ["email": "done@example.com"])
            harness.emulator.clock.advance(by: 5)
            return (recovered, try await client.send(.post, "/auth/v1/signup", json: ["email": "done@example.com", "password": "other-pass",
                                                                                      "data": ["plan": "pro"]]))
        }
        #expect(recovered.status == .ok)
        #expect(reply.status == .ok)
        #expect(reply.json["email"] == "done@example.com")
        #expect(reply.json["id"] != .string(confirmedUser.id!))
        #expect(reply.json["identities"] == [])
        #expect(reply.json["phone"] == "")
        #expect(reply.json["role"] == "")
        #expect(reply.json["user_metadata"] == ["plan": "pro"])
        #expect(reply.json["app_metadata"] == ["provider": "email", "providers": ["email"]])
        #expect(reply.json["confirmation_sent_at"] == .string(RFC3339.string(from: Harness.epoch.addingTimeInterval(5))))
        #expect(reply.json["recovery_sent_at"] == .string(RFC3339.string(from: Harness.epoch)))
        #expect(reply.json["email_confirmed_at"] == nil)
        #expect(try harness.emulator.messages().map(\.purpose) == [.resetPassword])
    }

    @Test func withAutoconfirmAConfirmedEmailIsAlreadyRegistered() async throws {
        let harness = try Harness(seed: project(["GOTRUE_MAILER_AUTOCONFIRM": "true"], users: [confirmedUser]))
        let reply = try await harness.run { client in
            try await client.send(.post, "/auth/v1/signup", json: ["email": "done@example.com", "password": "other-pass"], headers: .supabaseClient)
        }
        #expect(reply.status == .unprocessableContent)
        #expect(reply.json == ["code": "user_already_exists", "message": "User already registered"])
    }

    @Test func anUnconfirmedEmailGetsTheConfirmationAgainOnlyAfterTheCooldown() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SMTP_MAX_FREQUENCY": "60s"]))
        let body: JSON = ["email": "twice@example.com", "password": "secret123"]
        let (first, second) = try await harness.run { client in
            (try await client.send(.post, "/auth/v1/signup", json: body),
             try await client.send(.post, "/auth/v1/signup", json: body, headers: .supabaseClient))
        }
        #expect(first.status == .ok)
        #expect(second.status == .tooManyRequests)
        #expect(second.json["code"] == "over_email_send_rate_limit")
        #expect(second.headers[.retryAfter] == "60")
        harness.emulator.clock.advance(by: 61)
        let third = try await harness.run { client in try await client.send(.post, "/auth/v1/signup", json: body) }
        #expect(third.status == .ok)
        #expect(third.json["id"] == first.json["id"])
        #expect(try harness.emulator.messages().map(\.status) == [.sent, .suppressed, .sent])
    }

    @Test func aWeakPasswordIsRefusedWithItsReasons() async throws {
        let harness = try Harness(seed: project(["GOTRUE_PASSWORD_MIN_LENGTH": "8"]))
        let reply = try await harness.run { client in
            try await client.send(.post, "/auth/v1/signup", json: ["email": "w@example.com", "password": "short"], headers: .supabaseClient)
        }
        #expect(reply.status == .unprocessableContent)
        #expect(reply.json["code"] == "weak_password")
        #expect(reply.json["weak_password"] == ["reasons": ["length"]])
        #expect(reply.headers[HTTPField.Name("x-sb-error-code")!] == "weak_password")
    }

    /// GoTrue measures a password in bytes (Go's `len`): four accented letters are eight, enough for a minimum of 8;
    /// and more than 72 bytes is refused on every path that sets a password, the admin API's included.
    @Test func aPasswordIsMeasuredInBytesUpTo72() async throws {
        let harness = try Harness(seed: project(["GOTRUE_PASSWORD_MIN_LENGTH": "8", "GOTRUE_MAILER_AUTOCONFIRM": "true"]))
        try await harness.run { client in
            let accented = try await client.send(.post, "/auth/v1/signup", json: ["email": "e@example.com", "password": "éééé"], headers: .supabaseClient)
            #expect(accented.status == .ok)
            let long = String(repeating: "é", count: 37)
            for (method, path) in [(HTTPRequest.Method.post, "/auth/v1/signup"), (.post, "/auth/v1/admin/users")] {
                let refused = try await client.send(method, path, json: ["email": "l@example.com", "password": .string(long)], headers: serviceRole)
                #expect(refused.status == .badRequest)
                #expect(refused.json["code"] == "validation_failed")
                #expect(refused.json["message"] == "Password cannot be longer than 72 characters")
            }
        }
    }

    @Test func disabledSignupAndAnonymousSignInAreRefused() async throws {
        // Anonymous sign-ins on: SignupAnonymously then refuses them as sign-ups (off, the switch answers first).
        let harness = try Harness(seed: project(["GOTRUE_DISABLE_SIGNUP": "true", "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"]))
        let (disabled, anonymous) = try await harness.run { client in
            (try await client.send(.post, "/auth/v1/signup", json: ["email": "x@example.com", "password": "secret123"], headers: .supabaseClient),
             try await client.send(.post, "/auth/v1/signup", json: ["data": [:]], headers: .supabaseClient))
        }
        #expect(disabled.status == .unprocessableContent)
        #expect(disabled.json["code"] == "signup_disabled")
        #expect(anonymous.json["code"] == "signup_disabled")
    }

    @Test func aSettingsChangeTakesEffectOnTheNextRequest() async throws {
        // The parsed configuration is cached; changing the tenant's settings must not leave it stale.
        let harness = try Harness(seed: project())
        let signUp = { (email: String) in
            try await harness.run { try await $0.send(.post, "/auth/v1/signup", json: ["email": .string(email), "password": "secret123"],
                                                      headers: .supabaseClient) }
        }
        #expect(try await signUp("before@example.com").status == .ok)
        var settings = try harness.emulator.requireTenant("p").settings
        var env = settings["gotrue_env"]?.objectValue ?? [:]
        env["GOTRUE_DISABLE_SIGNUP"] = "true"
        settings["gotrue_env"] = .object(env)
        _ = try harness.emulator.updateTenant("p", settings: settings)
        #expect(try await signUp("after@example.com").json["code"] == "signup_disabled")
    }

    @Test func anonymousSignInNeedsTheProviderEnabled() async throws {
        let off = try Harness(seed: project())
        let refused = try await off.run { try await $0.send(.post, "/auth/v1/signup", json: ["data": [:]], headers: .supabaseClient) }
        #expect(refused.json["code"] == "anonymous_provider_disabled")
        let on = try Harness(seed: project(["GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"]))
        let session = try await on.run { try await $0.send(.post, "/auth/v1/signup", json: ["data": [:]]) }
        #expect(session.status == .ok)
        #expect(session.json["user"]?["is_anonymous"] == true)
        #expect(session.json["user"]?["app_metadata"] == [:])
        #expect(session.json["user"]?["identities"] == [])
    }
}
