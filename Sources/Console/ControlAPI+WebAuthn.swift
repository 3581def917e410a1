import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `/_emu/v1/webauthn`: the virtual authenticator. It gives a user a passkey directly, or answers the
/// options a dialect handed its client with the `PublicKeyCredential` JSON a browser would send back,
/// so tests drive passkey sign-up, sign-in and WebAuthn MFA without a browser.
extension ControlAPI {
    func addWebAuthnRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get("credentials") { request, _ in
            let tenant = try requireTenant(ControlRequest(request: request).query("tenant"))
            return ControlJSON.response(["credentials": .array(try emulator.authenticatorKeys(in: tenant).map(Self.key))])
        }
        group.post("credentials") { request, _ in
            let body = try await ControlRequest(request: request).body()
            let tenant = try requireTenant(try body.string("tenant", required: true))
            let userId = try body.string("user_id", required: true) ?? ""
            _ = try emulator.requireUser(in: tenant, id: userId)
            let settings = try webAuthnSettings(tenant: tenant, rpId: try body.string("rp_id"))
            let authenticator = try authenticatorSettings(body, defaultOrigin: settings.relyingParty.origins.first, rpId: settings.relyingParty.id,
                                                          overrides: false)
            let credential = try emulator.registerVirtualPasskey(in: tenant, userId: userId, settings: settings, authenticator: authenticator,
                                                                 friendlyName: try body.string("name") ?? VirtualAuthenticatorModel.name)
            return ControlJSON.response(Self.credential(credential), status: .created)
        }
        group.post("register") { request, _ in
            let body = try await ControlRequest(request: request).body()
            let tenant = try requireTenant(try body.string("tenant", required: true))
            let options = try Self.options(body)
            let rpId = options["rp"]?["id"]?.stringValue
            let settings = try authenticatorSettings(body, defaultOrigin: try defaultOrigin(tenant: tenant, rpId: rpId), rpId: rpId, overrides: true)
            return ControlJSON.response(["credential": try emulator.authenticatorCreate(in: tenant, options: options, settings: settings)])
        }
        group.post("assert") { request, _ in
            let body = try await ControlRequest(request: request).body()
            let tenant = try requireTenant(try body.string("tenant", required: true))
            let options = try Self.options(body)
            let rpId = options["rpId"]?.stringValue
            var settings = try authenticatorSettings(body, defaultOrigin: try defaultOrigin(tenant: tenant, rpId: rpId), rpId: rpId, overrides: true)
            settings.credentialId = try body.string("credential_id")
            settings.userId = try body.string("user_id")
            return ControlJSON.response(["credential": try emulator.authenticatorGet(in: tenant, options: options, settings: settings)])
        }
    }

    private func requireTenant(_ id: String?) throws -> String {
        guard let id, !id.isEmpty else { throw ControlError.badRequest("tenant is required") }
        _ = try emulator.requireTenant(id)
        return id
    }

    /// The tenant's relying party as its dialect configures it, with `rp_id` (and the origin that goes
    /// with it) when the request names one.
    private func webAuthnSettings(tenant: String, rpId: String?) throws -> WebAuthnSettings {
        if var settings = try emulator.webAuthnSettings(for: tenant) {
            if let rpId, rpId != settings.relyingParty.id {
                settings.relyingParty.id = rpId
                settings.relyingParty.origins = ["https://\(rpId)"]
            }
            return settings
        }
        guard let rpId else { throw ControlError.badRequest("rp_id is required: this tenant's dialect has no WebAuthn relying party") }
        return WebAuthnSettings(relyingParty: RelyingParty(id: rpId, name: rpId, origins: ["https://\(rpId)"]))
    }

    /// Where the page runs unless the request says: the tenant's first origin when its RP id is the one
    /// asked for, else `https://` and the RP id.
    private func defaultOrigin(tenant: String, rpId: String?) throws -> String? {
        let rp = try emulator.webAuthnSettings(for: tenant)?.relyingParty
        if let rp, rpId == nil || rpId == rp.id { return rp.origins.first }
        return rpId.map { "https://\($0)" }
    }

    /// What the user and the authenticator do. `overrides` allows the deliberate faults (another RP id in
    /// the authenticator data, a forced counter) that only answering a dialect's options needs.
    private func authenticatorSettings(_ body: [String: JSON], defaultOrigin: String?, rpId: String?, overrides: Bool) throws -> AuthenticatorSettings {
        guard let origin = try body.string("origin") ?? defaultOrigin else {
            throw ControlError.badRequest("origin is required: the options name no RP id and the tenant has no origin")
        }
        var settings = AuthenticatorSettings(origin: origin)
        settings.userVerified = try body.change("user_verified") ?? true
        settings.userPresent = try body.change("user_present") ?? true
        settings.backupEligible = try body.bool("backup_eligible")
        settings.authenticator = try body.string("authenticator")
        settings.attestation = try body.string("attestation") ?? "none"
        guard ["none", "packed"].contains(settings.attestation) else { throw ControlError.badRequest("attestation: none or packed") }
        if let name = try body.string("algorithm") {
            guard let algorithm = COSEAlgorithm.allCases.first(where: { $0.name == name }) else { throw ControlError.badRequest("algorithm: ES256 or RS256") }
            settings.algorithm = algorithm
        }
        guard overrides else { return settings }
        settings.rpIdOverride = try body.string("authenticator_rp_id")
        if let count = body["sign_count"], !count.isNull {
            guard let value = count.intValue, value >= 0, value <= Int(UInt32.max) else { throw ControlError.badRequest("sign_count: a whole number from 0 to 4294967295") }
            settings.signCountOverride = UInt32(value)
        }
        return settings
    }

    /// The options as the dialect returned them: the object itself, or the dialect's whole answer (GoTrue's
    /// `options`, its MFA challenge's `webauthn.credential_options`).
    private static func options(_ body: [String: JSON]) throws -> JSON {
        guard case .object(let given)? = body["options"] else { throw ControlError.badRequest("options: the options object the dialect returned") }
        let options = given["options"] ?? given["webauthn"]?["credential_options"] ?? .object(given)
        guard (options["publicKey"] ?? options)["challenge"] != nil else { throw ControlError.badRequest("options: no challenge in them") }
        return options
    }

    static func key(_ key: AuthenticatorKey) -> JSON {
        ["credential_id": .string(key.credentialId), "authenticator": .string(key.authenticator), "rp_id": .string(key.rpId), "user_handle": .string(key.userHandle),
         "user_name": JSON(key.userName), "algorithm": .string(COSEAlgorithm(rawValue: key.algorithm)?.name ?? "\(key.algorithm)"),
         "sign_count": .int(Int(key.signCount)), "backup_eligible": .bool(key.backupEligible), "created_at": ControlJSON.time(key.createdAt)]
    }

    static func credential(_ credential: WebAuthnCredential) -> JSON {
        ["id": .string(credential.id), "user_id": .string(credential.userId), "credential_id": .string(Base64URL.encode(credential.credentialId)),
         "rp_id": .string(credential.rpId), "algorithm": .string(COSEAlgorithm(rawValue: credential.algorithm)?.name ?? "\(credential.algorithm)"),
         "friendly_name": JSON(credential.friendlyName), "sign_count": .int(Int(credential.signCount)),
         "created_at": ControlJSON.time(credential.createdAt)]
    }
}
