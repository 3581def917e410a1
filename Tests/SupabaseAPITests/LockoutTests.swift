import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// GoTrue has no lockout of its own; a project's `policies` setting adds one, answered like GoTrue's
/// rate limiters (or as a plain wrong password, with the generic style).
@Suite struct LockoutTests {
    func signIn(_ client: Client, _ password: String) async throws -> Reply {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "alice@example.com", "password": .string(password)],
                              headers: .supabaseClient)
    }

    @Test func anExplicitLockoutIsA429WithWhenToRetry() async throws {
        let harness = try Harness()
        try harness.emulator.setPolicies(in: "default", ["lockout": ["max_attempts": 2, "durations": [120]]])
        try await harness.run { client async throws in
            for _ in 0..<2 { #expect(try await signIn(client, "wrong-one").json["code"] == "invalid_credentials") }
            let locked = try await signIn(client, "password123")
            #expect(locked.status == .tooManyRequests)
            #expect(locked.json["code"] == "over_request_rate_limit")
            #expect(locked.headers[.retryAfter] == "120")
            harness.emulator.clock.advance(by: 120)
            #expect(try await signIn(client, "password123").json["access_token"] != nil)
        }
    }

    @Test func aGenericLockoutLooksLikeAWrongPasswordAndCanEmailTheUser() async throws {
        let harness = try Harness()
        try harness.emulator.setPolicies(in: "default", ["lockout": ["max_attempts": 1, "durations": [120], "error": "generic", "notify": true]])
        try await harness.run { client async throws in
            _ = try await signIn(client, "wrong-one")
            let locked = try await signIn(client, "password123")
            #expect(locked.status == .badRequest)
            #expect(locked.json["code"] == "invalid_credentials")
        }
        let notice = try #require(try harness.emulator.messages(MessageFilter(purpose: .notification)).first)
        #expect(notice.to == "alice@example.com")
    }

    @Test func aTokenPolicyWithoutTheHeaderCountsPerIP() async throws {
        let harness = try Harness()
        try harness.emulator.setPolicies(in: "default", ["rate_limits": ["token_per_ip": ["count": 1, "window": 300]]])
        try await harness.run { client async throws in
            #expect(try await signIn(client, "password123").status == .ok)
            let refused = try await signIn(client, "password123")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.json["code"] == "over_request_rate_limit")
        }
    }

    @Test func policiesGoTrueGovernsItselfAreRefused() throws {
        let harness = try Harness()
        #expect(throws: AuthError.self) { try harness.emulator.setPolicies(in: "default", ["rate_limits": ["resend_cooldown": 30]]) }
    }
}
