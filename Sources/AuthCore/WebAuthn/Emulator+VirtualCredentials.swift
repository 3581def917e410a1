import Foundation

/// A tenant's WebAuthn settings as its dialect reads them: the relying party, and the user entity its
/// registrations describe (GoTrue's user handle is the user id's text; another vendor may differ).
public struct WebAuthnSettings: Sendable {
    public var relyingParty: RelyingParty
    public var userEntity: @Sendable (User) -> WebAuthnUserEntity
    /// The most passkeys a user may have, if the vendor caps them.
    public var maxPasskeys: Int?

    public init(relyingParty: RelyingParty, maxPasskeys: Int? = nil, userEntity: @escaping @Sendable (User) -> WebAuthnUserEntity = WebAuthnSettings.plainEntity) {
        self.relyingParty = relyingParty
        self.userEntity = userEntity
        self.maxPasskeys = maxPasskeys
    }

    /// The user id's text as the handle, the email (or phone, username, id) as the name.
    public static let plainEntity: @Sendable (User) -> WebAuthnUserEntity = { user in
        let name = user.email ?? user.phone ?? user.username ?? user.id
        return WebAuthnUserEntity(handle: Array(user.id.utf8), name: name, displayName: name)
    }
}

/// A dialect's WebAuthn settings for one of its tenants, for `EmulatorOptions.webAuthn`; nil when the
/// tenant's configuration has none. The second argument finds another tenant by id, for a tenant whose relying
/// party is its parent's (an Identity Platform tenant's is its project's).
public typealias WebAuthnSettingsResolver = @Sendable (Tenant, _ tenantNamed: (String) -> Tenant?) -> WebAuthnSettings?

extension Emulator {
    /// The WebAuthn settings `tenant`'s dialect reads from its configuration, if any.
    public func webAuthnSettings(for tenant: String) throws -> WebAuthnSettings? {
        let row = try requireTenant(tenant)
        return webAuthnResolvers[row.dialect]?(row) { try? self.tenant($0) }
    }

    /// Gives `userId` a passkey held by the virtual authenticator, through the whole ceremony a dialect
    /// would run (options, the authenticator's answer, the relying party's verification), so the result
    /// is exactly what a client registering through the API would leave behind.
    public func registerVirtualPasskey(in tenant: String, userId: String, settings: WebAuthnSettings, authenticator: AuthenticatorSettings,
                                       friendlyName: String?) throws -> WebAuthnCredential {
        let user = try requireUser(in: tenant, id: userId)
        let ceremony = try beginWebAuthnRegistration(in: tenant, userId: userId, user: settings.userEntity(user), relyingParty: settings.relyingParty,
                                                     kind: .passkey, exclude: try webAuthnCredentials(in: tenant, userId: userId, kind: .passkey))
        let response = try authenticatorCreate(in: tenant, options: ceremony.options, settings: authenticator)
        return try finishWebAuthnRegistration(in: tenant, challengeId: ceremony.id, userId: userId, kind: .passkey, response: response,
                                              friendlyName: friendlyName, maxCredentials: settings.maxPasskeys)
    }
}
