import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// GoTrue's passkey routes and WebAuthn MFA factor, driven as auth-js drives them, with the control API's
/// virtual authenticator standing in for the browser.
@Suite struct PasskeyTests {
    static let env = ["GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "localhost", "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Growbro",
                      "GOTRUE_WEBAUTHN_RP_ORIGINS": "http://localhost:3000,https://app.example.com"]
    static let unconfirmed = Seed.UserSeed(id: "22222222-2222-4222-8222-222222222222", email: "new@example.com", phone: nil, username: nil,
                                           password: "secret123", emailVerified: false, phoneVerified: false, disabled: false,
                                           userMetadata: [:], appMetadata: [:])

    func signIn(_ client: Client) async throws -> JSON {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
    }

    /// What auth-js's `registerPasskey` does, with the virtual authenticator as the browser.
    func registerPasskey(_ client: Client, _ session: JSON, origin: String? = nil, device: String? = nil) async throws -> Reply {
        let options = try await client.send(.post, "/auth/v1/passkeys/registration/options", json: [:], headers: bearer(session))
        #expect(options.status == .ok)
        var answer: [String: JSON] = ["tenant": "p", "options": options.json]
        if let origin { answer["origin"] = .string(origin) }
        if let device { answer["authenticator"] = .string(device) }
        let credential = try await client.send(.post, "/_emu/v1/webauthn/register", json: .object(answer)).json["credential"] ?? .null
        return try await client.send(.post, "/auth/v1/passkeys/registration/verify",
                                     json: ["challenge_id": options.json["challenge_id"] ?? .null, "credential": credential], headers: bearer(session))
    }

    /// What auth-js's `signInWithPasskey` does.
    func passkeySignIn(_ client: Client, answer extra: [String: JSON] = [:]) async throws -> Reply {
        let options = try await client.send(.post, "/auth/v1/passkeys/authentication/options", json: ["gotrue_meta_security": [:]],
                                            headers: .supabaseClient)
        var answer: [String: JSON] = ["tenant": "p", "options": options.json]
        answer.merge(extra) { $1 }
        let credential = try await client.send(.post, "/_emu/v1/webauthn/assert", json: .object(answer)).json["credential"] ?? .null
        return try await client.send(.post, "/auth/v1/passkeys/authentication/verify",
                                     json: ["challenge_id": options.json["challenge_id"] ?? .null, "credential": credential], headers: .supabaseClient)
    }

    @Test func passkeysAreOffUntilTheProjectTurnsThemOn() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let reply = try await client.send(.post, "/auth/v1/passkeys/authentication/options", json: [:], headers: .supabaseClient)
            #expect(reply.status == .notFound)
            #expect(reply.json["code"] == "passkey_disabled")
            #expect(try await client.send(.get, "/auth/v1/settings").json["passkeys_enabled"] == false)
        }
        let on = try Harness(seed: project(Self.env))
        let settings = try await on.run { client in try await client.send(.get, "/auth/v1/settings").json }
        #expect(settings["passkeys_enabled"] == true)
    }

    @Test func aPasskeyRegisteredFromASessionSignsTheUserIn() async throws {
        let harness = try Harness(seed: project(Self.env, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let options = try await client.send(.post, "/auth/v1/passkeys/registration/options", json: [:], headers: bearer(session)).json
            #expect(options["options"]?["rp"] == ["name": "Growbro", "id": "localhost"])
            #expect(options["options"]?["user"]?["id"] == .string(Base64URL.encode(confirmedUser.id!)))
            #expect(options["options"]?["user"]?["name"] == "done@example.com")
            #expect(options["options"]?["authenticatorSelection"] == ["residentKey": "required", "userVerification": "preferred"])
            #expect(options["options"]?["attestation"] == "none")
            #expect(options["options"]?["timeout"] == 300_000)
            #expect(options["expires_at"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 300))

            let registered = try await registerPasskey(client, session)
            #expect(registered.status == .ok)
            #expect(registered.json["friendly_name"] == "Passkey")
            #expect(registered.json["id"]?.stringValue?.count == 36)

            let signedIn = try await passkeySignIn(client)
            #expect(signedIn.status == .ok)
            #expect(signedIn.json["user"]?["id"] == .string(confirmedUser.id!))
            let claims = try JWS.verify(try #require(signedIn.json["access_token"]?.stringValue), keys: [projectKey.verificationKey]).claims
            #expect(claims["aal"] == "aal1")
            #expect(claims["amr"]?[0]?["method"] == "passkey")
            let listed = try await client.send(.get, "/auth/v1/passkeys", headers: bearer(session)).json
            #expect(listed[0]?["last_used_at"] == .string(RFC3339.string(from: Harness.epoch)))
        }
    }

    @Test func aChallengeAnswersOnceAndOnlyFromTheProjectsOrigins() async throws {
        let harness = try Harness(seed: project(Self.env, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let wrongOrigin = try await registerPasskey(client, session, origin: "https://evil.example")
            #expect(wrongOrigin.status == .badRequest)
            #expect(wrongOrigin.json["code"] == "webauthn_verification_failed")
            #expect(try await registerPasskey(client, session, origin: "https://app.example.com").status == .ok)

            let options = try await client.send(.post, "/auth/v1/passkeys/authentication/options", json: [:], headers: .supabaseClient).json
            let credential = try await client.send(.post, "/_emu/v1/webauthn/assert", json: ["tenant": "p", "options": options]).json["credential"]!
            let body: JSON = ["challenge_id": options["challenge_id"]!, "credential": credential]
            #expect(try await client.send(.post, "/auth/v1/passkeys/authentication/verify", json: body, headers: .supabaseClient).status == .ok)
            let replay = try await client.send(.post, "/auth/v1/passkeys/authentication/verify", json: body, headers: .supabaseClient)
            #expect(replay.status == .badRequest)
            #expect(replay.json["code"] == "webauthn_challenge_not_found")
            #expect(replay.json["message"] == "Challenge not found or already used")

            let cloned = try await passkeySignIn(client, answer: ["sign_count": 1])
            #expect(cloned.json["code"] == "webauthn_verification_failed")
            let wrongRP = try await passkeySignIn(client, answer: ["authenticator_rp_id": "evil.example"])
            #expect(wrongRP.json["code"] == "webauthn_verification_failed")
        }
    }

    @Test func anExpiredChallengeIsRefused() async throws {
        let harness = try Harness(seed: project(Self.env.merging(["GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION": "1m"]) { $1 }, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let options = try await client.send(.post, "/auth/v1/passkeys/registration/options", json: [:], headers: bearer(session)).json
            #expect(options["expires_at"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 60))
            let credential = try await client.send(.post, "/_emu/v1/webauthn/register", json: ["tenant": "p", "options": options]).json["credential"]!
            harness.emulator.clock.advance(by: 61)
            let late = try await client.send(.post, "/auth/v1/passkeys/registration/verify",
                                             json: ["challenge_id": options["challenge_id"]!, "credential": credential], headers: bearer(session))
            #expect(late.json["code"] == "webauthn_challenge_expired")
        }
    }

    @Test func verifyChecksItsFieldsBeforeTheChallenge() async throws {
        let harness = try Harness(seed: project(Self.env, users: [confirmedUser]))
        try await harness.run { client in
            func verify(_ body: JSON) async throws -> JSON {
                try await client.send(.post, "/auth/v1/passkeys/authentication/verify", json: body, headers: .supabaseClient).json
            }
            #expect(try await verify([:])["message"] == "challenge_id is required")
            #expect(try await verify(["challenge_id": "x"])["message"] == "credential is required")
            #expect(try await verify(["challenge_id": "x", "credential": [:]])["message"] == "challenge_id must be a valid UUID")
            let unknown = try await verify(["challenge_id": "33333333-3333-4333-8333-333333333333", "credential": [:]])
            #expect(unknown["code"] == "webauthn_challenge_not_found")
            let options = try await client.send(.post, "/auth/v1/passkeys/authentication/options", json: [:], headers: .supabaseClient).json
            let garbage = try await verify(["challenge_id": options["challenge_id"]!, "credential": ["id": "!!", "type": "public-key"]])
            #expect(garbage["code"] == "webauthn_verification_failed")
            #expect(garbage["message"] == "Invalid credential response")
        }
    }

    @Test func passkeysAreListedRenamedAndDeleted() async throws {
        let harness = try Harness(seed: project(Self.env.merging(["GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER": "2"]) { $1 }, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let first = try await registerPasskey(client, session).json
            // The same device cannot register twice (the options exclude its credential); a second one can.
            let sameDevice = try await registerPasskey(client, session)
            #expect(sameDevice.status != .ok)
            #expect(try await registerPasskey(client, session, device: "phone").status == .ok)
            let full = try await client.send(.post, "/auth/v1/passkeys/registration/options", json: [:], headers: bearer(session))
            #expect(full.status == .unprocessableContent)
            #expect(full.json["code"] == "too_many_passkeys")
            let id = try #require(first["id"]?.stringValue)

            let listed = try await client.send(.get, "/auth/v1/passkeys", headers: bearer(session)).json
            #expect(listed.arrayValue?.count == 2)
            let renamed = try await client.send(.patch, "/auth/v1/passkeys/\(id)", json: ["friendly_name": "Work laptop"], headers: bearer(session))
            #expect(renamed.json["friendly_name"] == "Work laptop")
            let blank = try await client.send(.patch, "/auth/v1/passkeys/\(id)", json: ["friendly_name": ""], headers: bearer(session))
            #expect(blank.json["message"] == "friendly_name is required")
            let long = try await client.send(.patch, "/auth/v1/passkeys/\(id)", json: ["friendly_name": .string(String(repeating: "x", count: 121))],
                                             headers: bearer(session))
            #expect(long.status == .badRequest)
            let missing = try await client.send(.delete, "/auth/v1/passkeys/not-a-uuid", headers: bearer(session))
            #expect(missing.status == .notFound)
            #expect(missing.json["message"] == "Passkey not found")

            let admin = adminHeaders()
            let adminList = try await client.send(.get, "/auth/v1/admin/users/\(confirmedUser.id!)/passkeys", headers: admin).json
            #expect(adminList.arrayValue?.compactMap { $0["friendly_name"]?.stringValue }.contains("Work laptop") == true)
            #expect(try await client.send(.delete, "/auth/v1/passkeys/\(id)", headers: bearer(session)).status == .noContent)
            let other = try #require(adminList.arrayValue?.compactMap { $0["id"]?.stringValue }.first { $0 != id })
            #expect(try await client.send(.delete, "/auth/v1/admin/users/\(confirmedUser.id!)/passkeys/\(other)", headers: admin).status == .noContent)
            #expect(try await client.send(.get, "/auth/v1/passkeys", headers: bearer(session)).json == [])
        }
    }

    @Test func managingPasskeysNeedsAAL2OnceTheUserHasAFactor() async throws {
        let harness = try Harness(seed: project(Self.env, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let factor = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "totp"], headers: bearer(session)).json
            let totp = TOTP(secret: try #require(factor["totp"]?["secret"]?.stringValue.flatMap(Base32.decode)))
            let challenge = try await client.send(.post, "/auth/v1/factors/\(factor["id"]!.stringValue!)/challenge", headers: bearer(session)).json
            let elevated = try await client.send(.post, "/auth/v1/factors/\(factor["id"]!.stringValue!)/verify",
                                                 json: ["challenge_id": challenge["id"]!, "code": .string(totp.code(at: Harness.epoch))],
                                                 headers: bearer(session)).json
            let aal1 = try await signIn(client)
            let refused = try await client.send(.post, "/auth/v1/passkeys/registration/options", json: [:], headers: bearer(aal1))
            #expect(refused.status == .forbidden)
            #expect(refused.json["code"] == "insufficient_aal")
            #expect(try await registerPasskey(client, elevated).status == .ok)
        }
    }

    @Test func anUnconfirmedUsersPasskeyDoesNotSignIn() async throws {
        let harness = try Harness(seed: project(Self.env, users: [Self.unconfirmed]))
        try await harness.run { client in
            let made = try await client.send(.post, "/_emu/v1/webauthn/credentials", json: ["tenant": "p", "user_id": .string(Self.unconfirmed.id!)])
            #expect(made.status == .created)
            #expect(made.json["rp_id"] == "localhost")
            let refused = try await passkeySignIn(client)
            #expect(refused.status == .forbidden)
            #expect(refused.json["code"] == "email_not_confirmed")
        }
    }

    @Test func theAdminRoutesAnswerWithPasskeysOff() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let listed = try await client.send(.get, "/auth/v1/admin/users/\(confirmedUser.id!)/passkeys", headers: adminHeaders())
            #expect(listed.status == .ok)
            #expect(listed.json == [])
            #expect(try await client.send(.get, "/auth/v1/admin/users/\(confirmedUser.id!)/passkeys", headers: .supabaseClient).status == .unauthorized)
        }
    }

    func adminHeaders() -> HTTPFields {
        let token = (try? JWS.sign(["role": "service_role"], with: projectKey)) ?? ""
        return [.authorization: "Bearer \(token)", HTTPField.Name("X-Supabase-Api-Version")!: "2024-01-01"]
    }
}

/// The WebAuthn MFA factor: registered by answering its first challenge, proven by later ones.
@Suite struct WebAuthnFactorTests {
    static let env = ["GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true",
                      "GOTRUE_WEBAUTHN_RP_ID": "localhost", "GOTRUE_WEBAUTHN_RP_ORIGINS": "http://localhost:3000"]

    func signIn(_ client: Client) async throws -> JSON {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
    }

    /// auth-js's `mfa.webauthn.challenge` then `verify`: the body carries `rpId`/`rpOrigins`, which GoTrue ignores.
    func prove(_ client: Client, _ session: JSON, factorId: String, extra: [String: JSON] = [:]) async throws -> (type: String, reply: Reply) {
        let challenge = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge",
                                              json: ["factorId": .string(factorId), "webauthn": ["rpId": "localhost", "rpOrigins": ["http://localhost:3000"]]],
                                              headers: bearer(session)).json
        let type = challenge["webauthn"]?["type"]?.stringValue ?? ""
        var answer: [String: JSON] = ["tenant": "p", "options": challenge]
        answer.merge(extra) { $1 }
        let credential = try await client.send(.post, "/_emu/v1/webauthn/\(type == "create" ? "register" : "assert")", json: .object(answer)).json["credential"]!
        let reply = try await client.send(.post, "/auth/v1/factors/\(factorId)/verify", json: [
            "challenge_id": challenge["id"]!, "webauthn": ["type": .string(type), "rpId": "localhost", "credential_response": credential],
        ], headers: bearer(session))
        return (type, reply)
    }

    @Test func enrollmentIsOffByDefault() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let reply = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "webauthn"], headers: bearer(session))
            #expect(reply.status == .unprocessableContent)
            #expect(reply.json["code"] == "mfa_webauthn_enroll_not_enabled")
        }
    }

    @Test func aWebAuthnFactorRegistersThenRaisesSessionsToAAL2() async throws {
        let harness = try Harness(seed: project(Self.env, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let enrolled = try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "webauthn", "friendly_name": "Key"], headers: bearer(session))
            #expect(enrolled.json == ["id": enrolled.json["id"]!, "type": "webauthn", "friendly_name": "Key"])
            let factorId = try #require(enrolled.json["id"]?.stringValue)

            let challenge = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", json: [:], headers: bearer(session)).json
            #expect(challenge["webauthn"]?["type"] == "create")
            let options = try #require(challenge["webauthn"]?["credential_options"]?["publicKey"])
            #expect(options["rp"]?["id"] == "localhost")
            #expect(options["authenticatorSelection"] == [:])
            #expect(options["attestation"] == nil)

            let (created, registered) = try await prove(client, session, factorId: factorId)
            #expect(created == "create")
            #expect(registered.status == .ok)
            let claims = try JWS.verify(try #require(registered.json["access_token"]?.stringValue), keys: [projectKey.verificationKey]).claims
            #expect(claims["aal"] == "aal2")
            #expect(claims["amr"]?[0]?["method"] == "mfa/webauthn")
            #expect(registered.json["user"]?["factors"]?[0]?["factor_type"] == "webauthn")

            let next = try await signIn(client)
            let (requested, proven) = try await prove(client, next, factorId: factorId)
            #expect(requested == "request")
            #expect(proven.status == .ok)
            let (_, cloned) = try await prove(client, next, factorId: factorId, extra: ["sign_count": 1])
            #expect(cloned.status == .unprocessableContent)
            #expect(cloned.json["code"] == "mfa_verification_failed")
        }
    }

    @Test func verifyNeedsTheWebAuthnObject() async throws {
        let harness = try Harness(seed: project(Self.env, users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let factorId = try #require(try await client.send(.post, "/auth/v1/factors", json: ["factor_type": "webauthn"], headers: bearer(session))
                .json["id"]?.stringValue)
            let challenge = try await client.send(.post, "/auth/v1/factors/\(factorId)/challenge", json: [:], headers: bearer(session)).json
            func verify(_ webauthn: JSON?) async throws -> JSON {
                var body: [String: JSON] = ["challenge_id": challenge["id"]!]
                body["webauthn"] = webauthn
                return try await client.send(.post, "/auth/v1/factors/\(factorId)/verify", json: .object(body), headers: bearer(session)).json
            }
            #expect(try await verify(nil)["message"] == "WebAuthn config required")
            #expect(try await verify(["type": "other"])["message"] == "WebAuthn type must be create or request")
            #expect(try await verify(["type": "create"])["message"] == "credential_response required")
            #expect(try await verify(["type": "create", "credential_response": ["id": "AA"]])["message"] == "Invalid credential_response")
        }
    }
}
