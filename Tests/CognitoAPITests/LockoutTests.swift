import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Cognito's own protections, on by default in every pool: the sign-in lockout and the limit on codes
/// a user can ask for again.
@Suite struct LockoutTests {
    @Test func fiveWrongPasswordsLockTheUserOutForASecondThenTwoThenFour() async throws {
        let harness = try Harness()
        try await harness.run { client async throws in
            for _ in 0..<5 {
                #expect(try await client.passwordAuth("alice@example.com", "wrong-password").json["message"] == "Incorrect username or password.")
            }
            // Locked: the right password is refused too, without being checked.
            #expect(try await client.passwordAuth("alice@example.com").json
                    == ["__type": "NotAuthorizedException", "message": "Password attempts exceeded"])
            harness.emulator.clock.advance(by: 1)
            // The next failure locks again, for twice as long.
            #expect(try await client.passwordAuth("alice@example.com", "wrong-password").json["message"] == "Incorrect username or password.")
            harness.emulator.clock.advance(by: 1)
            #expect(try await client.passwordAuth("alice@example.com").json["message"] == "Password attempts exceeded")
            harness.emulator.clock.advance(by: 1)
            #expect(try await client.passwordAuth("alice@example.com").json["AuthenticationResult"] != nil)
        }
        let started = try harness.emulator.events(type: "lockout.started")
        #expect(started.compactMap { $0.detail["duration"]?.doubleValue }.sorted() == [1, 2])
    }

    @Test func thePoolsPoliciesCanTurnTheLockoutOffOrMakeItGeneric() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed(settings: ["policies": ["lockout": ["max_attempts": 2, "error": "generic"]]])))
        try await harness.run { client async throws in
            for _ in 0..<2 { _ = try await client.passwordAuth("dave", "wrong-password", clientId: testClient) }
            #expect(try await client.passwordAuth("dave", clientId: testClient).json["message"] == "Incorrect username or password.")
        }
        try harness.emulator.setPolicies(in: testPool, ["lockout": false])
        try await harness.run { client async throws in
            #expect(try await client.passwordAuth("dave", clientId: testClient).json["AuthenticationResult"] != nil)
        }
    }

    @Test func theSixthCodeWithinAnHourIsLimitExceededAndKeptAsSuppressed() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed()))
        try await harness.run { client async throws in
            for _ in 0..<5 {
                #expect(try await client.cognito("ForgotPassword", ["ClientId": .string(testClient), "Username": "dave"]).status == .ok)
                harness.emulator.clock.advance(by: 60)
            }
            let refused = try await client.cognito("ForgotPassword", ["ClientId": .string(testClient), "Username": "dave"])
            #expect(refused.json == ["__type": "LimitExceededException", "message": "Attempt limit exceeded, please try after some time."])
            let suppressed = try harness.emulator.messages().filter { $0.status == .suppressed }
            #expect(suppressed.count == 1 && suppressed[0].reason?.hasPrefix("code_deliveries") == true)
            harness.emulator.clock.advance(by: 3600)
            #expect(try await client.cognito("ForgotPassword", ["ClientId": .string(testClient), "Username": "dave"]).status == .ok)
        }
    }

    /// `otp_per_ip` counts the actions that send a code, through the core's request limits.
    @Test func aPoolsOTPRequestLimitCountsTheActionsThatSendCodes() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed(settings: ["policies": ["rate_limits": ["otp_per_ip": ["count": 2, "window": 60]]]])))
        try await harness.run { client async throws in
            for _ in 0..<2 {
                #expect(try await client.cognito("ForgotPassword", ["ClientId": .string(testClient), "Username": "dave"]).status == .ok)
            }
            let refused = try await client.cognito("ResendConfirmationCode", ["ClientId": .string(testClient), "Username": "dave"])
            #expect(refused.json == ["__type": "TooManyRequestsException", "message": "Rate exceeded"])
            #expect(try await client.passwordAuth("dave", clientId: testClient).json["AuthenticationResult"] != nil)
        }
        #expect(throws: AuthError.invalidInput(field: "policies.rate_limits.anonymous_per_ip",
                                               reason: "does not apply to this dialect (its own setting governs it)")) {
            try harness.emulator.setPolicies(in: testPool, ["rate_limits": ["anonymous_per_ip": ["count": 1, "window": 60]]])
        }
    }

    @Test func wrongTOTPCodesLockMFAWhenThePoolSaysSo() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed(pool: ["MfaConfiguration": "OPTIONAL", "SoftwareTokenMfaConfiguration": ["Enabled": true]],
                                                                   settings: ["policies": ["mfa_lockout": ["max_attempts": 3, "durations": [300]]]])))
        try await harness.run { client async throws in
            let tokens = try await client.signIn("dave", clientId: testClient)
            let access = try #require(tokens["AccessToken"])
            let associated = try await client.cognito("AssociateSoftwareToken", ["AccessToken": access])
            let secret = try #require(associated.json["SecretCode"]?.stringValue.flatMap(Base32.decode))
            for _ in 0..<3 {
                #expect(try await client.cognito("VerifySoftwareToken", ["AccessToken": access, "UserCode": "000000"]).errorType
                        == "EnableSoftwareTokenMFAException")
            }
            let right = TOTP(secret: secret).code(at: harness.emulator.clock.now)
            #expect(try await client.cognito("VerifySoftwareToken", ["AccessToken": access, "UserCode": .string(right)]).json
                    == ["__type": "NotAuthorizedException", "message": "Too many invalid MFA codes, please try after some time."])
            harness.emulator.clock.advance(by: 300)
            let later = TOTP(secret: secret).code(at: harness.emulator.clock.now)
            #expect(try await client.cognito("VerifySoftwareToken", ["AccessToken": access, "UserCode": .string(later)]).json["Status"] == "SUCCESS")
        }
    }
}
