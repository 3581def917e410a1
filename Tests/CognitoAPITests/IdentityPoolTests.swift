import AuthCore
@testable import CognitoAPI
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Cognito identity pools (`AWSCognitoIdentityService.*`): one identity per user, the ID token checked as AWS checks
/// it, guests signing in (keeping their identity, or merged into the user's), credentials by role, the pools' own
/// administration, and identities in snapshots and resets.
@Suite struct IdentityPoolTests {
    /// The built-in seed's identity pool and the provider name its user pool signs in as.
    static let seedIdentityPool = "us-east-1:00000000-0000-4000-8000-00000000f001"
    static let provider = "cognito-idp.us-east-1.amazonaws.com/\(seedPool)"

    static func logins(_ tokens: JSON, provider: String = provider) -> JSON { .object([provider: tokens["IdToken"] ?? .null]) }

    @Test func aUserHasOneIdentityAndCredentialsForItsRole() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let carol = try await client.signIn("carol@example.com")
            let first = try await client.identityPool("GetId", ["IdentityPoolId": .string(Self.seedIdentityPool), "Logins": Self.logins(carol)])
            let id = try #require(first.json["IdentityId"]?.stringValue, "\(first.text)")
            #expect(id.wholeMatch(of: #/us-east-1:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/#) != nil)
            // A later sign-in's token names the same identity; another user's, another.
            let again = try await client.signIn("carol@example.com")
            #expect(try await client.identityPool("GetId", ["IdentityPoolId": .string(Self.seedIdentityPool), "Logins": Self.logins(again)])
                .json["IdentityId"]?.stringValue == id)
            let alice = try await client.signIn("alice@example.com")
            let aliceId = try await client.identityPool("GetId", ["IdentityPoolId": .string(Self.seedIdentityPool), "Logins": Self.logins(alice)])
                .json["IdentityId"]?.stringValue
            #expect(aliceId != nil && aliceId != id)

            let credentials = try await client.identityPool("GetCredentialsForIdentity", ["IdentityId": .string(id), "Logins": Self.logins(carol)])
            #expect(credentials.status == .ok, "\(credentials.text)")
            #expect(credentials.json["IdentityId"]?.stringValue == id)
            let issued = try #require(credentials.json["Credentials"])
            #expect(issued["AccessKeyId"]?.stringValue?.wholeMatch(of: #/ASIA[A-Z2-7]{16}/#) != nil)
            #expect(issued["SecretKey"]?.stringValue?.count == 40)
            #expect((issued["SessionToken"]?.stringValue?.count ?? 0) > 100)
            #expect(issued["Expiration"]?.doubleValue == Harness.epoch.timeIntervalSince1970 + 3600)

            // An authenticated identity needs one of its own logins: none, or another user's, do not match.
            for logins: JSON in [[:], Self.logins(alice)] {
                let refused = try await client.identityPool("GetCredentialsForIdentity", ["IdentityId": .string(id), "Logins": logins])
                #expect(refused.errorType == "NotAuthorizedException")
                #expect(refused.message == "Logins don't match. Please include at least one valid login for this identity or identity pool.")
            }
            let described = try await client.identityPool("DescribeIdentity", ["IdentityId": .string(id)])
            #expect(described.json["Logins"] == .array([.string(Self.provider)]))
            #expect(described.json["CreationDate"]?.doubleValue == Harness.epoch.timeIntervalSince1970)
            let missing = try await client.identityPool("GetCredentialsForIdentity", ["IdentityId": "us-east-1:00000000-0000-4000-8000-000000000000"])
            #expect(missing.errorType == "ResourceNotFoundException")
            #expect(missing.message == "Identity 'us-east-1:00000000-0000-4000-8000-000000000000' not found.")
        }
    }

    @Test func aLoginTokenIsCheckedAsAWSChecksIt() async throws {
        let identityPool: JSON = [
            "IdentityPoolId": "us-east-1:00000000-0000-4000-8000-0000000000aa", "IdentityPoolName": "tests", "AllowUnauthenticatedIdentities": false,
            "CognitoIdentityProviders": [["ProviderName": .string("cognito-idp.us-east-1.amazonaws.com/\(testPool)"), "ClientId": .string(testClient)]],
            "Roles": ["authenticated": "arn:aws:iam::000000000000:role/auth"],
        ]
        let other: [String: JSON] = ["ClientId": "otherclient00000000000001", "ExplicitAuthFlows": ["ALLOW_USER_PASSWORD_AUTH"]]
        let harness = try Harness(seed: cognitoSeed(extraClients: [other], settings: ["identity_pools": [identityPool]]))
        let provider = "cognito-idp.us-east-1.amazonaws.com/\(testPool)"
        try await harness.run { client in
            func getId(_ logins: JSON) async throws -> Reply {
                try await client.identityPool("GetId", ["IdentityPoolId": "us-east-1:00000000-0000-4000-8000-0000000000aa", "Logins": logins])
            }
            let tokens = try await client.signIn("dave", clientId: testClient)
            #expect(try await getId(Self.logins(tokens, provider: provider)).status == .ok)

            let unauthenticated = try await getId([:])
            #expect(unauthenticated.errorType == "NotAuthorizedException")
            #expect(unauthenticated.message == "Unauthenticated access is not supported for this identity pool.")
            #expect(try await getId([.init(provider): tokens["AccessToken"] ?? .null]).message == "Invalid login token. Missing a required claim: aud")
            let idToken = try #require(tokens["IdToken"]?.stringValue)
            let tampered = String(idToken.dropLast(4)) + (idToken.hasSuffix("AAAA") ? "BBBB" : "AAAA")
            #expect(try await getId([.init(provider): .string(tampered)]).message == "Invalid login token. Couldn't verify signed token.")
            // The key names a provider the pool does not have, or the token is for another of the pool's clients.
            #expect(try await getId(Self.logins(tokens, provider: "cognito-idp.us-east-1.amazonaws.com/us-east-1_Other1234")).message
                == "Token is not from a supported provider of this identity pool.")
            let otherTokens = try await client.signIn("dave", clientId: "otherclient00000000000001")
            #expect(try await getId(Self.logins(otherTokens, provider: provider)).message == "Token is not from a supported provider of this identity pool.")
            // The ID token lasts an hour on the emulator clock.
            harness.emulator.clock.advance(by: 3600)
            let now = Int(harness.emulator.clock.now.timeIntervalSince1970)
            #expect(try await getId(Self.logins(tokens, provider: provider)).message == "Invalid login token. Token expired: \(now) >= \(now)")
        }
    }

    @Test func aPoolThatIssuesWithFauxthsURLIsNamedByItAsAmplifyNamesIt() async throws {
        let identityPool: JSON = [
            "IdentityPoolId": "us-east-1:00000000-0000-4000-8000-0000000000bb", "IdentityPoolName": "tests", "AllowUnauthenticatedIdentities": false,
            "CognitoIdentityProviders": [["ProviderName": .string("cognito-idp.us-east-1.amazonaws.com/\(testPool)"), "ClientId": .string(testClient)]],
        ]
        let harness = try Harness(seed: cognitoSeed(settings: ["issuer": "emulator", "identity_pools": [identityPool]]))
        try await harness.run { client in
            let tokens = try await client.signIn("dave", clientId: testClient)
            let issuer = try #require(try claims(tokens["IdToken"])["iss"]?.stringValue)
            let key = issuer.replacing(#/^\w+:\/\//#, with: "")
            #expect(key.hasSuffix("/\(testPool)") && !key.hasPrefix("cognito-idp."))
            let id = try await client.identityPool("GetId", ["IdentityPoolId": "us-east-1:00000000-0000-4000-8000-0000000000bb",
                                                             "Logins": Self.logins(tokens, provider: key)])
            let identity = try #require(id.json["IdentityId"]?.stringValue, "\(id.text)")
            #expect(try await client.identityPool("DescribeIdentity", ["IdentityId": .string(identity)]).json["Logins"]
                == [.string("cognito-idp.us-east-1.amazonaws.com/\(testPool)")])
            // The provider's own name does not match such a token's issuer, as on AWS a key that is not the issuer does not.
            let canonical = try await client.identityPool("GetId", ["IdentityPoolId": "us-east-1:00000000-0000-4000-8000-0000000000bb",
                                                                    "Logins": Self.logins(tokens, provider: "cognito-idp.us-east-1.amazonaws.com/\(testPool)")])
            #expect(canonical.message == "Invalid login token. Issuer doesn't match providerName")
        }
    }

    @Test func aGuestSigningInKeepsItsIdentityUnlessTheUserHasOne() async throws {
        let harness = try Harness()
        try await harness.run { client in
            func guest() async throws -> String {
                try #require(try await client.identityPool("GetId", ["IdentityPoolId": .string(Self.seedIdentityPool), "Logins": [:]])
                    .json["IdentityId"]?.stringValue)
            }
            func credentials(_ id: String, _ logins: JSON? = nil) async throws -> Reply {
                var body: [String: JSON] = ["IdentityId": .string(id)]
                body["Logins"] = logins
                return try await client.identityPool("GetCredentialsForIdentity", .object(body))
            }
            let first = try await guest()
            #expect(try await credentials(first).status == .ok)
            let carol = try await client.signIn("carol@example.com")
            #expect(try await credentials(first, Self.logins(carol)).json["IdentityId"]?.stringValue == first, "a new user keeps the guest's identity")
            #expect(try await client.identityPool("GetId", ["IdentityPoolId": .string(Self.seedIdentityPool), "Logins": Self.logins(carol)])
                .json["IdentityId"]?.stringValue == first)

            harness.emulator.clock.advance(by: 1)  // so the two guests list in the order they came
            let second = try await guest()
            #expect(try await credentials(second, Self.logins(carol)).json["IdentityId"]?.stringValue == first, "a known user gets their own")
            let merged = try await credentials(second)
            #expect(merged.errorType == "NotAuthorizedException")
            #expect(merged.message == "Access to Identity '\(second)' is forbidden.")

            let listed = try await client.identityPool("ListIdentities", ["IdentityPoolId": .string(Self.seedIdentityPool), "MaxResults": 10])
            #expect(listed.json["Identities"]?.arrayValue?.compactMap { $0["IdentityId"]?.stringValue } == [first, second])
            let shown = try await client.identityPool("ListIdentities", ["IdentityPoolId": .string(Self.seedIdentityPool), "MaxResults": 1,
                                                                         "HideDisabled": true])
            #expect(shown.json["Identities"]?.arrayValue?.compactMap { $0["IdentityId"]?.stringValue } == [first])
            #expect(shown.json["NextToken"] == nil)
        }
    }

    @Test func poolsAreAdministeredAndTheirRolesDecideCredentials() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.identityPool("CreateIdentityPool", [
                "IdentityPoolName": "members only", "AllowUnauthenticatedIdentities": false,
                "CognitoIdentityProviders": [["ProviderName": .string(Self.provider), "ClientId": .string(seedClient), "ServerSideTokenCheck": true]],
            ])
            let id = try #require(created.json["IdentityPoolId"]?.stringValue, "\(created.text)")
            #expect(id.hasPrefix("us-east-1:"))
            #expect(created.json["AllowClassicFlow"] == false)
            let carol = try await client.signIn("carol@example.com")
            let identity = try #require(try await client.identityPool("GetId", ["IdentityPoolId": .string(id), "Logins": Self.logins(carol)])
                .json["IdentityId"]?.stringValue)
            let noRole = try await client.identityPool("GetCredentialsForIdentity", ["IdentityId": .string(identity), "Logins": Self.logins(carol)])
            #expect(noRole.errorType == "InvalidIdentityPoolConfigurationException")
            #expect(noRole.message == "Invalid identity pool configuration. Check assigned IAM roles for this pool.")
            let roles: JSON = ["authenticated": "arn:aws:iam::000000000000:role/members"]
            #expect(try await client.identityPool("SetIdentityPoolRoles", ["IdentityPoolId": .string(id), "Roles": roles]).status == .ok)
            #expect(try await client.identityPool("GetIdentityPoolRoles", ["IdentityPoolId": .string(id)]).json["Roles"] == roles)
            #expect(try await client.identityPool("GetCredentialsForIdentity", ["IdentityId": .string(identity), "Logins": Self.logins(carol)])
                .status == .ok)
            // With ServerSideTokenCheck, a signed-out session's token no longer counts.
            #expect(try await client.cognito("GlobalSignOut", ["AccessToken": carol["AccessToken"] ?? .null]).status == .ok)
            #expect(try await client.identityPool("GetCredentialsForIdentity", ["IdentityId": .string(identity), "Logins": Self.logins(carol)])
                .message?.hasPrefix("Invalid login token.") == true)

            let updated = try await client.identityPool("UpdateIdentityPool", [
                "IdentityPoolId": .string(id), "IdentityPoolName": "renamed", "AllowUnauthenticatedIdentities": true,
                "CognitoIdentityProviders": [["ProviderName": .string(Self.provider), "ClientId": .string(seedClient)]],
            ])
            #expect(updated.json["IdentityPoolName"] == "renamed")
            #expect(try await client.identityPool("GetIdentityPoolRoles", ["IdentityPoolId": .string(id)]).json["Roles"] == roles, "roles stay")
            let listed = try await client.identityPool("ListIdentityPools", ["MaxResults": 60])
            #expect(listed.json["IdentityPools"]?.arrayValue?.compactMap { $0["IdentityPoolName"]?.stringValue }.sorted() == ["fauxth_identities", "renamed"])
            let unsized = try await client.identityPool("ListIdentityPools", [:])
            #expect(unsized.errorType == "ValidationException")
            #expect(unsized.message == "1 validation error detected: Value null at 'maxResults' failed to satisfy constraint: Member must not be null")

            #expect(try await client.identityPool("DeleteIdentityPool", ["IdentityPoolId": .string(id)]).status == .ok)
            let gone = try await client.identityPool("DescribeIdentityPool", ["IdentityPoolId": .string(id)])
            #expect(gone.errorType == "ResourceNotFoundException")
            #expect(gone.message == "IdentityPool '\(id)' not found.")
            #expect(try harness.emulator.poolIdentity(id: identity) == nil, "its identities go with it")
            let malformed = try await client.identityPool("DescribeIdentityPool", ["IdentityPoolId": "not-a-pool"])
            #expect(malformed.errorType == "ValidationException")
            #expect(malformed.message == #"1 validation error detected: Value 'not-a-pool' at 'identityPoolId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\w-]+:[0-9a-f-]+"#)
            let homeless = try await client.identityPool("CreateIdentityPool", ["IdentityPoolName": "guests", "AllowUnauthenticatedIdentities": true])
            #expect(homeless.errorType == "InvalidParameterException")
            #expect(try await client.identityPool("GetIdentityPoolRoles", ["IdentityPoolId": .string(id)]).errorType == "ResourceNotFoundException")
        }
    }

    @Test func snapshotsKeepIdentitiesAndResetsDropThem() async throws {
        let harness = try Harness()
        let emulator = harness.emulator
        try await harness.run { client in
            let id = try #require(try await client.identityPool("GetId", ["IdentityPoolId": .string(Self.seedIdentityPool)]).json["IdentityId"]?.stringValue)
            try emulator.takeSnapshot(named: "with-identity")
            try emulator.reset()
            #expect(try emulator.poolIdentity(id: id) == nil)
            try emulator.restoreSnapshot(named: "with-identity")
            #expect(try emulator.poolIdentity(id: id)?.poolId == Self.seedIdentityPool)
            try emulator.reset(tenant: seedPool)
            #expect(try emulator.poolIdentity(id: id) == nil)
        }
    }
}

extension Client {
    /// One identity pool operation: `POST /` with `X-Amz-Target: AWSCognitoIdentityService.<operation>`.
    func identityPool(_ operation: String, _ body: JSON) async throws -> Reply {
        try await send(.post, "/", raw: body.serialized(), headers: [
            .xAmzTarget: "AWSCognitoIdentityService.\(operation)", .contentType: "application/x-amz-json-1.1",
        ])
    }
}
