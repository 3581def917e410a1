import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// `/settings`, `/reauthenticate` and the sign-up's order of refusals, as GoTrue's settings.go, reauthenticate.go
/// and anonymous.go have them.
@Suite struct SettingsAndReauthenticationTests {
    /// A user with an unconfirmed email, signed in by their confirmed phone.
    static let phoneFirst = Seed.UserSeed(id: "33333333-3333-4333-8333-333333333333", email: "half@example.com", phone: "+15550100033",
                                          password: "secret123", emailVerified: false, phoneVerified: true)

    @Test func reauthenticationNeedsTheAddressItUsesConfirmed() async throws {
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_PHONE_ENABLED": "true"], users: [Self.phoneFirst]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["phone": "+15550100033", "password": "secret123"])
            #expect(session.status == .ok, "\(session.text)")
            let refused = try await client.send(.get, "/auth/v1/reauthenticate", headers: bearer(session.json))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json == ["code": "email_not_confirmed", "message": "Please verify your email first."])
            #expect(try harness.emulator.messages(MessageFilter(to: "half@example.com")).isEmpty)
        }
    }

    @Test func aTestNumbersReauthenticationAnswersItsMessageId() async throws {
        let phoneOnly = Seed.UserSeed(id: "44444444-4444-4444-8444-444444444444", phone: "+15550100044", password: "secret123", phoneVerified: true)
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_TEST_OTP": "15550100044:123456"],
                                                users: [phoneOnly]))
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["phone": "+15550100044", "password": "secret123"])
            let sent = try await client.send(.get, "/auth/v1/reauthenticate", headers: bearer(session.json))
            #expect(sent.json == ["message_id": "test-otp"])
        }
    }

    /// The route tells an anonymous sign-up by its body: the anonymous switch is asked before GOTRUE_DISABLE_SIGNUP.
    @Test func anAnonymousSignUpHearsOfTheAnonymousSwitchFirst() async throws {
        let harness = try Harness(seed: project(["GOTRUE_DISABLE_SIGNUP": "true"]))
        try await harness.run { client in
            let anonymous = try await client.send(.post, "/auth/v1/signup", json: ["data": [:]], headers: .supabaseClient)
            #expect(anonymous.json["code"] == "anonymous_provider_disabled")
            let email = try await client.send(.post, "/auth/v1/signup", json: ["email": "x@example.com", "password": "secret123"], headers: .supabaseClient)
            #expect(email.json["code"] == "signup_disabled")
            // settings.go reports GOTRUE_SMS_PROVIDER as set, empty without one.
            #expect(try await client.send(.get, "/auth/v1/settings").json["sms_provider"] == "")
        }
        let named = try Harness(seed: project(["GOTRUE_SMS_PROVIDER": "vonage"]))
        try await named.run { client in
            let settings = try await client.send(.get, "/auth/v1/settings")
            #expect(settings.json["sms_provider"] == "vonage")
        }
    }
}
