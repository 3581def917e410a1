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

