import AuthCore
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The id_token grant and anonymous users, each rule as GoTrue's `IdTokenGrant`, admin.go and the
/// `/factors` routes have it: what a native Sign in with Apple or Google app meets through supabase-js.
@Suite struct IdTokenGrantTests {
    static let google = ["GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "web-client,ios-client",
                         "GOTRUE_EXTERNAL_GOOGLE_SECRET": "shh", "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"]

    static func seed(_ env: [String: String] = [:], users: [Seed.UserSeed] = []) -> Seed {
        var seed = project(google.merging(env) { $1 }, users: users)
        seed.identityProviders = [Seed.IdentityProviderSeed(id: "google", kind: "google", name: "Google", accounts: [])]
        return seed
    }

    func mint(_ client: Client, _ body: JSON) async throws -> String {
        try #require(try await client.send(.post, "/_emu/v1/idp/google/tokens", json: body).json["id_token"]?.stringValue)
    }

    /// As supabase-js sends it: with the API version that makes errors `{code, message}`.
    func grant(_ client: Client, _ body: JSON, headers: HTTPFields = [:]) async throws -> Reply {
        var headers = headers
        headers[HTTPField.Name("X-Supabase-Api-Version")!] = "2024-01-01"
        return try await client.send(.post, "/auth/v1/token?grant_type=id_token", json: body, headers: headers)
    }

    /// auth-js's `linkIdentity({provider, token})` from an anonymous session: GoTrue links without asking for manual
    /// linking (only the /user/identities routes do), and the verified address ends the anonymity.
    @Test func anAnonymousUserLinksAnIdTokenWithoutManualLinking() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            let anonymous = try await client.send(.post, "/auth/v1/signup", json: ["data": [:]])
            let token = try await mint(client, ["email": "anon@example.com", "email_verified": true, "aud": "web-client"])
            let noCaller = try await grant(client, ["provider": "google", "id_token": .string(token), "link_identity": true])
            #expect(noCaller.json["error_description"] == "Linking requires a valid user access token in Authorization")
            let linked = try await grant(client, ["provider": "google", "id_token": .string(token), "link_identity": true], headers: bearer(anonymous.json))
            #expect(linked.status == .ok, "\(linked.text)")
            #expect(linked.json["user"]?["id"] == anonymous.json["user"]?["id"])
            #expect(linked.json["user"]?["is_anonymous"] == false)
            #expect(linked.json["user"]?["email"] == "anon@example.com")
        }
    }

    @Test func theProviderIsCheckedAsWrittenAndAnswersWithItsCode() async throws {
        let harness = try Harness(seed: Self.seed(["GOTRUE_EXTERNAL_APPLE_ENABLED": "false"]))
        try await harness.run { client in
            let token = try await mint(client, ["email": "g@example.com", "aud": "web-client"])
            let shouted = try await grant(client, ["provider": "Google", "id_token": .string(token)])
            #expect(shouted.status == .badRequest)
            #expect(shouted.json == ["code": "validation_failed", "message": "Custom OIDC provider \"Google\" not allowed"])
            let disabled = try await grant(client, ["provider": "apple", "id_token": .string(token)])
            #expect(disabled.json["code"] == "provider_disabled")
            #expect(disabled.json["message"]?.stringValue?.hasPrefix("Provider (issuer \"") == true)
            let clientOnly = try await grant(client, ["client_id": "web-client", "id_token": .string(token)])
            #expect(clientOnly.json["error_description"] == "provider or client_id and issuer required")
        }
    }

    /// A refusal prints the token's audience as Go's %v prints go-oidc's list, and any of the comma-separated client
    /// ids is accepted (an iOS client id beside the web one).
    @Test func anyClientIdIsAnAudienceAndARefusalNamesTheTokens() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            let ios = try await mint(client, ["email": "a@example.com", "aud": "ios-client"])
            #expect(try await grant(client, ["provider": "google", "id_token": .string(ios)]).status == .ok)
            let foreign = try await mint(client, ["email": "a@example.com", "aud": "x"])
            #expect(try await grant(client, ["provider": "google", "id_token": .string(foreign)]).json["error_description"]
                == "Unacceptable audience in id_token: [x]")
        }
    }

    /// GOTRUE_EXTERNAL_<NAME>_SKIP_NONCE_CHECK, for native libraries that cannot hand over the raw nonce.
    @Test func aProviderMaySkipTheNonceCheck() async throws {
        let hashed = SHA256.hash(data: Array("raw".utf8)).map { String(format: "%02x", $0) }.joined()
        let strict = try Harness(seed: Self.seed())
        try await strict.run { client in
            let token = try await mint(client, ["email": "n@example.com", "aud": "web-client", "nonce": .string(hashed)])
            #expect(try await grant(client, ["provider": "google", "id_token": .string(token)]).json["error_description"]
                == "Passed nonce and nonce in id_token should either both exist or not.")
        }
        let lenient = try Harness(seed: Self.seed(["GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK": "true"]))
        try await lenient.run { client in
            let token = try await mint(client, ["email": "n@example.com", "aud": "web-client", "nonce": .string(hashed)])
            #expect(try await grant(client, ["provider": "google", "id_token": .string(token)]).status == .ok)
        }
    }

    @Test func aBannedUserIsRefusedWith403() async throws {
        let harness = try Harness(seed: Self.seed(users: [confirmedUser]))
        try await harness.run { client in
            _ = try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["ban_duration": "1h"], headers: serviceRole)
            let token = try await mint(client, ["email": "done@example.com", "email_verified": true, "aud": "web-client"])
            let refused = try await grant(client, ["provider": "google", "id_token": .string(token)])
            #expect(refused.status == .forbidden)
            #expect(refused.json == ["code": "user_banned", "message": "User is banned"])
        }
    }

    @Test func anAnonymousTokenCannotUseFactorsAndAnAdminConfirmationEndsAnonymity() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            let anonymous = try await client.send(.post, "/auth/v1/signup", json: ["data": [:]])
            // Refused before the body is read, as requireNotAnonymous runs first.
            let enroll = try await client.send(.post, "/auth/v1/factors", raw: "not json", headers: bearer(anonymous.json))
            #expect(enroll.status == .forbidden)
            #expect(enroll.json == ["code": "no_authorization", "message": "Anonymous user not allowed to perform these actions"])
            let id = try #require(anonymous.json["user"]?["id"]?.stringValue)
            let updated = try await client.send(.put, "/auth/v1/admin/users/\(id)", json: ["email": "kept@example.com", "email_confirm": true],
                                                headers: serviceRole)
            #expect(updated.json["is_anonymous"] == false, "\(updated.text)")
        }
    }

    /// Pre-account takeover: someone signs up with another person's address and a password of their own and never
    /// confirms; when the owner signs in with a provider vouching for the address, GoTrue's RemoveUnconfirmedIdentities
    /// takes the password, the other identities and the metadata away before confirming the account.
    @Test func aProviderSignInClearsWhatAnUnconfirmedSignUpLeft() async throws {
        let squatted = Seed.UserSeed(id: "55555555-5555-4555-8555-555555555555", email: "owner@example.com", password: "attacker-1",
                                     emailVerified: false, userMetadata: ["note": "squatter"])
        let harness = try Harness(seed: Self.seed(users: [squatted]))
        try await harness.run { client in
            let token = try await mint(client, ["email": "owner@example.com", "email_verified": true, "aud": "web-client", "name": "The Owner"])
            let signedIn = try await grant(client, ["provider": "google", "id_token": .string(token)])
            #expect(signedIn.status == .ok, "\(signedIn.text)")
            let user = try #require(signedIn.json["user"])
            #expect(user["id"] == .string(squatted.id!))
            #expect(user["identities"]?.arrayValue?.compactMap { $0["provider"]?.stringValue } == ["google"])
            #expect(user["user_metadata"]?["note"] == nil && user["user_metadata"]?["name"] == "The Owner")
            #expect(user["email_confirmed_at"] != nil)
            // Signing in again keeps it so: no email identity comes back with the next sign-in's metadata.
            let again = try await grant(client, ["provider": "google", "id_token": .string(token)])
            #expect(again.json["user"]?["identities"]?.arrayValue?.compactMap { $0["provider"]?.stringValue } == ["google"])
            let squatter = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "owner@example.com", "password": "attacker-1"])
            #expect(squatter.json["error_code"] == "invalid_credentials" || squatter.json["code"] == "invalid_credentials", "\(squatter.text)")
        }
    }
}
