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
            // GoTrue's DowngradeSessionsToAAL1: the session the factor raised is aal1 again from its next token, its
            // amr without the factor (mfa_test.go's unenroll test).
            let refreshed = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": aal2["refresh_token"]!],
                                                  headers: .supabaseClient)
            let claims = try JWS.verify(try #require(refreshed.json["access_token"]?.stringValue), keys: [projectKey.verificationKey]).claims
            #expect(claims["aal"] == "aal1")
            #expect(claims["amr"]?.arrayValue?.compactMap { $0["method"]?.stringValue } == ["password"])
        }
    }

    /// Only the factor removed lowers a session: one raised by another factor of the user keeps aal2.
    /// Enrols a TOTP factor from `session` and verifies it: the factor's id and the aal2 session.
    func enrollAndVerify(_ client: Client, _ harness: Harness, _ session: JSON, _ name: String) async throws -> (id: String, session: JSON) {
        let factor = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp", "friendly_name": .string(name)],
                                           headers: bearer(session)).json
        let id = try #require(factor["id"]?.stringValue)
        let totp = TOTP(secret: try #require(factor["totp"]?["secret"]?.stringValue.flatMap(Base32.decode)))
        let challenge = try await client.send(.post, "/auth/v1/factors/\(id)/challenge", headers: bearer(session)).json
        let verified = try await client.send(.post, "/auth/v1/factors/\(id)/verify",
                                             json: ["challenge_id": challenge["id"]!, "code": .string(totp.code(at: harness.emulator.clock.now))],
                                             headers: bearer(session)).json
        return (id, verified)
    }

    @Test func removingAFactorLowersOnlyTheSessionsItRaised() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let first = try await enrollAndVerify(client, harness, try await signIn(client), "first")
            harness.emulator.clock.advance(by: 30)
            let second = try await enrollAndVerify(client, harness, first.session, "second")
            #expect(try await client.send(.delete, "/auth/v1/factors/\(first.id)", headers: bearer(second.session)).status == .ok)
            let refreshed = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": second.session["refresh_token"]!],
                                                  headers: .supabaseClient)
            let claims = try JWS.verify(try #require(refreshed.json["access_token"]?.stringValue), keys: [projectKey.verificationKey]).claims
            #expect(claims["aal"] == "aal2")
            #expect(claims["amr"]?.arrayValue?.compactMap { $0["method"]?.stringValue } == ["totp", "password"])
        }
    }

    /// GoTrue's `GOTRUE_SESSIONS_ALLOW_LOW_AAL`: an aal1 session of a user with a verified factor ends that long after
    /// its sign-in, and its access tokens with it; an aal2 session, or any session of a user without a factor, does not.
    @Test func aLowAssuranceSessionEndsAfterItsAllowance() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SESSIONS_ALLOW_LOW_AAL": "10m"], users: [confirmedUser]))
        try await harness.run { client in
            func refresh(_ session: JSON) async throws -> Reply {
                try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": session["refresh_token"]!],
                                      headers: .supabaseClient)
            }
            let withoutFactor = try await signIn(client)
            #expect(withoutFactor["expires_in"] == 3600)
            let raised = try await enrollAndVerify(client, harness, withoutFactor, "app").session
            #expect(raised["expires_in"] == 3600)
            let low = try await signIn(client)
            #expect(low["expires_in"] == 600)
            harness.emulator.clock.advance(by: 240)
            let refreshed = try await refresh(low)
            #expect(refreshed.json["expires_in"] == 360, "still ending at the allowance's end")
            harness.emulator.clock.advance(by: 361)
            #expect(try await refresh(refreshed.json).json == ["code": "session_expired",
                                                              "message": "Invalid Refresh Token: Session Expired (Low AAL: User Needs MFA Verification)"])
            let stillRaised = try await refresh(raised)
            #expect(stillRaised.status == .ok)
            #expect(stillRaised.json["expires_in"] == 3600)
        }
    }

    /// GoTrue's `validateFactors` compares every name, the missing (empty) one too; and its TOTP check keeps no record
    /// of used codes, so a code may answer a new challenge in its window (a frozen clock's suite signs in twice).
    @Test func unnamedFactorsConflictAndACodeMayAnswerANewChallenge() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            #expect(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp"], headers: bearer(session)).status == .ok)
            let again = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp"], headers: bearer(session))
            #expect(again.json["code"] == "mfa_factor_name_conflict")

            let (id, raised) = try await enrollAndVerify(client, harness, session, "named")
            let secretFactor = try #require(try harness.emulator.requireFactor(in: "p", userId: confirmedUser.id!, id: id).totp)
            let code = secretFactor.code(at: harness.emulator.clock.now)
            let challenge = try await client.send(.post, "/auth/v1/factors/\(id)/challenge", headers: bearer(raised)).json
            let replayed = try await client.send(.post, "/auth/v1/factors/\(id)/verify", json: ["challenge_id": challenge["id"]!, "code": .string(code)],
                                                 headers: bearer(raised))
            #expect(replayed.status == .ok)
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

    static let phoneMFA = ["GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true", "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true"]

    /// The code the emulator texted for the latest MFA challenge.
    func lastMFACode(_ harness: Harness) throws -> String {
        try #require(harness.emulator.messages(MessageFilter(channel: .sms, purpose: .mfa)).first?.codes.first)
    }

    @Test func phoneFactorTextsACodePerChallengeAndVerifiesToAAL2() async throws {
        let harness = try Harness(seed: project(Self.phoneMFA, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let other = try await signIn(client)
            let enrolled = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "phone", "phone": "+1 555 010 0000"],
                                                 headers: bearer(session))
            #expect(enrolled.status == .ok)
            #expect(enrolled.json["type"] == "phone" && enrolled.json["phone"] == "+1 555 010 0000" && enrolled.json["totp"] == nil)
            let factorId = try #require(enrolled.json["id"]?.stringValue)

            let first = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", json: ["channel": nil], headers: bearer(session))
            #expect(first.json["type"] == "phone")
            let firstCode = try lastMFACode(harness)
            let sms = try #require(harness.emulator.messages(MessageFilter(channel: .sms)).first)
            #expect(sms.to == "+15550100000" && sms.text == "Your code is \(firstCode)")
            // One text per GOTRUE_MFA_PHONE_MAX_FREQUENCY (60 s).
            let tooSoon = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", headers: bearer(session))
            #expect(tooSoon.status == .tooManyRequests && tooSoon.json["code"] == "over_sms_send_rate_limit")

            harness.emulator.clock.advance(by: 61)
            let second = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", headers: bearer(session)).json
            let secondCode = try lastMFACode(harness)
            // A code answers only the challenge it was sent for.
            if firstCode != secondCode {
                let crossed = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify",
                                                    json: ["challenge_id": second["id"]!, "code": .string(firstCode)], headers: bearer(session))
                #expect(crossed.json["code"] == "mfa_verification_failed")
                #expect(crossed.json["message"] == "Invalid MFA Phone code entered")
            }
            let verified = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify",
                                                 json: ["challenge_id": second["id"]!, "code": .string(secondCode)], headers: bearer(session))
            #expect(verified.status == .ok)
            let claims = try JWS.verify(verified.json["access_token"]!.stringValue!, keys: [projectKey.verificationKey]).claims
            #expect(claims["aal"] == "aal2")
            #expect(claims["amr"]?.arrayValue?.first?["method"] == "mfa/phone")
            // Used once only.
            let replay = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify",
                                               json: ["challenge_id": second["id"]!, "code": .string(secondCode)], headers: bearer(verified.json))
            #expect(replay.status == .unprocessableContent)
            // GoTrue ends the user's other aal1 sessions once a factor is verified.
            #expect(try await client.send(.get, "/auth/v1/user", headers: bearer(other)).json["code"] == "session_not_found")
            // A further factor needs an aal2 session, and the same number cannot be enrolled twice.
            let fresh = try await signIn(client)
            #expect(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp"], headers: bearer(fresh)).json["code"] == "insufficient_aal")
            let again = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "phone", "phone": "+15550100000"], headers: bearer(verified.json))
            #expect(again.json["code"] == "mfa_verified_factor_exists")
        }
    }

    @Test func phoneFactorsNeedAValidNumberAndTheSwitchesOn() async throws {
        let harness = try Harness(seed: project(["GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true"], users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            #expect(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "phone"], headers: bearer(session)).status == .badRequest)
            #expect(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "phone", "phone": "call me"], headers: bearer(session)).json["message"]
                    == "Invalid phone number format (E.164 required)")
            let factor = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "phone", "phone": "+15550100000"], headers: bearer(session)).json
            let challenge = try await client.send(.post, "/auth/v1/factors/\(factor["id"]!.stringValue!)/challenge", headers: bearer(session))
            #expect(challenge.json["code"] == "mfa_phone_verify_not_enabled")
            #expect(try harness.emulator.messages(MessageFilter(purpose: .mfa)).isEmpty)
            // Enrolling the same unverified number again replaces the factor.
            let replaced = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "phone", "phone": "+15550100000"], headers: bearer(session)).json
            #expect(replaced["id"] != factor["id"])
            #expect(try harness.emulator.factors(in: "p", userId: confirmedUser.id!).map(\.id) == [replaced["id"]!.stringValue!])
        }
    }
}
