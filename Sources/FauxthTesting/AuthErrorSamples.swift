import AuthCore
import Foundation

extension AuthError {
    /// One value of every case, for the dialects' error-mapping tables (`@Test(arguments:)`): each
    /// dialect's table pins what every core error looks like on its wire.
    public static let samples: [AuthError] = [
        .invalidInput(field: "email", reason: "is required"), .invalidEmail, .invalidPhone,
        .weakPassword(reasons: ["length"], message: "Password should be at least 6 characters."),
        .emailTaken, .phoneTaken, .signupDisabled, .providerDisabled("email"), .invalidCredentials,
        .emailNotConfirmed, .phoneNotConfirmed, .userDisabled, .userBanned, .userNotFound,
        .tenantNotFound("missing"), .tenantExists("default"),
        .lockedOut(.password, until: Date(timeIntervalSince1970: 1_767_226_500), retryAfter: 900),
        .rateLimited(retryAfter: 60), .sendLimited(.emailSent, retryAfter: 30), .sendCooldown(.email, retryAfter: 42),
        .refreshTokenNotFound, .refreshTokenReused, .sessionNotFound, .sessionExpired(reason: nil),
        .codeInvalid, .flowStateNotFound, .flowStateExpired, .badCodeVerifier,
        .factorNotFound, .factorNameTaken, .tooManyFactors, .verifiedFactorExists, .mfaChallengeExpired,
        .mfaIPMismatch, .mfaVerificationFailed, .codeReused, .insufficientAAL(.credentialChange),
        .insufficientAAL(.factorEnrollment), .insufficientAAL(.verifiedFactorRemoval), .identityNotFound, .lastIdentity, .identityTaken,
        .codeExpired, .wrongCode, .tooManyAttempts,
        .webAuthn(.challengeNotFound), .webAuthn(.challengeExpired), .webAuthn(.malformed("clientDataJSON is missing")),
        .webAuthn(.rejected(.originNotAllowed)), .webAuthn(.rejected(.rpIdMismatch)), .webAuthn(.rejected(.badSignature)),
        .webAuthn(.unsupportedAttestation("tpm")), .webAuthn(.credentialExists), .webAuthn(.credentialNotFound), .webAuthn(.tooManyCredentials),
    ]

    /// The case's name without its values (with the requirement for `insufficientAAL`, whose answers
    /// differ by it): the key of a dialect's expected-answer table.
    public var caseName: String {
        // Exhaustive, no `default`: a new case does not compile here until it has a name, and the
        // tables' completeness test then asks for a sample of it above.
        switch self {
        case .invalidInput: "invalidInput"
        case .invalidEmail: "invalidEmail"
        case .invalidPhone: "invalidPhone"
        case .weakPassword: "weakPassword"
        case .emailTaken: "emailTaken"
        case .phoneTaken: "phoneTaken"
        case .signupDisabled: "signupDisabled"
        case .providerDisabled: "providerDisabled"
        case .invalidCredentials: "invalidCredentials"
        case .emailNotConfirmed: "emailNotConfirmed"
        case .phoneNotConfirmed: "phoneNotConfirmed"
        case .userDisabled: "userDisabled"
        case .userBanned: "userBanned"
        case .userNotFound: "userNotFound"
        case .tenantNotFound: "tenantNotFound"
        case .tenantExists: "tenantExists"
        case .lockedOut: "lockedOut"
        case .rateLimited: "rateLimited"
        case .sendLimited: "sendLimited"
        case .sendCooldown: "sendCooldown"
        case .refreshTokenNotFound: "refreshTokenNotFound"
        case .refreshTokenReused: "refreshTokenReused"
        case .sessionNotFound: "sessionNotFound"
        case .sessionExpired: "sessionExpired"
        case .codeInvalid: "codeInvalid"
        case .flowStateNotFound: "flowStateNotFound"
        case .flowStateExpired: "flowStateExpired"
        case .badCodeVerifier: "badCodeVerifier"
        case .factorNotFound: "factorNotFound"
        case .factorNameTaken: "factorNameTaken"
        case .tooManyFactors: "tooManyFactors"
        case .verifiedFactorExists: "verifiedFactorExists"
        case .mfaChallengeExpired: "mfaChallengeExpired"
        case .mfaIPMismatch: "mfaIPMismatch"
        case .mfaVerificationFailed: "mfaVerificationFailed"
        case .codeReused: "codeReused"
        case .insufficientAAL(let requirement): "insufficientAAL.\(requirement.rawValue)"
        case .identityNotFound: "identityNotFound"
        case .lastIdentity: "lastIdentity"
        case .identityTaken: "identityTaken"
        case .codeExpired: "codeExpired"
        case .wrongCode: "wrongCode"
        case .tooManyAttempts: "tooManyAttempts"
        case .webAuthn(let failure): "webAuthn.\(failure.code)"
        }
    }
}
