import Foundation

/// A relying party's WebAuthn settings, in the vendors' shared terms: GoTrue's `GOTRUE_WEBAUTHN_RP_*`,
/// Cognito's `WebAuthnConfiguration` (RelyingPartyId, UserVerification). A dialect builds one from its
/// tenant's settings; the core checks ceremonies against it.
public struct RelyingParty: Sendable, Equatable {
    /// The RP id: a registrable domain (`example.com`, `localhost`); credentials are scoped to it.
    public var id: String
    /// Shown by the browser when creating a credential.
    public var name: String
    /// The origins a ceremony may run on (`https://app.example.com`, `http://localhost:3000`).
    public var origins: [String]
    /// Whether the UV flag must be set (`required`); nil states nothing, as GoTrue's MFA options do.
    public var userVerification: UserVerification?
    /// `residentKey` asked for at registration (passkeys need `required`); nil leaves it out.
    public var residentKey: String?
    /// The `attestation` conveyance preference sent to the client; nil leaves it out (`none`).
    public var attestation: String?
    /// The `timeout` hint sent to the client, in milliseconds.
    public var timeoutMilliseconds: Int
    /// How long a challenge may be answered, on the emulator clock.
    public var challengeLifetime: TimeInterval
    /// Algorithms offered in `pubKeyCredParams`, in preference order; a credential of another is refused.
    public var algorithms: [Int64]
    /// Whether a ceremony in a cross-origin iframe (`crossOrigin: true`) is accepted.
    public var allowsCrossOrigin: Bool
    /// Whether, beyond `origins`, any origin on the RP id or under it is accepted (`https`, or `http` on
    /// `localhost`): Cognito's rule, which refuses only an origin that does not align with the RP id.
    public var acceptsOriginsUnderID = false

    public enum UserVerification: String, Sendable, Equatable, CaseIterable {
        case required, preferred, discouraged
    }

    public init(id: String, name: String, origins: [String], userVerification: UserVerification? = .preferred, residentKey: String? = nil,
                attestation: String? = "none", timeoutMilliseconds: Int = 300_000, challengeLifetime: TimeInterval = 300,
                algorithms: [Int64] = COSEAlgorithm.allCases.map(\.rawValue), allowsCrossOrigin: Bool = false) {
        self.id = id; self.name = name; self.origins = origins; self.userVerification = userVerification
        self.residentKey = residentKey; self.attestation = attestation; self.timeoutMilliseconds = timeoutMilliseconds
        self.challengeLifetime = challengeLifetime; self.algorithms = algorithms; self.allowsCrossOrigin = allowsCrossOrigin
    }
}

/// A dialect's relying party for a tenant, for `EmulatorOptions.relyingParties`: what the control API's
/// virtual authenticator uses when a request names no RP id or origin. Nil when the tenant has none.
public typealias RelyingPartyResolver = @Sendable (Tenant) -> RelyingParty?

/// The user a registration creates a credential for (WebAuthn's `PublicKeyCredentialUserEntity`).
public struct WebAuthnUserEntity: Sendable, Equatable {
    /// The user handle: opaque bytes the authenticator stores and returns in assertions.
    public var handle: [UInt8]
    public var name: String
    public var displayName: String

    public init(handle: [UInt8], name: String, displayName: String) {
        self.handle = handle; self.name = name; self.displayName = displayName
    }
}
