@testable import AuthCore
import FauxthTesting
import HTTPTypes
import NIOCore
import Foundation
@testable import SupabaseAPI
import Testing

/// A grant's session answer is written as its members come (`JSONObjectWriter`); every other answer that carries a
/// user builds a `JSON` and sorts it. Both come from one shape, and must be the same text.
@Suite struct SessionAnswerTests {
    @Test func aUserWithEveryFieldIsTheSameTextFromEitherSink() throws {
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        var user = User(tenant: "p", id: "u", email: "a@example.com", phone: "+15550100", emailVerifiedAt: at, phoneVerifiedAt: at.addingTimeInterval(-5),
                        bannedUntil: at, userMetadata: ["name": "Ann"], appMetadata: ["role": "admin", "plan": "pro"], sentAt: [.verification: at],
                        createdAt: at, updatedAt: at, lastSignInAt: at,
                        identities: [Identity(id: "i", userId: "u", provider: "email", subject: "u", email: "a@example.com",
                                              data: ["email": "a@example.com", "phone": "+1"], createdAt: at, updatedAt: at, lastSignInAt: at)])
        user.pendingEmail = "b@example.com"
        user.pendingPhone = "+15550101"
        user.invitedAt = at
        user.isSSOUser = true
        let factors = [Factor(id: "f", userId: "u", kind: "totp", secret: nil, phone: nil, verified: true, friendlyName: "app",
                              createdAt: at, updatedAt: at, lastChallengedAt: at, lastUsedStep: nil),
                       Factor(id: "g", userId: "u", kind: "phone", secret: nil, phone: "+15550100", verified: false, friendlyName: nil,
                              createdAt: at, updatedAt: at, lastChallengedAt: nil, lastUsedStep: nil)]
        let config = try SupabaseConfig(env: [:])
        for (user, factors) in [(user, factors), (User(tenant: "p", id: "v", createdAt: at, updatedAt: at), [])] {
            let json = GoTrueJSON.user(user, config: config, factors: factors)
            let written = JSONObjectWriter.bytes { GoTrueJSON.user(user, config: config, factors: factors, into: &$0) }
            #expect(written == json.serializedBytes())
        }
        #expect(GoTrueJSON.user(user, config: config, factors: factors).objectValue?.count == 21, "every member GoTrue writes, and no is_sso_user")
    }

    @Test func theGrantsAnswerIsItsJSONSerialized() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        let (password, refreshed) = try await harness.run { client in
            let password = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"],
                                                 headers: .supabaseClient)
            let token = try #require(password.json["refresh_token"])
            return (password, try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": token], headers: .supabaseClient))
        }
        for reply in [password, refreshed] {
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "application/json")
            #expect(Array(reply.body.readableBytesView) == reply.json.serializedBytes())
            #expect(reply.json["user"]?["identities"]?[0]?["identity_data"]?["email_verified"] != nil)
            // The token's claims are written the same way, and its header is the key's own.
            let parts = try #require(reply.json["access_token"]?.stringValue).split(separator: ".").map { Base64URL.decode($0) }
            let header = try #require(parts[0]), payload = try #require(parts[1])
            #expect(try JSON.parse(header) == ["alg": "HS256", "typ": "JWT"])
            #expect(payload == (try JSON.parse(payload)).serializedBytes())
            #expect(try JSON.parse(payload).objectValue.map { Set($0.keys) } == [
                "aal", "amr", "app_metadata", "aud", "email", "exp", "iat", "is_anonymous", "phone", "role", "session_id", "sub", "user_metadata",
            ])
        }
    }
}
