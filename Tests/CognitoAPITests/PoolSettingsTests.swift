import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Pool settings AWS checks or fills in: the MFA configuration, resource server identifiers, the
/// verification messages and the email configuration.
@Suite struct PoolSettingsTests {
    static let pool = JSON.string(testPool)

    /// AWS's enum check (its message lists the values in its own order, as CloudFormation users quote it),
    /// and its refusal of MFA that is on or optional with no factor to use.
    @Test func theMFAConfigurationMustBeAValueAndHaveAFactor() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let nonsense = try await client.cognito("SetUserPoolMfaConfig", ["UserPoolId": Self.pool, "MfaConfiguration": "SOMETIMES",
                                                                             "SoftwareTokenMfaConfiguration": ["Enabled": true]])
            #expect(nonsense.json == ["__type": "InvalidParameterException", "message": .string("1 validation error detected: Value 'SOMETIMES' at "
                + "'mfaConfiguration' failed to satisfy constraint: Member must satisfy enum value set: [OPTIONAL, OFF, ON]")])
            for mode in ["ON", "OPTIONAL"] {
                for body: [String: JSON] in [[:], ["SoftwareTokenMfaConfiguration": ["Enabled": false]]] {
                    let bare = try await client.cognito("SetUserPoolMfaConfig", .object(body.merging(["UserPoolId": Self.pool, "MfaConfiguration": .string(mode)]) { $1 }))
                    #expect(bare.json == ["__type": "InvalidParameterException",
                                          "message": "Invalid MFA configuration given, can't disable all MFAs with a required or optional configuration."],
                            "\(mode) \(body)")
                }
            }
            #expect(try await client.cognito("GetUserPoolMfaConfig", ["UserPoolId": Self.pool]).json["MfaConfiguration"] == "OFF")
            let created = try await client.cognito("CreateUserPool", ["PoolName": "p", "MfaConfiguration": "false"])
            #expect(created.message?.contains("Value 'false' at 'mfaConfiguration' failed to satisfy constraint") == true, "\(created.text)")
            let totp = try await client.cognito("SetUserPoolMfaConfig", ["UserPoolId": Self.pool, "MfaConfiguration": "ON",
                                                                         "SoftwareTokenMfaConfiguration": ["Enabled": true]])
            #expect(totp.json["MfaConfiguration"] == "ON")
        }
    }

    @Test func aResourceServerIdentifierIsTakenOnce() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let body: JSON = ["UserPoolId": Self.pool, "Identifier": "https://api.example.com", "Name": "api"]
            #expect(try await client.cognito("CreateResourceServer", body).status == .ok)
            let again = try await client.cognito("CreateResourceServer", body)
            #expect(again.json == ["__type": "InvalidParameterException",
                                   "message": .string("https://api.example.com already exists in user pool \(testPool).")])
        }
    }

    /// A pool given only `VerificationMessageTemplate` describes its messages in the older members too,
    /// and every pool has an `EmailConfiguration`, Cognito's own sender unless it says otherwise.
    @Test func theVerificationMessagesAndEmailConfigurationAreDescribed() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let template: JSON = ["EmailMessage": "Code: {####}", "EmailSubject": "Your code", "SmsMessage": "SMS code {####}",
                                  "DefaultEmailOption": "CONFIRM_WITH_CODE"]
            let created = try await client.cognito("CreateUserPool", ["PoolName": "messages", "VerificationMessageTemplate": template])
            let id = try #require(created.json["UserPool"]?["Id"])
            let pool = try #require(try await client.cognito("DescribeUserPool", ["UserPoolId": id]).json["UserPool"])
            #expect(pool["EmailVerificationMessage"] == "Code: {####}")
            #expect(pool["EmailVerificationSubject"] == "Your code")
            #expect(pool["SmsVerificationMessage"] == "SMS code {####}")
            #expect(pool["VerificationMessageTemplate"] == template)
            #expect(pool["EmailConfiguration"] == ["EmailSendingAccount": "COGNITO_DEFAULT"])
            #expect(created.json["UserPool"]?["EmailVerificationMessage"] == "Code: {####}")

            let seeded = try await client.cognito("DescribeUserPool", ["UserPoolId": .string(seedPool)])
            #expect(seeded.json["UserPool"]?["EmailConfiguration"]?["EmailSendingAccount"] == "COGNITO_DEFAULT")

            _ = try await client.cognito("UpdateUserPool", ["UserPoolId": id, "VerificationMessageTemplate": ["EmailMessage": "New {####}",
                                                                                                               "EmailSubject": "New subject"],
                                                            "EmailConfiguration": ["From": "App <app@example.com>"]])
            let updated = try #require(try await client.cognito("DescribeUserPool", ["UserPoolId": id]).json["UserPool"])
            #expect(updated["EmailVerificationMessage"] == "New {####}")
            #expect(updated["EmailConfiguration"] == ["From": "App <app@example.com>", "EmailSendingAccount": "COGNITO_DEFAULT"])
        }
    }
}
