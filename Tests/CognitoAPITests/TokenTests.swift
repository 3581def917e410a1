import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The tokens' claims, keys and lifetimes; refreshing them (`REFRESH_TOKEN_AUTH`,
/// `GetTokensFromRefreshToken` with and without rotation); and ending sessions (`GlobalSignOut`,
/// `AdminUserGlobalSignOut`, `RevokeToken`).
@Suite struct TokenTests {
    func refresh(_ client: Client, _ token: JSON?, clientId: String = seedClient) async throws -> Reply {
        try await client.cognito("InitiateAuth", ["ClientId": .string(clientId), "AuthFlow": "REFRESH_TOKEN_AUTH",
                                                  "AuthParameters": ["REFRESH_TOKEN": token ?? .null]])
    }

    @Test func accessAndIDTokensCarryCognitosClaimsSignedByTheJWKS() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("carol@example.com")
            let issuer = JSON.string("https://cognito-idp.us-east-1.amazonaws.com/\(seedPool)")
            let now = Int(Harness.epoch.timeIntervalSince1970)
            let access = try claims(tokens["AccessToken"]), id = try claims(tokens["IdToken"])
            #expect(access["iss"] == issuer)
            #expect(access["token_use"] == "access")
            #expect(access["client_id"] == .string(seedClient))
            #expect(access["scope"] == "aws.cognito.signin.user.admin")
            #expect(access["username"] == .string(carolId), "an email pool's username is the sub")
            #expect(access["cognito:groups"] == ["admins"])
            #expect(access["auth_time"] == .int(now))
            #expect(access["iat"] == .int(now))
            #expect(access["exp"] == .int(now + 3600))
            #expect(access["email"] == nil)
            #expect(id["iss"] == issuer)
            #expect(id["token_use"] == "id")
            #expect(id["aud"] == .string(seedClient))
            #expect(id["cognito:username"] == .string(carolId))
            #expect(id["email"] == "carol@example.com")
            #expect(id["email_verified"] == true)
            #expect(id["phone_number"] == "+15555550100")
            #expect(id["phone_number_verified"] == true)
            #expect(id["name"] == "Carol Admin")
            #expect(id["cognito:groups"] == ["admins"])
            #expect(access["origin_jti"] != nil && access["origin_jti"] == id["origin_jti"])
            #expect(access["event_id"] != nil && access["event_id"] == id["event_id"])
            #expect(access["jti"] != id["jti"])

            let jwksReply = try await client.send(.get, "/\(seedPool)/.well-known/jwks.json")
            #expect(jwksReply.status == .ok)
            let jwks = try JSONDecoder().decode(JWKS.self, from: Data(jwksReply.text.utf8))
            #expect(jwks.keys.count == 2)
            #expect(jwks.keys.allSatisfy { $0.kty == "RSA" && $0.alg == "RS256" && $0.use == "sig" && $0.d == nil })
            let keys = try jwks.keys.map { try $0.verificationKey() }
            let accessHeader = try JWS.verify(try #require(tokens["AccessToken"]?.stringValue), keys: keys).header
            let idHeader = try JWS.verify(try #require(tokens["IdToken"]?.stringValue), keys: keys).header
            #expect(accessHeader["alg"] == "RS256")
            #expect(accessHeader["kid"] != nil && accessHeader["kid"] != idHeader["kid"], "access and ID tokens use different keys")
        }
    }

    @Test func discoveryNamesThePoolsEndpoints() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await client.send(.get, "/\(seedPool)/.well-known/openid-configuration")
            #expect(reply.status == .ok)
            #expect(reply.json["issuer"] == .string("https://cognito-idp.us-east-1.amazonaws.com/\(seedPool)"))
            #expect(reply.json["jwks_uri"] == .string("http://localhost/\(seedPool)/.well-known/jwks.json"))
            #expect(reply.json["authorization_endpoint"] == "http://localhost/oauth2/authorize")
            #expect(reply.json["token_endpoint"] == "http://localhost/oauth2/token")
            #expect(reply.json["response_types_supported"] == ["code", "token"])
            let missing = try await client.send(.get, "/us-east-1_Nope00000/.well-known/jwks.json")
            #expect(missing.status == .notFound)
        }
    }

    @Test func theEmulatorIssuerSettingPointsAtThisServer() async throws {
        let harness = try Harness(seed: cognitoSeed(settings: ["issuer": "emulator"]))
        let tokens = try await harness.run { client in try await client.signIn("dave", clientId: testClient) }
        // The in-process client talks to http://localhost.
        #expect(try claims(tokens["AccessToken"])["iss"] == .string("http://localhost/\(testPool)"))
        #expect(try claims(tokens["AccessToken"])["username"] == "dave")
        #expect(try claims(tokens["IdToken"])["cognito:username"] == "dave")
    }

    @Test func lifetimesFollowTheClientsValidityUnits() async throws {
        let harness = try Harness(seed: cognitoSeed(client: [
            "AccessTokenValidity": 5, "IdTokenValidity": 2, "RefreshTokenValidity": 1,
            "TokenValidityUnits": ["AccessToken": "minutes", "IdToken": "hours", "RefreshToken": "days"],
        ], extraClients: [["ClientId": "hoursclient000000000000001", "ExplicitAuthFlows": ["ALLOW_USER_PASSWORD_AUTH"], "AccessTokenValidity": 2]]))
        try await harness.run { client in
            let tokens = try await client.signIn("dave", clientId: testClient)
            #expect(tokens["ExpiresIn"] == 300)
            let access = try claims(tokens["AccessToken"]), id = try claims(tokens["IdToken"])
            #expect((access["exp"]?.intValue ?? 0) - (access["iat"]?.intValue ?? 0) == 300)
            #expect((id["exp"]?.intValue ?? 0) - (id["iat"]?.intValue ?? 0) == 7200)

            harness.emulator.clock.advance(by: 301)
            let expired = try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null])
            #expect(expired.json == ["__type": "NotAuthorizedException", "message": "Access Token has expired"])
            #expect(try await refresh(client, tokens["RefreshToken"], clientId: testClient).json["AuthenticationResult"] != nil)
            harness.emulator.clock.advance(by: 86_400)
            #expect(try await refresh(client, tokens["RefreshToken"], clientId: testClient).json
                    == ["__type": "NotAuthorizedException", "message": "Refresh Token has expired"])

            // A validity without units is in hours.
            let hours = try await client.signIn("dave", clientId: "hoursclient000000000000001")
            #expect(hours["ExpiresIn"] == 7200)
        }
    }

    @Test func refreshMintsNewTokensForTheSameSession() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let first = try await client.signIn("alice@example.com")
            harness.emulator.clock.advance(by: 600)
            let reply = try await refresh(client, first["RefreshToken"])
            let result = try #require(reply.json["AuthenticationResult"])
            #expect(result["RefreshToken"] == nil, "Cognito keeps the refresh token")
            #expect(result["ExpiresIn"] == 3600)
            let before = try claims(first["AccessToken"]), after = try claims(result["AccessToken"])
            #expect(after["origin_jti"] == before["origin_jti"])
            #expect(after["jti"] != before["jti"])
            #expect(after["auth_time"] == before["auth_time"], "auth_time is the original sign-in")
            #expect(after["iat"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 600))
            #expect(try claims(result["IdToken"])["email"] == "alice@example.com")
            // The same token refreshes again.
            #expect(try await refresh(client, first["RefreshToken"]).json["AuthenticationResult"] != nil)
            #expect(try await refresh(client, "not-a-token").json == ["__type": "NotAuthorizedException", "message": "Invalid Refresh Token."])
        }
    }

    @Test func aRefreshTokenWorksOnlyForItsClient() async throws {
        let harness = try Harness(seed: try builtInAnd(cognitoSeed()))
        try await harness.run { client in
            let tokens = try await client.signIn("alice@example.com")
            let elsewhere = try await refresh(client, tokens["RefreshToken"], clientId: testClient)
            #expect(elsewhere.errorType == "NotAuthorizedException")
        }
    }

    @Test func getTokensFromRefreshTokenWithoutRotationKeepsTheToken() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("alice@example.com")
            let reply = try await client.cognito("GetTokensFromRefreshToken", ["ClientId": .string(seedClient), "RefreshToken": tokens["RefreshToken"] ?? .null])
            let result = try #require(reply.json["AuthenticationResult"])
            #expect(result["RefreshToken"] == nil)
            #expect(try claims(result["AccessToken"])["origin_jti"] == (try claims(tokens["AccessToken"]))["origin_jti"])
            let again = try await client.cognito("GetTokensFromRefreshToken", ["ClientId": .string(seedClient), "RefreshToken": tokens["RefreshToken"] ?? .null])
            #expect(again.json["AuthenticationResult"] != nil)
        }
    }

    @Test func getTokensFromRefreshTokenRotatesWhenTheClientSaysSo() async throws {
        let secret = "rotationsecret00000000000000000000000000000000000"
        let harness = try Harness(seed: cognitoSeed(client: ["ClientSecret": .string(secret),
                                                             "RefreshTokenRotation": ["Feature": "ENABLED", "RetryGracePeriodSeconds": 0]]))
        try await harness.run { client in
            let hash = JSON.string(secretHash(secret, username: "dave", clientId: testClient))
            let signedIn = try await client.passwordAuth("dave", clientId: testClient, extra: ["SECRET_HASH": hash])
            let old = try #require(signedIn.json["AuthenticationResult"]?["RefreshToken"])
            func exchange(_ token: JSON, secret given: String? = secret) async throws -> Reply {
                try await client.cognito("GetTokensFromRefreshToken", ["ClientId": .string(testClient), "RefreshToken": token,
                                                                       "ClientSecret": given.map(JSON.string) ?? .null])
            }
            #expect(try await exchange(old, secret: nil).errorType == "NotAuthorizedException")
            #expect(try await exchange(old, secret: "wrong").errorType == "NotAuthorizedException")
            let rotated = try await exchange(old)
            let new = try #require(rotated.json["AuthenticationResult"]?["RefreshToken"])
            #expect(new != old)
            #expect(rotated.json["AuthenticationResult"]?["AccessToken"] != nil)
            let next = try await exchange(new)
            #expect(next.json["AuthenticationResult"]?["RefreshToken"] != nil)
            #expect(try await exchange(old).errorType == "NotAuthorizedException", "a token replaced twice is dead")
        }
    }

    @Test(arguments: [0, 60])
    func aReplacedRefreshTokenDiesWhenItsGracePeriodEnds(grace: Int) async throws {
        let harness = try Harness(seed: cognitoSeed(client: ["RefreshTokenRotation": ["Feature": "ENABLED", "RetryGracePeriodSeconds": .int(grace)]]))
        try await harness.run { client in
            let old = try await client.signIn("dave", clientId: testClient)["RefreshToken"] ?? .null
            let rotated = try await client.cognito("GetTokensFromRefreshToken", ["ClientId": .string(testClient), "RefreshToken": old])
            #expect(rotated.json["AuthenticationResult"]?["RefreshToken"] != nil)
            harness.emulator.clock.advance(by: Double(grace) + 1)
            let stale = try await client.cognito("GetTokensFromRefreshToken", ["ClientId": .string(testClient), "RefreshToken": old])
            #expect(stale.errorType == "NotAuthorizedException")
        }
    }

    @Test func globalSignOutEndsEverySessionOfTheUser() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let phone = try await client.signIn("alice@example.com")
            let laptop = try await client.signIn("alice@example.com")
            let carol = try await client.signIn("carol@example.com")
            #expect(try await client.cognito("GlobalSignOut", ["AccessToken": laptop["AccessToken"] ?? .null]).json == [:])
            for tokens in [phone, laptop] {
                #expect(try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null]).json
                        == ["__type": "NotAuthorizedException", "message": "Access Token has been revoked"])
                #expect(try await refresh(client, tokens["RefreshToken"]).json
                        == ["__type": "NotAuthorizedException", "message": "Refresh Token has been revoked"])
            }
            #expect(try await client.cognito("GetUser", ["AccessToken": carol["AccessToken"] ?? .null]).status == .ok)
            #expect(try await client.signIn("alice@example.com")["AccessToken"] != nil)
        }
    }

    @Test func adminUserGlobalSignOutEndsTheSessionsOfAnyUser() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let tokens = try await client.signIn("carol@example.com")
            let reply = try await client.cognito("AdminUserGlobalSignOut", ["UserPoolId": .string(seedPool), "Username": "carol@example.com"])
            #expect(reply.status == .ok)
            #expect(try await refresh(client, tokens["RefreshToken"]).errorType == "NotAuthorizedException")
            #expect(try await client.cognito("GetUser", ["AccessToken": tokens["AccessToken"] ?? .null]).errorType == "NotAuthorizedException")
            let unknown = try await client.cognito("AdminUserGlobalSignOut", ["UserPoolId": .string(seedPool), "Username": "nobody@example.com"])
            #expect(unknown.json == ["__type": "UserNotFoundException", "message": "User does not exist."])
        }
    }

    @Test func revokeTokenEndsOneSessionAndItsAccessTokens() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let revoked = try await client.signIn("alice@example.com")
            let kept = try await client.signIn("alice@example.com")
            let reply = try await client.cognito("RevokeToken", ["ClientId": .string(seedClient), "Token": revoked["RefreshToken"] ?? .null])
            #expect(reply.status == .ok)
            #expect(try await refresh(client, revoked["RefreshToken"]).errorType == "NotAuthorizedException")
            #expect(try await client.cognito("GetUser", ["AccessToken": revoked["AccessToken"] ?? .null]).errorType == "NotAuthorizedException")
            #expect(try await refresh(client, kept["RefreshToken"]).json["AuthenticationResult"] != nil)
            #expect(try await client.cognito("GetUser", ["AccessToken": kept["AccessToken"] ?? .null]).status == .ok)

            let accessToken = try await client.cognito("RevokeToken", ["ClientId": .string(seedClient), "Token": kept["AccessToken"] ?? .null])
            #expect(accessToken.errorType == "UnsupportedTokenTypeException")
            // Revoking again, or a token nobody issued, is no error.
            #expect(try await client.cognito("RevokeToken", ["ClientId": .string(seedClient), "Token": revoked["RefreshToken"] ?? .null]).status == .ok)
        }
    }
}
