import AuthCore
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// OAuth sign-in completed through the emulator's fake providers: the browser's hops followed in
/// process, GoTrue's account-linking rules, the implicit and PKCE endings, and the `id_token` grant.
@Suite struct OAuthSignInTests {
    static let providers = ["GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "web-client",
                            "GOTRUE_EXTERNAL_GOOGLE_SECRET": "shh", "GOTRUE_EXTERNAL_APPLE_ENABLED": "true",
                            "GOTRUE_EXTERNAL_APPLE_CLIENT_ID": "com.example.web", "GOTRUE_EXTERNAL_APPLE_SECRET": "shh",
                            "GOTRUE_EXTERNAL_IOS_BUNDLE_ID": "com.example.ios", "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true"]

    static func seed(users: [Seed.UserSeed] = [], env: [String: String] = [:]) -> Seed {
        var seed = project(providers.merging(env) { $1 }, users: users)
        seed.identityProviders = [Seed.IdentityProviderSeed(id: "google", kind: "google", name: "Google", accounts: [
            ["sub": "g-dana", "email": "dana@example.com", "email_verified": true, "name": "Dana Google"],
            ["sub": "g-done", "email": "done@example.com", "email_verified": true, "name": "Done Google"],
            ["sub": "g-unverified", "email": "done@example.com", "email_verified": false],
        ])]
        return seed
    }

    /// Follows 302s from `start` until the app's `myapp://` URL (returned), as a browser would.
    static func follow(_ client: Client, _ start: String, headers: HTTPFields = [:]) async throws -> String {
        var location = start
        for _ in 0..<4 {
            let components = try #require(URLComponents(string: location))
            let path = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
            let reply = try await client.send(.get, path, headers: location == start ? headers : [:])
            #expect(reply.status == .found, "\(path): \(reply.text)")
            location = try #require(reply.headers[.location])
            if location.hasPrefix("myapp://") { return location }
        }
        Issue.record("never reached the app from \(start)")
        return location
    }

    static func fragment(_ url: String) -> [String: String] {
        Dictionary((URLComponents(string: "x:?" + (URLComponents(string: url)?.fragment ?? ""))?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
    }

    @Test func theImplicitFlowSignsANewUserInWithTheSessionInTheFragment() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            let location = try await Self.follow(client, "/auth/v1/authorize?provider=google&redirect_to=myapp://cb&fauxth_account=g-dana")
            #expect(location.hasPrefix("myapp://cb#access_token="))
            let fields = Self.fragment(location)
            #expect(fields["token_type"] == "bearer" && fields["expires_in"] == "3600" && fields["provider_token"]?.isEmpty == false)
            let user = try await client.send(.get, "/auth/v1/user", headers: [.authorization: "Bearer \(fields["access_token"] ?? "")"]).json
            #expect(user["email"] == "dana@example.com")
            #expect(user["email_confirmed_at"] != nil)
            #expect(user["app_metadata"]?["provider"] == "google")
            #expect(user["user_metadata"]?["full_name"] == "Dana Google")
            #expect(user["identities"]?[0]?["provider"] == "google" && user["identities"]?[0]?["id"] == "g-dana")
            #expect(try harness.emulator.deepLinks().first?.url == location)
        }
    }

    @Test func pkceEndsWithACodeThatTheVerifierExchangesWithTheProviderToken() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            let verifier = String(repeating: "v", count: 43)
            let challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
            let location = try await Self.follow(client, "/auth/v1/authorize?provider=google&redirect_to=myapp://cb&code_challenge=\(challenge)&code_challenge_method=s256&fauxth_account=g-dana")
            let code = try #require(queryItems(location)["code"])
            let wrong = try await client.send(.post, "/auth/v1/token?grant_type=pkce", json: ["auth_code": .string(code), "code_verifier": .string(String(repeating: "w", count: 43))])
            #expect(wrong.json["error_code"] == "bad_code_verifier")
            let session = try await client.send(.post, "/auth/v1/token?grant_type=pkce", json: ["auth_code": .string(code), "code_verifier": .string(verifier)]).json
            #expect(session["provider_token"]?.stringValue?.isEmpty == false)
            #expect(session["user"]?["email"] == "dana@example.com")
        }
    }

    @Test func aVerifiedEmailLinksToTheExistingUserAndAnUnverifiedOneDoesNot() async throws {
        let harness = try Harness(seed: Self.seed(users: [confirmedUser]))
        try await harness.run { client in
            let linked = try await Self.follow(client, "/auth/v1/authorize?provider=google&redirect_to=myapp://cb&fauxth_account=g-done")
            let token = Self.fragment(linked)["access_token"] ?? ""
            let user = try await client.send(.get, "/auth/v1/user", headers: [.authorization: "Bearer \(token)"]).json
            #expect(user["id"] == .string(confirmedUser.id ?? ""))
            #expect(Set(user["identities"]?.arrayValue?.compactMap { $0["provider"]?.stringValue } ?? []) == ["email", "google"])
            // The same address, unverified at the provider: a new user, without the address another user has, and so
            // without any address to confirm: GoTrue refuses the sign-in (createAccountFromExternalIdentity).
            let separate = try await Self.follow(client, "/auth/v1/authorize?provider=google&redirect_to=myapp://cb&fauxth_account=g-unverified")
            let refusal = Self.fragment(separate).merging(queryItems(separate)) { $1 }
            #expect(refusal["error_code"] == "provider_email_needs_verification", "\(separate)")
            #expect(try harness.emulator.user(in: "p", provider: "google", subject: "g-unverified")?.email == nil, "the user is kept, as GoTrue commits it")
        }
        // A project that lets unverified addresses in signs the separate user in.
        let lenient = try Harness(seed: Self.seed(users: [confirmedUser], env: ["GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS": "true"]))
        try await lenient.run { client in
            let separate = try await Self.follow(client, "/auth/v1/authorize?provider=google&redirect_to=myapp://cb&fauxth_account=g-unverified")
            let other = try await client.send(.get, "/auth/v1/user", headers: [.authorization: "Bearer \(Self.fragment(separate)["access_token"] ?? "")"]).json
            #expect(other["id"] != .string(confirmedUser.id ?? ""))
            #expect(other["email"] == "")
        }
    }

    /// An unverified address the provider gives a new user gets GoTrue's confirmation and a 422; under autoconfirm it
    /// counts as verified (DetermineAccountLinking), so it links to the user who has it and confirms.
    @Test func anUnverifiedProviderAddressNeedsConfirmingUnlessAutoconfirm() async throws {
        let strict = try Harness(seed: IdTokenGrantTests.seed())
        try await strict.run { client in
            let token = try #require(try await client.send(.post, "/_emu/v1/idp/google/tokens",
                                                           json: ["email": "fresh@example.com", "email_verified": false, "aud": "web-client"]).json["id_token"]?.stringValue)
            let refused = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "google", "id_token": .string(token)],
                                                headers: [HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json == ["code": "provider_email_needs_verification",
                                     "message": "Unverified email with google. A confirmation email has been sent to your google email"])
            #expect(try strict.emulator.messages(MessageFilter(to: "fresh@example.com")).first?.purpose == .verifyEmail)
        }
        let auto = try Harness(seed: IdTokenGrantTests.seed(["GOTRUE_MAILER_AUTOCONFIRM": "true"], users: [confirmedUser]))
        try await auto.run { client in
            let token = try #require(try await client.send(.post, "/_emu/v1/idp/google/tokens",
                                                           json: ["email": "done@example.com", "email_verified": false, "aud": "web-client",
                                                                  "picture": "https://example.com/p.png"]).json["id_token"]?.stringValue)
            let signedIn = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "google", "id_token": .string(token)])
            #expect(signedIn.status == .ok, "\(signedIn.text)")
            #expect(signedIn.json["user"]?["id"] == .string(confirmedUser.id ?? ""))
            #expect(signedIn.json["user"]?["user_metadata"]?["avatar_url"] == "https://example.com/p.png", "LinkAccount merges the identity's data")
        }
    }

    @Test func manualLinkingAddsTheIdentityToTheSignedInUserOnce() async throws {
        let second = Seed.UserSeed(id: "22222222-2222-4222-8222-222222222222", email: "second@example.com", password: "secret123", emailVerified: true)
        let harness = try Harness(seed: Self.seed(users: [confirmedUser, second]))
        try await harness.run { client in
            func link(_ email: String) async throws -> String {
                let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": .string(email), "password": "secret123"]).json
                let start = try await client.send(.get, "/auth/v1/user/identities/authorize?provider=google&redirect_to=myapp://linked&skip_http_redirect=true&fauxth_account=g-dana",
                                                  headers: bearer(session))
                return try await Self.follow(client, try #require(start.json["url"]?.stringValue))
            }
            #expect(try await link("done@example.com").hasPrefix("myapp://linked#access_token="))
            let user = try #require(try harness.emulator.user(in: "p", id: confirmedUser.id ?? ""))
            #expect(user.identities.contains { $0.provider == "google" && $0.subject == "g-dana" })
            // Linking it again is refused, in GoTrue's words for an identity the user already has (identity.go).
            let again = try await link("done@example.com")
            #expect(queryItems(again)["error_code"] == "identity_already_exists")
            // Written as Go's url.Values writes a space.
            #expect(queryItems(again)["error_description"] == "Identity+is+already+linked")
            // Another user cannot take it.
            let refused = try await link("second@example.com")
            #expect(queryItems(refused)["error_code"] == "identity_already_exists")
            #expect(try harness.emulator.user(in: "p", id: second.id ?? "")?.identities.contains { $0.provider == "google" } == false)
        }
    }

    @Test func theIdTokenGrantChecksTheProviderAudienceAndNonce() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            func mint(_ provider: String, _ body: JSON) async throws -> String {
                try #require(try await client.send(.post, "/_emu/v1/idp/\(provider)/tokens", json: body).json["id_token"]?.stringValue)
            }
            let nonce = "raw-nonce"
            let hashed = SHA256.hash(data: Array(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
            let apple = try await mint("apple", ["email": "native@example.com", "aud": "com.example.ios", "nonce": .string(hashed)])
            let signedIn = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "apple", "id_token": .string(apple), "nonce": .string(nonce)])
            #expect(signedIn.status == .ok)
            #expect(signedIn.json["user"]?["email"] == "native@example.com")
            let noNonce = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "apple", "id_token": .string(apple)])
            #expect(noNonce.json == ["error": "invalid request", "error_description": "Passed nonce and nonce in id_token should either both exist or not."])
            let wrongNonce = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "apple", "id_token": .string(apple),
                                                                                                      "nonce": "another"])
            #expect(wrongNonce.json == ["error": "invalid nonce", "error_description": "Nonces mismatch"])
            let web = try await mint("apple", ["email": "native@example.com", "aud": "com.other"])
            let audience = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "apple", "id_token": .string(web)])
            #expect(audience.json["error_description"] == "Unacceptable audience in id_token: [com.other]")
            let google = try await mint("google", ["email": "native@example.com", "aud": "web-client"])
            let mismatch = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "apple", "id_token": .string(google)])
            #expect(mismatch.json["error_description"] == "Bad ID token")
            let tampered = google.dropLast(3) + "AAA"
            let forged = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "google", "id_token": .string(String(tampered))])
            #expect(forged.json["error_description"] == "Bad ID token")
            harness.emulator.clock.advance(by: 3601)
            let expired = try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: ["provider": "google", "id_token": .string(google)])
            #expect(expired.json["error_description"] == "Bad ID token")
        }
    }
}
