import Foundation

/// Every way a core operation can refuse, in dialect-neutral terms. Each dialect maps these in one
/// exhaustive switch, so a new case makes every dialect decide how to render it.
public enum AuthError: Error, Equatable, Sendable {
    /// A required field is missing or malformed; `field` names it.
    case invalidInput(field: String, reason: String)
    case invalidEmail
    case invalidPhone
    /// The password fails the tenant's policy; `reasons` are vendor-neutral (`length`, `characters`).
    case weakPassword(reasons: [String], message: String)
    case emailTaken
    case phoneTaken
    case signupDisabled
    case providerDisabled(String)
    /// Unknown user or wrong password; never says which.
    case invalidCredentials
    case emailNotConfirmed
    case phoneNotConfirmed
    case userDisabled
    case userBanned
    case userNotFound
    case tenantNotFound(String)
    case tenantExists(String)
    /// `retryAfter` is computed by the core from the emulator clock, so renderers never read the wall clock.
    /// Too many failed attempts at a `LockoutKind` secret; the tenant's lockout policy is on.
    case lockedOut(LockoutKind, until: Date, retryAfter: TimeInterval)
    case rateLimited(retryAfter: TimeInterval)
    /// A message the tenant's send limits refused (kept in the outbox as suppressed).
    case sendLimited(PolicyLimit, retryAfter: TimeInterval)
    /// A message of a kind the user had less than the vendor's per-user interval ago (GoTrue's
    /// `GOTRUE_SMTP_MAX_FREQUENCY`), kept in the outbox as suppressed.
    case sendCooldown(Channel, retryAfter: TimeInterval)
    /// No refresh token with this value exists.
    case refreshTokenNotFound
    /// A revoked refresh token was presented outside the reuse rules; its whole family is now revoked.
    case refreshTokenReused
    /// The session is gone (logged out, revoked, or the user deleted).
    case sessionNotFound
    /// The session outlived a lifetime rule; `reason` says which (nil: the absolute timebox).
    case sessionExpired(reason: SessionExpiry?)
    /// The code or link is wrong, used, or past its expiry.
    case codeInvalid
    /// No PKCE flow has this auth code (never issued, or already exchanged).
    case flowStateNotFound
    case flowStateExpired
    /// The PKCE verifier does not match the challenge.
    case badCodeVerifier
    /// No MFA factor (or challenge) with this id belongs to the user.
    case factorNotFound
    case factorNameTaken
    case tooManyFactors
    /// The user already has a verified factor for this phone number.
    case verifiedFactorExists
    case mfaChallengeExpired
    /// The challenge was made from another IP address than the verification.
    case mfaIPMismatch
    /// The MFA code is wrong.
    case mfaVerificationFailed
    /// A one-time code that was already accepted once: a TOTP code's time step (RFC 6238 §5.2).
    case codeReused
    /// The session has not proven the second factor `requirement` asks of a user who has one.
    case insufficientAAL(AssuranceRequirement)
    /// No identity with this id belongs to the user.
    case identityNotFound
    /// Unlinking would leave the user with no way to sign in.
    case lastIdentity
    /// This provider account is already linked to a user.
    case identityTaken
    /// The code was right but is past its expiry.
    case codeExpired
    /// The code's handle is live but the code typed is not its code.
    case wrongCode
    /// Too many wrong codes: the code is used up.
    case tooManyAttempts
    /// A WebAuthn ceremony was refused; the failure says which rule (challenge, origin, RP id, signature…).
    case webAuthn(WebAuthnFailure)
}

/// Why a session expired, beyond its absolute lifetime.
public enum SessionExpiry: String, Sendable, Equatable {
    case inactivity
    /// An aal1 session of a user with a verified factor, past its allowance.
    case lowAssurance
    case newerLogin
}
