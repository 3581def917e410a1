import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct FactorTests {
    func signIn(_ client: Client) async throws -> JSON {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
    }

    @Test func totpEnrollChallengeVerifyRaisesTheSessionToAAL2() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let enrolled = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp", "friendly_name": "phone app", "issuer": "Growbro"],
                                                 headers: bearer(session))
            #expect(enrolled.status == .ok)
            #expect(enrolled.json["type"] == "totp")
            let secret = try #require(enrolled.json["totp"]?["secret"]?.stringValue)
            #expect(enrolled.json["totp"]?["uri"] == .string("otpauth://totp/Growbro:done@example.com?algorithm=SHA1&digits=6&issuer=Growbro&period=30&secret=\(secret)"))
            #expect(enrolled.json["totp"]?["qr_code"]?.stringValue?.hasPrefix("<svg") == true)
            let factorId = try #require(enrolled.json["id"]?.stringValue)
            #expect(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp", "friendly_name": "phone app"],
                                          headers: bearer(session)).json["code"] == "mfa_factor_name_conflict")

            let challenge = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", headers: bearer(session))
            #expect(challenge.json["expires_at"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 300))
            let challengeId = try #require(challenge.json["id"]?.stringValue)
            let totp = TOTP(secret: try #require(Base32.decode(secret)))
            let wrongCode = totp.code(at: Harness.epoch.addingTimeInterval(600))
            let wrong = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify", json: ["challenge_id": .string(challengeId), "code": .string(wrongCode)],
                                              headers: bearer(session))
            #expect(wrong.json["code"] == "mfa_verification_failed")
            let verified = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify",
                                                 json: ["challenge_id": .string(challengeId), "code": .string(totp.code(at: Harness.epoch))],
                                                 headers: bearer(session))
            #expect(verified.status == .ok)
            let claims = try JWS.verify(verified.json["access_token"]!.stringValue!, keys: [projectKey.verificationKey]).claims
            #expect(claims["aal"] == "aal2")
            #expect(claims["amr"]?.arrayValue?.compactMap { $0["method"]?.stringValue } == ["totp", "password"])
            #expect(verified.json["user"]?["factors"]?[0]?["status"] == "verified")
            // The aal1 refresh token is retired: it cannot mint aal2 sessions.
            let oldRefresh = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": session["refresh_token"]!],
                                                   headers: .supabaseClient)
            #expect(oldRefresh.status == .badRequest)
        }
    }

    @Test func challengesExpireAndRemoveVerifiedFactorsOnlyAtAAL2() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let factor = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp"], headers: bearer(session)).json
            let factorId = factor["id"]!.stringValue!
            let totp = TOTP(secret: Base32.decode(factor["totp"]!["secret"]!.stringValue!)!)
            let challenge = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", headers: bearer(session)).json
            harness.emulator.clock.advance(by: 301)
            let late = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify",
                                             json: ["challenge_id": challenge["id"]!, "code": .string(totp.code(at: harness.emulator.clock.now))],
                                             headers: bearer(session))
            #expect(late.json["code"] == "mfa_challenge_expired")
            let again = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", headers: bearer(session)).json
            let aal2 = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify",
                                             json: ["challenge_id": again["id"]!, "code": .string(totp.code(at: harness.emulator.clock.now))],
                                             headers: bearer(session)).json
            let other = try await signIn(client)
            #expect(try await client.send(.delete, "/auth/v1/factors/\(factorId)", headers: bearer(other)).json["code"] == "insufficient_aal")
            #expect(try await client.send(.delete, "/auth/v1/factors/\(factorId)", headers: bearer(aal2)).json == ["id": .string(factorId)])
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(aal2)).json["factors"] == nil)
        }
    }

    @Test func adminsListAndRemoveFactors() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let factor = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp", "friendly_name": "a"], headers: bearer(session)).json
            let list = try await client.send(.get, "/auth/v1/admin/users/\(confirmedUser.id!)/factors", headers: serviceRole)
            #expect(list.json.arrayValue?.map { $0["friendly_name"] } == ["a"])
            let removed = try await client.send(.delete, "/auth/v1/admin/users/\(confirmedUser.id!)/factors/\(factor["id"]!.stringValue!)", headers: serviceRole)
            #expect(removed.json["id"] == factor["id"])
            #expect(try await client.send(.get, "/auth/v1/admin/users/\(confirmedUser.id!)/factors", headers: serviceRole).json == [])
        }
    }

    @Test func enrollmentCanBeSwitchedOff() async throws {
        let harness = try Harness(seed: project(["GOTRUE_MFA_TOTP_ENROLL_ENABLED": "false"], users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            #expect(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp"], headers: bearer(session)).json["code"] == "mfa_totp_enroll_not_enabled")
            #expect(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "phone", "phone": "+15550100000"], headers: bearer(session)).status == .unprocessableContent)
        }
    }
}
