import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct IdpTests {
    /// `accounts:signInWithIdp` with a plain-JSON Google ID token in `postBody`.
    func google(_ client: Client, _ claims: [String: JSON], idToken: JSON? = nil, extra: [String: JSON] = [:]) async throws -> Reply {
        var body: [String: JSON] = ["requestUri": "http://localhost", "postBody": .string(idpPostBody("google.com", claims)),
                                    "returnSecureToken": true]
        body["idToken"] = idToken
        body.merge(extra) { $1 }
        return try await client.send(.post, accounts("signInWithIdp"), json: .object(body))
    }

    func providers(_ client: Client, _ localId: String) async throws -> [String] {
        let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": [.string(localId)]], headers: owner).json["users"]?[0]
        return (user?["providerUserInfo"]?.arrayValue ?? []).compactMap { $0["providerId"]?.stringValue }.sorted()
    }

    @Test func aNewProviderAccountCreatesAUserWithItsProfile() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let reply = try await google(client, ["sub": "g-1", "email": "Gina@Example.com", "email_verified": true, "name": "Gina Gee",
                                                  "given_name": "Gina", "picture": "https://example.com/g.png"])
            #expect(reply.status == .ok)
            let json = reply.json
            #expect(json["kind"] == "identitytoolkit#VerifyAssertionResponse")
            #expect(json["isNewUser"] == true)
            #expect(json["providerId"] == "google.com")
            #expect(json["federatedId"] == "https://accounts.google.com/g-1")
            #expect(json["email"] == "Gina@Example.com")
            #expect(json["emailVerified"] == true)
            #expect(json["displayName"] == "Gina Gee")
            #expect(json["firstName"] == "Gina")
            #expect(json["photoUrl"] == "https://example.com/g.png")
            #expect(json["oauthAccessToken"] == "FirebaseAuthEmulatorFakeAccessToken_google.com")
            // Google's profile is its userinfo v2 answer, as the emulator builds it, not the token's claims.
            let raw = try JSON.parse(Array(try #require(json["rawUserInfo"]?.stringValue).utf8))
            #expect(raw == ["granted_scopes": "openid https://www.googleapis.com/auth/userinfo.profile https://www.googleapis.com/auth/userinfo.email",
                            "id": "g-1", "name": "Gina Gee", "given_name": "Gina", "verified_email": true, "locale": "en",
                            "email": "gina@example.com", "picture": "https://example.com/g.png"])
            let token = try claims(json["idToken"])
            #expect(token["email"] == "gina@example.com")
            #expect(token["email_verified"] == true)
            #expect(token["name"] == "Gina Gee")
            #expect(token["firebase"] == ["identities": ["email": ["gina@example.com"], "google.com": ["g-1"]], "sign_in_provider": "google.com"])
            #expect(try await providers(client, try #require(json["localId"]?.stringValue)) == ["google.com"])
        }
    }

    @Test func theSameProviderAccountSignsBackIntoItsUser() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let first = try await google(client, ["sub": "g-2", "email": "g2@example.com", "email_verified": true])
            // The id_token may also ride in the requestUri's query.
            let token = JSON.object(["sub": "g-2", "email": "g2@example.com", "email_verified": true]).serialized()
            let uri = "http://localhost/__/auth/handler?providerId=google.com&id_token=" + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let second = try await client.send(.post, accounts("signInWithIdp"), json: ["requestUri": .string(uri), "returnSecureToken": true])
            #expect(second.status == .ok)
            #expect(second.json["isNewUser"] == false)
            #expect(second.json["localId"] == first.json["localId"])
            #expect(try harness.emulator.users(in: "p").count == 1)
        }
    }

    @Test func aVerifiedProviderEmailLinksToTheVerifiedAccountAndKeepsItsPassword() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let reply = try await google(client, ["sub": "g-alice", "email": "alice@example.com", "email_verified": true])
            #expect(reply.json["localId"] == "alice-uid")
            #expect(reply.json["isNewUser"] == false)
            #expect(try await providers(client, "alice-uid") == ["google.com", "password"])
            #expect(try await passwordSignIn(client)["localId"] == "alice-uid")
        }
    }

    @Test func aVerifiedProviderEmailTakesOverAnUnverifiedAccount() async throws {
        let harness = try Harness(seed: firebaseProject(users: [unverifiedBob]))
        try await harness.run { client in
            let before = try await passwordSignIn(client, "bob@example.com")
            harness.emulator.clock.advance(by: 1)
            let reply = try await google(client, ["sub": "g-bob", "email": "bob@example.com", "email_verified": true, "name": "Real Bob"])
            #expect(reply.json["localId"] == "bob-uid")
            let token = try claims(reply.json["idToken"])
            #expect(token["email_verified"] == true)
            // The provider's profile replaces the account's.
            #expect(token["name"] == "Real Bob")
            // The password someone else may have set goes, and so do the tokens it got.
            #expect(try await providers(client, "bob-uid") == ["google.com"])
            #expect(try await passwordSignIn(client, "bob@example.com")["error"]?["message"] == "INVALID_PASSWORD")
            #expect(errorMessage(try await client.send(.post, accounts("lookup"), json: ["idToken": before["idToken"]!])) == "TOKEN_EXPIRED")
        }
    }

    @Test func anUnverifiedProviderEmailNeedsConfirmation() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let reply = try await google(client, ["sub": "g-x", "email": "alice@example.com", "email_verified": false])
            #expect(reply.status == .ok)
            #expect(reply.json["needConfirmation"] == true)
            #expect(reply.json["localId"] == "alice-uid")
            #expect(reply.json["verifiedProvider"]?.arrayValue != nil)
            #expect(reply.json["idToken"] == nil)
            #expect(try await providers(client, "alice-uid") == ["password"])
        }
    }

    @Test func linkingAProviderAccountOfSomeoneElseIsFederatedUserIdAlreadyLinked() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await google(client, ["sub": "g-taken", "email": "taker@example.com", "email_verified": true])
            let session = try await passwordSignIn(client)
            let taken = try await google(client, ["sub": "g-taken"], idToken: session["idToken"])
            #expect(errorMessage(taken) == "FEDERATED_USER_ID_ALREADY_LINKED")
            let quiet = try await google(client, ["sub": "g-taken"], idToken: session["idToken"], extra: ["returnIdpCredential": true])
            #expect(quiet.status == .ok)
            #expect(quiet.json["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(quiet.json["idToken"] == nil)

            // An address another account has is refused the same way, with the provider's answer beside the error, so the
            // JS SDK's email-already-in-use error carries the email and a credential (the emulator's signInWithIdp).
            let claimed = try await google(client, ["sub": "g-new", "email": "taker@example.com", "email_verified": true], idToken: session["idToken"],
                                           extra: ["returnIdpCredential": true])
            #expect(claimed.status == .ok)
            #expect(claimed.json["errorMessage"] == "EMAIL_EXISTS")
            #expect(claimed.json["email"] == "taker@example.com")
            #expect(claimed.json["oauthIdToken"]?.stringValue?.isEmpty == false)
            #expect(claimed.json["idToken"] == nil)
            #expect(errorMessage(try await google(client, ["sub": "g-new", "email": "taker@example.com", "email_verified": true],
                                                  idToken: session["idToken"])) == "EMAIL_EXISTS")

            let linked = try await google(client, ["sub": "g-free"], idToken: session["idToken"])
            #expect(linked.json["localId"] == "alice-uid")
            #expect(try await providers(client, "alice-uid") == ["google.com", "password"])
        }
    }

    @Test func linkingAProviderWhoseEmailIsAnotherAccountsIsEmailExists() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let anonymous = try await client.send(.post, accounts("signUp"), json: [:])
            let clash = try await google(client, ["sub": "g-a", "email": "alice@example.com", "email_verified": true], idToken: anonymous.json["idToken"])
            #expect(errorMessage(clash) == "EMAIL_EXISTS")
            // With a free email the anonymous user takes it, verified as the provider says.
            let linked = try await google(client, ["sub": "g-b", "email": "anon@example.com", "email_verified": true], idToken: anonymous.json["idToken"])
            #expect(linked.json["localId"] == anonymous.json["localId"])
            let token = try claims(linked.json["idToken"])
            #expect(token["email"] == "anon@example.com")
            #expect(token["provider_id"] == nil)
        }
    }

    @Test func withDuplicateEmailsAllowedAProviderAccountGetsItsOwnUser() async throws {
        let harness = try Harness(seed: firebaseProject(["config": ["signIn": ["allowDuplicateEmails": true]]], users: [alice]))
        try await harness.run { client in
            let reply = try await google(client, ["sub": "g-dup", "email": "alice@example.com", "email_verified": true])
            #expect(reply.json["isNewUser"] == true)
            let localId = try #require(reply.json["localId"]?.stringValue)
            #expect(localId != "alice-uid")
            let user = try await client.send(.post, projectAccounts("lookup"), json: ["localId": [.string(localId)]], headers: owner).json["users"]?[0]
            #expect(user?["email"] == nil)
            #expect(user?["providerUserInfo"]?[0]?["email"] == "alice@example.com")
        }
    }

    @Test func malformedAssertionsAreRefused() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let noUri = try await client.send(.post, accounts("signInWithIdp"), json: ["postBody": "providerId=google.com&id_token=%7B%7D"])
            #expect(errorMessage(noUri) == "MISSING_REQUEST_URI")
            let noProvider = try await client.send(.post, accounts("signInWithIdp"), json: ["requestUri": "http://localhost", "postBody": "id_token=%7B%7D"])
            #expect(errorMessage(noProvider) == "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: http://localhost")
            let noSub = try await google(client, ["email": "x@example.com"])
            #expect(errorMessage(noSub) == "INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. "
                    + "((Missing \"sub\" field. This field is required and must be a unique identifier.))")
        }
    }

    /// `signInWithIdp` with a `postBody` built as the JS SDK builds it for `OAuthCredential`s.
    func credential(_ client: Client, _ fields: [(String, String)]) async throws -> Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let postBody = fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
        return try await client.send(.post, accounts("signInWithIdp"), json: ["requestUri": "http://localhost", "postBody": .string(postBody),
                                                                             "returnSecureToken": true])
    }

    /// `GithubAuthProvider.credential(token)` and `FacebookAuthProvider.credential(token)` send only an
    /// `access_token`; the emulator reads the claims from it when there is no ID token (`parseClaims(id_token)
    /// || parseClaims(access_token)`), and echoes it as `oauthAccessToken`.
    @Test func anAccessTokenCarryingClaimsSignsInWhenThereIsNoIdToken() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let token = JSON.object(["sub": "gh-1", "email": "octo@example.com", "name": "Octo Cat"]).serialized()
            let reply = try await credential(client, [("access_token", token), ("providerId", "github.com")])
            #expect(reply.status == .ok)
            #expect(reply.json["isNewUser"] == true)
            #expect(reply.json["providerId"] == "github.com")
            #expect(reply.json["federatedId"] == "gh-1")
            #expect(reply.json["oauthAccessToken"] == .string(token))
            #expect(reply.json["oauthIdToken"] == nil)
            #expect(reply.json["displayName"] == "Octo Cat")
            let idToken = try claims(reply.json["idToken"])
            #expect(idToken["firebase"]?["sign_in_provider"] == "github.com")
            #expect(idToken["firebase"]?["identities"]?["github.com"] == ["gh-1"])
            // A JWT works as well as plain JSON, and signs back into the same account.
            let jwt = try JWS.sign(["sub": "gh-1"], with: SigningKey(.none, kid: nil))
            let again = try await credential(client, [("access_token", jwt), ("providerId", "github.com")])
            #expect(again.json["isNewUser"] == false)
            #expect(again.json["localId"] == reply.json["localId"])
        }
    }

    @Test func theIdTokensClaimsWinAndAnUndecodableIdTokenFallsBackToTheAccessToken() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let fromId = JSON.object(["sub": "fb-id"]).serialized(), fromAccess = JSON.object(["sub": "fb-access"]).serialized()
            let both = try await credential(client, [("id_token", fromId), ("access_token", fromAccess), ("providerId", "facebook.com")])
            #expect(both.json["federatedId"] == "fb-id")
            #expect(both.json["oauthIdToken"] == .string(fromId))
            #expect(both.json["oauthAccessToken"] == .string(fromAccess))
            let opaqueId = try await credential(client, [("id_token", "not-a-jwt"), ("access_token", fromAccess), ("providerId", "facebook.com")])
            #expect(opaqueId.json["federatedId"] == "fb-access")
        }
    }

    /// What the emulator refuses, with its messages (its 501s answered as 400s: Fauxth answers no request
    /// that is merely unsupported with a 5xx).
    @Test func credentialsTheEmulatorCannotReadAreRefusedWithItsMessages() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let cases: [([(String, String)], String)] = [
                ([("access_token", "gho_opaque"), ("providerId", "github.com")], "The Auth Emulator does not support github.com sign-in with credentials."),
                ([("access_token", "ya29.opaque"), ("providerId", "google.com")],
                 "The Auth Emulator only support sign-in with google.com using id_token, not access_token. Please update your code to use id_token."),
                ([("id_token", "opaque"), ("access_token", "also-opaque"), ("providerId", "github.com")],
                 "INVALID_IDP_RESPONSE : Unable to parse id_token: opaque ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))"),
                ([("access_token", "{not json"), ("providerId", "github.com")],
                 "INVALID_IDP_RESPONSE : Unable to parse id_token: {not json ((Auth Emulator failed to parse fake id_token as strict JSON.))"),
                ([("access_token", #"{"sub":42}"#), ("providerId", "github.com")], #"INVALID_IDP_RESPONSE : ((The "sub" field must be a string.))"#),
                ([("access_token", #"{"email":"x@example.com"}"#), ("providerId", "github.com")],
                 #"INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. ((Missing "sub" field. "#
                    + "This field is required and must be a unique identifier.))"),
            ]
            for (fields, message) in cases {
                let reply = try await credential(client, fields)
                #expect(reply.status == .badRequest)
                #expect(errorMessage(reply) == message)
            }
            #expect(try harness.emulator.users(in: "p").isEmpty)
        }
    }

    /// A SAML provider as the emulator takes one: the ID token, and the fake `SAMLResponse` (JSON) beside it, whose
    /// subject is the email (verified) and whose attribute statements are the `rawUserInfo` and every ID token's
    /// `firebase.sign_in_attributes`, refreshes included.
    @Test func aSAMLProviderReadsTheEmulatorsFakeAssertion() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let attributes: JSON = ["name": "Jane Doe", "mail": "other@example.com"]
            let response = JSON.object(["assertion": ["subject": ["nameId": "Jane@Example.com"], "attributeStatements": attributes]]).serialized()
            func saml(_ response: String) async throws -> Reply {
                try await client.send(.post, accounts("signInWithIdp"), json: [
                    "requestUri": "http://localhost", "returnSecureToken": true, "returnIdpCredential": true,
                    "postBody": .string(idpPostBody("saml.acme", ["sub": "s-1", "email": "claims@example.com", "name": "Jane"])
                                        + "&SAMLResponse=" + response.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)])
            }
            let reply = try await saml(response)
            #expect(reply.status == .ok, "\(reply.text)")
            #expect(reply.json["email"] == "Jane@Example.com" && reply.json["emailVerified"] == true && reply.json["providerId"] == "saml.acme")
            #expect(try JSON.parse(Array(try #require(reply.json["rawUserInfo"]?.stringValue).utf8)) == attributes)
            let token = try claims(reply.json["idToken"])
            #expect(token["firebase"]?["sign_in_provider"] == "saml.acme" && token["firebase"]?["sign_in_attributes"] == attributes)
            #expect(token["email"] == "jane@example.com" && token["email_verified"] == true)
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token",
                                                                               "refresh_token": reply.json["refreshToken"] ?? .null])
            #expect(try claims(refreshed.json["id_token"])["firebase"]?["sign_in_attributes"] == attributes)
            // What the emulator checks of the assertion, in its words; an address it cannot be leaves the ID token's.
            for (broken, missing) in [("{}", "assertion"), (#"{"assertion":{}}"#, "assertion.subject"),
                                      (#"{"assertion":{"subject":{"nameId":""}}}"#, "assertion.subject.nameId")] {
                #expect(errorMessage(try await saml(broken)) == "INVALID_IDP_RESPONSE : ((Missing \(missing) in SAMLResponse.))")
            }
            #expect(errorMessage(try await saml("<samlp:Response/>"))?.hasPrefix("INVALID_IDP_RESPONSE") == true)
            let opaque = try await saml(#"{"assertion":{"subject":{"nameId":"a1b2"}}}"#)
            #expect(opaque.json["email"] == "claims@example.com" && opaque.json["rawUserInfo"] == nil)
            // A `requestUri` built by hand, a space as `+`: read as the emulator's URLSearchParams reads it.
            let plus = try await client.send(.post, accounts("signInWithIdp"), json: [
                "returnSecureToken": true,
                "requestUri": "http://localhost/?providerId=saml.acme&id_token=%7B%22sub%22:%22s-2%22,%22name%22:%22Jo+Ann%22%7D"])
            #expect(plus.status == .ok && plus.json["displayName"] == "Jo Ann", "\(plus.text)")
        }
    }
}
