import Foundation

/// A credential a relying party registered: its public key, counter and what the authenticator said
/// about it. A passkey signs its user in; a second-factor credential belongs to an MFA factor.
public struct WebAuthnCredential: Sendable, Equatable {
    /// What a credential is for.
    public enum Kind: Sendable, Equatable {
        /// A first factor: signs the user in on its own.
        case passkey
        /// A second factor, owned by the MFA factor with this id.
        case factor(String)

        var column: String { if case .passkey = self { "passkey" } else { "factor" } }
        var factorId: String? { if case .factor(let id) = self { id } else { nil } }
        /// The challenge scope a ceremony for this kind is issued under.
        var scope: String { factorId.map { "factor:\($0)" } ?? "passkey" }
    }

    /// The record's own id (GoTrue's passkey `id`), not the authenticator's credential id.
    public var id: String
    public var userId: String
    public var kind: Kind
    /// The authenticator's credential id.
    public var credentialId: [UInt8]
    /// The COSE_Key bytes.
    public var publicKey: [UInt8]
    public var algorithm: Int64
    /// The user handle the credential was created with (`user.id` of the creation options).
    public var userHandle: [UInt8]
    public var rpId: String
    public var attestationFormat: String
    /// The authenticator model's AAGUID, 16 bytes (zeros when the client hid it, as `none` does).
    public var aaguid: [UInt8]
    public var signCount: UInt32
    public var transports: [String]
    public var backupEligible: Bool
    public var backedUp: Bool
    /// Whether the last ceremony verified the user (UV).
    public var userVerified: Bool
    public var friendlyName: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastUsedAt: Date?

    /// A `PublicKeyCredentialDescriptor` naming it (allow and exclude lists).
    public var descriptor: JSON {
        var o: [String: JSON] = ["type": "public-key", "id": .string(Base64URL.encode(credentialId))]
        if !transports.isEmpty { o["transports"] = .array(transports.map(JSON.string)) }
        return .object(o)
    }
}

/// A ceremony a relying party opened: the id the client answers under, when it expires, and the options
/// (`PublicKeyCredentialCreationOptionsJSON` or `…RequestOptionsJSON`) to hand to the client.
public struct WebAuthnCeremony: Sendable {
    public var id: String
    public var expiresAt: Date
    public var options: JSON
}
