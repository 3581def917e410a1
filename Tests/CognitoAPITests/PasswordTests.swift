import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// `ForgotPassword`, `ConfirmForgotPassword`, `ChangePassword` and `AdminSetUserPassword`.
@Suite struct PasswordTests {
    func forgot(_ client: Client, _ username: String, clientId: String = seedClient) async throws -> Reply {
        try await client.cognito("ForgotPassword", ["ClientId": .string(clientId), "Username": .string(username)])
    }

    func reset(_ client: Client, _ username: String, code: String, to newPassword: String, clientId: String = seedClient) async throws -> Reply {
        try await client.cognito("ConfirmForgotPassword", ["ClientId": .string(clientId), "Username": .string(username), "ConfirmationCode": .string(code),
                                                           "Password": .string(newPassword)])
    }

    @Test func aResetCodeGoesToTheVerifiedEmailAndSetsANewPassword() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let sent = try await forgot(client, "alice@example.com")
            #expect(sent.json == ["CodeDeliveryDetails": ["Destination": "a***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"]])
            let code = try latestCode(harness, to: "alice@example.com", purpose: .resetPassword)
            let wrongCode = code == "000000" ? "111111" : "000000"
            #expect(try await reset(client, "alice@example.com", code: wrongCode, to: "fresh1234").json
                    == ["__type": "CodeMismatchException", "message": "Invalid verification code provided, please try again."])
            let weak = try await reset(client, "alice@example.com", code: code, to: "short")
            #expect(weak.errorType == "InvalidPasswordException")
            #expect(try await reset(client, "alice@example.com", code: code, to: "fresh1234").status == .ok, "a refused password leaves the code usable")
            #expect(try await client.passwordAuth("alice@example.com").errorType == "NotAuthorizedException")
            #expect(try await client.passwordAuth("alice@example.com", "fresh1234").json["AuthenticationResult"] != nil)
            #expect(try await reset(client, "alice@example.com", code: code, to: "again1234").errorType == "ExpiredCodeException")
        }
    }

    @Test func resetCodesExpireAfterADayAndFiveWrongTriesRetireThem() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await forgot(client, "alice@example.com")
            let code = try latestCode(harness, to: "alice@example.com", purpose: .resetPassword)
            harness.emulator.clock.advance(by: 86_401)
            #expect(try await reset(client, "alice@example.com", code: code, to: "fresh1234").errorType == "ExpiredCodeException")

            _ = try await forgot(client, "alice@example.com")
            let second = try latestCode(harness, to: "alice@example.com", purpose: .resetPassword)
            let wrongCode = second == "000000" ? "111111" : "000000"
            for _ in 1...4 { #expect(try await reset(client, "alice@example.com", code: wrongCode, to: "fresh1234").errorType == "CodeMismatchException") }
            #expect(try await reset(client, "alice@example.com", code: wrongCode, to: "fresh1234").errorType == "LimitExceededException")
            #expect(try await reset(client, "alice@example.com", code: second, to: "fresh1234").errorType == "ExpiredCodeException")
            #expect(try await client.passwordAuth("alice@example.com").json["AuthenticationResult"] != nil)
        }
    }

    @Test func unknownUsersAreHiddenOnlyByClientsThatAskForIt() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed()))
        try await harness.run { client in
            let hidden = try await forgot(client, "nobody@example.com")
            #expect(hidden.status == .ok)
            #expect(hidden.json["CodeDeliveryDetails"]?["DeliveryMedium"] == "EMAIL")
            #expect(try harness.emulator.messages(MessageFilter(to: "nobody@example.com")).isEmpty)
            // AWS's words for these calls differ from InitiateAuth's (aws-sdk-ios #4837).
            let shown = try await forgot(client, "nobody", clientId: testClient)
            #expect(shown.json == ["__type": "UserNotFoundException", "message": "Username/client id combination not found."])
        }
    }

    /// A client that shows which users exist says so; one that hides them answers a simulated delivery, as for a user
    /// that "doesn't have a verified delivery mechanism" (the developer guide's user existence page).
    @Test func aUserWithoutAVerifiedAddressCannotReset() async throws {
        let harness = try Harness(seed: cognitoSeed(extraClients: [["ClientId": "hidingclient00000000000001", "PreventUserExistenceErrors": "ENABLED"]],
                                                    users: [Seed.UserSeed(id: "u-bob", email: "bob@example.com", username: "bob", password: password)]))
        let (shown, hidden) = try await harness.run { client in
            (try await forgot(client, "bob", clientId: testClient), try await forgot(client, "bob", clientId: "hidingclient00000000000001"))
        }
        #expect(shown.json == ["__type": "InvalidParameterException",
                               "message": "Cannot reset password for the user as there is no registered/verified email or phone_number"])
        #expect(hidden.status == .ok && hidden.json["CodeDeliveryDetails"] != nil)
        #expect(try harness.emulator.messages(MessageFilter(to: "bob@example.com", purpose: .resetPassword)).isEmpty)
    }

    @Test func theRecoverySettingChoosesTheChannel() async throws {
        let phoneFirst = try Harness(seed: cognitoSeed(pool: ["AccountRecoverySetting": ["RecoveryMechanisms": [
            ["Name": "verified_email", "Priority": 2], ["Name": "verified_phone_number", "Priority": 1],
        ]]], users: [erin]))
        let sent = try await phoneFirst.run { client in try await forgot(client, "erin", clientId: testClient) }
        #expect(sent.json["CodeDeliveryDetails"] == ["Destination": "+*******0123", "DeliveryMedium": "SMS", "AttributeName": "phone_number"])
        #expect(try phoneFirst.emulator.messages(MessageFilter(to: "+15555550123", purpose: .resetPassword)).count == 1)

        let adminOnly = try Harness(seed: cognitoSeed(pool: ["AccountRecoverySetting": ["RecoveryMechanisms": [["Name": "admin_only", "Priority": 1]]]]))
        let refused = try await adminOnly.run { client in try await forgot(client, "dave", clientId: testClient) }
        #expect(refused.errorType == "NotAuthorizedException")
        #expect(refused.message == "Contact administrator to reset password.")
    }

    @Test func changePasswordNeedsTheCurrentOne() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("alice@example.com")
            func change(_ previous: String, _ proposed: String) async throws -> Reply {
                try await client.cognito("ChangePassword", ["AccessToken": tokens["AccessToken"] ?? .null, "PreviousPassword": .string(previous),
                                                            "ProposedPassword": .string(proposed)])
            }
            #expect(try await change("password124", "fresh1234").json == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
            #expect(try await change(password, "FRESH").errorType == "InvalidPasswordException")
            #expect(try await change(password, "fresh1234").json == [:])
            #expect(try await client.passwordAuth("alice@example.com").errorType == "NotAuthorizedException")
            #expect(try await client.passwordAuth("alice@example.com", "fresh1234").json["AuthenticationResult"] != nil)
            let forged = try await client.cognito("ChangePassword", ["AccessToken": "eyJhbGciOiJub25lIn0.e30.", "PreviousPassword": "fresh1234",
                                                                     "ProposedPassword": "other1234"])
            #expect(forged.json == ["__type": "NotAuthorizedException", "message": "Invalid Access Token"])
        }
    }

    /// A wrong previous password counts against the pool's sign-in lockout, like a wrong sign-in.
    @Test func wrongPreviousPasswordsLockTheUserOut() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("alice@example.com")
            func change(_ previous: String) async throws -> Reply {
                try await client.cognito("ChangePassword", ["AccessToken": tokens["AccessToken"] ?? .null, "PreviousPassword": .string(previous),
                                                            "ProposedPassword": "fresh1234"])
            }
            for _ in 0..<5 { #expect(try await change("wrong-password").json["message"] == "Incorrect username or password.") }
            // A sign-in says "Password attempts exceeded"; a password change this (aws-sdk-android #627).
            #expect(try await change(password).json == ["__type": "LimitExceededException", "message": "Attempt limit exceeded, please try after some time."])
            #expect(try await client.passwordAuth("alice@example.com").json["message"] == "Password attempts exceeded")
        }
        let failed = try harness.emulator.events(type: "signin.failed").compactMap { $0.detail["method"]?.stringValue }
        #expect(failed.filter { $0 == "change_password" }.count == 5)
    }

    @Test func adminSetUserPasswordIsPermanentOrTemporary() async throws {
        let harness = try Harness(seed: cognitoSeed(users: [dave, erin]))
        try await harness.run { client async throws in
            func set(_ username: String, _ secret: String, permanent: Bool) async throws -> Reply {
                try await client.cognito("AdminSetUserPassword", ["UserPoolId": .string(testPool), "Username": .string(username),
                                                                  "Password": .string(secret), "Permanent": .bool(permanent)])
            }
            #expect(try await set("dave", "chosen123", permanent: true).status == .ok)
            #expect(try await client.passwordAuth("dave", "chosen123", clientId: testClient).json["AuthenticationResult"] != nil)
            #expect(try await set("erin", "handed123", permanent: false).status == .ok)
            #expect(try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "erin"]).json["UserStatus"] == "FORCE_CHANGE_PASSWORD")
            #expect(try await client.passwordAuth("erin", "handed123", clientId: testClient).json["ChallengeName"] == "NEW_PASSWORD_REQUIRED")
            #expect(try await set("dave", "weak", permanent: true).errorType == "InvalidPasswordException")
            #expect(try await set("nobody", "chosen123", permanent: true).errorType == "UserNotFoundException")
        }
    }

    @Test func adminResetUserPasswordWantsAConfirmedUser() async throws {
        let harness = try Harness()
        let reply = try await harness.run { client in
            try await client.cognito("AdminResetUserPassword", ["UserPoolId": .string(seedPool), "Username": "bob@example.com"])
        }
        // moto's reading of Cognito (test_admin_reset_password_unconfirmed_user).
        #expect(reply.json == ["__type": "NotAuthorizedException", "message": "User password cannot be reset in the current state."])
        #expect(try harness.emulator.user(in: seedPool, id: bobId)?.appMetadata["cognito:user_status"] == "UNCONFIRMED")
    }
}
