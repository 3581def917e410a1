import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// An email or phone is unique in a pool only where the pool signs in with it (`UsernameAttributes`) or
/// makes it an alias (`AliasAttributes`); in a plain username pool users may share one, and everything
/// that goes by username (sign-in, codes, resets) keeps them apart.
@Suite struct SharedAddressTests {
    static func signUp(_ client: FauxthTesting.Client, _ username: String, email: String? = nil, phone: String? = nil) async throws -> Reply {
        var attributes: [JSON] = []
        if let email { attributes.append(["Name": "email", "Value": .string(email)]) }
        if let phone { attributes.append(["Name": "phone_number", "Value": .string(phone)]) }
        return try await client.cognito("SignUp", ["ClientId": .string(testClient), "Username": .string(username), "Password": "password123",
                                                   "UserAttributes": .array(attributes)])
    }

    @Test func usersOfAUsernamePoolMayShareAnEmailOrAPhone() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let second = try await Self.signUp(client, "dave2", email: "dave@example.com", phone: "+15555550123")
            #expect(second.status == .ok, "\(second.text)")
            let third = try await client.cognito("AdminCreateUser", ["UserPoolId": .string(testPool), "Username": "dave3", "MessageAction": "SUPPRESS",
                                                                    "UserAttributes": [["Name": "email", "Value": "DAVE@example.com"],
                                                                                       ["Name": "phone_number", "Value": "+15555550123"]]])
            #expect(third.status == .ok, "\(third.text)")
            let kate = try await Self.signUp(client, "kate", email: "kate@example.com")
            #expect(kate.status == .ok)
            let moved = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "kate",
                                                                              "UserAttributes": [["Name": "email", "Value": "dave@example.com"]]])
            #expect(moved.status == .ok, "\(moved.text)")
            let sharing = try await client.cognito("ListUsers", ["UserPoolId": .string(testPool), "Filter": "email = \"dave@example.com\""])
            #expect(Set(sharing.json["Users"]?.arrayValue?.compactMap { $0["Username"]?.stringValue } ?? []) == ["dave", "dave2", "dave3", "kate"])
            // Each still signs in by username as themself.
            #expect(try claims(try await client.signIn("dave", clientId: testClient)["AccessToken"])["username"] == "dave")
        }
    }

    /// Codes go to an address but belong to a user: confirming one user with the code sent to another at
    /// the same address fails, and a code for one does not retire the other's.
    @Test func codesToASharedAddressBelongToTheirUser() async throws {
        let harness = try Harness(seed: cognitoSeed(users: []))
        try await harness.run { client in
            _ = try await Self.signUp(client, "ann", email: "family@example.com")
            let annCode = try latestCode(harness, to: "family@example.com")
            _ = try await Self.signUp(client, "ben", email: "family@example.com")
            let benCode = try latestCode(harness, to: "family@example.com")
            #expect(annCode != benCode)
            let crossed = try await client.cognito("ConfirmSignUp", ["ClientId": .string(testClient), "Username": "ann", "ConfirmationCode": .string(benCode)])
            #expect(crossed.errorType == "CodeMismatchException", "\(crossed.text)")
            let ann = try await client.cognito("ConfirmSignUp", ["ClientId": .string(testClient), "Username": "ann", "ConfirmationCode": .string(annCode)])
            #expect(ann.status == .ok, "\(ann.text)")
            let ben = try await client.cognito("ConfirmSignUp", ["ClientId": .string(testClient), "Username": "ben", "ConfirmationCode": .string(benCode)])
            #expect(ben.status == .ok, "\(ben.text)")

            // A reset by username reaches the named user only.
            _ = try await client.cognito("ForgotPassword", ["ClientId": .string(testClient), "Username": "ben"])
            let reset = try latestCode(harness, to: "family@example.com", purpose: .resetPassword)
            let confirmed = try await client.cognito("ConfirmForgotPassword", ["ClientId": .string(testClient), "Username": "ben",
                                                                               "ConfirmationCode": .string(reset), "Password": "another123"])
            #expect(confirmed.status == .ok, "\(confirmed.text)")
            #expect(try await client.passwordAuth("ben", "another123", clientId: testClient).json["AuthenticationResult"] != nil)
            #expect(try await client.passwordAuth("ann", "password123", clientId: testClient).json["AuthenticationResult"] != nil)
        }
    }

    /// An address the pool signs in with stays one user's, verified or not.
    @Test func anAddressThePoolSignsInWithStaysUnique() async throws {
        let byEmail = try Harness()
        try await byEmail.run { client in
            let again = try await client.cognito("SignUp", ["ClientId": .string(seedClient), "Username": "alice@example.com", "Password": "password123"])
            #expect(again.json == ["__type": "UsernameExistsException", "message": "An account with the given email already exists."])
        }
    }

    /// An alias is one user's once verified, as in Cognito: users sign up sharing it unverified; confirming a second
    /// one is `AliasExistsException` (the code kept for a second try) unless `ForceAliasCreation` moves the alias,
    /// and the first user's address stays, unverified, so the alias signs the second one in.
    @Test func anAliasIsOneUsersOnceVerified() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["AliasAttributes": ["email"]], users: []))
        try await harness.run { client in
            func confirm(_ username: String, _ code: String, force: Bool? = nil) async throws -> Reply {
                var body: [String: JSON] = ["ClientId": .string(testClient), "Username": .string(username), "ConfirmationCode": .string(code)]
                body["ForceAliasCreation"] = force.map(JSON.bool)
                return try await client.cognito("ConfirmSignUp", .object(body))
            }
            #expect(try await Self.signUp(client, "ann", email: "family@example.com").status == .ok)
            #expect(try await confirm("ann", try latestCode(harness, to: "family@example.com")).status == .ok)
            let ben = try await Self.signUp(client, "ben", email: "Family@example.com")
            #expect(ben.status == .ok, "an unverified alias may be shared: \(ben.text)")
            let benCode = try latestCode(harness, to: "Family@example.com")
            let refused = try await confirm("ben", benCode)
            #expect(refused.json == ["__type": "AliasExistsException", "message": "An account with the email already exists."])
            #expect(try await client.passwordAuth("family@example.com", "password123", clientId: testClient).json["AuthenticationResult"] != nil)
            #expect(try await confirm("ben", benCode, force: true).status == .ok)
            // The alias moved: it signs ben in, as he wrote it (the pool is case-sensitive, as a pool made without a
            // UsernameConfiguration is), and ann keeps the address unverified (her username still signs her in).
            let tokens = try await client.signIn("Family@example.com", clientId: testClient)
            #expect(try claims(tokens["AccessToken"])["username"] == "ben")
            let ann = try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "ann"])
            let attributes = Dictionary(uniqueKeysWithValues: (ann.json["UserAttributes"]?.arrayValue ?? []).map { ($0["Name"]?.stringValue ?? "", $0["Value"]) })
            #expect(attributes["email"] == "family@example.com" && attributes["email_verified"] == "false")
            #expect(try await client.passwordAuth("ann", "password123", clientId: testClient).json["AuthenticationResult"] != nil)

            // An administrator's verified alias: refused while another user has it verified, moved when forced.
            var create: [String: JSON] = ["UserPoolId": .string(testPool), "Username": "cy", "MessageAction": "SUPPRESS",
                                          "UserAttributes": [["Name": "email", "Value": "family@example.com"], ["Name": "email_verified", "Value": "true"]]]
            #expect(try await client.cognito("AdminCreateUser", .object(create)).errorType == "AliasExistsException")
            create["ForceAliasCreation"] = true
            #expect(try await client.cognito("AdminCreateUser", .object(create)).status == .ok)
            // And an update that verifies it, as the Python code that matches on the message does.
            let update = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "ann",
                                                                               "UserAttributes": [["Name": "email_verified", "Value": "true"]]])
            #expect(update.json == ["__type": "AliasExistsException", "message": "An account with the email already exists."])
        }
    }
}
