import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct SignInTests {
    @Test func passwordSignInAnswersTokensAndTheProfile() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        let reply = try await harness.run { client in
            try await client.send(.post, accounts("signInWithPassword"), json: ["email": "Alice@Example.com", "password": "secret123", "returnSecureToken": true])
        }
        #expect(reply.status == .ok)
        #expect(reply.json["kind"] == "identitytoolkit#VerifyPasswordResponse")
        #expect(reply.json["registered"] == true)
        #expect(reply.json["localId"] == "alice-uid")
        #expect(reply.json["email"] == "alice@example.com")
        #expect(reply.json["displayName"] == "Alice")
        #expect(reply.json["expiresIn"] == "3600")
        let token = try claims(reply.json["idToken"])
        #expect(token["sub"] == "alice-uid")
        #expect(token["email_verified"] == true)
        #expect(token["name"] == "Alice")
        #expect(token["auth_time"] == .int(Int(Harness.epoch.timeIntervalSince1970)))
        #expect(token["firebase"]?["sign_in_provider"] == "password")
    }

    @Test func withoutEmailPrivacyAnUnknownEmailAndAWrongPasswordAreToldApart() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let unknown = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "nobody@example.com", "password": "secret123"])
            #expect(unknown.status == .badRequest)
            #expect(errorMessage(unknown) == "EMAIL_NOT_FOUND")
            let wrong = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "alice@example.com", "password": "nope-nope"])
            #expect(errorMessage(wrong) == "INVALID_PASSWORD")
            let missing = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "alice@example.com"])
            #expect(errorMessage(missing) == "MISSING_PASSWORD")
        }
    }

    @Test func withEmailPrivacyBothAreInvalidLoginCredentials() async throws {
        let harness = try Harness(seed: firebaseProject(["config": ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]]], users: [alice]))
        try await harness.run { client in
            let unknown = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "nobody@example.com", "password": "secret123"])
            let wrong = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "alice@example.com", "password": "nope-nope"])
            #expect(errorMessage(unknown) == "INVALID_LOGIN_CREDENTIALS")
            #expect(errorMessage(wrong) == "INVALID_LOGIN_CREDENTIALS")
            // createAuthUri says nothing about the address either.
            let uri = try await client.send(.post, accounts("createAuthUri"), json: ["identifier": "alice@example.com", "continueUri": "http://localhost"])
            #expect(uri.json["registered"] == nil)
            #expect(uri.json["signinMethods"] == nil)
            #expect(uri.json["sessionId"]?.stringValue != nil)
        }
    }

    @Test func createAuthUriListsTheSignInMethodsOfAnEmail() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let known = try await client.send(.post, accounts("createAuthUri"), json: ["identifier": "alice@example.com", "continueUri": "http://localhost"])
            #expect(known.json["registered"] == true)
            #expect(known.json["signinMethods"] == ["password"])
            #expect(known.json["allProviders"] == ["password"])
            let unknown = try await client.send(.post, accounts("createAuthUri"), json: ["identifier": "new@example.com", "continueUri": "http://localhost"])
            #expect(unknown.json["registered"] == false)
            #expect(unknown.json["signinMethods"] == [])
            #expect(errorMessage(try await client.send(.post, accounts("createAuthUri"), json: ["identifier": "not-an-email", "continueUri": "http://localhost"])) == "INVALID_IDENTIFIER")
        }
    }

    @Test func aDisabledUserCannotSignIn() async throws {
        let carol = Seed.UserSeed(id: "carol-uid", email: "carol@example.com", password: "secret123", disabled: true)
        let harness = try Harness(seed: firebaseProject(users: [carol]))
        let reply = try await harness.run { client in
            try await client.send(.post, accounts("signInWithPassword"), json: ["email": "carol@example.com", "password": "secret123"])
        }
        #expect(errorMessage(reply) == "USER_DISABLED")
        #expect(reply.json["idToken"] == nil)
    }

    @Test func aJSONCustomTokenCreatesTheUserAndItsClaimsSurviveRefresh() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let token = #"{"uid":"custom-1","claims":{"role":"admin"}}"#
            let first = try await client.send(.post, accounts("signInWithCustomToken"), json: ["token": .string(token), "returnSecureToken": true])
            #expect(first.status == .ok)
            #expect(first.json["kind"] == "identitytoolkit#VerifyCustomTokenResponse")
            #expect(first.json["isNewUser"] == true)
            #expect(first.json["localId"] == "custom-1")
            let idToken = try claims(first.json["idToken"])
            #expect(idToken["role"] == "admin")
            #expect(idToken["firebase"]?["sign_in_provider"] == "custom")

            let second = try await client.send(.post, accounts("signInWithCustomToken"), json: ["token": .string(token)])
            #expect(second.json["isNewUser"] == false)

            harness.emulator.clock.advance(by: 60)
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": first.json["refreshToken"]!])
            #expect(refreshed.status == .ok)
            #expect(try claims(refreshed.json["id_token"])["role"] == "admin")
        }
    }

    @Test func aJWTCustomTokenNeedsIdentityToolkitsAudienceAndNoReservedClaims() async throws {
        let harness = try Harness(seed: firebaseProject())
        let unsigned = SigningKey(.none, kid: nil)
        let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
        let good = try JWS.sign(["aud": .string(audience), "uid": "jwt-user", "claims": ["plan": "pro"]], with: unsigned)
        let wrongAudience = try JWS.sign(["aud": "p", "uid": "jwt-user"], with: unsigned)
        let reserved = try JWS.sign(["aud": .string(audience), "uid": "jwt-user", "claims": ["sub": "someone-else"]], with: unsigned)
        try await harness.run { client in
            let accepted = try await client.send(.post, accounts("signInWithCustomToken"), json: ["token": .string(good)])
            #expect(accepted.json["localId"] == "jwt-user")
            #expect(try claims(accepted.json["idToken"])["plan"] == "pro")
            let refused = try await client.send(.post, accounts("signInWithCustomToken"), json: ["token": .string(wrongAudience)])
            #expect(errorMessage(refused)?.hasPrefix("INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): p ") == true)
            #expect(errorMessage(try await client.send(.post, accounts("signInWithCustomToken"), json: ["token": .string(reserved)])) == "FORBIDDEN_CLAIM : sub")
            #expect(errorMessage(try await client.send(.post, accounts("signInWithCustomToken"), json: ["token": "garbage"])) == "INVALID_CUSTOM_TOKEN : Invalid assertion format")
            #expect(errorMessage(try await client.send(.post, accounts("signInWithCustomToken"), json: [:])) == "MISSING_CUSTOM_TOKEN")
        }
    }

    @Test func anEmailLinkSignsInANewUserOnceAndMarksTheMethod() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let sent = try await client.send(.post, accounts("sendOobCode"), json: ["requestType": "EMAIL_SIGNIN", "email": "Link@Example.com",
                                                                                   "continueUrl": "http://localhost/finish", "canHandleCodeInApp": true])
            #expect(sent.status == .ok)
            let message = try #require(try harness.emulator.messages().first)
            #expect(message.purpose == .magicLink)
            #expect(message.subject == "Sign in to Demo App requested at \(RFC3339.string(from: Harness.epoch))")
            let code = try #require(message.codes.first)
            #expect(queryItems(try #require(message.links.first))["continueUrl"] == "http://localhost/finish")

            let mismatch = try await client.send(.post, accounts("signInWithEmailLink"), json: ["email": "other@example.com", "oobCode": .string(code)])
            #expect(errorMessage(mismatch) == "INVALID_EMAIL : The email provided does not match the sign-in email address.")
            let signedIn = try await client.send(.post, accounts("signInWithEmailLink"), json: ["email": "link@example.com", "oobCode": .string(code)])
            #expect(signedIn.status == .ok)
            #expect(signedIn.json["kind"] == "identitytoolkit#EmailLinkSigninResponse")
            #expect(signedIn.json["isNewUser"] == true)
            #expect(try claims(signedIn.json["idToken"])["email_verified"] == true)
            let reused = try await client.send(.post, accounts("signInWithEmailLink"), json: ["email": "link@example.com", "oobCode": .string(code)])
            #expect(errorMessage(reused) == "INVALID_OOB_CODE")
            // The link still hands the used code to the app, which finds out itself, as the emulator's page does.
            let opened = try await client.send(.get, try pathAndQuery(try #require(message.links.first)))
            #expect(opened.status == .seeOther)
            #expect(opened.headers[.location]?.hasPrefix("http://localhost/finish?") == true)
            #expect(queryItems(opened.headers[.location] ?? "")["oobCode"] == code)

            let user = try await client.send(.post, accounts("lookup"), json: ["idToken": signedIn.json["idToken"]!]).json["users"]?[0]
            #expect(user?["emailVerified"] == true)
            #expect(user?["emailLinkSignin"] == true)
            let methods = try await client.send(.post, accounts("createAuthUri"), json: ["identifier": "link@example.com", "continueUri": "http://localhost"])
            #expect(methods.json["signinMethods"] == ["emailLink"])
        }
    }
}
