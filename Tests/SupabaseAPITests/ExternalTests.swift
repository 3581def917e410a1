import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

let googleOn = ["GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "web-client",
                "GOTRUE_EXTERNAL_GOOGLE_SECRET": "shh"]

/// The query items of a URL, by name.
func queryItems(_ url: String) -> [String: String] {
    Dictionary((URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
}

@Suite struct ExternalTests {
    @Test func authorizeRefusesUnknownAndDisabledProvidersAsGoTrue() async throws {
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_GITHUB_ENABLED": "true"]))
        try await harness.run { client in
            let unknown = try await client.send(.get, "/auth/v1/authorize?provider=myspace", headers: .supabaseClient)
            #expect(unknown.status == .badRequest)
            #expect(unknown.json["message"] == "Unsupported provider: Provider myspace could not be found")
            let disabled = try await client.send(.get, "/auth/v1/authorize?provider=google", headers: .supabaseClient)
            #expect(disabled.json == ["code": "validation_failed", "message": "Unsupported provider: provider is not enabled"])
            let noClient = try await client.send(.get, "/auth/v1/authorize?provider=github", headers: .supabaseClient)
            #expect(noClient.json["message"] == "Unsupported provider: missing OAuth client ID")
        }
    }

    @Test func authorizeRedirectsToTheProviderWithASignedState() async throws {
        let harness = try Harness(seed: project(googleOn))
        let reply = try await harness.run { client in
            try await client.send(.get, "/auth/v1/authorize?provider=google&redirect_to=myapp://done&scopes=calendar&prompt=consent")
        }
        #expect(reply.status == .found)
        let location = try #require(reply.headers[.location])
        // Google is the emulator's fake Google, on the same host.
        #expect(location.hasPrefix("http://localhost/_emu/idp/google/authorize?"))
        let items = queryItems(location)
        #expect(items["client_id"] == "web-client")
        #expect(items["redirect_uri"]?.hasSuffix("/auth/v1/callback") == true)
        #expect(items["scope"] == "email profile calendar")
        #expect(items["prompt"] == "consent")
        #expect(items["redirect_to"] == nil)
        let stateToken = try #require(items["state"])
        let state = try JWS.verify(stateToken, keys: [projectKey.verificationKey]).claims
        #expect(state["provider"] == "google")
        #expect(state["referrer"] == "myapp://done")
    }

    @Test func aProviderFauxthDoesNotFakeGoesToTheRealOne() async throws {
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_GITHUB_ENABLED": "true", "GOTRUE_EXTERNAL_GITHUB_CLIENT_ID": "gh",
                                                 "GOTRUE_EXTERNAL_GITHUB_SECRET": "shh", "GOTRUE_EXTERNAL_GITLAB_ENABLED": "true",
                                                 "GOTRUE_EXTERNAL_GITLAB_CLIENT_ID": "gl", "GOTRUE_EXTERNAL_GITLAB_SECRET": "shh",
                                                 "GOTRUE_EXTERNAL_GITLAB_URL": "https://gitlab.example.com"]))
        try await harness.run { client in
            let github = try await client.send(.get, "/auth/v1/authorize?provider=github")
            #expect(github.headers[.location]?.hasPrefix("https://github.com/login/oauth/authorize?") == true)
            let gitlab = try await client.send(.get, "/auth/v1/authorize?provider=gitlab")
            #expect(gitlab.headers[.location]?.hasPrefix("https://gitlab.example.com/oauth/authorize?") == true)
        }
    }

    @Test func callbackChecksTheStateThenRedirectsEveryFailureToTheApp() async throws {
        let harness = try Harness(seed: project(googleOn))
        try await harness.run { client in
            let missing = try await client.send(.get, "/auth/v1/callback?code=abc", headers: .supabaseClient)
            #expect(missing.json["code"] == "bad_oauth_callback")
            let forged = try await client.send(.get, "/auth/v1/callback?code=abc&state=eyJhbGciOiJub25lIn0.e30.", headers: .supabaseClient)
            #expect(forged.json["code"] == "bad_oauth_state")
            let start = try await client.send(.get, "/auth/v1/authorize?provider=google&redirect_to=myapp://done")
            let startLocation = try #require(start.headers[.location])
            let state = try #require(queryItems(startLocation)["state"])
            let cancelled = try await client.send(.get, "/auth/v1/callback?error=access_denied&error_description=User+cancelled&state=\(state)")
            #expect(cancelled.status == .found)
            #expect(cancelled.headers[.location] == "myapp://done?error=access_denied&error_description=User+cancelled#error=access_denied&error_description=User+cancelled")
            #expect(try harness.emulator.deepLinks().first?.params["error"] == "access_denied")
            let withCode = try await client.send(.post, "/auth/v1/callback", raw: "code=4%2F0Ab&state=\(state)",
                                                 headers: [.contentType: "application/x-www-form-urlencoded"])
            let codeLocation = try #require(withCode.headers[.location])
            #expect(queryItems(codeLocation)["error"] == "server_error")
            harness.emulator.clock.advance(by: 301)
            let expired = try await client.send(.get, "/auth/v1/callback?code=abc&state=\(state)", headers: .supabaseClient)
            #expect(expired.json["code"] == "bad_oauth_state")
        }
    }

    @Test func featuresGoTrueShipsOffAnswerAsDisabled() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let passkeys = try await client.send(.post, "/auth/v1/passkeys/authentication/options", headers: .supabaseClient)
            #expect(passkeys.status == .notFound)
            #expect(passkeys.json == ["code": "passkey_disabled", "message": "Passkeys are disabled"])
            let oauth = try await client.send(.get, "/auth/v1/oauth/authorize?client_id=x", headers: .supabaseClient)
            #expect(oauth.json == ["code": "feature_disabled", "message": "OAuth server is disabled"])
            let scim = try await client.send(.get, "/auth/v1/scim/v2/Users/123", headers: .supabaseClient)
            #expect(scim.json == ["code": "feature_disabled", "message": "SCIM server is disabled"])
            let grantsAnonymously = try await client.send(.get, "/auth/v1/user/oauth/grants", headers: .supabaseClient)
            #expect(grantsAnonymously.json["code"] == "no_authorization")
            let web3 = try await client.send(.post, "/auth/v1/token?grant_type=web3", json: ["chain": "solana"], headers: .supabaseClient)
            #expect(web3.status == .unprocessableContent)
            #expect(web3.json["code"] == "web3_provider_disabled")
        }
    }

    @Test func jwtAudienceHeaderSetsTheTokensAudience() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        let session = try await harness.run { client in
            try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"],
                                  headers: [HTTPField.Name("X-JWT-AUD")!: "partners"]).json
        }
        let token = try #require(session["access_token"]?.stringValue)
        let claims = try JWS.verify(token, keys: [projectKey.verificationKey]).claims
        #expect(claims["aud"] == "partners")
        #expect(session["user"]?["aud"] == "partners")
    }

    /// GoTrue's `GenerateAccessToken` does not read the timebox: a token may outlive its session, whose refresh is refused.
    @Test func theTimeboxDoesNotShortenAccessTokens() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SESSIONS_TIMEBOX": "30m"], users: [confirmedUser]))
        let session = try await harness.run { client in
            try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
        }
        #expect(session["expires_in"] == 3600)
        #expect(session["expires_at"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 3600))
    }
}

@Suite struct IdentityTests {
    let both = Seed.UserSeed(id: "22222222-2222-4222-8222-222222222222", email: "both@example.com", phone: "+15550100077",
                             password: "secret123", emailVerified: true, phoneVerified: true)

    func signIn(_ client: Client) async throws -> String {
        let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "both@example.com", "password": "secret123"])
        return try #require(session.json["access_token"]?.stringValue)
    }

    @Test func identitiesNeedManualLinkingOnAfterTheTokenCheck() async throws {
        let harness = try Harness(seed: project(users: [both]))
        try await harness.run { client in
            let anonymous = try await client.send(.delete, "/auth/v1/user/identities/\(UUID().uuidString)", headers: .supabaseClient)
            #expect(anonymous.json["code"] == "no_authorization")
            let token = try await signIn(client)
            let off = try await client.send(.delete, "/auth/v1/user/identities/\(UUID().uuidString)",
                                            headers: [.authorization: "Bearer \(token)", HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"])
            #expect(off.status == .notFound)
            #expect(off.json == ["code": "manual_linking_disabled", "message": "Manual linking is disabled"])
        }
    }

    @Test func unlinkingThePhoneClearsItAndTheLastIdentityStays() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true"], users: [both]))
        try await harness.run { client in
            let token = try await signIn(client)
            let auth: HTTPFields = [.authorization: "Bearer \(token)", HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"]
            let user = try await client.send(.get, "/auth/v1/user", headers: auth).json
            let identities = try #require(user["identities"]?.arrayValue)
            let phone = try #require(identities.first { $0["provider"] == "phone" }?["identity_id"]?.stringValue)
            let email = try #require(identities.first { $0["provider"] == "email" }?["identity_id"]?.stringValue)
            let unknown = try await client.send(.delete, "/auth/v1/user/identities/\(UUID().uuidString)", headers: auth)
            #expect(unknown.json["code"] == "identity_not_found")
            let notUUID = try await client.send(.delete, "/auth/v1/user/identities/phone", headers: auth)
            #expect(notUUID.status == .notFound)
            #expect(notUUID.json["code"] == "validation_failed")
            let removed = try await client.send(.delete, "/auth/v1/user/identities/\(phone)", headers: auth)
            #expect(removed.status == .ok)
            #expect(removed.json == [:])
            let after = try await client.send(.get, "/auth/v1/user", headers: auth).json
            #expect(after["phone"] == "")
            #expect(after["identities"]?.arrayValue?.count == 1)
            #expect(after["app_metadata"]?["providers"] == ["email"])
            let last = try await client.send(.delete, "/auth/v1/user/identities/\(email)", headers: auth)
            #expect(last.status == .unprocessableContent)
            #expect(last.json["code"] == "single_identity_not_deletable")
        }
    }

    @Test func linkingAnswersTheProviderURLWithTheCallerAsTarget() async throws {
        let harness = try Harness(seed: project(googleOn.merging(["GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true"]) { $1 }, users: [both]))
        try await harness.run { client in
            let token = try await signIn(client)
            let reply = try await client.send(.get, "/auth/v1/user/identities/authorize?provider=google&skip_http_redirect=true",
                                              headers: [.authorization: "Bearer \(token)"])
            let url = try #require(reply.json["url"]?.stringValue)
            let stateToken = try #require(queryItems(url)["state"])
            let state = try JWS.verify(stateToken, keys: [projectKey.verificationKey]).claims
            #expect(state["linking_target_id"] == "22222222-2222-4222-8222-222222222222")
        }
    }
}
