import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// Identity Platform's passkeys: `v2/accounts/passkeyEnrollment:{start,finalize}` for a signed-in user,
/// `v2/accounts/passkeySignIn:{start,finalize}` for a discoverable sign-in, the user's `passkeyInfo` in
/// `accounts:lookup`, and `accounts:update`'s `deletePasskey`. The Firebase emulator mocks these (it
/// checks no signature); production verifies the ceremony, and so does Fauxth, on the core's WebAuthn.
///
/// The clients send no challenge id back, only the credential, so a ceremony is stored under its
/// challenge and found again from the answer's `clientDataJSON`. Both SDKs decode `challenge` and `user.id`
/// as padded standard base64 (iOS with `Data(base64Encoded:)`, JS with `atob`); iOS sends every binary field
/// so, JS in base64url: options are answered in standard base64, answers read in either.
enum Passkeys {
    /// `passkeyEnrollment:start`: creation options for the caller, excluding their passkeys.
    static func startEnrollment(_ call: FirebaseCall) async throws -> Response {
        let caller = try call.caller(idToken: try call.body.string("idToken"))
        let tenant = caller.scope.coreTenant
        let existing = try call.emulator.webAuthnCredentials(in: tenant, userId: caller.user.id, kind: .passkey)
        let ceremony = try call.emulator.beginWebAuthnRegistration(in: tenant, userId: caller.user.id, user: entity(caller.user),
                                                                   relyingParty: caller.scope.settings.passkeyRelyingParty, kind: .passkey,
                                                                   exclude: existing, id: .challenge)
        var options = ceremony.options.objectValue ?? [:]
        // Identity Toolkit's `AuthenticatorSelectionCriteria` has the Level 1 member beside `residentKey`.
        if case .object(var selection)? = options["authenticatorSelection"] {
            selection["requireResidentKey"] = true
            options["authenticatorSelection"] = .object(selection)
        }
        return .json(["credentialCreationOptions": standardBase64(.object(options))])
    }

    /// `passkeyEnrollment:finalize`: verifies the attestation and keeps the passkey under `name` (the SDKs'
    /// "Unnamed account (…)" when the app gives none); answers a session signed in with it, as the emulator does.
    static func finalizeEnrollment(_ call: FirebaseCall) async throws -> Response {
        let caller = try call.caller(idToken: try call.body.string("idToken"))
        let credential = try answer(call.body, "authenticatorRegistrationResponse", response: "authenticatorAttestationResponse")
        let name = try [call.body.string("name"), call.body.string("displayName")].compactMap { $0 }.first { !$0.isEmpty } ?? "Unnamed Passkey"
        let tenant = caller.scope.coreTenant
        try call.emulator.finishWebAuthnRegistration(in: tenant, challengeId: try WebAuthnChallengeID.answered(by: credential),
                                                     userId: caller.user.id, kind: .passkey, response: credential, friendlyName: name,
                                                     origin: call.origin)
        let tokens = try call.startSession(try call.emulator.requireUser(in: tenant, id: caller.user.id), scope: caller.scope, provider: "passkey")
        return .json(["localId": .string(caller.user.id), "idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken)])
    }

    /// `passkeySignIn:start`: request options bound to no user; the authenticator picks the passkey.
    static func startSignIn(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.scope()
        let ceremony = try call.emulator.beginWebAuthnAssertion(in: scope.coreTenant, userId: nil, relyingParty: scope.settings.passkeyRelyingParty,
                                                                kind: .passkey, allow: [], id: .challenge)
        return .json(["credentialRequestOptions": standardBase64(ceremony.options)])
    }

    /// `passkeySignIn:finalize`: the passkey names its user; a verified signature signs them in (provider
    /// `passkey`), with no second factor asked, as the emulator signs them in.
    static func finalizeSignIn(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.scope()
        // An earlier iOS SDK sent the assertion under its schema name, `authenticatorAssertionResponse`, beside no
        // `authenticatorAuthenticationResponse`.
        let key = call.body.fields["authenticatorAuthenticationResponse"] == nil && call.body.fields["authenticatorAssertionResponse"] != nil
            ? "authenticatorAssertionResponse" : "authenticatorAuthenticationResponse"
        let credential = try answer(call.body, key, response: "authenticatorAssertionResponse")
        let passkey = try call.emulator.finishWebAuthnAssertion(in: scope.coreTenant, challengeId: try WebAuthnChallengeID.answered(by: credential),
                                                                userId: nil, kind: .passkey, response: credential, origin: call.origin)
        let user = try call.emulator.requireUser(in: scope.coreTenant, id: passkey.userId)
        let signedIn = try await call.signedIn(user, scope: scope, provider: "passkey", allowMFA: false, blocking: .init("passkey"))
        return .json(["idToken": signedIn.answer["idToken"] ?? .null, "refreshToken": signedIn.answer["refreshToken"] ?? .null])
    }

    /// `accounts:update`'s `deletePasskey`: the caller's passkeys by credential id, every one of them theirs
    /// (`PASSKEY_ENROLLMENT_NOT_FOUND` otherwise, production's answer). Read before the update writes anything,
    /// so an unknown id leaves the account as it was; an id given twice is removed once.
    static func toDelete(_ call: FirebaseCall, scope: FirebaseScope, user: User) throws -> [WebAuthnCredential] {
        let ids = try call.body.strings("deletePasskey")
        guard !ids.isEmpty else { return [] }
        let owned = try call.emulator.webAuthnCredentials(in: scope.coreTenant, userId: user.id, kind: .passkey)
        let doomed = try ids.map { id in
            guard let bytes = Base64URL.decode(id), let passkey = owned.first(where: { $0.credentialId == bytes }) else {
                throw FirebaseError(.passkeyEnrollmentNotFound)
            }
            return passkey
        }
        var seen = Set<String>()
        return doomed.filter { seen.insert($0.id).inserted }
    }

    /// `passkeyInfo` entries: the name given at enrolment and the credential id, in standard base64 as
    /// production's bytes field.
    static func info(_ passkeys: [WebAuthnCredential]) -> [JSON] {
        passkeys.map { ["name": .string($0.friendlyName ?? ""), "credentialId": .string(Data($0.credentialId).base64EncodedString())] }
    }

    /// The user entity: the uid as handle (the emulator's `user.id` is its base64), the email (else the phone, else
    /// the uid) as name, the display name where there is one.
    static func entity(_ user: User) -> WebAuthnUserEntity {
        let name = user.email ?? user.phone ?? user.id
        return WebAuthnUserEntity(handle: Array(user.id.utf8), name: name, displayName: user.userMetadata["displayName"]?.stringValue ?? name)
    }

    /// The authenticator's answer in the WebAuthn JSON the core reads. The SDKs send WebAuthn's names (`id`,
    /// `response`, `clientDataJSON`), iOS without `type` or `rawId`; Identity Toolkit's schema names them
    /// `credentialId`, `credentialType`, `authenticator…Response` and `clientDataJson`. Binary members come
    /// in standard base64 (iOS) or base64url (JS) and go on in base64url; one that decodes as neither is
    /// passed on as given, for the core to refuse.
    static func answer(_ body: FirebaseBody, _ key: String, response responseKey: String) throws -> JSON {
        guard let given = body.fields[key], !given.isNull else { throw FirebaseError(.missingAuthenticatorResponse) }
        guard case .object(let fields) = given else { throw FirebaseError(.invalidAuthenticatorResponse, "\(key) must be an object") }
        func rewrapped(_ value: JSON?) -> JSON? {
            guard let value, !value.isNull else { return nil }
            guard let text = value.stringValue, let bytes = Base64URL.decode(text) else { return value }
            return .string(Base64URL.encode(bytes))
        }
        guard let id = rewrapped(fields["id"] ?? fields["credentialId"]) else { throw FirebaseError(.invalidAuthenticatorResponse, "The credential id is missing.") }
        let inner = (fields["response"] ?? fields[responseKey])?.objectValue ?? [:]
        var response: [String: JSON] = [:]
        response["clientDataJSON"] = rewrapped(inner["clientDataJSON"] ?? inner["clientDataJson"])
        for member in ["attestationObject", "authenticatorData", "signature", "userHandle"] { response[member] = rewrapped(inner[member]) }
        response["transports"] = inner["transports"]
        var credential: [String: JSON] = ["id": id, "type": fields["type"] ?? fields["credentialType"] ?? "public-key", "response": .object(response)]
        credential["rawId"] = rewrapped(fields["rawId"])
        credential["authenticatorAttachment"] = fields["authenticatorAttachment"]
        return .object(credential)
    }

    /// The core's options with `challenge`, `user.id` and the listed credentials' ids in padded standard base64.
    static func standardBase64(_ options: JSON) -> JSON {
        guard case .object(var o) = options else { return options }
        func reencoded(_ value: JSON?) -> JSON? {
            guard let text = value?.stringValue, let bytes = Base64URL.decode(text) else { return value }
            return .string(Data(bytes).base64EncodedString())
        }
        o["challenge"] = reencoded(o["challenge"])
        if case .object(var user)? = o["user"] {
            user["id"] = reencoded(user["id"])
            o["user"] = .object(user)
        }
        for list in ["excludeCredentials", "allowCredentials"] {
            guard let items = o[list]?.arrayValue else { continue }
            o[list] = .array(items.map { item in
                guard case .object(var descriptor) = item else { return item }
                descriptor["id"] = reencoded(descriptor["id"])
                return .object(descriptor)
            })
        }
        return .object(o)
    }
}

extension FirebaseSettings {
    /// The passkeys' relying party: discoverable credentials with user verification, as the emulator's options
    /// ask (`userVerification: required`), no attestation, the emulator's 60-second hint. Origins on or under the
    /// RP id are accepted, and those `passkey_origins` lists.
    var passkeyRelyingParty: RelyingParty {
        let id = passkeyRelyingPartyId
        let scheme = id == "localhost" || id.hasSuffix(".localhost") ? "http" : "https"
        var rp = RelyingParty(id: id, name: id, origins: ["\(scheme)://\(id)"] + passkeyOrigins, userVerification: .required,
                              residentKey: "required", attestation: "none", timeoutMilliseconds: 60_000, challengeLifetime: 300)
        rp.acceptsOriginsUnderID = true
        return rp
    }
}

extension FirebaseDialect {
    /// A project's passkey relying party and user entity, for the control API's virtual authenticator. An
    /// Identity Platform tenant's is its project's (`passkey_rp_id` and `passkey_origins` are project settings), as
    /// the passkey endpoints read it (`FirebaseScope.settings`).
    public static let webAuthnSettings: WebAuthnSettingsResolver = { tenant, tenantNamed in
        let project = FirebaseScope.isProject(tenant) ? tenant : tenantNamed(FirebaseScope.projectId(of: tenant.id))
        guard let project, let settings = try? FirebaseSettings(project: project.settings) else { return nil }
        return WebAuthnSettings(relyingParty: settings.passkeyRelyingParty, userEntity: Passkeys.entity)
    }
}
