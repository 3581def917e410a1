import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// Passkeys (`internal/api/passkey_*.go`): register one from a signed-in session, sign in with one
/// (a discoverable credential: the authenticator names the user), list, rename and delete them, and the
/// admin list and delete. Behind `GOTRUE_PASSKEY_ENABLED` (404 `passkey_disabled` when off) except the
/// admin routes, which GoTrue serves either way. The ceremony rules are the core's.
struct Passkeys {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// `POST /passkeys/registration/options`: creation options for a new passkey, excluding the user's own.
    func registrationOptions(_ call: Call) throws -> JSON {
        let (project, caller) = try manager(call)
        let existing = try emulator.webAuthnCredentials(in: call.tenant, userId: caller.user.id, kind: .passkey)
        guard existing.count < project.config.maxPasskeysPerUser else { throw AuthError.webAuthn(.tooManyCredentials) }
        let ceremony = try emulator.beginWebAuthnRegistration(in: call.tenant, userId: caller.user.id, user: Self.entity(caller.user),
                                                              relyingParty: project.config.passkeyRelyingParty, kind: .passkey, exclude: existing)
        return Self.ceremony(ceremony)
    }

    /// `POST /passkeys/registration/verify`: checks the attestation and stores the passkey, named after its
    /// authenticator model when GoTrue would know it.
    func registrationVerify(_ call: Call) throws -> JSON {
        let (project, caller) = try manager(call)
        let (challengeId, credential) = try Self.answer(try call.body())
        let passkey = try emulator.finishWebAuthnRegistration(in: call.tenant, challengeId: challengeId, userId: caller.user.id, kind: .passkey,
                                                              response: credential, friendlyName: nil,
                                                              maxCredentials: project.config.maxPasskeysPerUser, origin: call.origin)
        let named = try emulator.renameWebAuthnCredential(in: call.tenant, userId: caller.user.id, id: passkey.id, friendlyName: Self.name(passkey))
        var o: [String: JSON] = ["id": .string(named.id), "created_at": GoTrueJSON.time(named.createdAt)]
        o["friendly_name"] = named.friendlyName.map(JSON.string)
        return .object(o)
    }

    /// `POST /passkeys/authentication/options`: a discoverable sign-in, bound to no user.
    func authenticationOptions(_ call: Call) throws -> JSON {
        let project = try enabledProject(call)
        _ = try call.body(emptyAllowed: true)
        return Self.ceremony(try emulator.beginWebAuthnAssertion(in: call.tenant, userId: nil, relyingParty: project.config.passkeyRelyingParty,
                                                                 kind: .passkey, allow: []))
    }

    /// `POST /passkeys/authentication/verify`: the assertion's user handle names the user; a verified
    /// signature signs them in (`amr` method `passkey`), unless their address is unconfirmed or they are banned.
    func authenticationVerify(_ call: Call) async throws -> JSON {
        let project = try enabledProject(call)
        let (challengeId, credential) = try Self.answer(try call.body())
        let passkey = try emulator.finishWebAuthnAssertion(in: call.tenant, challengeId: challengeId, userId: nil, kind: .passkey,
                                                           response: credential, origin: call.origin)
        let user = try emulator.requireUser(in: call.tenant, id: passkey.userId)
        if user.email != nil, user.emailVerifiedAt == nil { throw SupabaseError(status: .forbidden, code: .emailNotConfirmed, message: "Email not confirmed") }
        if user.phone != nil, user.phoneVerifiedAt == nil { throw SupabaseError(status: .forbidden, code: .phoneNotConfirmed, message: "Phone not confirmed") }
        if user.isBanned(at: emulator.clock.now) || user.disabled { throw SupabaseError(status: .forbidden, code: .userBanned, message: "User is banned") }
        return try await emulator.goTrueSession(for: user, method: "passkey", project: project, origin: call.origin).json
    }

    /// `GET /passkeys`.
    func list(_ call: Call) throws -> JSON {
        let project = try enabledProject(call)
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        return .array(try emulator.webAuthnCredentials(in: call.tenant, userId: caller.user.id, kind: .passkey).map(Self.item))
    }

    /// `PATCH /passkeys/{id}`: renames; 1 to 120 characters.
    func rename(_ call: Call) throws -> JSON {
        let project = try enabledProject(call)
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        let id = try Self.passkeyId(call, "id")
        let name = try call.body().string("friendly_name") ?? ""
        guard !name.isEmpty else { throw SupabaseError.validation("friendly_name is required") }
        guard name.count <= 120 else { throw SupabaseError.validation("friendly_name must be 120 characters or less") }
        let passkey = try Self.owned { try emulator.requireWebAuthnCredential(in: call.tenant, userId: caller.user.id, id: id) }
        return Self.item(try emulator.renameWebAuthnCredential(in: call.tenant, userId: caller.user.id, id: passkey.id, friendlyName: name))
    }

    /// `DELETE /passkeys/{id}`: 204, from an aal2 session when the user has a verified factor.
    func delete(_ call: Call) throws -> Response {
        let (_, caller) = try manager(call, requireNotAnonymous: false)
        let id = try Self.passkeyId(call, "id")
        let passkey = try Self.owned { try emulator.requireWebAuthnCredential(in: call.tenant, userId: caller.user.id, id: id) }
        try emulator.deleteWebAuthnCredential(in: call.tenant, userId: caller.user.id, id: passkey.id)
        return Response(status: .noContent)
    }

    /// `GET /admin/users/{id}/passkeys`.
    func adminList(_ call: Call) throws -> JSON {
        try Authentication(emulator: emulator).requireAdmin(call.request, project: try call.project())
        let user = try emulator.requireUser(in: call.tenant, id: try call.userParameter("id"))
        return .array(try emulator.webAuthnCredentials(in: call.tenant, userId: user.id, kind: .passkey).map(Self.item))
    }

    /// `DELETE /admin/users/{id}/passkeys/{passkey}`: 204.
    func adminDelete(_ call: Call) throws -> Response {
        try Authentication(emulator: emulator).requireAdmin(call.request, project: try call.project())
        let user = try emulator.requireUser(in: call.tenant, id: try call.userParameter("id"))
        let id = try Self.passkeyId(call, "passkey")
        let passkey = try Self.owned { try emulator.requireWebAuthnCredential(in: call.tenant, userId: user.id, id: id) }
        try emulator.deleteWebAuthnCredential(in: call.tenant, userId: user.id, id: passkey.id)
        return Response(status: .noContent)
    }

    /// The project, once `requirePasskeyEnabled` has let the request through.
    private func enabledProject(_ call: Call) throws -> SupabaseProject {
        let project = try call.project()
        guard project.config.passkeyEnabled else { throw SupabaseError(status: .notFound, code: .passkeyDisabled, message: "Passkeys are disabled") }
        return project
    }

    /// GoTrue's guards on registering and deleting passkeys, in its middleware order: enabled, signed in,
    /// not anonymous (registration), and `requirePasskeyManagementAAL`.
    private func manager(_ call: Call, requireNotAnonymous: Bool = true) throws -> (SupabaseProject, Authentication.Caller) {
        let project = try enabledProject(call)
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        if requireNotAnonymous, caller.user.isAnonymous {
            throw SupabaseError(status: .forbidden, code: .noAuthorization, message: "Anonymous user not allowed to perform these actions")
        }
        // The registration handlers' own first check (passkey_registration.go): the IdP manages an SSO user's sign-in.
        if requireNotAnonymous, caller.user.isSSOUser { throw SupabaseError(status: .unprocessableContent, code: .validationFailed, message: "SSO users cannot register passkeys") }
        if caller.session.aal != "aal2", try emulator.highestAssurance(in: call.tenant, userId: caller.user.id) == "aal2" {
            throw SupabaseError(status: .forbidden, code: .insufficientAAL, message: "AAL2 session is required to manage passkeys when MFA is enabled")
        }
        return (project, caller)
    }

    /// `challenge_id` and `credential`, checked as GoTrue checks them before consuming the challenge.
    static func answer(_ body: JSONBody) throws -> (String, JSON) {
        let challengeId = try body.string("challenge_id") ?? ""
        guard !challengeId.isEmpty else { throw SupabaseError.validation("challenge_id is required") }
        guard let credential = body.fields["credential"] else { throw SupabaseError.validation("credential is required") }
        guard let id = Validation.uuid(challengeId) else { throw SupabaseError.validation("challenge_id must be a valid UUID") }
        return (id, credential)
    }

    /// A passkey id from the path: GoTrue answers an unparseable one and an unknown one alike.
    private static func passkeyId(_ call: Call, _ name: String) throws -> String {
        guard let id = Validation.uuid(try call.parameter(name)) else { throw notFound }
        return id
    }

    private static func owned(_ find: () throws -> WebAuthnCredential) throws -> WebAuthnCredential {
        do { return try find() } catch AuthError.webAuthn(.credentialNotFound) { throw notFound }
    }

    private static let notFound = SupabaseError(status: .notFound, code: .validationFailed, message: "Passkey not found")

    /// `PasskeyListItem`: `friendly_name` and `last_used_at` left out when empty.
    static func item(_ passkey: WebAuthnCredential) -> JSON {
        var o: [String: JSON] = ["id": .string(passkey.id), "created_at": GoTrueJSON.time(passkey.createdAt)]
        if let name = passkey.friendlyName, !name.isEmpty { o["friendly_name"] = .string(name) }
        o["last_used_at"] = passkey.lastUsedAt.map(GoTrueJSON.time)
        return .object(o)
    }

    static func ceremony(_ ceremony: WebAuthnCeremony) -> JSON {
        ["challenge_id": .string(ceremony.id), "options": ceremony.options, "expires_at": .int(Int(ceremony.expiresAt.timeIntervalSince1970))]
    }

    /// GoTrue's passkey user entity: the user id's text as handle, the email (else the phone) as name, the
    /// `name` metadata (else the same) as display name.
    static func entity(_ user: User) -> WebAuthnUserEntity {
        let name = user.email.flatMap { $0.isEmpty ? nil : $0 } ?? GoTrueJSON.phone(user.phone)
        let display = user.userMetadata["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? name
        return WebAuthnUserEntity(handle: Array(user.id.utf8), name: name, displayName: display)
    }

    /// GoTrue names a new passkey after its authenticator model from the passkey-authenticator-aaguids
    /// list, else "Passkey". Fauxth knows its own virtual authenticator's AAGUID only.
    static func name(_ passkey: WebAuthnCredential) -> String {
        passkey.aaguid == VirtualAuthenticatorModel.aaguid ? VirtualAuthenticatorModel.name : "Passkey"
    }
}

extension SupabaseConfig {
    /// `getPasskeyWebAuthn`: discoverable credentials required, user verification preferred, no attestation.
    /// Only the algorithms Fauxth verifies are offered, so an authenticator never makes a key it would refuse.
    var passkeyRelyingParty: RelyingParty {
        RelyingParty(id: webAuthn.id, name: webAuthn.displayName, origins: webAuthn.origins, userVerification: .preferred,
                     residentKey: "required", attestation: "none", challengeLifetime: webAuthn.challengeExpiry)
    }

    /// `getWebAuthnMFA`: go-webauthn's defaults, which state no user verification, resident key or
    /// attestation; the challenge lives as long as the MFA challenge.
    var mfaRelyingParty: RelyingParty {
        RelyingParty(id: webAuthn.id, name: webAuthn.displayName, origins: webAuthn.origins, userVerification: nil, residentKey: nil,
                     attestation: nil, challengeLifetime: mfaChallengeExpiry)
    }
}
