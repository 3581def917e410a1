import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct PhoneTests {
    let phoneOn = ["GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_MAX_FREQUENCY": "30s"]

    @Test func phoneSignupTextsACodeThatConfirmsThePhone() async throws {
        let harness = try Harness(seed: project(phoneOn))
        try await harness.run { client in
            let signup = try await client.send(.post, "/auth/v1/signup", json: ["phone": "+1 555 010 9999", "password": "secret123", "channel": "sms"])
            #expect(signup.status == .ok)
            #expect(signup.json["phone"] == "15550109999")
            #expect(signup.json["phone_confirmed_at"] == nil)
            let sms = try #require(try harness.emulator.messages().first)
            #expect(sms.channel == .sms)
            #expect(sms.to == "+15550109999")
            #expect(sms.text == "Your code is \(sms.codes[0])")
            let unconfirmed = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["phone": "15550109999", "password": "secret123"],
                                                    headers: .supabaseClient)
            #expect(unconfirmed.json["code"] == "phone_not_confirmed")
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "sms", "phone": "15550109999", "token": .string(sms.codes[0])])
            #expect(session.status == .ok)
            #expect(session.json["user"]?["phone_confirmed_at"] != nil)
            // GoTrue's ConfirmPhone leaves the metadata and the identity alone (supabase/auth#1906).
            #expect(session.json["user"]?["user_metadata"]?["phone_verified"] == nil)
            #expect(session.json["user"]?["identities"]?[0]?["identity_data"]?["phone_verified"] == false)
            let signedIn = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["phone": "+15550109999", "password": "secret123"])
            #expect(signedIn.status == .ok)
        }
    }

    @Test func smsCodesExpireOnTheEmulatorClockAndHaveACooldown() async throws {
        let harness = try Harness(seed: project(phoneOn.merging(["GOTRUE_SMS_OTP_EXP": "60"]) { $1 }))
        try await harness.run { client in
            // A new number is signed up, and GoTrue's sign-up path answers `{}`.
            let first = try await client.send(.post, "/auth/v1/otp", json: ["phone": "+15550100001"])
            #expect(first.json == [:])
            let tooSoon = try await client.send(.post, "/auth/v1/otp", json: ["phone": "+15550100001"], headers: .supabaseClient)
            #expect(tooSoon.status == .tooManyRequests)
            #expect(tooSoon.json["code"] == "over_sms_send_rate_limit")
            // The refused one is kept too, as suppressed and with no code.
            let messages = try harness.emulator.messages()
            #expect(messages.map(\.status) == [.suppressed, .sent])
            #expect(messages[0].reason?.hasPrefix("GOTRUE_SMS_MAX_FREQUENCY") == true)
            let code = try #require(messages.last?.codes.first)
            harness.emulator.clock.advance(by: 61)
            let expired = try await client.send(.post, "/auth/v1/verify", json: ["type": "sms", "phone": "+15550100001", "token": .string(code)])
            #expect(expired.status == .forbidden)
        }
    }

    @Test func testNumbersGetTheirFixedCodeAndNoText() async throws {
        let harness = try Harness(seed: project(phoneOn.merging(["GOTRUE_SMS_TEST_OTP": "15550100002:123456"]) { $1 }))
        try await harness.run { client in
            let reply = try await client.send(.post, "/auth/v1/otp", json: ["phone": "+15550100002"])
            #expect(reply.json == [:])
            let sms = try #require(try harness.emulator.messages().first)
            #expect(sms.status == .suppressed)
            #expect(sms.codes == ["123456"])
            #expect(sms.reason?.contains("GOTRUE_SMS_TEST_OTP") == true)
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "sms", "phone": "+15550100002", "token": "123456"])
            #expect(session.status == .ok)
            // GoTrue's verifyUserAndToken takes a test number's fixed code every time, whenever it was sent, so a suite
            // signs in with it again and again; a known number's code answers "test-otp" (phone.go).
            harness.emulator.clock.advance(by: 600)
            for _ in 0..<2 {
                let again = try await client.send(.post, "/auth/v1/verify", json: ["type": "sms", "phone": "+15550100002", "token": "123456"])
                #expect(again.status == .ok)
            }
            #expect(try await client.send(.post, "/auth/v1/verify", json: ["type": "sms", "phone": "+15550100002", "token": "654321"]).status == .forbidden)
            #expect(try await client.send(.post, "/auth/v1/otp", json: ["phone": "+15550100002"]).json == ["message_id": "test-otp"])
        }
    }

    @Test func phoneFlowsNeedThePhoneProvider() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            let reply = try await client.send(.post, "/auth/v1/signup", json: ["phone": "+15550100003", "password": "secret123"], headers: .supabaseClient)
            // GoTrue's `signup.go` answers 400 here.
            #expect(reply.status == .badRequest)
            #expect(reply.json["code"] == "phone_provider_disabled")
            #expect(try await client.send(.post, "/auth/v1/otp", json: ["phone": "+15550100003"], headers: .supabaseClient).json["code"] == "phone_provider_disabled")
        }
    }
}

@Suite struct PhoneChangeTests {
    @Test func aNewPhoneWaitsForItsCode() async throws {
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_PHONE_ENABLED": "true"], users: [confirmedUser]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            let updated = try await client.send(.put, "/auth/v1/user", json: ["phone": "+15550107777"], headers: bearer(session))
            #expect(updated.json["phone"] == "")
            #expect(updated.json["new_phone"] == "15550107777")
            #expect(updated.json["phone_change_sent_at"] == .string(RFC3339.string(from: Harness.epoch)))
            let sms = try #require(try harness.emulator.messages(MessageFilter(to: "+15550107777")).first)
            #expect(sms.purpose == .phoneChange)
            let verified = try await client.send(.post, "/auth/v1/verify", json: ["type": "phone_change", "phone": "+15550107777", "token": .string(sms.codes[0])])
            #expect(verified.status == .ok)
            #expect(verified.json["user"]?["phone"] == "15550107777")
            #expect(verified.json["user"]?["phone_confirmed_at"] != nil)
            #expect(verified.json["user"]?["new_phone"] == nil)
        }
    }
}
