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

    /// Where the pool signs in with an address or makes it an alias, it stays one user's.
    @Test func anAddressThePoolSignsInWithStaysUnique() async throws {
        let aliases = try Harness(seed: cognitoSeed(pool: ["AliasAttributes": ["phone_number"]]))
        try await aliases.run { client in
            let phone = try await Self.signUp(client, "dave2", phone: "+15555550123")
            #expect(phone.status == .ok, "no one else has that phone yet: \(phone.text)")
            let taken = try await Self.signUp(client, "dave3", phone: "+15555550123")
            #expect(taken.errorType == "UsernameExistsException")
            let email = try await Self.signUp(client, "dave4", email: "dave@example.com")
            #expect(email.status == .ok, "email is no alias in this pool: \(email.text)")
        }
        let byEmail = try Harness()
        try await byEmail.run { client in
            let again = try await client.cognito("SignUp", ["ClientId": .string(seedClient), "Username": "alice@example.com", "Password": "password123"])
            #expect(again.json == ["__type": "UsernameExistsException", "message": "An account with the given email already exists."])
        }
    }
}
