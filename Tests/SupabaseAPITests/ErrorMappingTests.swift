import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing
@testable import SupabaseAPI

/// Every core error as GoTrue renders it: status, `error_code` and message, read from
/// `internal/api` (the call that raises the same condition). A core case without a row fails here, so
/// a new one cannot reach the wire unmapped.
@Suite struct ErrorMappingTests {
    static let expected: [String: (status: Int, code: String, message: String)] = [
        "invalidInput": (400, "validation_failed", "email is required"),
        "invalidEmail": (400, "validation_failed", "Unable to validate email address: invalid format"),
        "invalidPhone": (400, "validation_failed", "Invalid phone number format (E.164 required)"),
        "weakPassword": (422, "weak_password", "Password should be at least 6 characters."),
        "emailTaken": (422, "email_exists", "A user with this email address has already been registered"),
        "phoneTaken": (422, "phone_exists", "Phone number already registered by another user"),
        "signupDisabled": (422, "signup_disabled", "Signups not allowed for this instance"),
        "providerDisabled": (400, "email_provider_disabled", "Email signups are disabled"),
        "invalidCredentials": (400, "invalid_credentials", "Invalid login credentials"),
        "emailNotConfirmed": (400, "email_not_confirmed", "Email not confirmed"),
        "phoneNotConfirmed": (400, "phone_not_confirmed", "Phone not confirmed"),
        "userDisabled": (400, "user_banned", "User is banned"),
        "userBanned": (400, "user_banned", "User is banned"),
        "userNotFound": (404, "user_not_found", "User not found"),
        "tenantNotFound": (404, "not_found", "No Supabase project missing"),
        "tenantExists": (422, "validation_failed", "Project default already exists"),
        "lockedOut": (429, "over_request_rate_limit",
                      "Too many failed sign-in attempts. For security purposes, you can only try again after 900 seconds."),
        "rateLimited": (429, "over_request_rate_limit", "Request rate limit reached"),
        "sendLimited": (429, "over_email_send_rate_limit", "email rate limit exceeded"),
        "sendCooldown": (429, "over_email_send_rate_limit", "For security purposes, you can only request this after 42 seconds."),
        "refreshTokenNotFound": (400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"),
        "refreshTokenReused": (400, "refresh_token_already_used", "Invalid Refresh Token: Already Used"),
        "sessionNotFound": (400, "session_not_found", "Invalid Refresh Token: No Valid Session Found"),
        "sessionExpired": (400, "session_expired", "Invalid Refresh Token: Session Expired"),
        "codeInvalid": (403, "otp_expired", "Token has expired or is invalid"),
        "flowStateNotFound": (404, "flow_state_not_found", "invalid flow state, no valid flow state found"),
        "flowStateExpired": (422, "flow_state_expired", "invalid flow state, flow state has expired"),
        "badCodeVerifier": (400, "bad_code_verifier", "code challenge does not match previously saved code verifier"),
        "factorNotFound": (404, "mfa_factor_not_found", "Factor not found"),
        "factorNameTaken": (422, "mfa_factor_name_conflict", "A factor with the friendly name already exists"),
        "tooManyFactors": (422, "too_many_enrolled_mfa_factors", "Maximum number of verified factors reached, unenroll to continue"),
        "verifiedFactorExists": (422, "mfa_verified_factor_exists", "A verified phone factor already exists, unenroll the existing factor to continue"),
        "mfaChallengeExpired": (422, "mfa_challenge_expired",
                                "MFA challenge has expired, verify against another challenge or create a new challenge."),
        "mfaIPMismatch": (422, "mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch."),
        "mfaVerificationFailed": (422, "mfa_verification_failed", "Invalid TOTP code entered"),
        "codeReused": (422, "mfa_verification_failed", "Invalid TOTP code entered"),
        "insufficientAAL.credential_change": (401, "insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled."),
        "insufficientAAL.factor_enrollment": (403, "insufficient_aal", "AAL2 required to enroll a new factor"),
        "insufficientAAL.verified_factor_removal": (422, "insufficient_aal", "AAL2 required to unenroll verified factor"),
        "identityNotFound": (422, "identity_not_found", "Identity doesn't exist"),
        "lastIdentity": (422, "single_identity_not_deletable", "User must have at least 1 identity after unlinking"),
        "identityTaken": (422, "identity_already_exists", "Identity is already linked to another user"),
        "codeExpired": (403, "otp_expired", "Token has expired or is invalid"),
        "wrongCode": (403, "otp_expired", "Token has expired or is invalid"),
        "tooManyAttempts": (403, "otp_expired", "Token has expired or is invalid"),
        "webAuthn.challenge_not_found": (400, "webauthn_challenge_not_found", "Challenge not found or already used"),
        "webAuthn.challenge_expired": (400, "webauthn_challenge_expired", "Challenge has expired"),
        "webAuthn.malformed": (400, "webauthn_verification_failed", "Invalid credential response"),
        "webAuthn.origin_not_allowed": (400, "webauthn_verification_failed", "Credential verification failed"),
        "webAuthn.rp_id_mismatch": (400, "webauthn_verification_failed", "Credential verification failed"),
        "webAuthn.bad_signature": (400, "webauthn_verification_failed", "Credential verification failed"),
        "webAuthn.unsupported_attestation": (400, "webauthn_verification_failed", "Credential verification failed"),
        "webAuthn.credential_not_found": (400, "webauthn_verification_failed", "Credential verification failed"),
        "webAuthn.credential_exists": (422, "webauthn_credential_exists", "This credential is already registered"),
        "webAuthn.too_many_credentials": (422, "too_many_passkeys", "Maximum number of passkeys reached"),
    ]

    @Test(arguments: AuthError.samples)
    func everyCoreErrorHasGoTruesAnswer(_ error: AuthError) throws {
        let row = try #require(Self.expected[error.caseName], "no GoTrue answer pinned for \(error.caseName)")
        let rendered = SupabaseError(error)
        #expect(Int(rendered.status.code) == row.status)
        #expect(rendered.code.rawValue == row.code)
        #expect(rendered.message == row.message)
    }

    @Test func theTableNamesOnlyCasesThatExist() {
        #expect(Set(Self.expected.keys) == Set(AuthError.samples.map(\.caseName)))
    }

    @Test func limitsSayWhenToTryAgain() {
        #expect(SupabaseError(.sendCooldown(.sms, retryAfter: 0.2)).retryAfter == 1)
        #expect(SupabaseError(.sendCooldown(.sms, retryAfter: 0.2)).code == .overSMSSendRateLimit)
        // GoTrue's message counts whole seconds left, the header rounds up.
        #expect(SupabaseError(.sendCooldown(.email, retryAfter: 59.7)).message == "For security purposes, you can only request this after 59 seconds.")
        #expect(SupabaseError(.sendCooldown(.email, retryAfter: 59.7)).retryAfter == 60)
        #expect(SupabaseError(.rateLimited(retryAfter: 59.1)).retryAfter == 60)
    }
}
