import Crypto
import Foundation

/// Authenticator data (WebAuthn §6.1): what the authenticator itself signs, the RP id hash, the flags,
/// the signature counter and, at registration, the new credential.
public struct AuthenticatorData: Sendable {
    /// The flag bits of byte 32 (WebAuthn §6.1, table "flags").
    public struct Flags: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: a person touched or otherwise confirmed presence.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the authenticator verified who the person is (PIN, biometrics).
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be synced to other devices (a multi-device passkey).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is currently backed up.
        public static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows the counter.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension data ends the structure.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential an authenticator made (WebAuthn §6.5.1).
    public struct AttestedCredential: Sendable {
        public var aaguid: [UInt8]
        public var credentialId: [UInt8]
        public var publicKey: COSEKey
    }

    public let rpIdHash: [UInt8]
    public let flags: Flags
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?
    /// The bytes as received: signatures cover them exactly.
    public let raw: [UInt8]

    /// WebAuthn §6.5.1 caps credential ids at 1023 bytes.
    static let maximumCredentialIdLength = 1023

    public init(_ bytes: [UInt8]) throws(WebAuthnFailure) {
        guard bytes.count >= 37 else { throw .malformed("authenticatorData is shorter than 37 bytes") }
        raw = bytes
        rpIdHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else { throw .malformed("attested credential data is truncated") }
            let aaguid = Array(bytes[offset..<offset + 16])
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length > 0, length <= Self.maximumCredentialIdLength, bytes.count >= offset + length else {
                throw .malformed("credential id length \(length) is invalid")
            }
            let credentialId = Array(bytes[offset..<offset + length])
            offset += length
            do {
                let (item, used) = try CBOR.decodePrefix(bytes[offset...])
                let key = try COSEKey(cbor: item, encoded: Array(bytes[offset..<offset + used]))
                offset += used
                attestedCredential = AttestedCredential(aaguid: aaguid, credentialId: credentialId, publicKey: key)
            } catch {
                throw .malformed("credential public key: \(error.reason)")
            }
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            do {
                offset += try CBOR.decodePrefix(bytes[offset...]).length
            } catch {
                throw .malformed("extensions: \(error.reason)")
            }
        }
        guard offset == bytes.count else { throw .malformed("\(bytes.count - offset) unexpected bytes after authenticatorData") }
    }

    /// Builds authenticator data, as the virtual authenticator reports it.
    public static func encode(rpId: String, flags: Flags, signCount: UInt32, credential: (aaguid: [UInt8], id: [UInt8], key: COSEKey)?) -> [UInt8] {
        var out = Array(SHA256.hash(data: Array(rpId.utf8)))
        out.append(flags.rawValue)
        out += (0..<4).reversed().map { UInt8(truncatingIfNeeded: signCount >> ($0 * 8)) }
        if let credential {
            out += credential.aaguid
            out += [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xFF)]
            out += credential.id
            out += credential.key.encoded
        }
        return out
    }
}
