import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Pools and their resources as the AWS CLI, boto3 and Terraform manage them.
@Suite struct PoolAdminTests {
    @Test func createUserPoolAnswersThePoolWithCognitosDefaults() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.cognito("CreateUserPool", [
                "PoolName": "app", "UsernameAttributes": ["email"],
                "Schema": [["Name": "tenant", "AttributeDataType": "String"]],
            ])
            #expect(created.status == .ok)
            let pool = try #require(created.json["UserPool"])
            let id = try #require(pool["Id"]?.stringValue)
            #expect(id.wholeMatch(of: #/us-east-1_[0-9A-Za-z]{9}/#) != nil)
            #expect(pool["Name"] == "app")
            #expect(pool["Arn"] == .string("arn:aws:cognito-idp:us-east-1:000000000000:userpool/\(id)"))
            #expect(pool["MfaConfiguration"] == "OFF")
            #expect(pool["Policies"]?["PasswordPolicy"] == ["MinimumLength": 8, "RequireUppercase": true, "RequireLowercase": true,
                                                            "RequireNumbers": true, "RequireSymbols": true, "TemporaryPasswordValidityDays": 7])
            #expect(pool["EstimatedNumberOfUsers"] == 0)
            #expect(pool["CreationDate"]?.intValue == Int(Harness.epoch.timeIntervalSince1970))
            let schema = (pool["SchemaAttributes"]?.arrayValue ?? []).compactMap { $0["Name"]?.stringValue }
            #expect(schema.contains("sub"))
            #expect(schema.contains("custom:tenant"), "a non-standard schema name becomes a custom attribute")

            let described = try await client.cognito("DescribeUserPool", ["UserPoolId": .string(id)])
            #expect(described.json["UserPool"]?["UsernameAttributes"] == ["email"])
            #expect(described.json["UserPool"]?["Id"] == .string(id))
        }
    }

    @Test func aSigV4CredentialScopeChoosesTheRegion() async throws {
        let harness = try Harness()
        let created = try await harness.run { client in
            try await client.send(.post, "/", raw: "{\"PoolName\":\"eu\"}", headers: [
                .xAmzTarget: "AWSCognitoIdentityProviderService.CreateUserPool", .contentType: "application/x-amz-json-1.1",
                .authorization: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/eu-west-1/cognito-idp/aws4_request, SignedHeaders=host, Signature=abc",
            ])
        }
        let id = try #require(created.json["UserPool"]?["Id"]?.stringValue)
        #expect(id.hasPrefix("eu-west-1_"))
        #expect(created.json["UserPool"]?["Arn"]?.stringValue?.hasPrefix("arn:aws:cognito-idp:eu-west-1:") == true)
    }

    @Test func updateUserPoolReplacesTheMutableMembersOnly() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let updated = try await client.cognito("UpdateUserPool", [
                "UserPoolId": .string(testPool), "MfaConfiguration": "OPTIONAL", "UsernameAttributes": ["phone_number"],
                "AutoVerifiedAttributes": ["phone_number"], "SoftwareTokenMfaConfiguration": ["Enabled": true],
            ])
            #expect(updated.status == .ok)
            let pool = try await client.cognito("DescribeUserPool", ["UserPoolId": .string(testPool)]).json["UserPool"]
            #expect(pool?["MfaConfiguration"] == "OPTIONAL")
            #expect(pool?["AutoVerifiedAttributes"] == ["phone_number"])
            #expect(pool?["UsernameAttributes"] == nil, "sign-in attributes are fixed at creation")
            // Policies was not given, so it went back to Cognito's default.
            #expect(pool?["Policies"]?["PasswordPolicy"]?["RequireSymbols"] == true)
            #expect(pool?["LastModifiedDate"] != nil)
        }
    }

    @Test func deletionProtectionKeepsAPool() async throws {
        let harness = try Harness(seed: cognitoSeed(pool: ["DeletionProtection": "ACTIVE"]))
        try await harness.run { client in
            let refused = try await client.cognito("DeleteUserPool", ["UserPoolId": .string(testPool)])
            #expect(refused.errorType == "InvalidParameterException")
            #expect(try harness.emulator.tenant(testPool) != nil)
            _ = try await client.cognito("UpdateUserPool", ["UserPoolId": .string(testPool), "DeletionProtection": "INACTIVE"])
            #expect(try await client.cognito("DeleteUserPool", ["UserPoolId": .string(testPool)]).status == .ok)
            let gone = try await client.cognito("DescribeUserPool", ["UserPoolId": .string(testPool)])
            #expect(gone.errorType == "ResourceNotFoundException")
            #expect(try await client.passwordAuth("dave", clientId: testClient).errorType == "ResourceNotFoundException")
        }
    }

    @Test func listUserPoolsPagesWithNextToken() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await client.cognito("CreateUserPool", ["PoolName": "second"])
            let first = try await client.cognito("ListUserPools", ["MaxResults": 1])
            #expect(first.json["UserPools"]?.arrayValue?.count == 1)
            let token = try #require(first.json["NextToken"])
            let second = try await client.cognito("ListUserPools", ["MaxResults": 1, "NextToken": token])
            #expect(second.json["UserPools"]?.arrayValue?.count == 1)
            #expect(second.json["NextToken"] == nil)
            let names = Set([first, second].compactMap { $0.json["UserPools"]?[0]?["Name"]?.stringValue })
            #expect(names == ["Local Cognito pool", "second"])
            #expect(try await client.cognito("ListUserPools", ["MaxResults": 0]).errorType == "InvalidParameterException")
        }
    }

    @Test func appClientsAreCreatedDescribedReplacedListedAndDeleted() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let created = try await client.cognito("CreateUserPoolClient", [
                "UserPoolId": .string(testPool), "ClientName": "backend", "GenerateSecret": true, "ExplicitAuthFlows": ["ALLOW_USER_PASSWORD_AUTH"],
            ])
            let shape = try #require(created.json["UserPoolClient"])
            let id = try #require(shape["ClientId"]?.stringValue)
            #expect(id.wholeMatch(of: #/[a-z0-9]{26}/#) != nil)
            #expect(shape["ClientSecret"]?.stringValue?.isEmpty == false)
            #expect(shape["UserPoolId"] == .string(testPool))
            #expect(shape["RefreshTokenValidity"] == 30)
            #expect(shape["TokenValidityUnits"] == ["AccessToken": "hours", "IdToken": "hours", "RefreshToken": "days"])
            #expect(shape["EnableTokenRevocation"] == true)

            let updated = try await client.cognito("UpdateUserPoolClient", ["UserPoolId": .string(testPool), "ClientId": .string(id), "AccessTokenValidity": 2])
            #expect(updated.json["UserPoolClient"]?["ClientName"] == "backend")
            #expect(updated.json["UserPoolClient"]?["ExplicitAuthFlows"] == nil, "an update replaces every settable member")
            #expect(updated.json["UserPoolClient"]?["ClientSecret"] == shape["ClientSecret"])
            let described = try await client.cognito("DescribeUserPoolClient", ["UserPoolId": .string(testPool), "ClientId": .string(id)])
            #expect(described.json["UserPoolClient"]?["AccessTokenValidity"] == 2)

            let listed = try await client.cognito("ListUserPoolClients", ["UserPoolId": .string(testPool)])
            #expect(Set(listed.json["UserPoolClients"]?.arrayValue?.compactMap { $0["ClientId"]?.stringValue } ?? []) == [id, testClient])
            #expect(try await client.cognito("DeleteUserPoolClient", ["UserPoolId": .string(testPool), "ClientId": .string(id)]).status == .ok)
            let gone = try await client.cognito("DescribeUserPoolClient", ["UserPoolId": .string(testPool), "ClientId": .string(id)])
            #expect(gone.json == ["__type": "ResourceNotFoundException", "message": .string("User pool client \(id) does not exist.")])
        }
    }

    @Test func clientsRefuseOAuthCombinationsCognitoRefuses() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let noSecret = try await client.cognito("CreateUserPoolClient", [
                "UserPoolId": .string(testPool), "ClientName": "m2m", "AllowedOAuthFlows": ["client_credentials"], "AllowedOAuthFlowsUserPoolClient": true,
            ])
            #expect(noSecret.errorType == "InvalidParameterException")
            #expect(noSecret.message == "client_credentials flow can not be selected if client does not have a client secret.")
            let noCallback = try await client.cognito("CreateUserPoolClient", [
                "UserPoolId": .string(testPool), "ClientName": "web", "AllowedOAuthFlows": ["code"], "AllowedOAuthFlowsUserPoolClient": true,
            ])
            #expect(noCallback.errorType == "InvalidParameterException")
            #expect(try harness.emulator.tenant(testPool)?.settings["clients"]?.arrayValue?.count == 1)
        }
    }

    @Test func aDomainBelongsToOnePool() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed()))
        try await harness.run { client in
            let taken = try await client.cognito("CreateUserPoolDomain", ["UserPoolId": .string(testPool), "Domain": "fauxth-local"])
            #expect(taken.errorType == "InvalidParameterException")
            let created = try await client.cognito("CreateUserPoolDomain", ["UserPoolId": .string(testPool), "Domain": "tests-auth"])
            #expect(created.json["CloudFrontDomain"]?.stringValue?.isEmpty == false)
            let described = try await client.cognito("DescribeUserPoolDomain", ["Domain": "tests-auth"])
            #expect(described.json["DomainDescription"]?["UserPoolId"] == .string(testPool))
            #expect(described.json["DomainDescription"]?["Status"] == "ACTIVE")
            #expect(try await client.cognito("DescribeUserPool", ["UserPoolId": .string(testPool)]).json["UserPool"]?["Domain"] == "tests-auth")

            #expect(try await client.cognito("DescribeUserPoolDomain", ["Domain": "nobody"]).json == ["DomainDescription": [:]])
            let wrongPool = try await client.cognito("DeleteUserPoolDomain", ["UserPoolId": .string(seedPool), "Domain": "tests-auth"])
            #expect(wrongPool.errorType == "InvalidParameterException")
            #expect(try await client.cognito("DeleteUserPoolDomain", ["UserPoolId": .string(testPool), "Domain": "tests-auth"]).status == .ok)
            #expect(try await client.cognito("DescribeUserPool", ["UserPoolId": .string(testPool)]).json["UserPool"]?["Domain"] == nil)
        }
    }

    @Test func resourceServersHoldCustomScopes() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let scopes: JSON = [["ScopeName": "read", "ScopeDescription": "Read"]]
            let created = try await client.cognito("CreateResourceServer", ["UserPoolId": .string(testPool), "Identifier": "https://api.example.com",
                                                                            "Name": "api", "Scopes": scopes])
            #expect(created.json["ResourceServer"]?["Scopes"] == scopes)
            #expect(created.json["ResourceServer"]?["UserPoolId"] == .string(testPool))
            let again = try await client.cognito("CreateResourceServer", ["UserPoolId": .string(testPool), "Identifier": "https://api.example.com", "Name": "x"])
            #expect(again.status == .badRequest)
            let updated = try await client.cognito("UpdateResourceServer", ["UserPoolId": .string(testPool), "Identifier": "https://api.example.com",
                                                                            "Name": "api v2"])
            #expect(updated.json["ResourceServer"]?["Name"] == "api v2")
            let listed = try await client.cognito("ListResourceServers", ["UserPoolId": .string(testPool), "MaxResults": 10])
            #expect(listed.json["ResourceServers"]?.arrayValue?.count == 1)
            _ = try await client.cognito("DeleteResourceServer", ["UserPoolId": .string(testPool), "Identifier": "https://api.example.com"])
            let gone = try await client.cognito("DescribeResourceServer", ["UserPoolId": .string(testPool), "Identifier": "https://api.example.com"])
            #expect(gone.errorType == "ResourceNotFoundException")
        }
    }

    /// The model's constraints on a group (Fauxth stored anything, and a junk role ARN reached `cognito:roles`).
    @Test func aGroupsFieldsAreCheckedAsTheModelConstrainsThem() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let pool = JSON.string(testPool)
            let spaced = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "my group"])
            #expect(spaced.errorType == "InvalidParameterException")
            #expect(spaced.message == "1 validation error detected: Value 'my group' at 'groupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+")
            let junk = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "admins", "RoleArn": "not-an-arn-but-long-enough"])
            #expect(junk.message == "Invalid ARN format not-an-arn-but-long-enough")
            let short = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "admins", "RoleArn": "arn:aws:iam::1:r"])
            #expect(short.message?.hasSuffix("Member must have length greater than or equal to 20") == true)
            let negative = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "admins", "Precedence": -1])
            #expect(negative.errorType == "InvalidParameterException")
            #expect(try await client.cognito("GetGroup", ["UserPoolId": pool, "GroupName": "admins"]).errorType == "ResourceNotFoundException")
            let fine = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "admins_ü.1", "RoleArn": "arn:aws:iam::123456789012:role/Admins"])
            #expect(fine.status == .ok, "\(fine.text)")
            let update = try await client.cognito("UpdateGroup", ["UserPoolId": pool, "GroupName": "admins_ü.1", "RoleArn": "nope-nope-nope-nope-nope"])
            #expect(update.errorType == "InvalidParameterException")
        }
    }

    @Test func groupsAndMembershipsReachTheTokens() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let pool = JSON.string(testPool)
            #expect(try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "editors", "Precedence": 2]).json["Group"]?["GroupName"] == "editors")
            let duplicate = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "editors"])
            #expect(duplicate.errorType == "GroupExistsException")
            _ = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": "authors"])
            let updated = try await client.cognito("UpdateGroup", ["UserPoolId": pool, "GroupName": "editors", "Description": "Edit things"])
            #expect(updated.json["Group"]?["Description"] == "Edit things")
            #expect(updated.json["Group"]?["Precedence"] == 2)
            let names = try await client.cognito("ListGroups", ["UserPoolId": pool]).json["Groups"]?.arrayValue?.compactMap { $0["GroupName"]?.stringValue }
            #expect(names == ["authors", "editors"])

            for _ in 0..<2 { #expect(try await client.cognito("AdminAddUserToGroup", ["UserPoolId": pool, "Username": "dave", "GroupName": "editors"]).status == .ok) }
            let forUser = try await client.cognito("AdminListGroupsForUser", ["UserPoolId": pool, "Username": "dave"])
            #expect(forUser.json["Groups"]?.arrayValue?.compactMap { $0["GroupName"]?.stringValue } == ["editors"])
            let members = try await client.cognito("ListUsersInGroup", ["UserPoolId": pool, "GroupName": "editors"])
            #expect(members.json["Users"]?.arrayValue?.compactMap { $0["Username"]?.stringValue } == ["dave"])
            let tokens = try await client.signIn("dave", clientId: testClient)
            #expect(try claims(tokens["AccessToken"])["cognito:groups"] == ["editors"])
            #expect(try claims(tokens["IdToken"])["cognito:groups"] == ["editors"])

            _ = try await client.cognito("DeleteGroup", ["UserPoolId": pool, "GroupName": "editors"])
            #expect(try await client.cognito("GetGroup", ["UserPoolId": pool, "GroupName": "editors"]).errorType == "ResourceNotFoundException")
            #expect(try await client.cognito("AdminListGroupsForUser", ["UserPoolId": pool, "Username": "dave"]).json["Groups"] == [])
            #expect(try claims(try await client.signIn("dave", clientId: testClient)["AccessToken"])["cognito:groups"] == nil)
            let noGroup = try await client.cognito("AdminAddUserToGroup", ["UserPoolId": pool, "Username": "dave", "GroupName": "ghosts"])
            #expect(noGroup.errorType == "ResourceNotFoundException")
        }
    }

    @Test func customAttributesAreAddedOnceAndThenWritable() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let pool = JSON.string(testPool)
            let before = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": pool, "Username": "dave",
                                                                               "UserAttributes": [["Name": "custom:plan", "Value": "pro"]]])
            #expect(before.errorType == "InvalidParameterException")
            let added = try await client.cognito("AddCustomAttributes", ["UserPoolId": pool, "CustomAttributes": [["Name": "plan", "AttributeDataType": "String"]]])
            #expect(added.status == .ok)
            let again = try await client.cognito("AddCustomAttributes", ["UserPoolId": pool, "CustomAttributes": [["Name": "plan"]]])
            #expect(again.errorType == "InvalidParameterException")
            let schema = try await client.cognito("DescribeUserPool", ["UserPoolId": pool]).json["UserPool"]?["SchemaAttributes"]?.arrayValue ?? []
            #expect(schema.contains { $0["Name"] == "custom:plan" && $0["AttributeDataType"] == "String" })

            _ = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": pool, "Username": "dave",
                                                                      "UserAttributes": [["Name": "custom:plan", "Value": "pro"]]])
            let user = try await client.cognito("AdminGetUser", ["UserPoolId": pool, "Username": "dave"])
            #expect(user.json["UserAttributes"]?.arrayValue?.contains(["Name": "custom:plan", "Value": "pro"]) == true)
            #expect(try claims(try await client.signIn("dave", clientId: testClient)["IdToken"])["custom:plan"] == "pro")
        }
    }

    @Test func theMFAConfigurationIsReadAndSet() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let pool = JSON.string(testPool)
            let initial = try await client.cognito("GetUserPoolMfaConfig", ["UserPoolId": pool])
            #expect(initial.json["MfaConfiguration"] == "OFF")
            #expect(initial.json["SoftwareTokenMfaConfiguration"]?["Enabled"] != true)
            let set = try await client.cognito("SetUserPoolMfaConfig", ["UserPoolId": pool, "MfaConfiguration": "ON",
                                                                        "SoftwareTokenMfaConfiguration": ["Enabled": true]])
            #expect(set.json["MfaConfiguration"] == "ON")
            #expect(set.json["SoftwareTokenMfaConfiguration"] == ["Enabled": true])
            #expect(try await client.cognito("DescribeUserPool", ["UserPoolId": pool]).json["UserPool"]?["MfaConfiguration"] == "ON")
            // With MFA required and only TOTP available, a user without an authenticator must set one up.
            let signIn = try await client.passwordAuth("dave", clientId: testClient)
            #expect(signIn.json["ChallengeName"] == "MFA_SETUP")
        }
    }
}
