import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Identity Platform's passkeys (`v2/accounts/passkeyEnrollment:*`, `passkeySignIn:*`), driven as the SDKs' passkey
/// branches drive them, with the control API's virtual authenticator standing in for the platform's.
@Suite struct PasskeyTests {
    /// Answers `options` (as the SDK hands them to the platform) with the virtual authenticator: `register` or `assert`.
    func authenticator(_ client: Client, _ ceremony: String, _ options: JSON?, extra: [String: JSON] = [:]) async throws -> JSON {
        var body: [String: JSON] = ["tenant": "p", "options": options ?? .null]
        body.merge(extra) { $1 }
        let reply = try await client.send(.post, "/_emu/v1/webauthn/\(ceremony)", json: .object(body))
        #expect(reply.status == .ok)
        return try #require(reply.json["credential"])
    }

    /// The credential as the iOS SDK sends it: every binary member in padded standard base64, no `type` or `rawId`.
    func iOSShaped(_ credential: JSON) -> JSON {
        func standard(_ value: JSON?) -> JSON { value?.stringValue.flatMap(Base64URL.decode).map { .string(Data($0).base64EncodedString()) } ?? .null }
        var response: [String: JSON] = [:]
        for (key, value) in credential["response"]?.objectValue ?? [:] where key != "transports" { response[key] = standard(value) }
        return ["id": standard(credential["id"]), "response": .object(response)]
    }

    /// Enrols a passkey for the session's user, as `linkWithPasskey` does; answers the finalize reply and the credential.
    func enrol(_ client: Client, _ session: JSON, name: String? = "Work laptop", extra: [String: JSON] = [:]) async throws -> (Reply, JSON) {
        let started = try await client.send(.post, mfa("passkeyEnrollment:start"), json: ["idToken": session["idToken"]!])
        #expect(started.status == .ok)
        let credential = try await authenticator(client, "register", started.json["credentialCreationOptions"], extra: extra)
        var body: [String: JSON] = ["idToken": session["idToken"]!, "authenticatorRegistrationResponse": credential]
        if let name { body["name"] = .string(name) }
        return (try await client.send(.post, mfa("passkeyEnrollment:finalize"), json: .object(body)), credential)
    }

    /// Signs in with a passkey, as `signInWithPasskey` does; `shape` rewrites the authenticator's answer.
    func signIn(_ client: Client, shape: (JSON) -> JSON = { $0 }) async throws -> (Reply, JSON) {
        let started = try await client.send(.post, mfa("passkeySignIn:start"), json: [:])
        #expect(started.status == .ok)
        let credential = shape(try await authenticator(client, "assert", started.json["credentialRequestOptions"]))
        return (try await client.send(.post, mfa("passkeySignIn:finalize"), json: ["authenticatorAuthenticationResponse": credential]), credential)
    }

    func lookup(_ client: Client) async throws -> JSON? {
        try await client.send(.post, projectAccounts("lookup"), json: ["localId": ["alice-uid"]], headers: owner).json["users"]?[0]
    }

    @Test func optionsAreInStandardBase64AsTheIOSSDKDecodesThem() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let options = try await client.send(.post, mfa("passkeyEnrollment:start"), json: ["idToken": session["idToken"]!])
                .json["credentialCreationOptions"]
            #expect(options?["rp"] == ["id": "localhost", "name": "localhost"])
            let challenge = try #require(options?["challenge"]?.stringValue)
            #expect(Data(base64Encoded: challenge)?.count == 32)
            #expect(options?["user"]?["id"] == .string(Data("alice-uid".utf8).base64EncodedString()))
            #expect(options?["user"]?["name"] == "alice@example.com")
            #expect(options?["user"]?["displayName"] == "Alice")
            #expect(options?["authenticatorSelection"]?["residentKey"] == "required")
            #expect(options?["authenticatorSelection"]?["requireResidentKey"] == true)
            #expect(options?["authenticatorSelection"]?["userVerification"] == "required")
            #expect(options?["pubKeyCredParams"]?.arrayValue?.isEmpty == false)

            let request = try await client.send(.post, mfa("passkeySignIn:start"), json: [:]).json["credentialRequestOptions"]
            #expect(request?["rpId"] == "localhost")
            #expect(Data(base64Encoded: try #require(request?["challenge"]?.stringValue))?.count == 32)
            #expect(request?["allowCredentials"] == nil || request?["allowCredentials"] == [])
        }
    }

    @Test func aPasskeyEnrolledFromASessionSignsTheUserIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let (enrolled, credential) = try await enrol(client, try await passwordSignIn(client))
            #expect(enrolled.status == .ok)
            #expect(enrolled.json["localId"] == "alice-uid")
            #expect(try claims(enrolled.json["idToken"])["firebase"]?["sign_in_provider"] == "passkey")
            #expect(enrolled.json["refreshToken"]?.stringValue != nil)

            let id = try #require(credential["id"]?.stringValue.flatMap(Base64URL.decode))
            let user = try await lookup(client)
            #expect(user?["passkeyInfo"] == [["name": "Work laptop", "credentialId": .string(Data(id).base64EncodedString())]])

            // The iOS SDK's answer: standard base64, no `type` or `rawId`.
            let (signedIn, _) = try await signIn(client, shape: iOSShaped)
            #expect(signedIn.status == .ok)
            let token = try claims(signedIn.json["idToken"])
            #expect(token["sub"] == "alice-uid")
            #expect(token["firebase"]?["sign_in_provider"] == "passkey")
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token",
                                                                             "refresh_token": signedIn.json["refreshToken"]!])
            #expect(refreshed.json["user_id"] == "alice-uid")

            // The JS SDK's answer: WebAuthn's JSON in base64url.
            let (again, _) = try await signIn(client)
            #expect(again.status == .ok)
            #expect(try claims(again.json["idToken"])["sub"] == "alice-uid")
        }
    }

    @Test func aPasskeyWithoutANameGetsTheDefaultAndTheSchemasNamesAreRead() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let started = try await client.send(.post, mfa("passkeyEnrollment:start"), json: ["idToken": session["idToken"]!])
            let credential = try await authenticator(client, "register", started.json["credentialCreationOptions"])
            // Identity Toolkit's own field names for the same answer.
            let schemaNamed: JSON = [
                "credentialId": credential["id"]!, "credentialType": "public-key",
                "authenticatorAttestationResponse": ["clientDataJson": credential["response"]!["clientDataJSON"]!,
                                                     "attestationObject": credential["response"]!["attestationObject"]!],
            ]
            let enrolled = try await client.send(.post, mfa("passkeyEnrollment:finalize"), json: ["idToken": session["idToken"]!,
                                                                                                "authenticatorRegistrationResponse": schemaNamed])
            #expect(enrolled.status == .ok)
            #expect(try await lookup(client)?["passkeyInfo"]?[0]?["name"] == "Unnamed Passkey")

            // An earlier iOS SDK's sign-in: the schema's names, under `authenticatorAssertionResponse`, in standard base64.
            let request = try await client.send(.post, mfa("passkeySignIn:start"), json: [:]).json["credentialRequestOptions"]
            let assertion = iOSShaped(try await authenticator(client, "assert", request))
            let signedIn = try await client.send(.post, mfa("passkeySignIn:finalize"), json: [
                "authenticatorAssertionResponse": ["credentialId": assertion["id"]!, "authenticatorAssertionResponse": assertion["response"]!],
            ])
            #expect(signedIn.status == .ok)
            #expect(try claims(signedIn.json["idToken"])["sub"] == "alice-uid")
        }
    }

    @Test func anAnsweredChallengeCannotBeAnsweredAgain() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await enrol(client, try await passwordSignIn(client))
            let (signedIn, credential) = try await signIn(client)
            #expect(signedIn.status == .ok)
            let replayed = try await client.send(.post, mfa("passkeySignIn:finalize"), json: ["authenticatorAuthenticationResponse": credential])
            #expect(replayed.status == .badRequest)
            #expect(errorMessage(replayed)?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE") == true)
        }
    }

    @Test func theOriginMustBeTheRelyingPartysOrListed() async throws {
        let harness = try Harness(seed: firebaseProject(["passkey_origins": ["https://app.example.com"]], users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            let (foreign, _) = try await enrol(client, session, extra: ["origin": "https://evil.example"])
            #expect(foreign.status == .badRequest)
            #expect(errorMessage(foreign)?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE") == true)
            #expect(try await lookup(client)?["passkeyInfo"] == nil)

            let (listed, _) = try await enrol(client, session, extra: ["origin": "https://app.example.com"])
            #expect(listed.status == .ok)
        }
    }

    @Test func aChallengeExpiresAfterFiveMinutes() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await enrol(client, try await passwordSignIn(client))
            let started = try await client.send(.post, mfa("passkeySignIn:start"), json: [:])
            let credential = try await authenticator(client, "assert", started.json["credentialRequestOptions"])
            harness.emulator.clock.advance(by: 301)
            let late = try await client.send(.post, mfa("passkeySignIn:finalize"), json: ["authenticatorAuthenticationResponse": credential])
            #expect(late.status == .badRequest)
            #expect(errorMessage(late) == "PASSKEY_CHALLENGE_TIMEOUT")
        }
    }

    @Test func anAnswerIsRequired() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let missing = try await client.send(.post, mfa("passkeySignIn:finalize"), json: [:])
            #expect(missing.status == .badRequest)
            #expect(errorMessage(missing) == "MISSING_AUTHENTICATOR_RESPONSE")
            let garbled = try await client.send(.post, mfa("passkeySignIn:finalize"), json: [
                "authenticatorAuthenticationResponse": ["id": "AAAA", "response": ["clientDataJSON": "not json"]],
            ])
            #expect(garbled.status == .badRequest)
            #expect(errorMessage(garbled)?.hasPrefix("INVALID_AUTHENTICATOR_RESPONSE") == true)
            let anonymous = try await client.send(.post, mfa("passkeyEnrollment:start"), json: ["idToken": "not-a-token"])
            #expect(errorMessage(anonymous) == "INVALID_ID_TOKEN")
        }
    }

    @Test func deletingAPasskeyChecksEveryIdFirstAndAnswersFreshTokens() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let session = try await passwordSignIn(client)
            _ = try await enrol(client, session)
            let id = try #require(try await lookup(client)?["passkeyInfo"]?[0]?["credentialId"])

            let unknown = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "displayName": "Changed",
                                                                                 "deletePasskey": [id, .string(Data([1, 2, 3]).base64EncodedString())]])
            #expect(unknown.status == .badRequest)
            #expect(errorMessage(unknown) == "PASSKEY_ENROLLMENT_NOT_FOUND")
            let untouched = try await lookup(client)
            #expect(untouched?["displayName"] == "Alice")
            #expect(untouched?["passkeyInfo"]?.arrayValue?.count == 1)

            let removed = try await client.send(.post, accounts("update"), json: ["idToken": session["idToken"]!, "deletePasskey": [id, id]])
            #expect(removed.status == .ok)
            #expect(try claims(removed.json["idToken"])["firebase"]?["sign_in_provider"] == "password")
            #expect(removed.json["refreshToken"]?.stringValue != nil)
            #expect(try await lookup(client)?["passkeyInfo"] == nil)

            let (signedIn, _) = try await signIn(client)
            #expect(signedIn.status == .badRequest)
            #expect(errorMessage(signedIn) == "USER_NOT_FOUND")
        }
    }

    @Test func aDeletedUsersPasskeySignsNobodyIn() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await enrol(client, try await passwordSignIn(client))
            let deleted = try await client.send(.post, projectAccounts("delete"), json: ["localId": "alice-uid"], headers: owner)
            #expect(deleted.status == .ok)
            let (signedIn, _) = try await signIn(client)
            #expect(errorMessage(signedIn) == "USER_NOT_FOUND")
        }
    }

    @Test func aDisabledUserCannotSignInWithTheirPasskey() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            _ = try await enrol(client, try await passwordSignIn(client))
            let disabled = try await client.send(.post, projectAccounts("update"), json: ["localId": "alice-uid", "disableUser": true], headers: owner)
            #expect(disabled.status == .ok)
            let (signedIn, _) = try await signIn(client)
            #expect(errorMessage(signedIn) == "USER_DISABLED")
        }
    }

    @Test func aTenantsPasskeysAreItsOwn() async throws {
        let tenant = Seed.TenantSeed(id: "p:t1", dialect: .firebase, name: "t1", settings: [:], users: [alice])
        let harness = try Harness(seed: firebaseProject(users: [alice], tenants: [tenant]))
        try await harness.run { client in
            _ = try await enrol(client, try await passwordSignIn(client))
            // The project's passkey, answered to the tenant's challenge, names no user of the tenant.
            let started = try await client.send(.post, mfa("passkeySignIn:start"), json: ["tenantId": "t1"])
            #expect(started.status == .ok)
            let assert = try await client.send(.post, "/_emu/v1/webauthn/assert", json: ["tenant": "p", "options": started.json["credentialRequestOptions"]!])
            let credential = try #require(assert.json["credential"])
            let crossed = try await client.send(.post, mfa("passkeySignIn:finalize"), json: ["tenantId": "t1",
                                                                                           "authenticatorAuthenticationResponse": credential])
            #expect(crossed.status == .badRequest)
            #expect(errorMessage(crossed) == "USER_NOT_FOUND")
        }
    }

    /// A tenant's relying party is its project's, in the control API's virtual authenticator as at the passkey
    /// endpoints: a passkey it gives a tenant's user is for the project's `passkey_rp_id` and signs them in. The
    /// seed is read as a seed file is (the reader had refused `passkey_rp_id`, which docs/firebase.md lists).
    @Test func aTenantsVirtualPasskeyIsForItsProjectsRelyingParty() async throws {
        let seed = try Seed.parse(Data(#"""
            {"tenants": [
              {"id": "p", "dialect": "firebase", "api_keys": ["k"], "passkey_rp_id": "app.example.com",
               "passkey_origins": ["android:apk-key-hash:abc"]},
              {"id": "p:t1", "dialect": "firebase", "users": [{"id": "alice-uid", "email": "alice@example.com", "password": "secret123"}]}
            ]}
            """#.utf8), file: "seed.json")
        let harness = try Harness(seed: seed)
        try await harness.run { client in
            let given = try await client.send(.post, "/_emu/v1/webauthn/credentials", json: ["tenant": "p:t1", "user_id": "alice-uid"])
            #expect(given.status == .created)
            #expect(given.json["rp_id"] == "app.example.com")

            let started = try await client.send(.post, mfa("passkeySignIn:start"), json: ["tenantId": "t1"])
            #expect(started.json["credentialRequestOptions"]?["rpId"] == "app.example.com")
            let assert = try await client.send(.post, "/_emu/v1/webauthn/assert", json: ["tenant": "p:t1", "options": started.json["credentialRequestOptions"]!])
            #expect(assert.status == .ok)
            let credential = try #require(assert.json["credential"])
            let signedIn = try await client.send(.post, mfa("passkeySignIn:finalize"), json: ["tenantId": "t1",
                                                                                            "authenticatorAuthenticationResponse": credential])
            #expect(signedIn.status == .ok)
            let token = try claims(signedIn.json["idToken"])
            #expect(token["sub"] == "alice-uid")
            #expect(token["firebase"]?["tenant"] == "t1")
        }
    }
}
