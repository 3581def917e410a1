import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Which attributes a request may set, and how their values are read, as Cognito has it.
@Suite struct AttributeRulesTests {
    /// A pool with an immutable custom attribute, and a user `kate` created by an administrator with a
    /// temporary password, a verified email and a value for it.
    static func withTemporaryUser() throws -> Harness {
        let schema: JSON = [["Name": "custom:tenant", "AttributeDataType": "String", "Mutable": false, "Required": false, "DeveloperOnlyAttribute": false]]
        return try Harness(seed: cognitoSeed(pool: ["Schema": schema]))
    }

    static func createKate(_ client: FauxthTesting.Client) async throws {
        let created = try await client.cognito("AdminCreateUser", [
            "UserPoolId": .string(testPool), "Username": "kate", "TemporaryPassword": "temp12345", "MessageAction": "SUPPRESS",
            "UserAttributes": [["Name": "email", "Value": "kate@example.com"], ["Name": "email_verified", "Value": "true"],
                               ["Name": "custom:tenant", "Value": "acme"]],
        ])
        #expect(created.status == .ok, "\(created.text)")
    }

    /// AWS answers `NEW_PASSWORD_REQUIRED` with `userAttributes.email_verified` (which the challenge's own
    /// `userAttributes` lists, and SDKs used to echo back) with InvalidParameterException "Cannot modify the
    /// non-mutable attribute email_verified" (aws-sdk-ios#2203, amplify-android#244); likewise the other
    /// verification flag, `sub`, and a schema attribute with `Mutable: false`. The session stays usable.
    @Test(arguments: [("email_verified", "true"), ("phone_number_verified", "false"), ("sub", "x"), ("custom:tenant", "other")])
    func newPasswordRequiredRefusesANonMutableAttribute(_ name: String, _ value: String) async throws {
        let harness = try Self.withTemporaryUser()
        try await harness.run { client in
            try await Self.createKate(client)
            let started = try await client.passwordAuth("kate", "temp12345", clientId: testClient)
            #expect(started.json["ChallengeName"] == "NEW_PASSWORD_REQUIRED")
            let refused = try await client.respond("NEW_PASSWORD_REQUIRED", session: started.json["Session"], [
                "USERNAME": "kate", "NEW_PASSWORD": "chosen123", "userAttributes.\(name)": .string(value),
            ], clientId: testClient)
            #expect(refused.json == ["__type": "InvalidParameterException", "message": .string("Cannot modify the non-mutable attribute \(name)")])
            let done = try await client.respond("NEW_PASSWORD_REQUIRED", session: started.json["Session"], [
                "USERNAME": "kate", "NEW_PASSWORD": "chosen123", "userAttributes.name": "Kate",
            ], clientId: testClient)
            #expect(done.json["AuthenticationResult"]?["AccessToken"] != nil, "\(done.text)")
        }
    }

    /// Cognito permits an immutable attribute only when the user is created; an update is refused.
    @Test func anImmutableAttributeIsSetAtCreationOnly() async throws {
        let harness = try Self.withTemporaryUser()
        try await harness.run { client in
            try await Self.createKate(client)
            let user = try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "kate"])
            #expect(user.json["UserAttributes"]?.arrayValue?.contains(["Name": "custom:tenant", "Value": "acme"]) == true)
            let update = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "kate",
                                                                               "UserAttributes": [["Name": "custom:tenant", "Value": "other"]]])
            #expect(update.json == ["__type": "InvalidParameterException", "message": "Cannot modify the non-mutable attribute custom:tenant"])
        }
    }

    /// AWS reads `email_verified` and `phone_number_verified` as booleans, whatever their case: an
    /// administrator's `"True"` verifies the address, and the user can then reset a forgotten password.
    @Test func verificationFlagsAreReadWhateverTheirCase() async throws {
        let harness = try Harness(seed: cognitoSeed(users: []))
        try await harness.run { client in
            let created = try await client.cognito("AdminCreateUser", [
                "UserPoolId": .string(testPool), "Username": "lena", "MessageAction": "SUPPRESS",
                "UserAttributes": [["Name": "email", "Value": "lena@example.com"], ["Name": "email_verified", "Value": "True"],
                                   ["Name": "phone_number", "Value": "+15555550177"], ["Name": "phone_number_verified", "Value": "TRUE"]],
            ])
            let attributes = created.json["User"]?["Attributes"]?.arrayValue ?? []
            #expect(attributes.contains(["Name": "email_verified", "Value": "true"]), "\(created.text)")
            #expect(attributes.contains(["Name": "phone_number_verified", "Value": "true"]))
            _ = try await client.cognito("AdminSetUserPassword", ["UserPoolId": .string(testPool), "Username": "lena", "Password": "chosen123",
                                                                 "Permanent": true])
            let forgot = try await client.cognito("ForgotPassword", ["ClientId": .string(testClient), "Username": "lena"])
            #expect(forgot.json["CodeDeliveryDetails"]?["DeliveryMedium"] == "SMS", "\(forgot.text)")

            _ = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "lena",
                                                                      "UserAttributes": [["Name": "phone_number_verified", "Value": "False"]]])
            let reset = try await client.cognito("ForgotPassword", ["ClientId": .string(testClient), "Username": "lena"])
            #expect(reset.json["CodeDeliveryDetails"]?["DeliveryMedium"] == "EMAIL", "\(reset.text)")
        }
    }
}
