import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Second factors: TOTP set-up with an access token or an `MFA_SETUP` session, SMS and email codes,
/// choosing between methods, and how many wrong answers a sign-in session takes.
@Suite struct MFATests {
    /// A pool with every MFA method configured; `dave` has only an email, `erin` a phone as well.
    static func mfaSeed(_ configuration: String = "OPTIONAL", sms: Bool = true, email: Bool = true) -> Seed {
        var pool: [String: JSON] = ["MfaConfiguration": .string(configuration), "SoftwareTokenMfaConfiguration": ["Enabled": true]]
        if sms { pool["SmsMfaConfiguration"] = ["SmsAuthenticationMessage": "Your test code is {####}"] }
        if email { pool["EmailMfaConfiguration"] = ["Subject": "Your sign-in code", "Message": "Sign in with {####}"] }
        return cognitoSeed(pool: pool, users: [dave, erin])
    }

    func totp(_ secret: String, _ harness: Harness, offset: TimeInterval = 0) throws -> String {
        TOTP(secret: try #require(Base32.decode(secret))).code(at: harness.emulator.clock.now.addingTimeInterval(offset))
    }

    func setPreference(_ client: Client, _ username: String, _ settings: [String: JSON]) async throws -> Reply {
        var body = settings
        body["UserPoolId"] = .string(testPool)
        body["Username"] = .string(username)
        return try await client.cognito("AdminSetUserMFAPreference", .object(body))
    }

    /// A different six digits than `code`.
    func wrong(_ code: String) -> String { String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) }) }

    @Test func anAuthenticatorIsAssociatedVerifiedAndThenAsked() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            let tokens = try await client.signIn("dave", clientId: testClient)
            let associated = try await client.cognito("AssociateSoftwareToken", ["AccessToken": tokens["AccessToken"] ?? .null])
            let secret = try #require(associated.json["SecretCode"]?.stringValue)
            #expect(secret.count == 32 && Base32.decode(secret)?.count == 20)
            #expect(associated.json["Session"] == nil)

            let early = try await setPreference(client, "dave", ["SoftwareTokenMfaSettings": ["Enabled": true, "PreferredMfa": true]])
            #expect(early.json == ["__type": "InvalidParameterException", "message": "User does not have delivery config set to turn on SOFTWARE_TOKEN_MFA"])
            let mismatch = try await client.cognito("VerifySoftwareToken", ["AccessToken": tokens["AccessToken"] ?? .null, "UserCode": .string(wrong(try totp(secret, harness)))])
            #expect(mismatch.errorType == "EnableSoftwareTokenMFAException")
            let verified = try await client.cognito("VerifySoftwareToken", ["AccessToken": tokens["AccessToken"] ?? .null, "UserCode": .string(try totp(secret, harness)),
                                                                            "FriendlyDeviceName": "phone"])
            #expect(verified.json == ["Status": "SUCCESS"])
            let preferred = try await client.cognito("SetUserMFAPreference", ["AccessToken": tokens["AccessToken"] ?? .null,
                                                                              "SoftwareTokenMfaSettings": ["Enabled": true, "PreferredMfa": true]])
            #expect(preferred.json == [:])
            let user = try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null])
            #expect(user.json["UserMFASettingList"] == ["SOFTWARE_TOKEN_MFA"])
            #expect(user.json["PreferredMfaSetting"] == "SOFTWARE_TOKEN_MFA")

            let challenged = try await client.passwordAuth("dave", clientId: testClient)
            #expect(challenged.json["ChallengeName"] == "SOFTWARE_TOKEN_MFA")
            #expect(challenged.json["AuthenticationResult"] == nil)
            #expect(challenged.json["ChallengeParameters"] == ["FRIENDLY_DEVICE_NAME": "phone", "USER_ID_FOR_SRP": "dave"])
            let session = challenged.json["Session"]
            // The code VerifySoftwareToken took cannot sign in too.
            let reused = try await client.respond("SOFTWARE_TOKEN_MFA", session: session, ["USERNAME": "dave", "SOFTWARE_TOKEN_MFA_CODE": .string(try totp(secret, harness))],
                                                  clientId: testClient)
            #expect(reused.json == ["__type": "ExpiredCodeException", "message": "Your software token has already been used once."])
            harness.emulator.clock.advance(by: 30)
            let answered = try await client.respond("SOFTWARE_TOKEN_MFA", session: session, ["USERNAME": "dave", "SOFTWARE_TOKEN_MFA_CODE": .string(try totp(secret, harness))],
                                                    clientId: testClient)
            #expect(try claims(answered.json["AuthenticationResult"]?["AccessToken"])["username"] == "dave")
        }
    }

    @Test func threeWrongAnswersSpendTheSession() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            _ = try await setPreference(client, "erin", ["SMSMfaSettings": ["Enabled": true, "PreferredMfa": true]])
            let challenged = try await client.passwordAuth("erin", clientId: testClient)
            let code = try latestCode(harness, to: "+15555550123", purpose: .mfa)
            for _ in 0..<3 {
                let reply = try await client.respond("SMS_MFA", session: challenged.json["Session"], ["USERNAME": "erin", "SMS_MFA_CODE": .string(wrong(code))],
                                                     clientId: testClient)
                #expect(reply.json == ["__type": "CodeMismatchException", "message": "Invalid code or auth state for the user."])
            }
            let late = try await client.respond("SMS_MFA", session: challenged.json["Session"], ["USERNAME": "erin", "SMS_MFA_CODE": .string(code)],
                                                clientId: testClient)
            #expect(late.errorType == "NotAuthorizedException")
            #expect(late.message?.hasPrefix("Invalid session for the user") == true)
            #expect(late.json["AuthenticationResult"] == nil)
        }
    }

    @Test func smsMFATextsACodeThatSignsIn() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            #expect(try await setPreference(client, "erin", ["SMSMfaSettings": ["Enabled": true, "PreferredMfa": true]]).status == .ok)
            let record = try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "erin"])
            #expect(record.json["UserMFASettingList"] == ["SMS_MFA"])
            #expect(record.json["MFAOptions"] == [["DeliveryMedium": "SMS", "AttributeName": "phone_number"]])

            let challenged = try await client.passwordAuth("erin", clientId: testClient)
            #expect(challenged.json["ChallengeName"] == "SMS_MFA")
            #expect(challenged.json["ChallengeParameters"] == ["CODE_DELIVERY_DELIVERY_MEDIUM": "SMS", "CODE_DELIVERY_DESTINATION": "+*******0123"])
            let message = try #require(try harness.emulator.messages(MessageFilter(to: "+15555550123", purpose: .mfa)).first)
            #expect(message.channel == .sms)
            #expect(message.text == "Your test code is \(message.codes[0])")
            let answered = try await client.respond("SMS_MFA", session: challenged.json["Session"], ["USERNAME": "erin", "SMS_MFA_CODE": .string(message.codes[0])],
                                                    clientId: testClient)
            #expect(answered.json["AuthenticationResult"]?["RefreshToken"] != nil)
            // The answered session is used up.
            let again = try await client.respond("SMS_MFA", session: challenged.json["Session"], ["USERNAME": "erin", "SMS_MFA_CODE": .string(message.codes[0])],
                                                 clientId: testClient)
            #expect(again.errorType == "NotAuthorizedException")
        }
    }

    @Test func emailMFASendsTheCodeByEmail() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            let tokens = try await client.signIn("dave", clientId: testClient)
            let set = try await client.cognito("SetUserMFAPreference", ["AccessToken": tokens["AccessToken"] ?? .null,
                                                                        "EmailMfaSettings": ["Enabled": true, "PreferredMfa": true]])
            #expect(set.status == .ok)
            let challenged = try await client.passwordAuth("dave", clientId: testClient)
            #expect(challenged.json["ChallengeName"] == "EMAIL_OTP")
            #expect(challenged.json["ChallengeParameters"]?["CODE_DELIVERY_DESTINATION"] == "d***@e***")
            let message = try #require(try harness.emulator.messages(MessageFilter(to: "dave@example.com", purpose: .mfa)).first)
            #expect(message.subject == "Your sign-in code")
            #expect(message.text == "Sign in with \(message.codes[0])")
            let answered = try await client.respond("EMAIL_OTP", session: challenged.json["Session"], ["USERNAME": "dave", "EMAIL_OTP_CODE": .string(message.codes[0])],
                                                    clientId: testClient)
            #expect(answered.json["AuthenticationResult"]?["AccessToken"] != nil)
        }
    }

    @Test func severalMethodsWithoutAPreferenceAskTheUserToSelect() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            _ = try await setPreference(client, "erin", ["SMSMfaSettings": ["Enabled": true], "EmailMfaSettings": ["Enabled": true]])
            let challenged = try await client.passwordAuth("erin", clientId: testClient)
            #expect(challenged.json["ChallengeName"] == "SELECT_MFA_TYPE")
            let choices = try JSON.parse(Array((challenged.json["ChallengeParameters"]?["MFAS_CAN_CHOOSE"]?.stringValue ?? "").utf8))
            #expect(Set(choices.arrayValue?.compactMap(\.stringValue) ?? []) == ["SMS_MFA", "EMAIL_OTP"])
            #expect(try harness.emulator.messages(MessageFilter(to: "+15555550123")).isEmpty, "no code before the user picks")

            let notEnabled = try await client.respond("SELECT_MFA_TYPE", session: challenged.json["Session"], ["USERNAME": "erin", "ANSWER": "SOFTWARE_TOKEN_MFA"],
                                                      clientId: testClient)
            #expect(notEnabled.status == .badRequest)
            #expect(try harness.emulator.messages(MessageFilter(to: "+15555550123")).isEmpty)
            let picked = try await client.respond("SELECT_MFA_TYPE", session: challenged.json["Session"], ["USERNAME": "erin", "ANSWER": "SMS_MFA"],
                                                  clientId: testClient)
            #expect(picked.json["ChallengeName"] == "SMS_MFA")
            #expect(picked.json["Session"] != challenged.json["Session"])
            let code = try latestCode(harness, to: "+15555550123", purpose: .mfa)
            let answered = try await client.respond("SMS_MFA", session: picked.json["Session"], ["USERNAME": "erin", "SMS_MFA_CODE": .string(code)],
                                                    clientId: testClient)
            #expect(answered.json["AuthenticationResult"] != nil)
        }
    }

    /// `SetUserSettings`' legacy SMS MFA shows only as `MFAOptions` (AWS's way), asks for a code at sign-in, and goes
    /// with an empty list; the auth factors list what a `USER_AUTH` sign-in offers beside the MFA settings.
    @Test func legacySMSSettingsAndTheUsersAuthFactors() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            let erin: JSON = ["UserPoolId": .string(testPool), "Username": "erin"]
            let sms: JSON = [["DeliveryMedium": "SMS", "AttributeName": "phone_number"]]
            let factors = try await client.cognito("AdminGetUserAuthFactors", erin)
            #expect(factors.json == ["Username": "erin", "ConfiguredUserAuthFactors": ["PASSWORD"]])
            #expect(try await client.cognito("AdminSetUserSettings", ["UserPoolId": .string(testPool), "Username": "erin", "MFAOptions": sms]).status == .ok)
            let record = try await client.cognito("AdminGetUser", erin)
            #expect(record.json["MFAOptions"] == sms && record.json["UserMFASettingList"] == nil && record.json["PreferredMfaSetting"] == nil)
            #expect(try await client.passwordAuth("erin", clientId: testClient).json["ChallengeName"] == "SMS_MFA")
            #expect(try await client.cognito("AdminSetUserSettings", ["UserPoolId": .string(testPool), "Username": "erin", "MFAOptions": []]).status == .ok)
            #expect(try await client.cognito("AdminGetUser", erin).json["MFAOptions"] == nil)
            #expect(try await client.passwordAuth("erin", clientId: testClient).json["AuthenticationResult"] != nil)
            // dave has no phone for SMS codes.
            let phoneless = try await client.cognito("AdminSetUserSettings", ["UserPoolId": .string(testPool), "Username": "dave", "MFAOptions": sms])
            #expect(phoneless.errorType == "InvalidParameterException")

            _ = try await setPreference(client, "erin", ["SMSMfaSettings": ["Enabled": true, "PreferredMfa": true]])
            let set = try await client.cognito("AdminGetUserAuthFactors", erin)
            #expect(set.json["UserMFASettingList"] == ["SMS_MFA"] && set.json["PreferredMfaSetting"] == "SMS_MFA")
        }
    }

    @Test func requiredMFASetsUpAnAuthenticatorThroughTheSession() async throws {
        let harness = try Harness(seed: Self.mfaSeed("ON", sms: false, email: false))
        try await harness.run { client in
            let challenged = try await client.passwordAuth("dave", clientId: testClient)
            #expect(challenged.json["ChallengeName"] == "MFA_SETUP")
            #expect(challenged.json["ChallengeParameters"]?["MFAS_CAN_SETUP"] == "[\"SOFTWARE_TOKEN_MFA\"]")
            let premature = try await client.respond("MFA_SETUP", session: challenged.json["Session"], ["USERNAME": "dave"], clientId: testClient)
            #expect(premature.status == .badRequest)
            #expect(premature.json["AuthenticationResult"] == nil)

            let associated = try await client.cognito("AssociateSoftwareToken", ["Session": challenged.json["Session"] ?? .null])
            let secret = try #require(associated.json["SecretCode"]?.stringValue)
            let associatedSession = try #require(associated.json["Session"])
            let verified = try await client.cognito("VerifySoftwareToken", ["Session": associatedSession, "UserCode": .string(try totp(secret, harness))])
            #expect(verified.json["Status"] == "SUCCESS")
            let done = try await client.respond("MFA_SETUP", session: verified.json["Session"], ["USERNAME": "dave"], clientId: testClient)
            #expect(try claims(done.json["AuthenticationResult"]?["AccessToken"])["username"] == "dave")
            #expect(try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "dave"]).json["PreferredMfaSetting"] == "SOFTWARE_TOKEN_MFA")

            harness.emulator.clock.advance(by: 30)
            let next = try await client.passwordAuth("dave", clientId: testClient)
            #expect(next.json["ChallengeName"] == "SOFTWARE_TOKEN_MFA")
            let answered = try await client.respond("SOFTWARE_TOKEN_MFA", session: next.json["Session"],
                                                    ["USERNAME": "dave", "SOFTWARE_TOKEN_MFA_CODE": .string(try totp(secret, harness))], clientId: testClient)
            #expect(answered.json["AuthenticationResult"] != nil)
        }
    }

    @Test func requiredEmailMFAIsSetUpWithAnAddressTheCodeProves() async throws {
        let frank = Seed.UserSeed(id: "00000000-0000-4000-8000-0000000f2a4c", username: "frank", password: password)
        var seed = Self.mfaSeed("ON", sms: false)
        seed.tenants[0].users = [frank]
        let harness = try Harness(seed: seed)
        try await harness.run { client in
            func signIn() async throws -> Reply { try await client.passwordAuth("frank", clientId: testClient) }
            let challenged = try await signIn()
            #expect(challenged.json["ChallengeName"] == "MFA_SETUP")
            #expect(challenged.json["ChallengeParameters"]?["MFAS_CAN_SETUP"] == "[\"SOFTWARE_TOKEN_MFA\",\"EMAIL_OTP\"]")
            let malformed = try await client.respond("MFA_SETUP", session: challenged.json["Session"], ["USERNAME": "frank", "EMAIL": "frank"],
                                                     clientId: testClient)
            #expect(malformed.errorType == "InvalidParameterException")
            #expect(malformed.message == "Invalid email address format.")

            // Amplify's confirmSignIn with the address: a code goes there, and the challenge asks for it.
            let sent = try await client.respond("MFA_SETUP", session: challenged.json["Session"], ["USERNAME": "frank", "EMAIL": "frank@example.com"],
                                                clientId: testClient)
            #expect(sent.json["ChallengeName"] == "EMAIL_OTP", "\(sent.text)")
            #expect(sent.json["ChallengeParameters"]?["CODE_DELIVERY_DELIVERY_MEDIUM"] == "EMAIL")
            #expect(sent.json["ChallengeParameters"]?["CODE_DELIVERY_DESTINATION"] == "f***@e***")
            let code = try latestCode(harness, to: "frank@example.com", purpose: .mfa)
            let wrongly = try await client.respond("EMAIL_OTP", session: sent.json["Session"], ["USERNAME": "frank", "EMAIL_OTP_CODE": .string(wrong(code))],
                                                   clientId: testClient)
            #expect(wrongly.errorType == "CodeMismatchException")
            #expect(try harness.emulator.user(in: testPool, id: frank.id!)?.email == nil, "an unproven address is not the user's")
            let done = try await client.respond("EMAIL_OTP", session: sent.json["Session"], ["USERNAME": "frank", "EMAIL_OTP_CODE": .string(code)],
                                                clientId: testClient)
            #expect(done.json["AuthenticationResult"]?["AccessToken"] != nil, "\(done.text)")
            let user = try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "frank"])
            #expect(user.json["PreferredMfaSetting"] == "EMAIL_OTP")
            #expect(user.json["UserMFASettingList"] == ["EMAIL_OTP"])
            let attributes = user.json["UserAttributes"]?.arrayValue ?? []
            #expect(attributes.contains(["Name": "email", "Value": "frank@example.com"]))
            #expect(attributes.contains(["Name": "email_verified", "Value": "true"]))

            // From then on the code comes at once.
            let next = try await signIn()
            #expect(next.json["ChallengeName"] == "EMAIL_OTP")
        }
    }

    @Test func requiredMFATextsAUserWithAPhoneStraightAway() async throws {
        let harness = try Harness(seed: Self.mfaSeed("ON", email: false))
        try await harness.run { client in
            let challenged = try await client.passwordAuth("erin", clientId: testClient)
            #expect(challenged.json["ChallengeName"] == "SMS_MFA")
            #expect(try harness.emulator.messages(MessageFilter(to: "+15555550123", purpose: .mfa)).count == 1)
            // A user without a phone in a pool that texts codes is offered to set up either method.
            let dave = try await client.passwordAuth("dave", clientId: testClient)
            #expect(dave.json["ChallengeName"] == "MFA_SETUP")
            #expect(dave.json["ChallengeParameters"]?["MFAS_CAN_SETUP"] == "[\"SMS_MFA\",\"SOFTWARE_TOKEN_MFA\"]")
        }
    }

    @Test func aChallengeSessionExpiresAfterThreeMinutes() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            _ = try await setPreference(client, "erin", ["SMSMfaSettings": ["Enabled": true, "PreferredMfa": true]])
            let challenged = try await client.passwordAuth("erin", clientId: testClient)
            let code = try latestCode(harness, to: "+15555550123", purpose: .mfa)
            harness.emulator.clock.advance(by: 181)
            let late = try await client.respond("SMS_MFA", session: challenged.json["Session"], ["USERNAME": "erin", "SMS_MFA_CODE": .string(code)],
                                                clientId: testClient)
            #expect(late.json == ["__type": "NotAuthorizedException", "message": "Invalid session for the user, session is expired."])
            let forged = try await client.respond("SMS_MFA", session: "bm90IGEgc2Vzc2lvbg==", ["USERNAME": "erin", "SMS_MFA_CODE": .string(code)],
                                                  clientId: testClient)
            #expect(forged.errorType == "NotAuthorizedException")
        }
    }

    @Test func aMethodTheUserCannotReceiveIsRefused() async throws {
        let harness = try Harness(seed: Self.mfaSeed())
        try await harness.run { client in
            let noPhone = try await setPreference(client, "dave", ["SMSMfaSettings": ["Enabled": true]])
            #expect(noPhone.status == .badRequest)
            #expect(try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "dave"]).json["UserMFASettingList"] == nil)
            let turnedOff = try await setPreference(client, "erin", ["SMSMfaSettings": ["Enabled": false]])
            #expect(turnedOff.status == .ok)
            #expect(try await client.passwordAuth("erin", clientId: testClient).json["AuthenticationResult"] != nil, "optional MFA with nothing enabled")
        }
    }
}
