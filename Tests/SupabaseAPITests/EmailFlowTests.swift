import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct EmailFlowTests {
    @Test func otpForAConfirmedUserSendsAMagicLinkThatSignsIn() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let reply = try await client.send(.post, "/auth/v1/otp", json: ["email": "done@example.com", "create_user": true, "data": nil])
            #expect(reply.status == .ok)
            #expect(reply.json == [:])
            let message = try #require(try harness.emulator.messages().first)
            #expect(message.purpose == .magicLink)
            #expect(message.subject == "Your sign-in link")
            #expect(message.links.first?.contains("&type=magiclink&") == true)
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "email", "email": "done@example.com",
                                                                                  "token": .string(message.codes[0])])
            #expect(session.status == .ok)
            #expect(session.json["user"]?["id"] == .string(confirmedUser.id!))
        }
    }

    @Test func otpForANewAddressCreatesTheUserAndSendsTheConfirmation() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            #expect(try await client.send(.post, "/auth/v1/magiclink", json: ["email": "fresh@example.com"]).json == [:])
            let user = try #require(try harness.emulator.user(in: "p", .email("fresh@example.com")))
            #expect(user.emailVerifiedAt == nil)
            let message = try #require(try harness.emulator.messages().first)
            #expect(message.purpose == .verifyEmail)
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "email", "email": "fresh@example.com",
                                                                                  "token": .string(message.codes[0])])
            #expect(session.json["user"]?["email_confirmed_at"] != nil)
        }
    }

    @Test func otpWithoutCreateUserRefusesUnknownAddresses() async throws {
        let harness = try Harness(seed: project())
        let reply = try await harness.run { try await $0.send(.post, "/auth/v1/otp", json: ["email": "ghost@example.com", "create_user": false], headers: .supabaseClient) }
        #expect(reply.status == .unprocessableContent)
        #expect(reply.json == ["code": "otp_disabled", "message": "Signups not allowed for otp"])
        #expect(try harness.emulator.messages().isEmpty)
    }

    @Test func recoverSendsTheResetEmailAndHidesUnknownAddresses() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SMTP_MAX_FREQUENCY": "60s"], users: [confirmedUser]))
        try await harness.run { client in
            #expect(try await client.send(.post, "/auth/v1/recover", json: ["email": "nobody@example.com"]).json == [:])
            #expect(try harness.emulator.messages().isEmpty)
            #expect(try await client.send(.post, "/auth/v1/recover?redirect_to=myapp://reset", json: ["email": "done@example.com"]).json == [:])
            let message = try #require(try harness.emulator.messages().first)
            #expect(message.purpose == .resetPassword)
            #expect(message.links.first?.hasSuffix("&type=recovery&redirect_to=myapp://reset") == true)
            // Magic links and recovery share GoTrue's per-user cooldown.
            let tooSoon = try await client.send(.post, "/auth/v1/otp", json: ["email": "done@example.com"], headers: .supabaseClient)
            #expect(tooSoon.status == .tooManyRequests)
            #expect(tooSoon.json["code"] == "over_email_send_rate_limit")
            let session = try await client.send(.post, "/auth/v1/verify", json: ["type": "recovery", "email": "done@example.com",
                                                                                  "token": .string(message.codes[0])])
            #expect(session.status == .ok)
        }
    }

    @Test func resendRepeatsTheConfirmationOnlyForUnconfirmedUsers() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            try await client.send(.post, "/auth/v1/signup", json: ["email": "again@example.com", "password": "secret123"])
            harness.emulator.clock.advance(by: 120)
            #expect(try await client.send(.post, "/auth/v1/resend", json: ["type": "signup", "email": "again@example.com"]).json == [:])
            #expect(try await client.send(.post, "/auth/v1/resend", json: ["type": "signup", "email": "done@example.com"]).json == [:])
            #expect(try harness.emulator.messages(MessageFilter(to: "again@example.com")).count == 2)
            #expect(try harness.emulator.messages(MessageFilter(to: "done@example.com")).isEmpty)
            #expect(try await client.send(.post, "/auth/v1/resend", json: ["type": "bogus", "email": "a@b.co"]).status == .badRequest)
        }
    }

    /// GoTrue's `*_sent_at`: each message stamps its own, and a new password (`UpdatePassword`) retires every code sent
    /// before it and clears them all.
    @Test func eachMessageStampsWhenItWentAndANewPasswordRetiresTheirCodes() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        let stamp: @Sendable (Double) -> JSON = { seconds in JSON.string(RFC3339.string(from: Harness.epoch.addingTimeInterval(seconds))) }
        try await harness.run { client in
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            try await client.send(.post, "/auth/v1/recover", json: ["email": "done@example.com"])
            harness.emulator.clock.advance(by: 61)
            let changing = try await client.send(.put, "/auth/v1/user", json: ["email": "new@example.com"], headers: bearer(session))
            harness.emulator.clock.advance(by: 61)
            try await client.send(.get, "/auth/v1/reauthenticate", headers: bearer(session))
            let user = try await client.send(.get, "/auth/v1/user", headers: bearer(session)).json
            #expect(changing.json["email_change_sent_at"] == stamp(61))
            #expect(user["recovery_sent_at"] == stamp(0))
            #expect(user["email_change_sent_at"] == stamp(61))
            #expect(user["reauthentication_sent_at"] == stamp(122))
            #expect(user["confirmation_sent_at"] == nil)

            let codes: @Sendable (MessagePurpose) throws -> [String] = { purpose in try harness.emulator.messages().filter { $0.purpose == purpose }.map { $0.codes[0] } }
            let live: @Sendable (MessagePurpose) throws -> [String] = { purpose in try harness.emulator.liveCodeTargets(in: "p", userId: confirmedUser.id!, purpose: purpose).sorted() }
            let recovery = try #require(try codes(.resetPassword).first)
            #expect(try live(.emailChange) == ["done@example.com", "new@example.com"])
            #expect(try live(.reauthentication) == ["done@example.com"])
            let updated = try await client.send(.put, "/auth/v1/user", json: ["password": "another-secret"], headers: bearer(session))
            #expect(updated.status == .ok)
            for key in ["confirmation_sent_at", "recovery_sent_at", "email_change_sent_at", "phone_change_sent_at", "reauthentication_sent_at"] {
                #expect(updated.json[key] == nil, "\(key)")
            }
            #expect(updated.json["new_email"] == "new@example.com")
            let stale = try await client.send(.post, "/auth/v1/verify", json: ["type": "recovery", "email": "done@example.com", "token": .string(recovery)])
            #expect(stale.status == .forbidden)
            #expect(stale.json["error_code"] == "otp_expired")
            #expect(try live(.emailChange).isEmpty)
            #expect(try live(.reauthentication).isEmpty)
            // The admin's new password does the same.
            harness.emulator.clock.advance(by: 61)
            try await client.send(.post, "/auth/v1/recover", json: ["email": "done@example.com"])
            let fresh = try #require(try codes(.resetPassword).first)
            #expect(try live(.resetPassword) == ["done@example.com"])
            let admin = try await client.send(.put, "/auth/v1/admin/users/\(confirmedUser.id!)", json: ["password": "third-secret"], headers: serviceRole)
            #expect(admin.json["recovery_sent_at"] == nil)
            let retired = try await client.send(.post, "/auth/v1/verify", json: ["type": "recovery", "email": "done@example.com", "token": .string(fresh)])
            #expect(retired.status == .forbidden)
            // A code sent after the change works.
            harness.emulator.clock.advance(by: 61)
            try await client.send(.post, "/auth/v1/recover", json: ["email": "done@example.com"])
            let after = try await client.send(.post, "/auth/v1/verify", json: ["type": "recovery", "email": "done@example.com",
                                                                                "token": .string(try #require(try codes(.resetPassword).first))])
            #expect(after.status == .ok)
        }
    }

    @Test func onlyTheNewestCodeWorks() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            try await client.send(.post, "/auth/v1/otp", json: ["email": "done@example.com"])
            harness.emulator.clock.advance(by: 120)
            try await client.send(.post, "/auth/v1/otp", json: ["email": "done@example.com"])
            let messages = try harness.emulator.messages()
            let (newer, older) = (messages[0].codes[0], messages[1].codes[0])
            if newer != older {
                let stale = try await client.send(.post, "/auth/v1/verify", json: ["type": "magiclink", "email": "done@example.com", "token": .string(older)])
                #expect(stale.status == .forbidden)
            }
            let fresh = try await client.send(.post, "/auth/v1/verify", json: ["type": "magiclink", "email": "done@example.com", "token": .string(newer)])
            #expect(fresh.status == .ok)
        }
    }
}

@Suite struct PKCEFlowTests {
    let verifier = "a-very-long-code-verifier-of-at-least-43-characters"

    @Test func signupWithAChallengeRedirectsWithACodeThatTheVerifierExchanges() async throws {
        let harness = try Harness(seed: project())
        let challengeValue = PKCEChallenge.s256(verifier: verifier).challenge
        try await harness.run { client in
            let signup = try await client.send(.post, "/auth/v1/signup?redirect_to=myapp://cb", json: [
                "email": "pkce@example.com", "password": "secret123", "code_challenge": .string(challengeValue), "code_challenge_method": "s256",
            ])
            #expect(signup.status == .ok)
            let link = try #require(try harness.emulator.messages().first?.links.first)
            #expect(link.contains("token=pkce_"))
            let path = String(link[link.range(of: "/auth/v1/verify")!.lowerBound...])
            let redirect = try await client.send(.get, path)
            let location = try #require(redirect.headers[.location])
            #expect(location.hasPrefix("myapp://cb?code="))
            let code = String(location.dropFirst("myapp://cb?code=".count))
            #expect(try harness.emulator.deepLinks().first?.params["code"] == code)

            let wrong = try await client.send(.post, "/auth/v1/token?grant_type=pkce", json: ["auth_code": .string(code), "code_verifier": "nope"],
                                              headers: .supabaseClient)
            #expect(wrong.json["code"] == "bad_code_verifier")
            let session = try await client.send(.post, "/auth/v1/token?grant_type=pkce", json: ["auth_code": .string(code), "code_verifier": .string(verifier)])
            #expect(session.status == .ok)
            #expect(session.json["user"]?["email_confirmed_at"] != nil)
            let claims = try JWS.verify(session.json["access_token"]!.stringValue!, keys: [projectKey.verificationKey]).claims
            #expect(claims["amr"]?[0]?["method"] == "email/signup")
            let again = try await client.send(.post, "/auth/v1/token?grant_type=pkce", json: ["auth_code": .string(code), "code_verifier": .string(verifier)],
                                              headers: .supabaseClient)
            #expect(again.status == .notFound)
            #expect(again.json["code"] == "flow_state_not_found")
        }
    }

    @Test func challengeParametersComeTogetherAndAreValidated() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { (client: Client) async throws in
            #expect(try await client.send(.post, "/auth/v1/signup", json: ["email": "a@example.com", "password": "secret123", "code_challenge": .string(PKCEChallenge.s256(verifier: verifier).challenge)],
                                          headers: .supabaseClient).json["code"] == "validation_failed")
            #expect(try await client.send(.post, "/auth/v1/otp", json: ["email": "a@example.com", "code_challenge": "short", "code_challenge_method": "s256"],
                                          headers: .supabaseClient).json["code"] == "validation_failed")
            #expect(try await client.send(.post, "/auth/v1/token?grant_type=pkce", json: ["auth_code": "x"], headers: .supabaseClient).json["code"] == "validation_failed")
        }
    }
}

