import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import SupabaseAPI
import Testing

/// Signs `email` up (confirmations on) and returns the 6-digit code and the link token from the email.
func signUpAndReadEmail(_ client: Client, _ harness: Harness, email: String, redirect: String = "") async throws -> (code: String, token: String) {
    let query = redirect.isEmpty ? "" : "?redirect_to=\(redirect)"
    try await client.send(.post, "/auth/v1/signup\(query)", json: ["email": .string(email), "password": "secret123"])
    let message = try #require(try harness.emulator.messages(MessageFilter(to: email)).first)
    let link = try #require(message.links.first)
    let token = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "token" }?.value)
    return (try #require(message.codes.first), token)
}

func bearer(_ session: JSON) -> HTTPFields {
    [.authorization: "Bearer \(session["access_token"]?.stringValue ?? "")", HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"]
}

@Suite struct VerifyTests {
    @Test func theEmailedCodeConfirmsTheUserAndSignsIn() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let (code, _) = try await signUpAndReadEmail(client, harness, email: "v@example.com")
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "signup", "email": "v@example.com", "token": .string(code)])
            #expect(session.status == .ok)
            #expect(session.json["user"]?["email_confirmed_at"] != nil)
            #expect(session.json["user"]?["user_metadata"]?["email_verified"] == true)
            let claims = try JWS.verify(session.json["access_token"]!.stringValue!, keys: [projectKey.verificationKey]).claims
            #expect(claims["amr"]?[0]?["method"] == "otp")
            let again = try await client.send(.post, "/auth/v1/verify", json: ["type": "signup", "email": "v@example.com", "token": .string(code)],
                                              headers: .supabaseClient)
            #expect(again.status == .forbidden)
            #expect(again.json == ["code": "otp_expired", "message": "Token has expired or is invalid"])
        }
    }

    @Test func aWrongOrExpiredCodeIsRefused() async throws {
        let harness = try Harness(seed: project(["GOTRUE_MAILER_OTP_EXP": "600"]))
        try await harness.run { client in
            let (code, tokenHash) = try await signUpAndReadEmail(client, harness, email: "late@example.com")
            let wrong = String(code.reversed()) == code ? "000000" : String(code.reversed())
            #expect(try await client.send(.post, "/auth/v1/verify", json: ["type": "signup", "email": "late@example.com", "token": .string(wrong)]).status == .forbidden)
            harness.emulator.clock.advance(by: 601)
            let expired = try await client.send(.post, "/auth/v1/verify", json: ["type": "signup", "token_hash": .string(tokenHash)], headers: .supabaseClient)
            #expect(expired.status == .forbidden)
            #expect(expired.json["message"] == "Email link is invalid or has expired")
        }
    }

    @Test func theLinkRedirectsWithTheSessionInTheFragmentAndCapturesAppLinks() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let (_, token) = try await signUpAndReadEmail(client, harness, email: "link@example.com", redirect: "myapp://welcome")
            let reply = try await client.send(.get, "/auth/v1/verify?token=\(token)&type=signup&redirect_to=myapp://welcome")
            #expect(reply.status == .seeOther)
            let location = try #require(reply.headers[.location])
            #expect(location.hasPrefix("myapp://welcome#access_token="))
            #expect(location.contains("&expires_in=3600&refresh_token="))
            #expect(location.hasSuffix("&sb=&token_type=bearer&type=signup"))
            let captured = try #require(try harness.emulator.deepLinks().first)
            #expect(captured.url == location)
            #expect(captured.params["type"] == "signup")
            #expect(captured.source == "verify")
            #expect(try harness.emulator.user(in: "p", .email("link@example.com"))?.emailVerifiedAt != nil)

            let reused = try await client.send(.get, "/auth/v1/verify?token=\(token)&type=signup&redirect_to=myapp://welcome")
            #expect(reused.headers[.location] == "myapp://welcome#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=")
        }
    }

    @Test func aRejectedRedirectFallsBackToTheSiteURLAndIsRecorded() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let reply = try await client.send(.get, "/auth/v1/verify?token=nope&type=signup&redirect_to=https://evil.example/")
            #expect(reply.headers[.location]?.hasPrefix("http://127.0.0.1:3000#error=access_denied") == true)
        }
        let event = try #require(try harness.emulator.events(type: "redirect.rejected").first)
        #expect(event.detail["requested"] == "https://evil.example/")
    }

    @Test func verifyNeedsATypeAndAnIdentifier() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { (client: Client) async throws in
            #expect(try await client.send(.post, "/auth/v1/verify", json: ["token": "123456"], headers: .supabaseClient).json["code"] == "validation_failed")
            #expect(try await client.send(.post, "/auth/v1/verify", json: ["type": "signup", "token": "1"], headers: .supabaseClient).json["code"] == "validation_failed")
            // GoTrue's verifyUserAndToken finds no code of an unknown type: the token is "expired"; a token hash's type must be an email's.
            #expect(try await client.send(.post, "/auth/v1/verify", json: ["type": "bogus", "token": "1", "email": "a@b.co"]).status == .forbidden)
            let hashOfPhoneType = try await client.send(.post, "/auth/v1/verify", json: ["type": "sms", "token_hash": "abc"], headers: .supabaseClient)
            #expect(hashOfPhoneType.json == ["code": "validation_failed", "message": "Invalid email verification type"])
        }
    }
}

let projectKey = SigningKey.hmac(secret: Array("test-secret-with-at-least-32-characters!".utf8), kid: nil)

@Suite struct RefreshAndLogoutTests {
    func signIn(_ client: Client) async throws -> JSON {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
    }

    func refresh(_ client: Client, _ token: JSON?) async throws -> Reply {
        try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": token ?? .null], headers: .supabaseClient)
    }

    @Test func refreshRotatesAndReuseRevokesTheFamily() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let first = try await signIn(client)
            harness.emulator.clock.advance(by: 60)
            let second = try await refresh(client, first["refresh_token"])
            #expect(second.status == .ok)
            #expect(second.json["refresh_token"] != first["refresh_token"])
            let claims = try JWS.verify(second.json["access_token"]!.stringValue!, keys: [projectKey.verificationKey]).claims
            #expect(claims["iat"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 60))
            let third = try await refresh(client, second.json["refresh_token"])
            #expect(third.status == .ok)
            // The first token is neither the live token's parent nor within the (zero) reuse interval.
            let reused = try await refresh(client, first["refresh_token"])
            #expect(reused.status == .badRequest)
            #expect(reused.json == ["code": "refresh_token_already_used", "message": "Invalid Refresh Token: Already Used"])
            // GoTrue keeps a family revoked for reuse: every token of it is reuse again.
            let afterRevoke = try await refresh(client, third.json["refresh_token"])
            #expect(afterRevoke.json["code"] == "refresh_token_already_used")
        }
    }

    @Test func theParentOfTheLiveTokenStillWorksWhenTheLastAnswerWasLost() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let first = try await signIn(client)
            let lost = try await refresh(client, first["refresh_token"])
            let retried = try await refresh(client, first["refresh_token"])
            #expect(retried.status == .ok)
            // As GoTrue: the retry gets the live token itself, not another one.
            #expect(retried.json["refresh_token"] == lost.json["refresh_token"])
            let next = try await refresh(client, retried.json["refresh_token"])
            #expect(next.status == .ok)
            // The first token is no longer the live one's parent: with no reuse interval, it is reuse.
            #expect(try await refresh(client, first["refresh_token"]).json["code"] == "refresh_token_already_used")
        }
    }

    @Test func aReuseIntervalForgivesQuickRetries() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL": "10"], users: [confirmedUser]))
        try await harness.run { client in
            let first = try await signIn(client)
            let second = try await refresh(client, first["refresh_token"])
            _ = try await refresh(client, second.json["refresh_token"])
            harness.emulator.clock.advance(by: 5)
            #expect(try await refresh(client, first["refresh_token"]).status == .ok)
        }
    }

    @Test func badRefreshTokensGetGoTruesErrors() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let empty = try await refresh(client, nil)
            #expect(empty.json == ["error": "invalid_request", "error_description": "refresh_token required"])
            #expect(try await refresh(client, "short").json["code"] == "validation_failed")
            #expect(try await refresh(client, "abcdefghijkl").json == ["code": "refresh_token_not_found", "message": "Invalid Refresh Token: Refresh Token Not Found"])
        }
    }

    @Test func getUserNeedsALiveSessionAndLogoutEndsIt() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let other = try await signIn(client)
            let me = try await client.send(.get, "/auth/v1/user", headers: bearer(session))
            #expect(me.status == .ok)
            #expect(me.json["email"] == "done@example.com")
            #expect(try await client.send(.get, "/auth/v1/user", headers: .supabaseClient).json["code"] == "no_authorization")
            #expect(try await client.send(.get, "/auth/v1/user", headers: [.authorization: "Bearer x.y.z"]).status == .forbidden)

            #expect(try await client.send(.post, "/auth/v1/logout?scope=local", headers: bearer(session)).status == .noContent)
            let after = try await client.send(.get, "/auth/v1/user", headers: bearer(session))
            #expect(after.status == .forbidden)
            #expect(after.json["code"] == "session_not_found")
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(other)).status == .ok)
            #expect(try await client.send(.post, "/auth/v1/logout?scope=everything", headers: bearer(other)).status == .badRequest)
            #expect(try await client.send(.post, "/auth/v1/logout", headers: bearer(other)).status == .noContent)
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(other)).status == .forbidden)
        }
    }

    @Test func logoutOthersKeepsOnlyTheCallersSession() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let a = try await signIn(client), b = try await signIn(client)
            #expect(try await client.send(.post, "/auth/v1/logout?scope=others", headers: bearer(a)).status == .noContent)
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(a)).status == .ok)
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(b)).status == .forbidden)
        }
    }

    @Test func theBearerSchemeIsReadInAnyCaseAndTheTokenWhole() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let token = try await signIn(client)["access_token"]?.stringValue ?? ""
            for scheme in ["bearer", "BEARER", "Bearer"] {
                #expect(try await client.send(.get, "/auth/v1/user", headers: [.authorization: "\(scheme) \(token)"]).status == .ok)
            }
            let version = HTTPField.Name("X-Supabase-Api-Version")!
            for header in ["Bearer", "Bearer ", "Bearer  \(token)", "Bearer \(token) x", "Basic \(token)", "Bearer\t\(token)"] {
                #expect(try await client.send(.get, "/auth/v1/user", headers: [.authorization: header, version: "2024-01-01"]).json["code"] == "no_authorization",
                        "\(header.prefix(12))")
            }
        }
    }

    @Test func anExpiredAccessTokenIsBadJWT() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            harness.emulator.clock.advance(by: 3601)
            let reply = try await client.send(.get, "/auth/v1/user", headers: bearer(session))
            #expect(reply.status == .forbidden)
            #expect(reply.json["code"] == "bad_jwt")
        }
    }
}

@Suite struct SettingsTests {
    @Test func settingsReportTheProjectsProviders() async throws {
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true"]))
        let reply = try await harness.run { try await $0.send(.get, "/auth/v1/settings") }
        #expect(reply.json["external"]?["email"] == true)
        #expect(reply.json["external"]?["google"] == true)
        #expect(reply.json["external"]?["github"] == false)
        #expect(reply.json["mailer_autoconfirm"] == false)
    }

    @Test func anHMACOnlyProjectPublishesNoKeysAndAnAsymmetricOneItsPublicKey() async throws {
        let hmac = try Harness(seed: project())
        let empty = try await hmac.run { try await $0.send(.get, "/auth/v1/.well-known/jwks.json") }
        #expect(empty.json == ["keys": []])

        let key = try SigningKey.generate(.ES256, generator: Generator(seed: 1))
        var jwk = try #require(key.privateJWK)
        jwk.key_ops = ["sign", "verify"]
        jwk.kid = "k1"
        let keys = String(decoding: try JSONEncoder().encode([jwk]), as: UTF8.self)
        let harness = try Harness(seed: project(["GOTRUE_JWT_KEYS": keys], users: [confirmedUser]))
        try await harness.run { client in
            let jwks = try await client.send(.get, "/auth/v1/.well-known/jwks.json")
            #expect(jwks.headers[.cacheControl] == "public, max-age=600")
            #expect(jwks.json["keys"]?.arrayValue?.count == 1)
            #expect(jwks.json["keys"]?[0]?["kid"] == "k1")
            #expect(jwks.json["keys"]?[0]?["d"] == nil)
            // Published for verifying only, as GoTrue marks every public key whatever the private key's key_ops.
            #expect(jwks.json["keys"]?[0]?["key_ops"] == ["verify"])
            #expect(jwks.json["keys"]?[0]?["use"] == "sig")
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"])
            let token = try #require(session.json["access_token"]?.stringValue)
            let verified = try JWS.verify(token, keys: [VerificationKey(key.verificationKey.material, kid: "k1")])
            #expect(verified.header["alg"] == "ES256")
            #expect(verified.header["kid"] == "k1")
        }
    }
}

/// The anon and service_role keys a project prints (`connectionHints`) are keys the project takes, also where it signs
/// with an asymmetric key: HS256 with its JWT secret, as Supabase keeps its legacy keys, or, with no secret, signed by
/// its key under that key's header. They were signed by the ES256 key under an HS256 header, and refused.
@Suite struct PrintedKeyTests {
    @Test(arguments: [true, false])
    func theKeysAProjectPrintsWorkAgainstIt(withSecret: Bool) async throws {
        let key = try SigningKey.generate(.ES256, generator: Generator(seed: 2))
        var jwk = try #require(key.privateJWK)
        jwk.key_ops = ["sign", "verify"]
        jwk.kid = "k1"
        var env = ["GOTRUE_JWT_KEYS": String(decoding: try JSONEncoder().encode([jwk]), as: UTF8.self)]
        if !withSecret { env["GOTRUE_JWT_SECRET"] = "" }
        let seed = project(env, users: [confirmedUser])
        let harness = try Harness(seed: seed)
        let tenant = try #require(try harness.emulator.tenant("p"))
        let hints = SupabaseDialect.connectionHints(for: tenant, baseURL: "http://127.0.0.1:9999")
        try await harness.run { client in
            let serviceKey = try #require(hints["SUPABASE_SERVICE_ROLE_KEY"])
            let apikey = HTTPField.Name("apikey")!
            let listed = try await client.send(.get, "/auth/v1/admin/users", headers: [.authorization: "Bearer \(serviceKey)", apikey: serviceKey])
            #expect(listed.status == .ok)
            let anonKey = try #require(hints["SUPABASE_ANON_KEY"])
            let signedIn = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"],
                                                 headers: [.authorization: "Bearer \(anonKey)", apikey: anonKey])
            #expect(signedIn.status == .ok)
            let header = try JSON.parse(try #require(Base64URL.decode(String(serviceKey.split(separator: ".")[0]))))
            #expect(header["alg"] == .string(withSecret ? "HS256" : "ES256"))
        }
    }
}

@Suite struct UpdateUserTests {
    @Test func aNewPasswordEndsTheOtherSessionsButNotThisOne() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let signIn: JSON = ["email": "done@example.com", "password": "secret123"]
            let mine = try await client.send(.post, "/auth/v1/token?grant_type=password", json: signIn).json
            let other = try await client.send(.post, "/auth/v1/token?grant_type=password", json: signIn).json
            let same = try await client.send(.put, "/auth/v1/user", json: ["password": "secret123"], headers: bearer(mine))
            #expect(same.json["code"] == "same_password")
            let updated = try await client.send(.put, "/auth/v1/user", json: ["password": "brand-new-1", "data": ["nick": "d"]], headers: bearer(mine))
            #expect(updated.status == .ok)
            #expect(updated.json["user_metadata"]?["nick"] == "d")
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(mine)).status == .ok)
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(other)).json["code"] == "session_not_found")
            let old = try await client.send(.post, "/auth/v1/token?grant_type=password", json: signIn)
            #expect(old.status == .badRequest)
            let new = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "brand-new-1"])
            #expect(new.status == .ok)
        }
    }

    @Test func usersCannotSetTheirOwnAppMetadata() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            let reply = try await client.send(.put, "/auth/v1/user", json: ["app_metadata": ["role": "admin"]], headers: bearer(session))
            #expect(reply.status == .forbidden)
            #expect(reply.json["code"] == "not_admin")
        }
    }
}

@Suite struct DiscoveryTests {
    @Test func openIDConfigurationPointsAtTheJWKSAndSAMLIsOff() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let discovery = try await client.send(.get, "/auth/v1/.well-known/openid-configuration")
            #expect(discovery.json["jwks_uri"]?.stringValue?.hasSuffix("/auth/v1/.well-known/jwks.json") == true)
            #expect(discovery.json["id_token_signing_alg_values_supported"] == ["HS256"])
            let sso = try await client.send(.post, "/auth/v1/sso", json: ["domain": "example.com"], headers: .supabaseClient)
            #expect(sso.status == .notFound)
            #expect(sso.json == ["code": "saml_provider_disabled", "message": "SAML 2.0 is disabled"])
        }
    }
}

@Suite struct EmailChangeTests {
    @Test func aSecureEmailChangeNeedsBothLinks() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            let updated = try await client.send(.put, "/auth/v1/user", json: ["email": "moved@example.com"], headers: bearer(session))
            #expect(updated.json["email"] == "done@example.com")
            #expect(updated.json["new_email"] == "moved@example.com")
            let toNew = try #require(try harness.emulator.messages(MessageFilter(to: "moved@example.com")).first)
            let toOld = try #require(try harness.emulator.messages(MessageFilter(to: "done@example.com")).first)
            #expect(toNew.purpose == .emailChange && toOld.purpose == .emailChange)
            let first = try await client.send(.post, "/auth/v1/verify", json: ["type": "email_change", "email": "moved@example.com", "token": .string(toNew.codes[0])])
            #expect(first.json == ["msg": "Confirmation link accepted. Please proceed to confirm link sent to the other email", "code": "200"])
            #expect(try harness.emulator.user(in: "p", id: confirmedUser.id!)?.email == "done@example.com")
            let token = try #require(URLComponents(string: toOld.links[0])?.queryItems?.first { $0.name == "token" }?.value)
            let second = try await client.send(.get, "/auth/v1/verify?token=\(token)&type=email_change")
            #expect(second.headers[.location]?.contains("#access_token=") == true)
            let user = try #require(try harness.emulator.user(in: "p", id: confirmedUser.id!))
            #expect(user.email == "moved@example.com")
            #expect(user.pendingEmail == nil)
            #expect(try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "moved@example.com", "password": "secret123"]).status == .ok)
        }
    }

    /// GoTrue (`UserUpdate`): under autoconfirm only an anonymous user gets an address at once; a
    /// permanent user always confirms a new email.
    @Test func anAddressInUseIsRefusedAndAutoconfirmStillConfirmsAChange() async throws {
        let other = Seed.UserSeed(email: "taken@example.com", password: "secret123", emailVerified: true)
        let harness = try Harness(seed: project(["GOTRUE_MAILER_AUTOCONFIRM": "true"], users: [confirmedUser, other]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            #expect(try await client.send(.put, "/auth/v1/user", json: ["email": "taken@example.com"], headers: bearer(session)).json["code"] == "email_exists")
            let moved = try await client.send(.put, "/auth/v1/user", json: ["email": "new@example.com"], headers: bearer(session))
            #expect(moved.json["email"] == "done@example.com" && moved.json["new_email"] == "new@example.com")
            #expect(try harness.emulator.messages().map(\.to).sorted() == ["done@example.com", "new@example.com"])
        }
    }
}

@Suite struct ReauthenticationTests {
    @Test func anOldSessionNeedsTheEmailedNonceToChangeThePassword() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true"], users: [confirmedUser]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            // A session signed in two days ago, kept alive by refreshing, must reauthenticate.
            harness.emulator.clock.advance(by: 2 * 86400)
            let refreshed = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": session["refresh_token"]!]).json
            let needed = try await client.send(.put, "/auth/v1/user", json: ["password": "another-1"], headers: bearer(refreshed))
            #expect(needed.status == .badRequest)
            #expect(needed.json["code"] == "reauthentication_needed")
            #expect(try await client.send(.get, "/auth/v1/reauthenticate", headers: bearer(refreshed)).json == [:])
            let message = try #require(try harness.emulator.messages(MessageFilter(purpose: .reauthentication)).first)
            #expect(message.links.isEmpty)
            let wrong = message.codes[0] == "000000" ? "000001" : "000000"
            let refused = try await client.send(.put, "/auth/v1/user", json: ["password": "another-1", "nonce": .string(wrong)], headers: bearer(refreshed))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json == ["code": "reauthentication_not_valid", "message": "Nonce has expired or is invalid"])
            // GoTrue checks reauthentication before the password: the same password without a nonce needs one, and with
            // a valid nonce the nonce is spent before `same_password` refuses it.
            let same = try await client.send(.put, "/auth/v1/user", json: ["password": "secret123"], headers: bearer(refreshed))
            #expect(same.json["code"] == "reauthentication_needed")
            let spent = try await client.send(.put, "/auth/v1/user", json: ["password": "secret123", "nonce": .string(message.codes[0])], headers: bearer(refreshed))
            #expect(spent.json["code"] == "same_password")
            let reused = try await client.send(.put, "/auth/v1/user", json: ["password": "another-1", "nonce": .string(message.codes[0])], headers: bearer(refreshed))
            #expect(reused.json["code"] == "reauthentication_not_valid")
            harness.emulator.clock.advance(by: 120)
            try await client.send(.get, "/auth/v1/reauthenticate", headers: bearer(refreshed))
            let nonce = try #require(try harness.emulator.messages(MessageFilter(purpose: .reauthentication)).first?.codes.first)
            let changed = try await client.send(.put, "/auth/v1/user", json: ["password": "another-1", "nonce": .string(nonce)], headers: bearer(refreshed))
            #expect(changed.status == .ok)
        }
    }
}

@Suite struct SessionLifetimeTests {
    func refresh(_ client: Client, _ token: JSON?) async throws -> Reply {
        try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": token ?? .null], headers: .supabaseClient)
    }

    func signIn(_ client: Client) async throws -> JSON {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
    }

    @Test func aTimeboxEndsSessionsHoweverActive() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SESSIONS_TIMEBOX": "2h"], users: [confirmedUser]))
        try await harness.run { client in
            var token = try await signIn(client)["refresh_token"]
            for _ in 0..<2 {
                harness.emulator.clock.advance(by: 3000)
                token = try await refresh(client, token).json["refresh_token"]
            }
            harness.emulator.clock.advance(by: 3000)
            #expect(try await refresh(client, token).json == ["code": "session_expired", "message": "Invalid Refresh Token: Session Expired"])
        }
    }

    @Test func inactivityAndNewerLoginsExpireSessions() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SESSIONS_INACTIVITY_TIMEOUT": "30m", "GOTRUE_SESSIONS_SINGLE_PER_USER": "true"],
                                                users: [confirmedUser]))
        try await harness.run { client in
            let idle = try await signIn(client)
            harness.emulator.clock.advance(by: 31 * 60)
            #expect(try await refresh(client, idle["refresh_token"]).json["message"] == "Invalid Refresh Token: Session Expired (Inactivity)")
            let older = try await signIn(client)
            harness.emulator.clock.advance(by: 60)
            let newer = try await signIn(client)
            #expect(try await refresh(client, older["refresh_token"]).json["message"] == "Invalid Refresh Token: Session Expired (Revoked by Newer Login)")
            #expect(try await refresh(client, newer["refresh_token"]).status == .ok)
        }
    }
}
