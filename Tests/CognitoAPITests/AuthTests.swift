import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// `InitiateAuth`/`RespondToAuthChallenge` and their admin twins: first factors, the client's allowed
/// flows, secret hashes, choice-based sign-in and temporary passwords. (SRP's math has its own suite.)
@Suite struct AuthTests {
    @Test func aPasswordSignInAnswersTheThreeTokens() async throws {
        let harness = try Harness()
        let reply = try await harness.run { client in try await client.passwordAuth("alice@example.com") }
        #expect(reply.status == .ok)
        #expect(reply.json["ChallengeParameters"] == [:])
        let result = try #require(reply.json["AuthenticationResult"])
        #expect(result["ExpiresIn"] == 3600)
        #expect(result["TokenType"] == "Bearer")
        #expect(result["AccessToken"]?.stringValue?.split(separator: ".").count == 3)
        #expect(result["IdToken"]?.stringValue?.split(separator: ".").count == 3)
        let refresh = try #require(result["RefreshToken"]?.stringValue)
        #expect(JWS.unverifiedClaims(refresh) == nil, "refresh tokens are opaque")
        #expect(try claims(result["AccessToken"])["sub"] == .string(aliceId))
        #expect(try harness.emulator.sessions(in: seedPool, userId: aliceId).count == 1)
    }

    /// A client written into a seed (or a tenant made through the control API) is not held to Cognito's ranges as
    /// CreateUserPoolClient holds it; its lifetimes stay within ten years, where 8e15 hours overflowed the token's `exp`.
    @Test func aSeededClientsLifetimeStaysWithinTenYears() async throws {
        let harness = try Harness(seed: cognitoSeed(client: ["AccessTokenValidity": .int(8_000_000_000_000_000)]))
        let reply = try await harness.run { client in try await client.passwordAuth("dave", clientId: testClient) }
        #expect(reply.json["AuthenticationResult"]?["ExpiresIn"] == 315_360_000, "\(reply.json)")
    }

    /// Sign-ins find their user among the core's kept users; every change to the user between two sign-ins shows in
    /// the second: an attribute in the ID token, a new password, a disabled user, a deleted one.
    @Test func aSignInSeesEveryChangeToTheUserSinceTheLast() async throws {
        let harness = try Harness()
        try await harness.run { client async throws in
            let first = try await client.passwordAuth("alice@example.com")
            #expect(try claims(first.json["AuthenticationResult"]?["IdToken"])["name"] == "Alice Verified")
            let attributes = try await client.cognito("AdminUpdateUserAttributes", [
                "UserPoolId": .string(seedPool), "Username": "alice@example.com", "UserAttributes": [["Name": "name", "Value": "Alice Renamed"]]])
            #expect(attributes.status == .ok)
            let renamed = try await client.passwordAuth("alice@example.com")
            #expect(try claims(renamed.json["AuthenticationResult"]?["IdToken"])["name"] == "Alice Renamed")
            let reset = try await client.cognito("AdminSetUserPassword", [
                "UserPoolId": .string(seedPool), "Username": "alice@example.com", "Password": "another-password1", "Permanent": true])
            #expect(reset.status == .ok)
            #expect(try await client.passwordAuth("alice@example.com").errorType == "NotAuthorizedException")
            #expect(try await client.passwordAuth("alice@example.com", "another-password1").json["AuthenticationResult"] != nil)
            #expect(try await client.cognito("AdminDisableUser", ["UserPoolId": .string(seedPool), "Username": "alice@example.com"]).status == .ok)
            #expect(try await client.passwordAuth("alice@example.com", "another-password1").json
                    == ["__type": "NotAuthorizedException", "message": "User is disabled."])
            #expect(try await client.cognito("AdminDeleteUser", ["UserPoolId": .string(seedPool), "Username": "alice@example.com"]).status == .ok)
            #expect(try await client.passwordAuth("alice@example.com", "another-password1").errorType == "NotAuthorizedException")
            #expect(try harness.emulator.keptUser(in: seedPool, .email("alice@example.com")) == nil)
        }
    }

    @Test func wrongPasswordsUnknownAndUnconfirmedUsersAreRefused() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed()))
        try await harness.run { client async throws in
            #expect(try await client.passwordAuth("alice@example.com", "password124").json
                    == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
            // The seed's client hides which users exist; a legacy client does not.
            #expect(try await client.passwordAuth("nobody@example.com").json
                    == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
            #expect(try await client.passwordAuth("nobody", clientId: testClient).json
                    == ["__type": "UserNotFoundException", "message": "User does not exist."])
            #expect(try await client.passwordAuth("bob@example.com").json
                    == ["__type": "UserNotConfirmedException", "message": "User is not confirmed."])
            // An unconfirmed user with the wrong password learns nothing about the account's state.
            #expect(try await client.passwordAuth("bob@example.com", "password124").errorType == "NotAuthorizedException")
            #expect(try await client.passwordAuth("Alice@Example.com").json["AuthenticationResult"] != nil, "the pool is case insensitive")
        }
    }

    @Test func aFlowTheClientDoesNotAllowIsRefused() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed(extraClients: [["ClientId": "srponlyclient0000000000001"]])))
        try await harness.run { client in
            let srpOnly = try await client.passwordAuth("dave", clientId: "srponlyclient0000000000001")
            #expect(srpOnly.json == ["__type": "InvalidParameterException", "message": "USER_PASSWORD_AUTH flow not enabled for this client"])
            let admin = try await client.cognito("AdminInitiateAuth", ["UserPoolId": .string(seedPool), "ClientId": .string(seedClient),
                                                                       "AuthFlow": "ADMIN_USER_PASSWORD_AUTH",
                                                                       "AuthParameters": ["USERNAME": "alice@example.com", "PASSWORD": .string(password)]])
            #expect(admin.message == "ADMIN_USER_PASSWORD_AUTH flow not enabled for this client")
            let adminFlowOnPublicCall = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "ADMIN_NO_SRP_AUTH",
                                                                                  "AuthParameters": ["USERNAME": "alice@example.com"]])
            #expect(adminFlowOnPublicCall.json == ["__type": "InvalidParameterException", "message": "Initiate Auth method not supported."])
            let nonsense = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "NO_SUCH_FLOW"])
            #expect(nonsense.errorType == "InvalidParameterException")
            #expect(nonsense.message?.contains("Member must satisfy enum value set") == true)
        }
    }

    @Test func adminInitiateAuthSignsInWithThePoolAndClient() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let reply = try await client.cognito("AdminInitiateAuth", ["UserPoolId": .string(testPool), "ClientId": .string(testClient),
                                                                       "AuthFlow": "ADMIN_USER_PASSWORD_AUTH",
                                                                       "AuthParameters": ["USERNAME": "dave", "PASSWORD": .string(password)]])
            let access = try claims(reply.json["AuthenticationResult"]?["AccessToken"])
            #expect(access["username"] == "dave")
            #expect(access["client_id"] == .string(testClient))
            let otherPool = try await client.cognito("AdminInitiateAuth", ["UserPoolId": .string(testPool), "ClientId": .string(seedClient),
                                                                           "AuthFlow": "ADMIN_USER_PASSWORD_AUTH", "AuthParameters": ["USERNAME": "dave"]])
            #expect(otherPool.errorType == "ResourceNotFoundException")
        }
    }

    @Test func aClientWithASecretChecksTheSecretHash() async throws {
        let secret = "clientsecret000000000000000000000000000000000000000"
        let harness = try Harness(seed: cognitoSeed(client: ["ClientSecret": .string(secret)]))
        try await harness.run { client in
            let missing = try await client.passwordAuth("dave", clientId: testClient)
            #expect(missing.json == ["__type": "NotAuthorizedException", "message": .string("Unable to verify secret hash for client \(testClient)")])
            let wrong = try await client.passwordAuth("dave", clientId: testClient,
                                                      extra: ["SECRET_HASH": .string(secretHash(secret, username: "erin", clientId: testClient))])
            #expect(wrong.errorType == "NotAuthorizedException")
            let hash = JSON.string(secretHash(secret, username: "dave", clientId: testClient))
            let signedIn = try await client.passwordAuth("dave", clientId: testClient, extra: ["SECRET_HASH": hash])
            let refreshToken = try #require(signedIn.json["AuthenticationResult"]?["RefreshToken"])

            func refresh(_ parameters: [String: JSON]) async throws -> Reply {
                try await client.cognito("InitiateAuth", ["ClientId": .string(testClient), "AuthFlow": "REFRESH_TOKEN_AUTH", "AuthParameters": .object(parameters)])
            }
            #expect(try await refresh(["REFRESH_TOKEN": refreshToken]).errorType == "NotAuthorizedException")
            #expect(try await refresh(["REFRESH_TOKEN": refreshToken, "SECRET_HASH": hash]).json["AuthenticationResult"]?["AccessToken"] != nil)
        }
    }

    @Test func userSRPAuthStartsWithThePasswordVerifierChallenge() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed()))
        try await harness.run { client in
            for (clientId, username, srpUser) in [(seedClient, "alice@example.com", aliceId), (testClient, "dave", "dave")] {
                let reply = try await client.cognito("InitiateAuth", ["ClientId": .string(clientId), "AuthFlow": "USER_SRP_AUTH",
                                                                      "AuthParameters": ["USERNAME": .string(username), "SRP_A": "4a6f1c3b9e2d"]])
                #expect(reply.json["ChallengeName"] == "PASSWORD_VERIFIER")
                let parameters = try #require(reply.json["ChallengeParameters"]?.objectValue)
                #expect(Set(parameters.keys) == ["SALT", "SRP_B", "SECRET_BLOCK", "USER_ID_FOR_SRP", "USERNAME"])
                #expect(parameters["USER_ID_FOR_SRP"] == .string(srpUser))
                #expect(parameters["USERNAME"] == .string(srpUser))
                #expect(parameters["SALT"]?.stringValue?.allSatisfy(\.isHexDigit) == true)
                #expect(parameters["SRP_B"]?.stringValue?.allSatisfy(\.isHexDigit) == true)
                #expect((parameters["SRP_B"]?.stringValue?.count ?? 0) > 500, "B is a 3072-bit number")
                #expect(parameters["SECRET_BLOCK"]?.stringValue.flatMap { Data(base64Encoded: $0) } != nil)
            }
        }
    }

    @Test func userAuthGoesStraightToThePreferredEmailOTP() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let started = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH",
                                                                    "AuthParameters": ["USERNAME": "alice@example.com", "PREFERRED_CHALLENGE": "EMAIL_OTP"]])
            #expect(started.json["ChallengeName"] == "EMAIL_OTP")
            #expect(started.json["ChallengeParameters"] == ["CODE_DELIVERY_DELIVERY_MEDIUM": "EMAIL", "CODE_DELIVERY_DESTINATION": "a***@e***"])
            let code = try latestCode(harness, to: "alice@example.com", purpose: .otp)
            let wrong = try await client.respond("EMAIL_OTP", session: started.json["Session"],
                                                 ["USERNAME": "alice@example.com", "EMAIL_OTP_CODE": code == "000000" ? "111111" : "000000"])
            #expect(wrong.errorType == "CodeMismatchException")
            let answered = try await client.respond("EMAIL_OTP", session: started.json["Session"], ["USERNAME": "alice@example.com", "EMAIL_OTP_CODE": .string(code)])
            #expect(try claims(answered.json["AuthenticationResult"]?["IdToken"])["email"] == "alice@example.com")
        }
    }

    /// A client that hides which users exist answers `USER_AUTH` for an unknown name with a challenge, as for a user (AWS's
    /// user existence page), that no answer passes; no message goes out.
    @Test func userAuthForAnUnknownNameIsAChallengeNoCodePasses() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let started = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH",
                                                                    "AuthParameters": ["USERNAME": "ghost@example.com", "PREFERRED_CHALLENGE": "EMAIL_OTP"]])
            #expect(started.json["ChallengeName"] == "EMAIL_OTP")
            #expect(started.json["ChallengeParameters"] == ["CODE_DELIVERY_DELIVERY_MEDIUM": "EMAIL", "CODE_DELIVERY_DESTINATION": "g***@e***"])
            for code in ["000000", "123456"] {
                let answer = try await client.respond("EMAIL_OTP", session: started.json["Session"], ["USERNAME": "ghost@example.com", "EMAIL_OTP_CODE": .string(code)])
                #expect(answer.json == ["__type": "CodeMismatchException", "message": "Invalid code or auth state for the user."])
            }
            // Without a preference, one of the pool's code factors or the password, picked at random.
            var picked: Set<String> = []
            for _ in 0..<24 {
                let unasked = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH",
                                                                        "AuthParameters": ["USERNAME": "ghost@example.com"]])
                picked.insert(unasked.json["ChallengeName"]?.stringValue ?? unasked.text)
                if unasked.json["ChallengeName"] == "PASSWORD" {
                    let answer = try await client.respond("PASSWORD", session: unasked.json["Session"], ["USERNAME": "ghost@example.com", "PASSWORD": "whatever1"])
                    #expect(answer.json == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
                }
            }
            #expect(picked == ["EMAIL_OTP", "SMS_OTP", "PASSWORD"])
            // A password is wrong as for anyone.
            let password = try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH",
                                                                     "AuthParameters": ["USERNAME": "ghost@example.com", "PREFERRED_CHALLENGE": "PASSWORD",
                                                                                        "PASSWORD": "whatever1"]])
            #expect(password.json["message"] == "Incorrect username or password.")
            #expect(try harness.emulator.messages().isEmpty)
        }
    }

    /// Choice-based sign-in hides unknown names whatever the client's `PreventUserExistenceErrors` (the developer guide's
    /// user existence page); the other flows of a `LEGACY` client still say `UserNotFoundException`.
    @Test func userAuthHidesUnknownNamesOnALegacyClientToo() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let choice = try await client.cognito("InitiateAuth", ["ClientId": .string(testClient), "AuthFlow": "USER_AUTH",
                                                                   "AuthParameters": ["USERNAME": "ghost@example.com", "PREFERRED_CHALLENGE": "PASSWORD",
                                                                                      "PASSWORD": "whatever1"]])
            #expect(choice.json == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
            let missing = try await client.cognito("InitiateAuth", ["ClientId": .string(testClient), "AuthFlow": "USER_AUTH",
                                                                    "AuthParameters": ["USERNAME": "ghost@example.com", "PREFERRED_CHALLENGE": "PASSWORD"]])
            #expect(missing.json["message"] == "Missing required parameter PASSWORD")
            let password = try await client.cognito("InitiateAuth", ["ClientId": .string(testClient), "AuthFlow": "USER_PASSWORD_AUTH",
                                                                     "AuthParameters": ["USERNAME": "ghost@example.com", "PASSWORD": "whatever1"]])
            #expect(password.errorType == "UserNotFoundException")
        }
    }

    @Test func userAuthWithoutAPreferenceOffersTheUsersChoices() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func start(_ username: String) async throws -> Reply {
                try await client.cognito("InitiateAuth", ["ClientId": .string(seedClient), "AuthFlow": "USER_AUTH", "AuthParameters": ["USERNAME": .string(username)]])
            }
            let alice = try await start("alice@example.com")
            #expect(alice.json["ChallengeName"] == "SELECT_CHALLENGE")
            #expect(alice.json["AvailableChallenges"] == ["PASSWORD", "PASSWORD_SRP", "EMAIL_OTP"])
            #expect(try await start("carol@example.com").json["AvailableChallenges"] == ["PASSWORD", "PASSWORD_SRP", "EMAIL_OTP", "SMS_OTP"])

            let withPassword = try await client.respond("SELECT_CHALLENGE", session: alice.json["Session"],
                                                        ["USERNAME": "alice@example.com", "ANSWER": "PASSWORD", "PASSWORD": .string(password)])
            #expect(withPassword.json["AuthenticationResult"]?["AccessToken"] != nil)

            let carol = try await start("carol@example.com")
            let sms = try await client.respond("SELECT_CHALLENGE", session: carol.json["Session"], ["USERNAME": "carol@example.com", "ANSWER": "SMS_OTP"])
            #expect(sms.json["ChallengeName"] == "SMS_OTP")
            #expect(sms.json["ChallengeParameters"]?["CODE_DELIVERY_DESTINATION"] == "+*******0100")
            let code = try latestCode(harness, to: "+15555550100")
            let done = try await client.respond("SMS_OTP", session: sms.json["Session"], ["USERNAME": "carol@example.com", "SMS_OTP_CODE": .string(code)])
            #expect(try claims(done.json["AuthenticationResult"]?["AccessToken"])["sub"] == .string(carolId))
        }
    }

    @Test func aTemporaryPasswordMustBeReplacedAtFirstSignIn() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            _ = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "kate", "TemporaryPassword": "temp12345",
                                                            "MessageAction": "SUPPRESS", "UserAttributes": [["Name": "email", "Value": "kate@example.com"]]])
            let started = try await client.passwordAuth("kate", "temp12345", clientId: testClient)
            #expect(started.json["ChallengeName"] == "NEW_PASSWORD_REQUIRED")
            let parameters = try #require(started.json["ChallengeParameters"])
            #expect(parameters["USER_ID_FOR_SRP"] == "kate")
            #expect(parameters["requiredAttributes"] == "[]")
            let attributes = try JSON.parse(Array((parameters["userAttributes"]?.stringValue ?? "").utf8))
            #expect(attributes["email"] == "kate@example.com")
            let session = started.json["Session"]

            let weak = try await client.respond("NEW_PASSWORD_REQUIRED", session: session, ["USERNAME": "kate", "NEW_PASSWORD": "short"], clientId: testClient)
            #expect(weak.errorType == "InvalidPasswordException")
            let done = try await client.respond("NEW_PASSWORD_REQUIRED", session: session, ["USERNAME": "kate", "NEW_PASSWORD": "chosen123"], clientId: testClient)
            #expect(done.json["AuthenticationResult"]?["AccessToken"] != nil)
            let replay = try await client.respond("NEW_PASSWORD_REQUIRED", session: session, ["USERNAME": "kate", "NEW_PASSWORD": "chosen456"], clientId: testClient)
            #expect(replay.json == ["__type": "NotAuthorizedException", "message": "Invalid session for the user, session can only be used once."])

            #expect(try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "kate"]).json["UserStatus"] == "CONFIRMED")
            #expect(try await client.passwordAuth("kate", "temp12345", clientId: testClient).errorType == "NotAuthorizedException")
            #expect(try await client.passwordAuth("kate", "chosen123", clientId: testClient).json["AuthenticationResult"] != nil)
        }
    }

    @Test func newPasswordRequiredAsksForMissingRequiredAttributes() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["Schema": [["Name": "name", "AttributeDataType": "String", "Required": true, "Mutable": true]]]))
        try await harness.run { client in
            _ = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "lena", "TemporaryPassword": "temp12345",
                                                            "MessageAction": "SUPPRESS"])
            let started = try await client.passwordAuth("lena", "temp12345", clientId: testClient)
            #expect(started.json["ChallengeParameters"]?["requiredAttributes"] == "[\"userAttributes.name\"]")
            let withName = try await client.respond("NEW_PASSWORD_REQUIRED", session: started.json["Session"],
                                                    ["USERNAME": "lena", "NEW_PASSWORD": "chosen123", "userAttributes.name": "Lena"], clientId: testClient)
            #expect(withName.json["AuthenticationResult"] != nil)
            let user = try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "lena"])
            #expect(user.json["UserAttributes"]?.arrayValue?.contains(["Name": "name", "Value": "Lena"]) == true)
        }
    }

    @Test func newPasswordRequiredRefusesAnAnswerWithoutTheRequiredAttributes() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["Schema": [["Name": "name", "AttributeDataType": "String", "Required": true, "Mutable": true]]]))
        try await harness.run { client in
            _ = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "lena", "TemporaryPassword": "temp12345",
                                                            "MessageAction": "SUPPRESS"])
            let started = try await client.passwordAuth("lena", "temp12345", clientId: testClient)
            let without = try await client.respond("NEW_PASSWORD_REQUIRED", session: started.json["Session"],
                                                   ["USERNAME": "lena", "NEW_PASSWORD": "chosen123"], clientId: testClient)
            // Cognito: InvalidParameterException "Invalid attributes given, name is missing".
            #expect(without.errorType == "InvalidParameterException")
        }
    }

    /// (TemporaryPasswordValidityDays, time since the password was set, whether it still works)
    static let expiryCases: [(Int, TimeInterval, Bool)] = [(7, 604_740, true), (7, 604_860, false), (1, 86_460, false)]

    @Test(arguments: expiryCases)
    func temporaryPasswordsExpire(days: Int, elapsed: TimeInterval, usable: Bool) async throws {
        let harness = try Harness(seed: cognitoSeed(pool: [
            "Policies": ["PasswordPolicy": ["MinimumLength": 8, "RequireUppercase": false, "RequireLowercase": true, "RequireNumbers": true,
                                            "RequireSymbols": false, "TemporaryPasswordValidityDays": .int(days)]],
        ]))
        try await harness.run { client in
            _ = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "mia", "TemporaryPassword": "temp12345",
                                                            "MessageAction": "SUPPRESS"])
            harness.emulator.clock.advance(by: elapsed)
            let reply = try await client.passwordAuth("mia", "temp12345", clientId: testClient)
            if usable {
                #expect(reply.json["ChallengeName"] == "NEW_PASSWORD_REQUIRED")
            } else {
                #expect(reply.json == ["__type": "NotAuthorizedException",
                                       "message": "Temporary password has expired and must be reset by an administrator."])
            }
        }
    }

    @Test func aResetRequiredUserMustResetFirst() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await client.cognito("AdminResetUserPassword", ["UserPoolId": .string(seedPool), "Username": "alice@example.com"])
            #expect(try await client.passwordAuth("alice@example.com").json
                    == ["__type": "PasswordResetRequiredException", "message": "Password reset required for the user"])
            let code = try latestCode(harness, to: "alice@example.com", purpose: .resetPassword)
            let reset = try await client.cognito("ConfirmForgotPassword", ["ClientId": .string(seedClient), "Username": "alice@example.com",
                                                                           "ConfirmationCode": .string(code), "Password": "fresh1234"])
            #expect(reset.status == .ok)
            #expect(try await client.passwordAuth("alice@example.com", "fresh1234").json["AuthenticationResult"] != nil)
        }
    }
}
