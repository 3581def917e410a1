import Crypto
import Foundation

/// What a registration or an assertion is checked against: the challenge issued and the relying party
/// it was issued for.
public struct WebAuthnExpectation: Sendable {
    public var challenge: [UInt8]
    public var relyingParty: RelyingParty

    public init(challenge: [UInt8], relyingParty: RelyingParty) {
        self.challenge = challenge
        self.relyingParty = relyingParty
    }
}

/// A credential a registration proved, ready to store.
public struct RegisteredCredential: Sendable {
    public var credentialId: [UInt8]
    public var publicKey: COSEKey
    public var signCount: UInt32
    public var aaguid: [UInt8]
    public var flags: AuthenticatorData.Flags
    public var attestationFormat: String
    public var transports: [String]
}

/// What an assertion proved about a stored credential.
public struct AssertedCredential: Sendable {
    public var signCount: UInt32
    public var flags: AuthenticatorData.Flags
}

/// The relying party's checks (WebAuthn L3 §7.1 "Registering a New Credential" and §7.2 "Verifying an
/// Authentication Assertion"), as pure functions of the response and what was issued: no storage, no
/// clock, so each rule is tested on its own.
public enum WebAuthnVerifier {
    /// §7.1: checks a registration response and returns the new credential.
    public static func verifyRegistration(_ response: PublicKeyCredentialJSON, expecting expected: WebAuthnExpectation) throws(WebAuthnFailure) -> RegisteredCredential {
        guard let attestationBytes = response.attestationObject else { throw .malformed("attestationObject is missing") }
        let clientData = try ClientData(response.clientDataJSON)
        try check(clientData, ceremony: "webauthn.create", expected)
        let attestation = try AttestationObject(attestationBytes)
        let authData = attestation.authenticatorData
        try check(authData, expected.relyingParty)
        guard let credential = authData.attestedCredential else { throw .malformed("registration without attested credential data") }
        guard credential.credentialId == response.rawId else { throw .rejected(.credentialIdMismatch) }
        guard expected.relyingParty.algorithms.contains(credential.publicKey.algorithm.rawValue) else { throw .rejected(.algorithmNotAllowed) }
        try verifyStatement(attestation, key: credential.publicKey, clientDataHash: Array(SHA256.hash(data: response.clientDataJSON)))
        return RegisteredCredential(credentialId: credential.credentialId, publicKey: credential.publicKey, signCount: authData.signCount,
                                    aaguid: credential.aaguid, flags: authData.flags, attestationFormat: attestation.format,
                                    transports: response.transports)
    }

    /// §7.2: checks an assertion made with a stored credential (its key, counter and backup eligibility)
    /// and returns the counter and flags to store.
    public static func verifyAssertion(_ response: PublicKeyCredentialJSON, expecting expected: WebAuthnExpectation, publicKey: COSEKey,
                                       storedSignCount: UInt32, backupEligible: Bool) throws(WebAuthnFailure) -> AssertedCredential {
        guard let authBytes = response.authenticatorData, let signature = response.signature else {
            throw .malformed("authenticatorData and signature are required")
        }
        let clientData = try ClientData(response.clientDataJSON)
        try check(clientData, ceremony: "webauthn.get", expected)
        let authData = try AuthenticatorData(authBytes)
        try check(authData, expected.relyingParty)
        // A credential is backup-eligible for life (WebAuthn §6.1.3): a change means another authenticator.
        guard authData.flags.contains(.backupEligible) == backupEligible else { throw .rejected(.backupFlagsInconsistent) }
        let signed = authBytes + Array(SHA256.hash(data: response.clientDataJSON))
        guard publicKey.isValidSignature(signature, for: signed) else { throw .rejected(.badSignature) }
        // §7.2 step 22: a counter that does not move past the stored one signals a cloned authenticator.
        // Authenticators that keep no counter (synced passkeys) report 0 every time, which is allowed.
        if authData.signCount != 0 || storedSignCount != 0, authData.signCount <= storedSignCount {
            throw .rejected(.counterRegressed)
        }
        return AssertedCredential(signCount: authData.signCount, flags: authData.flags)
    }

    /// §7.1 steps 7–10 and §7.2 steps 11–14: the ceremony, the challenge, the origin and the frame.
    static func check(_ clientData: ClientData, ceremony: String, _ expected: WebAuthnExpectation) throws(WebAuthnFailure) {
        guard clientData.type == ceremony else { throw .rejected(.wrongCeremony) }
        guard let challenge = Base64URL.decode(clientData.challenge), constantTimeEquals(challenge, expected.challenge) else {
            throw .rejected(.challengeMismatch)
        }
        let rp = expected.relyingParty
        guard Origin.isAllowed(clientData.origin, in: rp.origins) || (rp.acceptsOriginsUnderID && Origin.isUnder(clientData.origin, rpId: rp.id)) else {
            throw .rejected(.originNotAllowed)
        }
        guard !clientData.crossOrigin || expected.relyingParty.allowsCrossOrigin else { throw .rejected(.crossOrigin) }
    }

    /// The RP id hash, user presence, user verification when required, and BS only with BE.
    static func check(_ authData: AuthenticatorData, _ rp: RelyingParty) throws(WebAuthnFailure) {
        guard constantTimeEquals(authData.rpIdHash, Array(SHA256.hash(data: Array(rp.id.utf8)))) else { throw .rejected(.rpIdMismatch) }
        guard authData.flags.contains(.userPresent) else { throw .rejected(.userNotPresent) }
        if rp.userVerification == .required, !authData.flags.contains(.userVerified) { throw .rejected(.userNotVerified) }
        if authData.flags.contains(.backedUp), !authData.flags.contains(.backupEligible) { throw .rejected(.backupFlagsInconsistent) }
    }

    /// §8.7 `none` (an empty statement) and §8.2 `packed` self-attestation (no `x5c`: signed with the
    /// credential's own key, in its own algorithm). Certificate chains and other formats are refused,
    /// not waved through.
    static func verifyStatement(_ attestation: AttestationObject, key: COSEKey, clientDataHash: [UInt8]) throws(WebAuthnFailure) {
        guard case .map(let entries) = attestation.statement else { throw .malformed("attStmt is not a map") }
        switch attestation.format {
        case "none":
            guard entries.isEmpty else { throw .malformed("attestation format none with a statement") }
        case "packed":
            guard attestation.statement[text: "x5c"] == nil, attestation.statement[text: "ecdaaKeyId"] == nil else {
                throw .unsupportedAttestation("packed with a certificate chain")
            }
            guard let alg = attestation.statement[text: "alg"]?.intValue, let sig = attestation.statement[text: "sig"]?.bytesValue else {
                throw .malformed("packed attestation needs alg and sig")
            }
            guard alg == key.algorithm.rawValue else { throw .rejected(.algorithmNotAllowed) }
            guard key.isValidSignature(sig, for: attestation.authenticatorData.raw + clientDataHash) else { throw .rejected(.badSignature) }
        default:
            throw .unsupportedAttestation(attestation.format)
        }
    }
}
