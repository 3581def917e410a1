import AuthCore
import Foundation
import HTTPSupport

/// Cognito's passkeys: `StartWebAuthnRegistration` / `CompleteWebAuthnRegistration` from a signed-in
/// user's access token, `ListWebAuthnCredentials`, `DeleteWebAuthnCredential`, and the `WEB_AUTHN` first
/// factor of `USER_AUTH` (in SignInFlow). The ceremonies are the core's; this file decodes and encodes.
///
/// The relying party is the pool's `WebAuthnConfiguration` (`RelyingPartyId`, else the pool's domain as
/// Cognito defaults it; `UserVerification`, `preferred` by default). A ceremony may run on any origin on
/// that id or under it, which is what Cognito checks (`WebAuthnOriginNotAllowedException` otherwise).
enum WebAuthnCredentials {
    /// The registration a user has open: one at a time, as `CompleteWebAuthnRegistration` names none.
    static func registrationId(_ user: User) -> String { "cognito-registration:\(user.id)" }

    static func start(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        return ["CredentialCreationOptions": try beginRegistration(user, pool: pool, emulator: call.emulator)]
    }

    static func complete(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        guard let credential = call.body["Credential"], credential.objectValue != nil else { throw CognitoBody.missing("Credential") }
        try finishRegistration(user, pool: pool, credential: credential, emulator: call.emulator, origin: call.origin)
        return [:]
    }

    /// A registration's options for `user` (the API's `StartWebAuthnRegistration`, the hosted UI's
    /// `/passkeys/add`): the pool's relying party, the user's passkeys excluded.
    static func beginRegistration(_ user: User, pool: CognitoPool, emulator: Emulator) throws -> JSON {
        let rp = try pool.requireRelyingParty()
        let existing = try emulator.webAuthnCredentials(in: pool.id, userId: user.id, kind: .passkey)
        let name = CognitoUsers.username(user, pool: pool)
        let ceremony = try emulator.beginWebAuthnRegistration(
            in: pool.id, userId: user.id, user: WebAuthnUserEntity(handle: Array(user.id.utf8), name: name, displayName: name),
            relyingParty: rp, kind: .passkey, exclude: existing, id: .given(registrationId(user)))
        var options = ceremony.options.objectValue ?? [:]
        options["extensions"] = ["credProps": true]
        return .object(options)
    }

    /// The browser's answer to `beginRegistration`, checked by the core and kept as the user's passkey.
    static func finishRegistration(_ user: User, pool: CognitoPool, credential: JSON, emulator: Emulator, origin: RequestOrigin) throws {
        _ = try pool.requireRelyingParty()
        try emulator.finishWebAuthnRegistration(in: pool.id, challengeId: registrationId(user), userId: user.id, kind: .passkey,
                                                response: credential, friendlyName: nil, origin: origin)
    }

    static func list(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let paging = try Paging(call, .webAuthnCredentials, scope: "ListWebAuthnCredentials:\(pool.id):\(user.id)")
        let (page, next) = paging.page(try call.emulator.webAuthnCredentials(in: pool.id, userId: user.id, kind: .passkey),
                                       key: { Base64URL.encode($0.credentialId) })
        return paging.answer("Credentials", page.map(description), next: next)
    }

    static func delete(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let id = try call.body.required("CredentialId")
        guard let credential = try call.emulator.webAuthnCredentials(in: pool.id, userId: user.id, kind: .passkey)
            .first(where: { Base64URL.encode($0.credentialId) == id }) else {
            throw CognitoError(.resourceNotFound, "Credential not found.")
        }
        try call.emulator.deleteWebAuthnCredential(in: pool.id, userId: user.id, id: credential.id)
        return [:]
    }

    /// `WebAuthnCredentialDescription`.
    static func description(_ credential: WebAuthnCredential) -> JSON {
        var o: [String: JSON] = ["CredentialId": .string(Base64URL.encode(credential.credentialId)), "RelyingPartyId": .string(credential.rpId),
                                 "AuthenticatorTransports": .array(credential.transports.map(JSON.string)),
                                 "CreatedAt": .double(credential.createdAt.timeIntervalSince1970)]
        o["FriendlyCredentialName"] = credential.friendlyName.map(JSON.string) ?? .string(credential.transports.contains("internal") ? "Platform passkey" : "Passkey")
        o["AuthenticatorAttachment"] = credential.transports.contains("internal") ? "platform" : "cross-platform"
        return .object(o)
    }
}

extension CognitoDialect {
    /// A pool's relying party for the control API's virtual authenticator.
    public static let webAuthnSettings: WebAuthnSettingsResolver = { tenant, _ in
        CognitoPool(tenant: tenant).relyingParty.map { WebAuthnSettings(relyingParty: $0) }
    }
}

extension CognitoPool {
    /// The pool's WebAuthn relying party, nil when it has neither a `RelyingPartyId` nor a domain.
    var relyingParty: RelyingParty? {
        let config = pool["WebAuthnConfiguration"]
        let id = config?["RelyingPartyId"]?.stringValue
            ?? domain.map { $0.contains(".") ? $0 : "\($0).auth.\(region).amazoncognito.com" }
        guard let id, !id.isEmpty else { return nil }
        let verification = config?["UserVerification"]?.stringValue.flatMap(RelyingParty.UserVerification.init(rawValue:)) ?? .preferred
        // The RP id's own origin is listed (the control API's virtual authenticator uses it by default); any
        // other on or under the id is accepted too.
        let scheme = id == "localhost" || id.hasSuffix(".localhost") ? "http" : "https"
        var rp = RelyingParty(id: id, name: id, origins: ["\(scheme)://\(id)"], userVerification: verification, residentKey: "required",
                              attestation: "none", timeoutMilliseconds: 180_000, challengeLifetime: 180)
        rp.acceptsOriginsUnderID = true
        return rp
    }

    /// Passkeys need `WEB_AUTHN` among the pool's first factors and a relying party.
    func requireRelyingParty() throws -> RelyingParty {
        guard allowedFirstAuthFactors.contains("WEB_AUTHN") else {
            throw CognitoError(.webAuthnNotEnabled, "WebAuthn is not enabled for this user pool: add WEB_AUTHN to Policies.SignInPolicy.AllowedFirstAuthFactors.")
        }
        guard let rp = relyingParty else {
            throw CognitoError(.webAuthnConfigurationMissing, "The user pool has no WebAuthn relying party: set WebAuthnConfiguration.RelyingPartyId "
                               + "(SetUserPoolMfaConfig) or give the pool a domain.")
        }
        return rp
    }
}
