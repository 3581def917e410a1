import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing
@testable import CognitoAPI

/// `ExplicitAuthFlows` in its two generations: the legacy names (`ADMIN_NO_SRP_AUTH`, `USER_PASSWORD_AUTH`,
/// `CUSTOM_AUTH_FLOW_ONLY`), beside which SRP and refresh are always on, and the `ALLOW_` names, which
/// say everything the client may do. AWS refuses a list that mixes them, and names outside the enum.
@Suite struct AuthFlowNamesTests {
    static func createClient(_ client: FauxthTesting.Client, flows: JSON) async throws -> Reply {
        try await client.cognito("CreateUserPoolClient", ["UserPoolId": .string(testPool), "ClientName": "legacy", "ExplicitAuthFlows": flows])
    }

    static func srpStart(_ client: FauxthTesting.Client, clientId: String) async throws -> Reply {
        try await client.cognito("InitiateAuth", ["ClientId": .string(clientId), "AuthFlow": "USER_SRP_AUTH",
                                                  "AuthParameters": ["USERNAME": "dave", "SRP_A": .string(SRPTests.Client(a: SRPNumber(7)).A.hex)]])
    }

    @Test(arguments: ["ADMIN_NO_SRP_AUTH", "USER_PASSWORD_AUTH", "CUSTOM_AUTH_FLOW_ONLY"])
    func aLegacyClientStillSignsInWithSRP(_ legacy: String) async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let created = try await Self.createClient(client, flows: [.string(legacy)])
            let id = try #require(created.json["UserPoolClient"]?["ClientId"]?.stringValue, "\(created.text)")
            #expect(created.json["UserPoolClient"]?["ExplicitAuthFlows"] == [.string(legacy)])
            let srp = try await Self.srpStart(client, clientId: id)
            #expect(srp.json["ChallengeName"] == "PASSWORD_VERIFIER", "\(srp.text)")

            let password = try await client.passwordAuth("dave", clientId: id)
            if legacy == "USER_PASSWORD_AUTH" {
                let result = try #require(password.json["AuthenticationResult"], "\(password.text)")
                let refreshed = try await client.cognito("InitiateAuth", ["ClientId": .string(id), "AuthFlow": "REFRESH_TOKEN_AUTH",
                                                                          "AuthParameters": ["REFRESH_TOKEN": result["RefreshToken"] ?? .null]])
                #expect(refreshed.json["AuthenticationResult"]?["AccessToken"] != nil, "refresh is on beside legacy names")
            } else {
                #expect(password.json == ["__type": "InvalidParameterException", "message": "USER_PASSWORD_AUTH flow not enabled for this client"])
            }
            let admin = try await client.cognito("AdminInitiateAuth", ["UserPoolId": .string(testPool), "ClientId": .string(id), "AuthFlow": "ADMIN_NO_SRP_AUTH",
                                                                       "AuthParameters": ["USERNAME": "dave", "PASSWORD": "password123"]])
            #expect((admin.json["AuthenticationResult"] != nil) == (legacy == "ADMIN_NO_SRP_AUTH"), "\(admin.text)")
        }
    }

    @Test func aMixOfLegacyAndAllowNamesIsRefused() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let mixed = try await Self.createClient(client, flows: ["ALLOW_USER_SRP_AUTH", "USER_PASSWORD_AUTH"])
            #expect(mixed.json == ["__type": "InvalidParameterException",
                                   "message": "Values with ALLOW_ prefix cannot be used along with values without ALLOW_ prefix."])
            let update = try await client.cognito("UpdateUserPoolClient", ["UserPoolId": .string(testPool), "ClientId": .string(testClient),
                                                                           "ExplicitAuthFlows": ["ADMIN_NO_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]])
            #expect(update.errorType == "InvalidParameterException")
            let unchanged = try await client.cognito("DescribeUserPoolClient", ["UserPoolId": .string(testPool), "ClientId": .string(testClient)])
            #expect(unchanged.json["UserPoolClient"]?["ExplicitAuthFlows"]?.arrayValue?.contains("ALLOW_USER_SRP_AUTH") == true)
        }
    }

    /// The enum check of the AWS model, in the service's own words (its order of the values is its own).
    @Test func aFlowNameOutsideTheEnumIsRefused() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let unknown = try await Self.createClient(client, flows: ["ALLOW_USER_SRP_AUTH", "ALLOW_MAGIC"])
            #expect(unknown.errorType == "InvalidParameterException")
            #expect(unknown.message == "1 validation error detected: Value '[ALLOW_USER_SRP_AUTH, ALLOW_MAGIC]' at 'explicitAuthFlows' failed to satisfy "
                    + "constraint: Member must satisfy constraint: [Member must satisfy enum value set: [ALLOW_CUSTOM_AUTH, ADMIN_NO_SRP_AUTH, "
                    + "ALLOW_REFRESH_TOKEN_AUTH, ALLOW_USER_PASSWORD_AUTH, ALLOW_USER_SRP_AUTH, CUSTOM_AUTH_FLOW_ONLY, USER_PASSWORD_AUTH, "
                    + "ALLOW_ADMIN_USER_PASSWORD_AUTH, ALLOW_USER_AUTH]]")
        }
    }
}
