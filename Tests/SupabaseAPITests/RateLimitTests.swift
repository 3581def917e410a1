import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct RateLimitTests {
    @Test func theProjectEmailLimitRefusesAndKeepsTheUnsentMessage() async throws {
        let harness = try Harness(seed: project(["GOTRUE_RATE_LIMIT_EMAIL_SENT": "2/1h"]))
        try await harness.run { client in
            for i in 0..<2 {
                #expect(try await client.send(.post, "/auth/v1/signup", json: ["email": .string("r\(i)@example.com"), "password": "secret123"]).status == .ok)
            }
            let third = try await client.send(.post, "/auth/v1/signup", json: ["email": "r2@example.com", "password": "secret123"], headers: .supabaseClient)
            #expect(third.status == .tooManyRequests)
            #expect(third.json == ["code": "over_email_send_rate_limit", "message": "email rate limit exceeded"])
            #expect(third.headers[.retryAfter] == "3600")
            let kept = try #require(try harness.emulator.messages(MessageFilter(to: "r2@example.com")).first)
            #expect(kept.status == .suppressed)
            #expect(kept.codes.isEmpty)
            #expect(kept.reason?.hasPrefix("GOTRUE_RATE_LIMIT_EMAIL_SENT") == true)
            harness.emulator.clock.advance(by: 3600)
            #expect(try await client.send(.post, "/auth/v1/resend", json: ["type": "signup", "email": "r2@example.com"]).status == .ok)
        }
    }

    @Test func autoconfirmProjectsDoNotCountEmails() async throws {
        let harness = try Harness(seed: project(["GOTRUE_RATE_LIMIT_EMAIL_SENT": "0", "GOTRUE_MAILER_AUTOCONFIRM": "true"], users: [confirmedUser]))
        let reply = try await harness.run { try await $0.send(.post, "/auth/v1/otp", json: ["email": "done@example.com"]) }
        #expect(reply.status == .ok)
    }

    @Test func perClientLimitsApplyOnlyWithARateLimitHeader() async throws {
        let off = try Harness(seed: project(["GOTRUE_RATE_LIMIT_VERIFY": "1"]))
        try await off.run { (client: Client) async throws in
            for _ in 0..<3 { #expect(try await client.send(.post, "/auth/v1/verify", json: ["type": "signup", "email": "a@b.co", "token": "1"]).status == .forbidden) }
        }
        let on = try Harness(seed: project(["GOTRUE_RATE_LIMIT_VERIFY": "1", "GOTRUE_RATE_LIMIT_HEADER": "X-Client-IP"]))
        try await on.run { client in
            let body: JSON = ["type": "signup", "email": "a@b.co", "token": "1"]
            let header: HTTPFields = [HTTPField.Name("X-Client-IP")!: "10.0.0.1, 10.0.0.2", HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"]
            #expect(try await client.send(.post, "/auth/v1/verify", json: body, headers: header).status == .forbidden)
            let limited = try await client.send(.post, "/auth/v1/verify", json: body, headers: header)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.json["code"] == "over_request_rate_limit")
            #expect(limited.headers[.retryAfter] == "300")
            let otherClient: HTTPFields = [HTTPField.Name("X-Client-IP")!: "10.0.0.9"]
            #expect(try await client.send(.post, "/auth/v1/verify", json: body, headers: otherClient).status == .forbidden)
        }
    }
}
