import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct PhoneTests {
    /// Sends a code to `phone`; answers the `sessionInfo` and the texted code.
    func sendCode(_ client: Client, _ harness: Harness, _ phone: String) async throws -> (sessionInfo: String, code: String) {
        let reply = try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": .string(phone), "recaptchaToken": "ignored"])
        #expect(reply.status == .ok)
        let sessionInfo = try #require(reply.json["sessionInfo"]?.stringValue)
        let code = try #require(try harness.emulator.messages(MessageFilter(channel: .sms, to: phone)).first?.codes.first)
        return (sessionInfo, code)
    }

    @Test func aTextedCodeSignsInANewPhoneUserThenTheSameOne() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let (sessionInfo, code) = try await sendCode(client, harness, "+15550100001")
            let sms = try #require(try harness.emulator.messages().first)
            #expect(sms.channel == .sms)
            #expect(sms.status == .sent)
            #expect(sms.text == "\(code) is your verification code for Demo App.")
            #expect(code.wholeMatch(of: #/[0-9]{6}/#) != nil)
            let first = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(sessionInfo), "code": .string(code)])
            #expect(first.status == .ok)
            #expect(first.json["isNewUser"] == true)
            #expect(first.json["phoneNumber"] == "+15550100001")
            let token = try claims(first.json["idToken"])
            #expect(token["phone_number"] == "+15550100001")
            #expect(token["firebase"] == ["identities": ["phone": ["+15550100001"]], "sign_in_provider": "phone"])

            harness.emulator.clock.advance(by: 31)
            let (again, againCode) = try await sendCode(client, harness, "+15550100001")
            let second = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(again), "code": .string(againCode)])
            #expect(second.json["isNewUser"] == false)
            #expect(second.json["localId"] == first.json["localId"])
        }
    }

    @Test func aWrongCodeLeavesTheCodeUsableAndAUsedOneIsGone() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let (sessionInfo, code) = try await sendCode(client, harness, "+15550100002")
            let wrongCode = code == "000000" ? "111111" : "000000"
            let wrong = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(sessionInfo), "code": .string(wrongCode)])
            #expect(errorMessage(wrong) == "INVALID_CODE")
            let right = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(sessionInfo), "code": .string(code)])
            #expect(right.status == .ok)
            let reused = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(sessionInfo), "code": .string(code)])
            #expect(errorMessage(reused) == "INVALID_SESSION_INFO")
            #expect(errorMessage(try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": "made-up", "code": "123456"]))
                    == "INVALID_SESSION_INFO")
            #expect(errorMessage(try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["code": "123456"])) == "MISSING_SESSION_INFO")
            #expect(errorMessage(try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(sessionInfo)]))
                    == "MISSING_CODE")
        }
    }

    @Test func numbersMustBeE164() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let national = try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "5550100"])
            #expect(errorMessage(national) == "INVALID_PHONE_NUMBER : Invalid format.")
            let missing = try await client.send(.post, accounts("sendVerificationCode"), json: [:])
            #expect(errorMessage(missing) == "INVALID_PHONE_NUMBER : Invalid format.")
        }
        #expect(try harness.emulator.messages().isEmpty)
    }

    @Test func testNumbersTakeTheirFixedCodeAndNothingIsTexted() async throws {
        let harness = try Harness(seed: firebaseProject(["test_phone_numbers": ["+15555550123": "123456"]]))
        try await harness.run { client in
            let first = try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15555550123"])
            // No resend interval for a test number.
            let second = try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15555550123"])
            #expect(first.status == .ok)
            #expect(second.status == .ok)
            let sms = try #require(try harness.emulator.messages().first)
            #expect(sms.status == .suppressed)
            #expect(sms.codes == ["123456"])
            let signedIn = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": second.json["sessionInfo"]!, "code": "123456"])
            #expect(signedIn.json["phoneNumber"] == "+15555550123")
            #expect(signedIn.json["isNewUser"] == true)
        }
    }

    /// The Firebase emulator texts a number as often as it is asked; so does a project with no
    /// `phone_resend_interval`.
    @Test func byDefaultANumberMayBeSentCodesBackToBack() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client async throws in
            for _ in 0..<3 {
                #expect(try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15550100003"]).status == .ok)
            }
        }
    }

    @Test func theSameNumberWaitsOutTheResendInterval() async throws {
        let harness = try Harness(seed: firebaseProject(["phone_resend_interval": 30]))
        try await harness.run { client in
            _ = try await sendCode(client, harness, "+15550100003")
            let tooSoon = try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15550100003"])
            #expect(tooSoon.status == .badRequest)
            #expect(errorMessage(tooSoon) == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(tooSoon.headers[.retryAfter] == "30")
            // Another number is not held up.
            #expect(try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15550100004"]).status == .ok)
            harness.emulator.clock.advance(by: 10)
            #expect(try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15550100003"]).headers[.retryAfter] == "20")
            harness.emulator.clock.advance(by: 20)
            #expect(try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15550100003"]).status == .ok)
        }
    }

    @Test func anExpiredCodeIsSessionExpired() async throws {
        let harness = try Harness(seed: firebaseProject(["phone_code_ttl": 120]))
        try await harness.run { client in
            let (sessionInfo, code) = try await sendCode(client, harness, "+15550100005")
            harness.emulator.clock.advance(by: 121)
            let late = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(sessionInfo), "code": .string(code)])
            #expect(errorMessage(late) == "SESSION_EXPIRED")
        }
    }

    @Test func theEmulatorListsTheCodesWaitingToBeUsed() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let (sessionInfo, code) = try await sendCode(client, harness, "+15550100006")
            let listed = try await client.send(.get, "/emulator/v1/projects/p/verificationCodes")
            #expect(listed.json == ["verificationCodes": [["code": .string(code), "phoneNumber": "+15550100006", "sessionInfo": .string(sessionInfo)]]])
            _ = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["sessionInfo": .string(sessionInfo), "code": .string(code)])
            #expect(try await client.send(.get, "/emulator/v1/projects/p/verificationCodes").json == ["verificationCodes": []])
        }
    }

    @Test func linkingANumberAddsItAndSomeoneElsesAnswersATemporaryProof() async throws {
        let owned = Seed.UserSeed(id: "phone-owner", phone: "+15550100007", phoneVerified: true)
        let harness = try Harness(seed: firebaseProject(users: [alice, owned]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let (freeSession, freeCode) = try await sendCode(client, harness, "+15550100008")
            let linked = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["idToken": session["idToken"]!,
                                                                                               "sessionInfo": .string(freeSession), "code": .string(freeCode)])
            #expect(linked.json["localId"] == "alice-uid")
            #expect(try claims(linked.json["idToken"])["phone_number"] == "+15550100008")

            let (takenSession, takenCode) = try await sendCode(client, harness, "+15550100007")
            let conflict = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["idToken": session["idToken"]!,
                                                                                                 "sessionInfo": .string(takenSession), "code": .string(takenCode)])
            #expect(conflict.status == .ok)
            #expect(conflict.json["idToken"] == nil)
            #expect(conflict.json["temporaryProofExpiresIn"] == "3600")
            let proof = try #require(conflict.json["temporaryProof"])
            let withProof = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["phoneNumber": "+15550100007", "temporaryProof": proof])
            #expect(withProof.json["localId"] == "phone-owner")
            let wrongNumber = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["phoneNumber": "+15550100009", "temporaryProof": proof])
            #expect(errorMessage(wrongNumber) == "INVALID_TEMPORARY_PROOF")
            // As the emulator has it: a proof comes with its number, and linking with the proof of a number another
            // account has is refused outright (the SDK's credentialFromError would loop on a new proof).
            let bare = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["temporaryProof": proof])
            #expect(errorMessage(bare) == "MISSING_PHONE_NUMBER")
            let relink = try await client.send(.post, accounts("signInWithPhoneNumber"), json: ["idToken": session["idToken"]!,
                                                                                               "phoneNumber": "+15550100007", "temporaryProof": proof])
            #expect(errorMessage(relink) == "PHONE_NUMBER_EXISTS")
        }
    }

    /// Identity Toolkit (and the Firebase emulator) refuse to text a sign-in code to the number of a user
    /// with a second factor: `UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on
    /// an SMS based MFA user.`
    @Test func aNumberOfAnMFAUserCannotBeAFirstFactor() async throws {
        let user = Seed.UserSeed(id: "mfa-uid", email: "m@example.com", phone: "+15550100010", password: "secret123", emailVerified: true,
                                 phoneVerified: true)
        let harness = try Harness(seed: firebaseProject(users: [user]))
        try await harness.run { client in
            let enrolled = try await client.send(.post, projectAccounts("update"), json: ["localId": "mfa-uid",
                                                                                         "mfa": ["enrollments": [["phoneInfo": "+15550100011"]]]],
                                                 headers: owner)
            #expect(enrolled.status == .ok)
            let reply = try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15550100010"])
            #expect(errorMessage(reply) == "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")
        }
    }
}
