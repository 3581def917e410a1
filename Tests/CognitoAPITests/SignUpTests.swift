import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// `SignUp`, `ConfirmSignUp`, `ResendConfirmationCode` and `AdminConfirmSignUp`, with codes read from
/// the outbox.
@Suite struct SignUpTests {
    func signUp(_ client: Client, _ username: String, _ secret: String = password, clientId: String = seedClient,
                attributes: [JSON] = []) async throws -> Reply {
        try await client.cognito("SignUp", ["ClientId": .string(clientId), "Username": .string(username), "Password": .string(secret),
                                            "UserAttributes": .array(attributes)])
    }

    func confirm(_ client: Client, _ username: String, _ code: String, clientId: String = seedClient) async throws -> Reply {
        try await client.cognito("ConfirmSignUp", ["ClientId": .string(clientId), "Username": .string(username), "ConfirmationCode": .string(code)])
    }

    func status(_ client: Client, _ username: String, pool: String = seedPool) async throws -> JSON? {
        try await client.cognito("AdminGetUser", ["UserPoolId": .string(pool), "Username": .string(username)]).json["UserStatus"]
    }

    /// A pool whose first factors include an emailed code takes a sign-up without a password, and the session ConfirmSignUp
    /// answers signs the user in once through `USER_AUTH`, with no other factor: Amplify's passwordless sign-up with auto
    /// sign-in.
    @Test func aPasswordlessSignUpsSessionSignsTheConfirmedUserInOnce() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let signedUp = try await client.cognito("SignUp", ["ClientId": .string(seedClient), "Username": "quiet@example.com",
                                                               "UserAttributes": [["Name": "email", "Value": "quiet@example.com"]]])
            #expect(signedUp.status == .ok)
            #expect(signedUp.json["UserConfirmed"] == false)
            let early = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH", "Session": signedUp.json["Session"]!,
                                                                  "AuthParameters": ["USERNAME": "quiet@example.com"]])
            #expect(early.json == ["__type": "NotAuthorizedException", "message": "Invalid session for the user."])
            let confirmed = try await client.cognito("ConfirmSignUp", ["ClientId": .string(seedClient), "Username": "quiet@example.com",
                                                                       "ConfirmationCode": .string(try latestCode(harness, to: "quiet@example.com")),
                                                                       "Session": signedUp.json["Session"]!])
            let session = try #require(confirmed.json["Session"])
            let start = { @Sendable in
                try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH", "Session": session,
                                                          "AuthParameters": ["USERNAME": "quiet@example.com"]])
            }
            let signedIn = try await start()
            #expect(signedIn.json["AuthenticationResult"]?["AccessToken"] != nil, "\(signedIn.text)")
            #expect(try await start().json["__type"] == "NotAuthorizedException")
            // No password to sign in with: a password attempt fails as a wrong one, and USER_AUTH offers the code only.
            #expect(try await client.passwordAuth("quiet@example.com").json["message"] == "Incorrect username or password.")
            let choice = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH",
                                                                   "AuthParameters": ["USERNAME": "quiet@example.com"]])
            #expect(choice.json["AvailableChallenges"] == ["EMAIL_OTP"])
        }
    }

    @Test func aPasswordIsNeededUnlessTheClientCanSignInWithACode() async throws {
        let harness = try Harness(seed: cognitoSeed(client: ["ExplicitAuthFlows": ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]],
                                                    extraClients: [["ClientId": "passwordless00000000000001", "ClientName": "codes",
                                                                    "ExplicitAuthFlows": ["ALLOW_USER_AUTH"]]]))
        try await harness.run { client in
            let body: (String) -> JSON = { clientId in
                ["ClientId": .string(clientId), "Username": "quiet", "UserAttributes": [["Name": "email", "Value": "quiet@example.com"]]]
            }
            let noUserAuth = try await client.cognito("SignUp", body(testClient))
            #expect(noUserAuth.json["message"] == "1 validation error detected: Value null at 'password' failed to satisfy constraint: Member must not be null")
            // The pool's first factors are a password only.
            let noCodes = try await client.cognito("SignUp", body("passwordless00000000000001"))
            #expect(noCodes.json["__type"] == "InvalidParameterException")
            #expect(try harness.emulator.users(in: testPool).map(\.username) == ["dave"])
        }
    }

    @Test func signUpMakesAnUnconfirmedUserAndEmailsACode() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await signUp(client, "new@example.com")
            #expect(reply.status == .ok)
            #expect(reply.json["UserConfirmed"] == false)
            let sub = try #require(reply.json["UserSub"]?.stringValue)
            #expect(reply.json["CodeDeliveryDetails"] == ["Destination": "n***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"])
            let message = try #require(try harness.emulator.messages(MessageFilter(to: "new@example.com")).first)
            #expect(message.purpose == .verifyEmail)
            #expect(message.subject == "Your verification code")
            #expect(message.codes.first?.wholeMatch(of: #/\d{6}/#) != nil)
            #expect(message.text.contains(message.codes[0]))
            #expect(try await status(client, "new@example.com") == "UNCONFIRMED")
            #expect(try harness.emulator.user(in: seedPool, id: sub)?.email == "new@example.com")
            #expect(try await client.passwordAuth("new@example.com").errorType == "UserNotConfirmedException")
        }
    }

    @Test func theEmailedCodeConfirmsTheUserOnce() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await signUp(client, "new@example.com")
            let code = try latestCode(harness, to: "new@example.com")
            let confirmed = try await confirm(client, "new@example.com", code)
            #expect(confirmed.status == .ok)
            // The client allows USER_AUTH, so the answer carries the session that signs the user in (below).
            #expect(confirmed.json.objectValue?.keys.sorted() == ["Session"])
            #expect(try await status(client, "new@example.com") == "CONFIRMED")
            let user = try await client.cognito("AdminGetUser", ["UserPoolId": .string(seedPool), "Username": "new@example.com"])
            #expect(user.json["UserAttributes"]?.arrayValue?.contains(["Name": "email_verified", "Value": "true"]) == true)
            #expect(try await client.passwordAuth("new@example.com").json["AuthenticationResult"] != nil)

            let again = try await confirm(client, "new@example.com", code)
            #expect(again.json == ["__type": "NotAuthorizedException", "message": "User cannot be confirmed. Current status is CONFIRMED"])
        }
    }

    @Test func fiveWrongCodesRetireTheCode() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await signUp(client, "new@example.com")
            let code = try latestCode(harness, to: "new@example.com")
            let wrong = code == "000000" ? "111111" : "000000"
            let first = try await confirm(client, "new@example.com", wrong)
            #expect(first.json == ["__type": "CodeMismatchException", "message": "Invalid verification code provided, please try again."])
            for _ in 2...4 { #expect(try await confirm(client, "new@example.com", wrong).errorType == "CodeMismatchException") }
            let fifth = try await confirm(client, "new@example.com", wrong)
            #expect(fifth.errorType == "LimitExceededException")
            let retired = try await confirm(client, "new@example.com", code)
            #expect(retired.status == .badRequest, "the fifth wrong try retired the code")
            #expect(try await status(client, "new@example.com") == "UNCONFIRMED")

            // A new code starts a new count.
            _ = try await client.cognito("ResendConfirmationCode", ["ClientId": .string(seedClient), "Username": "new@example.com"])
            #expect(try await confirm(client, "new@example.com", try latestCode(harness, to: "new@example.com")).status == .ok)
        }
    }

    static let ages: [(TimeInterval, Bool)] = [(86_399, true), (86_401, false)]

    @Test(arguments: ages)
    func confirmationCodesLastADay(elapsed: TimeInterval, works: Bool) async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await signUp(client, "new@example.com")
            let code = try latestCode(harness, to: "new@example.com")
            harness.emulator.clock.advance(by: elapsed)
            let reply = try await confirm(client, "new@example.com", code)
            if works {
                #expect(reply.status == .ok)
            } else {
                #expect(reply.json == ["__type": "ExpiredCodeException", "message": "Invalid code provided, please request a code again."])
            }
            #expect(try await status(client, "new@example.com") == (works ? "CONFIRMED" : "UNCONFIRMED"))
        }
    }

    @Test func resendingSendsANewCodeAndTheOldOneStops() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await signUp(client, "new@example.com")
            let old = try latestCode(harness, to: "new@example.com")
            let resent = try await client.cognito("ResendConfirmationCode", ["ClientId": .string(seedClient), "Username": "new@example.com"])
            #expect(resent.json == ["CodeDeliveryDetails": ["Destination": "n***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"]])
            let new = try latestCode(harness, to: "new@example.com")
            #expect(try harness.emulator.messages(MessageFilter(to: "new@example.com")).count == 2)
            #expect(old != new)
            #expect(try await confirm(client, "new@example.com", old).errorType != nil)
            #expect(try await confirm(client, "new@example.com", new).status == .ok)

            let confirmedUser = try await client.cognito("ResendConfirmationCode", ["ClientId": .string(seedClient), "Username": "alice@example.com"])
            #expect(confirmedUser.errorType == "InvalidParameterException")
            #expect(confirmedUser.message == "User is already confirmed.")
        }
    }

    @Test func aTakenUsernameOrEmailIsUsernameExists() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await signUp(client, "ALICE@example.com")
            #expect(reply.json == ["__type": "UsernameExistsException", "message": "An account with the given email already exists."])
            #expect(try harness.emulator.userCount(in: seedPool) == 3)
        }
        let usernames = try Harness(seed: cognitoSeed())
        let taken = try await usernames.run { client in try await signUp(client, "dave", clientId: testClient) }
        #expect(taken.json == ["__type": "UsernameExistsException", "message": "User already exists"])
    }

    @Test func thePasswordPolicyIsEnforced() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let short = try await signUp(client, "new@example.com", "abc123")
            #expect(short.json == ["__type": "InvalidPasswordException", "message": "Password did not conform with policy: Password not long enough"])
            let noDigits = try await signUp(client, "new@example.com", "abcdefghij")
            #expect(noDigits.message == "Password did not conform with policy: Password must have numeric characters")
            let noLower = try await signUp(client, "new@example.com", "ABCDEFGH12")
            #expect(noLower.message == "Password did not conform with policy: Password must have lowercase characters")
            #expect(try harness.emulator.user(in: seedPool, .email("new@example.com")) == nil)
        }
    }

    /// Cognito's classes are Basic Latin letters, ASCII digits and its symbols, among which a space counts unless it leads
    /// or trails: another script's letters and digits count for none (they did, through `isLowercase` and `isNumber`).
    @Test(arguments: [("éééABC12!", "lowercase"), ("abcÉÉÉ12!", "uppercase"), ("abcABC١٢!", "numeric"), (" abcABC12", "symbol"),
                      ("abcABC12 ", "symbol"), ("abc ABC12", nil), ("abcABC12!", nil)])
    func thePolicysCharacterClassesAreCognitos(_ password: String, _ missing: String?) async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["Policies": ["PasswordPolicy": [
            "MinimumLength": 8, "RequireUppercase": true, "RequireLowercase": true, "RequireNumbers": true, "RequireSymbols": true]]]))
        try await harness.run { client in
            let answer = try await signUp(client, "new@example.com", password, clientId: testClient)
            #expect(answer.message == missing.map { "Password did not conform with policy: Password must have \($0) characters" })
        }
    }

    @Test func anEmailPoolWantsAnEmailAsUsername() async throws {
        let harness = try Harness()
        let reply = try await harness.run { client in try await signUp(client, "newbie") }
        #expect(reply.json == ["__type": "InvalidParameterException", "message": "Username should be an email."])
    }

    @Test func theFixedCodeSettingIsEveryCode() async throws {
        let harness = try Harness(seed: cognitoSeed(settings: ["fixed_code": "424242"]))
        try await harness.run { client in
            let reply = try await signUp(client, "frank", clientId: testClient, attributes: [["Name": "email", "Value": "frank@example.com"],
                                                                                            ["Name": "name", "Value": "Frank"]])
            #expect(reply.json["CodeDeliveryDetails"]?["Destination"] == "f***@e***")
            #expect(try latestCode(harness, to: "frank@example.com") == "424242")
            #expect(try await confirm(client, "frank", "424242", clientId: testClient).status == .ok)
            let user = try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "frank"])
            #expect(user.json["Username"] == "frank")
            #expect(user.json["UserStatus"] == "CONFIRMED")
            #expect(user.json["UserAttributes"]?.arrayValue?.contains(["Name": "name", "Value": "Frank"]) == true)
        }
    }

    @Test func aPhoneAutoVerifyingPoolTextsTheCode() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["AutoVerifiedAttributes": ["phone_number"]]))
        try await harness.run { client in
            let reply = try await signUp(client, "gina", clientId: testClient, attributes: [["Name": "phone_number", "Value": "+15555550199"]])
            #expect(reply.json["CodeDeliveryDetails"] == ["Destination": "+*******0199", "DeliveryMedium": "SMS", "AttributeName": "phone_number"])
            let message = try #require(try harness.emulator.messages(MessageFilter(to: "+15555550199")).first)
            #expect(message.channel == .sms)
            #expect(try await confirm(client, "gina", try #require(message.codes.first), clientId: testClient).status == .ok)
            let user = try #require(try harness.emulator.user(in: testPool, .username("gina")))
            #expect(user.phoneVerifiedAt != nil)
        }
    }

    @Test func withoutAutoVerificationNoCodeIsSentAndAnAdminConfirms() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["AutoVerifiedAttributes": []]))
        try await harness.run { client in
            let reply = try await signUp(client, "hank", clientId: testClient, attributes: [["Name": "email", "Value": "hank@example.com"]])
            #expect(reply.json["CodeDeliveryDetails"] == nil)
            #expect(reply.json["UserConfirmed"] == false)
            #expect(try harness.emulator.messages(MessageFilter(to: "hank@example.com")).isEmpty)
            let adminConfirmed = try await client.cognito("AdminConfirmSignUp", ["UserPoolId": .string(testPool), "Username": "hank"])
            #expect(adminConfirmed.status == .ok)
            #expect(try await status(client, "hank", pool: testPool) == "CONFIRMED")
            let again = try await client.cognito("AdminConfirmSignUp", ["UserPoolId": .string(testPool), "Username": "hank"])
            #expect(again.errorType == "NotAuthorizedException")
            // The admin confirmed the account, not the address.
            #expect(try harness.emulator.user(in: testPool, .username("hank"))?.emailVerifiedAt == nil)
            #expect(try await client.passwordAuth("hank", clientId: testClient).json["AuthenticationResult"] != nil)
        }
    }

    @Test func aPoolForAdminsOnlyRefusesSignUp() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["AdminCreateUserConfig": ["AllowAdminCreateUserOnly": true]]))
        let reply = try await harness.run { client in try await signUp(client, "ivan", clientId: testClient) }
        #expect(reply.json == ["__type": "NotAuthorizedException", "message": "SignUp is not permitted for this user pool"])
        #expect(try harness.emulator.user(in: testPool, .username("ivan")) == nil)
    }

    @Test func aClientWithASecretNeedsTheSecretHash() async throws {
        let secret = "s3cr3tvalue0000000000000000000000000000000000000000"
        let harness = try Harness(seed: cognitoSeed(client: ["ClientSecret": .string(secret)]))
        try await harness.run { client in
            let missing = try await signUp(client, "judy", clientId: testClient)
            #expect(missing.json == ["__type": "NotAuthorizedException", "message": .string("Unable to verify secret hash for client \(testClient)")])
            let hash = secretHash(secret, username: "judy", clientId: testClient)
            let signed = try await client.cognito("SignUp", ["ClientId": .string(testClient), "Username": "judy", "Password": .string(password),
                                                             "SecretHash": .string(hash), "UserAttributes": [["Name": "email", "Value": "judy@example.com"]]])
            #expect(signed.status == .ok)
            let wrongHash = try await client.cognito("ConfirmSignUp", ["ClientId": .string(testClient), "Username": "judy", "ConfirmationCode": "123456",
                                                                       "SecretHash": .string(secretHash("other", username: "judy", clientId: testClient))])
            #expect(wrongHash.errorType == "NotAuthorizedException")
        }
    }

    @Test func aLegacyClientSaysWhichUsersDoNotExist() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let unknown: JSON = ["__type": "UserNotFoundException", "message": "Username/client id combination not found."]
            #expect(try await confirm(client, "nobody", "123456", clientId: testClient).json == unknown)
            let resend = try await client.cognito("ResendConfirmationCode", ["ClientId": .string(testClient), "Username": "nobody"])
            #expect(resend.json == unknown)
        }
    }

    /// With PreventUserExistenceErrors, Cognito answers for a missing user as for a real one: a simulated
    /// delivery from ResendConfirmationCode, CodeMismatchException from the confirmations.
    @Test func aClientThatHidesUsersNeverSaysUserNotFound() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let confirmed = try await confirm(client, "nobody@example.com", "123456")
            let resent = try await client.cognito("ResendConfirmationCode", ["ClientId": .string(seedClient), "Username": "nobody@example.com"])
            let reset = try await client.cognito("ConfirmForgotPassword", ["ClientId": .string(seedClient), "Username": "nobody@example.com",
                                                                           "ConfirmationCode": "123456", "Password": "fresh1234"])
            #expect(confirmed.errorType == "CodeMismatchException")
            #expect(resent.json["CodeDeliveryDetails"]?["DeliveryMedium"] == "EMAIL")
            #expect(reset.errorType == "CodeMismatchException")
            #expect(try harness.emulator.messages(MessageFilter(to: "nobody@example.com")).isEmpty)
        }
    }
}
