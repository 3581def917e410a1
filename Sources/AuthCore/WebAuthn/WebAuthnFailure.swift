import Foundation

/// Why a WebAuthn ceremony was refused, in dialect-neutral terms. GoTrue folds most of these into
/// `webauthn_verification_failed`; Cognito tells some apart (`WebAuthnOriginNotAllowedException`,
/// `WebAuthnRelyingPartyMismatchException`), so the reason is kept.
public enum WebAuthnFailure: Error, Equatable, Sendable {
    /// No open challenge with this id for this caller (never issued, already used, or another user's).
    case challengeNotFound
    /// The challenge outlived its lifetime on the emulator clock.
    case challengeExpired
    /// The response cannot be read (bad base64url, JSON, CBOR or structure); the text says where.
    case malformed(String)
    /// The response was read and fails a rule.
    case rejected(WebAuthnRejection)
    /// An attestation format Fauxth does not verify (only `none` and `packed` self-attestation are).
    case unsupportedAttestation(String)
    /// The credential id is already registered in this tenant.
    case credentialExists
    /// No registered credential with this id (for this user).
    case credentialNotFound
    /// The user already has as many credentials as the tenant allows.
    case tooManyCredentials
}

/// The rule a WebAuthn response broke (WebAuthn §7.1 and §7.2, step by step).
public enum WebAuthnRejection: String, Sendable, Equatable, CaseIterable {
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` / `webauthn.get`).
    case wrongCeremony = "wrong_ceremony"
    /// The signed challenge is not the one issued.
    case challengeMismatch = "challenge_mismatch"
    /// The page the browser ran on is not one of the relying party's origins.
    case originNotAllowed = "origin_not_allowed"
    /// The ceremony ran in a cross-origin iframe, which the relying party does not allow.
    case crossOrigin = "cross_origin"
    /// The authenticator scoped the credential to another RP id.
    case rpIdMismatch = "rp_id_mismatch"
    /// The UP flag is not set.
    case userNotPresent = "user_not_present"
    /// User verification was required and the UV flag is not set.
    case userNotVerified = "user_not_verified"
    /// The credential's algorithm is not one the relying party offered.
    case algorithmNotAllowed = "algorithm_not_allowed"
    /// The signature does not verify with the credential's public key.
    case badSignature = "bad_signature"
    /// The authenticator's counter did not move past the stored one: a possible cloned authenticator.
    case counterRegressed = "counter_regressed"
    /// BS set without BE, or BE differing from registration (WebAuthn §6.1.3).
    case backupFlagsInconsistent = "backup_flags_inconsistent"
    /// The credential is not among those the challenge allowed.
    case credentialNotAllowed = "credential_not_allowed"
    /// The response's user handle is not the credential's user.
    case userHandleMismatch = "user_handle_mismatch"
    /// The response's `id` and `rawId` disagree, or its `type` is not `public-key`.
    case credentialIdMismatch = "credential_id_mismatch"
}

extension WebAuthnFailure {
    /// A short English explanation, for logs, events and dialects without a wording of their own.
    public var reason: String {
        switch self {
        case .challengeNotFound: "challenge not found or already used"
        case .challengeExpired: "challenge has expired"
        case .malformed(let detail): "malformed response: \(detail)"
        case .rejected(let rule): "verification failed: \(rule.rawValue.replacingOccurrences(of: "_", with: " "))"
        case .unsupportedAttestation(let format): "attestation format \(format) is not supported (only none and packed self-attestation)"
        case .credentialExists: "credential is already registered"
        case .credentialNotFound: "credential not found"
        case .tooManyCredentials: "maximum number of credentials reached"
        }
    }
}
