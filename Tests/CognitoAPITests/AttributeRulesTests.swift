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

    /// A value must fit the pool's schema: a String within its `StringAttributeConstraints` (a standard attribute's
    /// 2,048 too), a Number whole and within its `NumberAttributeConstraints`, at sign-up and on every update. Amplify
    /// reported such updates done where AWS refuses them. An empty value clears the attribute and is not checked.
    @Test func aValueMustFitThePoolsSchema() async throws {
        let schema: JSON = [["Name": "custom:team", "AttributeDataType": "String", "StringAttributeConstraints": ["MinLength": "2", "MaxLength": "20"]],
                            ["Name": "custom:level", "AttributeDataType": "Number", "NumberAttributeConstraints": ["MinValue": "1", "MaxValue": "10"]]]
        let harness = try Harness(seed: cognitoSeed(pool: ["Schema": schema]))
        try await harness.run { client in
            func update(_ name: String, _ value: String) async throws -> Reply {
                try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "dave",
                                                                      "UserAttributes": [["Name": .string(name), "Value": .string(value)]]])
            }
            func refusal(_ name: String, _ reason: String) -> JSON {
                ["__type": "InvalidParameterException", "message": .string("Attributes did not conform to the schema: \(name): \(reason)\n")]
            }
            #expect(try await update("custom:team", String(repeating: "x", count: 21)).json == refusal("custom:team", "String must be no longer than 20 characters"))
            #expect(try await update("custom:team", "x").json == refusal("custom:team", "String must be no shorter than 2 characters"))
            #expect(try await update("custom:level", "abc").json == refusal("custom:level", "Number must be a whole number"))
            #expect(try await update("custom:level", "11").json == refusal("custom:level", "Number must be no greater than 10"))
            #expect(try await update("custom:level", "0").json == refusal("custom:level", "Number must be no less than 1"))
            #expect(try await update("name", String(repeating: "n", count: 2049)).json == refusal("name", "String must be no longer than 2048 characters"))
            for (name, value) in [("custom:team", "platform"), ("custom:level", "10"), ("name", String(repeating: "n", count: 2048)), ("custom:team", "")] {
                #expect(try await update(name, value).status == .ok)
            }
            let signUp = try await client.cognito("SignUp", ["ClientId": .string(testClient), "Username": "newbie", "Password": "password123",
                                                             "UserAttributes": [["Name": "email", "Value": "newbie@example.com"], ["Name": "custom:level", "Value": "99"]]])
            #expect(signUp.json == refusal("custom:level", "Number must be no greater than 10"))
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
