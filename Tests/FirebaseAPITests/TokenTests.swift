import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct TokenTests {
    @Test func refreshingAnswersAFreshIdTokenAndKeepsTheRefreshToken() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            harness.emulator.clock.advance(by: 600)
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": session["refreshToken"]!])
            #expect(refreshed.status == .ok)
            #expect(refreshed.json["refresh_token"] == session["refreshToken"])
            #expect(refreshed.json["token_type"] == "Bearer")
            #expect(refreshed.json["expires_in"] == "3600")
            #expect(refreshed.json["user_id"] == "alice-uid")
            #expect(refreshed.json["project_id"] == "12345")
            #expect(refreshed.json["access_token"] == refreshed.json["id_token"])
            let token = try claims(refreshed.json["id_token"])
            let start = Int(Harness.epoch.timeIntervalSince1970)
            #expect(token["iat"] == .int(start + 600))
            #expect(token["exp"] == .int(start + 4200))
            // auth_time stays the sign-in's.
            #expect(token["auth_time"] == .int(start))
            // The refresh shows in the account's lastRefreshAt.
            let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["alice-uid"]], headers: owner).json["users"]?[0]
            #expect(user?["lastRefreshAt"] == .string(RFC3339.string(from: Harness.epoch.addingTimeInterval(600))))
        }
    }

    @Test func theTokenEndpointTakesAFormBodyAndTheHeaderKey() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let refreshToken = try #require(session["refreshToken"]?.stringValue)
            let reply = try await client.send(.post, "/securetoken.googleapis.com/v1/token", raw: "grant_type=refresh_token&refresh_token=\(refreshToken)",
                                              headers: [.contentType: "application/x-www-form-urlencoded", HTTPField.Name("x-goog-api-key")!: "k"])
            #expect(reply.status == .ok)
            #expect(reply.json["user_id"] == "alice-uid")
        }
    }

    @Test func refreshErrorsAreSecureTokens() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            #expect(errorMessage(try await client.send(.post, tokenEndpoint, json: ["refresh_token": "x"])) == "MISSING_GRANT_TYPE")
            #expect(errorMessage(try await client.send(.post, tokenEndpoint, json: ["grant_type": "password", "refresh_token": "x"])) == "INVALID_GRANT_TYPE")
            #expect(errorMessage(try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token"])) == "MISSING_REFRESH_TOKEN")
            let madeUp = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": "AMf-vBmadeup"])
            #expect(madeUp.status == .badRequest)
            #expect(errorMessage(madeUp) == "INVALID_REFRESH_TOKEN")
        }
    }

    @Test func validSinceRevokesEarlierIdTokensAndTheirRefreshTokens() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let before = try await passwordSignIn(client)
            harness.emulator.clock.advance(by: 10)
            let now = Int(harness.emulator.clock.now.timeIntervalSince1970)
            // firebase-admin's revokeRefreshTokens sends validSince as a number.
            let revoked = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "validSince": .int(now)], headers: owner)
            #expect(revoked.status == .ok)
            let oldLookup = try await client.send(.post, accounts("lookup"), json: ["idToken": before["idToken"]!])
            #expect(errorMessage(oldLookup) == "TOKEN_EXPIRED")
            let oldRefresh = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": before["refreshToken"]!])
            #expect(errorMessage(oldRefresh) == "TOKEN_EXPIRED")

            let after = try await passwordSignIn(client)
            let lookup = try await client.send(.post, accounts("lookup"), json: ["idToken": after["idToken"]!])
            #expect(lookup.status == .ok)
            #expect(lookup.json["users"]?[0]?["validSince"] == .string(String(now)))
        }
    }

    @Test func disablingAUserEndsItsTokens() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let disabled = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "disableUser": true], headers: owner)
            #expect(disabled.status == .ok)
            let refresh = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": session["refreshToken"]!])
            #expect(errorMessage(refresh) == "USER_DISABLED")
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": session["idToken"]!])) == "USER_DISABLED")
        }
    }

    @Test func deletingAUserEndsItsTokens() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let deleted = try await client.send(.post, accounts("delete"), json: ["idToken": session["idToken"]!])
            #expect(deleted.json == ["kind": "identitytoolkit#DeleteAccountResponse"])
            let refresh = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": session["refreshToken"]!])
            #expect(errorMessage(refresh) == "USER_NOT_FOUND")
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": session["idToken"]!])) == "USER_NOT_FOUND")
        }
    }

    @Test func idTokensExpireOnTheEmulatorClock() async throws {
        let harness = try Harness(seed: firebaseProject(["id_token_ttl": 600], users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            #expect(session["expiresIn"] == "600")
            harness.emulator.clock.advance(by: 599)
            #expect(try await client.send(.post, accounts("lookup"), json: ["idToken": session["idToken"]!]).status == .ok)
            harness.emulator.clock.advance(by: 1)
            let expired = try await client.send(.post, accounts("lookup"), json: ["idToken": session["idToken"]!])
            #expect(errorMessage(expired) == "INVALID_ID_TOKEN")
            // The refresh token still mints a good one.
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": session["refreshToken"]!])
            #expect(try await client.send(.post, accounts("lookup"), json: ["idToken": refreshed.json["id_token"]!]).status == .ok)
        }
    }

    @Test func refreshTokensExpireWithTheProjectsTTL() async throws {
        let harness = try Harness(seed: firebaseProject(["refresh_token_ttl": 3600], users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let body: JSON = ["grant_type": "refresh_token", "refresh_token": session["refreshToken"]!]
            harness.emulator.clock.advance(by: 3600)
            #expect(try await client.send(.post, tokenEndpoint, json: body).status == .ok)
            harness.emulator.clock.advance(by: 1)
            #expect(errorMessage(try await client.send(.post, tokenEndpoint, json: body)) == "TOKEN_EXPIRED")
        }
    }

    @Test func anIdTokenOfAnotherProjectIsRefused() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let elsewhere = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/q/accounts:lookup",
                                                  json: ["idToken": session["idToken"]!], headers: owner)
            #expect(errorMessage(elsewhere) == "INVALID_ID_TOKEN")
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": "not.a.token"])) == "INVALID_ID_TOKEN")
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: [:])) == "MISSING_ID_TOKEN")
        }
    }

    @Test func anUnsignedIdTokenFromAnotherIssuerIsRefused() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let idToken = try #require(try await passwordSignIn(client)["idToken"]?.stringValue)
            var claims = try #require(JWS.unverifiedClaims(idToken))
            for issuer in ["https://session.firebase.google.com/p", "https://securetoken.google.com/q", "https://evil.example"] {
                claims["iss"] = .string(issuer)
                let forged = try JWS.sign(claims, with: SigningKey(.none, kid: nil))
                #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": .string(forged)])) == "INVALID_ID_TOKEN")
            }
            #expect(try await client.send(.post, accounts("lookup"), json: ["idToken": .string(idToken)]).status == .ok)
        }
    }

    @Test func rs256ProjectsSignWithTheKeyTheJWKSPublishes() async throws {
        let harness = try Harness(seed: firebaseProject(["id_token_signing": "RS256"], users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let jwksReply = try await client.send(.get, "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
            #expect(jwksReply.status == .ok)
            #expect(jwksReply.headers[.cacheControl] == "public, max-age=3600")
            let jwks = try JSONDecoder().decode(JWKS.self, from: Data(jwksReply.text.utf8))
            let jwk = try #require(jwks.keys.first)
            #expect(jwks.keys.count == 1)
            #expect(jwk.kty == "RSA")
            #expect(jwk.d == nil)
            let idToken = try #require(session["idToken"]?.stringValue)
            let verified = try JWS.verify(idToken, keys: [try jwk.verificationKey()])
            #expect(verified.header["alg"] == "RS256")
            #expect(verified.header["kid"] == JSON(jwk.kid))
            #expect(verified.claims["sub"] == "alice-uid")
            #expect(verified.claims["iss"] == "https://securetoken.google.com/p")

            // The same claims unsigned are not a token of this project.
            let forged = try JWS.sign(verified.claims, with: SigningKey(.none, kid: nil))
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": .string(forged)])) == "INVALID_ID_TOKEN")
            #expect(try await client.send(.post, accounts("lookup"), json: ["idToken": .string(idToken)]).status == .ok)
        }
    }

    @Test func theX509EndpointAnswersAPEMCertificateUnderTheKeyId() async throws {
        let harness = try Harness(seed: firebaseProject(["id_token_signing": "RS256"]))
        try await harness.run { client in
            let jwks = try JSONDecoder().decode(JWKS.self, from: Data(try await client.send(
                .get, "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com").text.utf8))
            let kid = try #require(jwks.keys.first?.kid)
            let reply = try await client.send(.get, "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
            #expect(reply.status == .ok)
            let certificates = try #require(reply.json.objectValue)
            #expect(Array(certificates.keys) == [kid])
            let pem = try #require(certificates[kid]?.stringValue)
            #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
            #expect(pem.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("-----END CERTIFICATE-----"))
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            let der = try #require(Data(base64Encoded: body))
            #expect(der.first == 0x30)
        }
    }
}
