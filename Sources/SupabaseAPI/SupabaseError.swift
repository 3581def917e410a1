import AuthCore
import Foundation
import HTTPTypes

/// An error as GoTrue renders it: an HTTP status, an `error_code` and a message.
///
/// The codes are GoTrue's own (`internal/api/apierrors/errorcode.go`); no other file spells one.
struct SupabaseError: Error, Equatable {
    enum Code: String, CaseIterable {
        case validationFailed = "validation_failed"
        case badJSON = "bad_json"
        case emailAddressInvalid = "email_address_invalid"
        case weakPassword = "weak_password"
        case userAlreadyExists = "user_already_exists"
        case emailExists = "email_exists"
        case phoneExists = "phone_exists"
        case signupDisabled = "signup_disabled"
        case otpDisabled = "otp_disabled"
        case emailProviderDisabled = "email_provider_disabled"
        case phoneProviderDisabled = "phone_provider_disabled"
        case anonymousProviderDisabled = "anonymous_provider_disabled"
        case providerDisabled = "provider_disabled"
        case providerEmailNeedsVerification = "provider_email_needs_verification"
        case userSSOManaged = "user_sso_managed"
        case invalidCredentials = "invalid_credentials"
        case emailNotConfirmed = "email_not_confirmed"
        case phoneNotConfirmed = "phone_not_confirmed"
        case userBanned = "user_banned"
        case userNotFound = "user_not_found"
        case overEmailSendRateLimit = "over_email_send_rate_limit"
        case overRequestRateLimit = "over_request_rate_limit"
        case overSMSSendRateLimit = "over_sms_send_rate_limit"
        case requestEntityTooLarge = "request_entity_too_large"
        case refreshTokenNotFound = "refresh_token_not_found"
        case refreshTokenAlreadyUsed = "refresh_token_already_used"
        case sessionNotFound = "session_not_found"
        case sessionExpired = "session_expired"
        case otpExpired = "otp_expired"
        case noAuthorization = "no_authorization"
        case badJWT = "bad_jwt"
        case notAdmin = "not_admin"
        case samePassword = "same_password"
        case currentPasswordRequired = "current_password_required"
        case currentPasswordMismatch = "current_password_mismatch"
        case flowStateNotFound = "flow_state_not_found"
        case flowStateExpired = "flow_state_expired"
        case badCodeVerifier = "bad_code_verifier"
        case mfaFactorNotFound = "mfa_factor_not_found"
        case mfaFactorNameConflict = "mfa_factor_name_conflict"
        case tooManyEnrolledMFAFactors = "too_many_enrolled_mfa_factors"
        case mfaChallengeExpired = "mfa_challenge_expired"
        case mfaIPAddressMismatch = "mfa_ip_address_mismatch"
        case mfaVerificationFailed = "mfa_verification_failed"
        case mfaTOTPEnrollNotEnabled = "mfa_totp_enroll_not_enabled"
        case mfaTOTPVerifyNotEnabled = "mfa_totp_verify_not_enabled"
        case mfaPhoneEnrollNotEnabled = "mfa_phone_enroll_not_enabled"
        case mfaPhoneVerifyNotEnabled = "mfa_phone_verify_not_enabled"
        case mfaVerifiedFactorExists = "mfa_verified_factor_exists"
        case insufficientAAL = "insufficient_aal"
        case samlProviderDisabled = "saml_provider_disabled"
        case ssoProviderNotFound = "sso_provider_not_found"
        case ssoProviderDisabled = "sso_provider_disabled"
        case ssoDomainAlreadyExists = "sso_domain_already_exists"
        case samlIdPAlreadyExists = "saml_idp_already_exists"
        case samlIdPNotFound = "saml_idp_not_found"
        case samlEntityIDMismatch = "saml_entity_id_mismatch"
        case samlMetadataFetchFailed = "saml_metadata_fetch_failed"
        case samlRelayStateNotFound = "saml_relay_state_not_found"
        case samlRelayStateExpired = "saml_relay_state_expired"
        case samlAssertionNoUserID = "saml_assertion_no_user_id"
        case samlAssertionNoEmail = "saml_assertion_no_email"
        case conflict = "conflict"
        case passkeyDisabled = "passkey_disabled"
        case featureDisabled = "feature_disabled"
        case manualLinkingDisabled = "manual_linking_disabled"
        case web3ProviderDisabled = "web3_provider_disabled"
        case identityNotFound = "identity_not_found"
        case identityAlreadyExists = "identity_already_exists"
        case singleIdentityNotDeletable = "single_identity_not_deletable"
        case emailConflictIdentityNotDeletable = "email_conflict_identity_not_deletable"
        case badOAuthState = "bad_oauth_state"
        case badOAuthCallback = "bad_oauth_callback"
        case reauthenticationNeeded = "reauthentication_needed"
        case reauthenticationNotValid = "reauthentication_not_valid"
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case unexpectedFailure = "unexpected_failure"
        case requestTimeout = "request_timeout"
        /// A hook's error object with an `http_code` other than 500 (GoTrue's `ErrorCodeUnknown`).
        case unknown = "unknown"
        case hookTimeout = "hook_timeout"
        case hookTimeoutAfterRetry = "hook_timeout_after_retry"
        case hookPayloadInvalidContentType = "hook_payload_invalid_content_type"
        case hookPayloadOverSizeLimit = "hook_payload_over_size_limit"
        case mfaVerificationRejected = "mfa_verification_rejected"
        case mfaWebAuthnEnrollNotEnabled = "mfa_webauthn_enroll_not_enabled"
        case mfaWebAuthnVerifyNotEnabled = "mfa_webauthn_verify_not_enabled"
        case tooManyPasskeys = "too_many_passkeys"
        case webAuthnCredentialNotFound = "webauthn_credential_not_found"
        case webAuthnChallengeNotFound = "webauthn_challenge_not_found"
        case webAuthnChallengeExpired = "webauthn_challenge_expired"
        case webAuthnVerificationFailed = "webauthn_verification_failed"
        case webAuthnCredentialExists = "webauthn_credential_exists"
        case oauthClientNotFound = "oauth_client_not_found"
        case oauthAuthorizationNotFound = "oauth_authorization_not_found"
        case oauthConsentNotFound = "oauth_consent_not_found"
        case oauthDynamicClientRegistrationDisabled = "oauth_dynamic_client_registration_disabled"
    }

    var status: HTTPResponse.Status
    var code: Code
    var message: String
    /// `weak_password.reasons`, sent alongside a weak-password error.
    var weakPasswordReasons: [String]? = nil
    /// Seconds to send as `Retry-After`.
    var retryAfter: Int? = nil
    /// Set for the OAuth-style errors GoTrue uses on some grants: `{"error","error_description"}`,
    /// whatever the API version.
    var oauthError: String? = nil
    /// False for an error GoTrue makes without a code (a hook's refusal): its body says `unknown` or `unexpected_failure`,
    /// but no `x-sb-error-code` header goes out (`handleResponseErrorHTTP`).
    var codeInHeader = true

    static func validation(_ message: String) -> SupabaseError { .init(status: .badRequest, code: .validationFailed, message: message) }
    static func badJSON(_ detail: String) -> SupabaseError {
        .init(status: .badRequest, code: .badJSON, message: "Could not parse request body as JSON: \(detail)")
    }
    static let bodyTooLarge = SupabaseError(status: .contentTooLarge, code: .requestEntityTooLarge, message: "Request body too large")
}

extension SupabaseError {
    /// The one mapping from core errors to GoTrue's statuses, codes and messages.
    init(_ error: AuthError) {
        switch error {
        case .invalidInput(let field, let reason):
            self = .validation("\(field) \(reason)")
        case .invalidEmail:
            // GoTrue's `validateEmail`; `email_address_invalid` is its mailer refusing an address, which Fauxth never does.
            self = .validation("Unable to validate email address: invalid format")
        case .invalidPhone:
            self = .validation("Invalid phone number format (E.164 required)")
        case .weakPassword(let reasons, let message):
            self.init(status: .unprocessableContent, code: .weakPassword, message: message, weakPasswordReasons: reasons)
        case .emailTaken:
            self.init(status: .unprocessableContent, code: .emailExists, message: "A user with this email address has already been registered")
        case .phoneTaken:
            self.init(status: .unprocessableContent, code: .phoneExists, message: "Phone number already registered by another user")
        case .signupDisabled:
            self.init(status: .unprocessableContent, code: .signupDisabled, message: "Signups not allowed for this instance")
        case .providerDisabled(let provider):
            // The sign-up's answer (`signup.go`), where the core raises it.
            self.init(status: .badRequest, code: provider == "phone" ? .phoneProviderDisabled : .emailProviderDisabled,
                      message: provider == "phone" ? "Phone signups are disabled" : "Email signups are disabled")
        case .invalidCredentials:
            self.init(status: .badRequest, code: .invalidCredentials, message: "Invalid login credentials")
        case .emailNotConfirmed:
            self.init(status: .badRequest, code: .emailNotConfirmed, message: "Email not confirmed")
        case .phoneNotConfirmed:
            self.init(status: .badRequest, code: .phoneNotConfirmed, message: "Phone not confirmed")
        case .userDisabled, .userBanned:
            // GoTrue has no separate "disabled": a banned user is its only form of it.
            self.init(status: .badRequest, code: .userBanned, message: "User is banned")
        case .userNotFound:
            self.init(status: .notFound, code: .userNotFound, message: "User not found")
        case .tenantNotFound(let id):
            self.init(status: .notFound, code: .notFound, message: "No Supabase project \(id)")
        case .tenantExists(let id):
            self.init(status: .unprocessableContent, code: .validationFailed, message: "Project \(id) already exists")
        case .lockedOut(let kind, _, let retryAfter):
            // GoTrue has no lockout of its own; a project that turns one on answers like its rate limiters.
            let seconds = max(1, Int(retryAfter.rounded(.up)))
            let what = switch kind {
            case .password: "sign-in attempts"
            case .code: "verification attempts"
            case .mfa: "MFA verification attempts"
            }
            self.init(status: .tooManyRequests, code: .overRequestRateLimit,
                      message: "Too many failed \(what). For security purposes, you can only try again after \(seconds) seconds.",
                      retryAfter: seconds)
        case .sendLimited(let limit, let retryAfter):
            let seconds = max(1, Int(retryAfter.rounded(.up)))
            switch limit {
            case .emailSent: self.init(status: .tooManyRequests, code: .overEmailSendRateLimit, message: "email rate limit exceeded", retryAfter: seconds)
            case .smsSent: self.init(status: .tooManyRequests, code: .overSMSSendRateLimit, message: "SMS rate limit exceeded", retryAfter: seconds)
            case .codeDeliveries, .resendCooldown, .tokenPerIP, .verifyPerIP, .otpPerIP, .anonymousPerIP, .passkeyPerIP, .ssoPerIP,
                 .samlAssertionPerIP, .clientRegistrationPerIP:
                self.init(status: .tooManyRequests, code: .overRequestRateLimit,
                          message: "For security purposes, you can only request this after \(seconds) seconds.", retryAfter: seconds)
            }
        case .sendCooldown(let channel, let retryAfter):
            // GoTrue's per-user `*_MAX_FREQUENCY` check (`validateSentWithinFrequencyLimit`), whose message counts the
            // whole seconds left (`generateFrequencyLimitErrorMessage` divides the duration: 0.6 s left is "0 seconds").
            let seconds = max(1, Int(retryAfter.rounded(.up)))
            self.init(status: .tooManyRequests, code: channel == .email ? .overEmailSendRateLimit : .overSMSSendRateLimit,
                      message: "For security purposes, you can only request this after \(Int(retryAfter)) seconds.", retryAfter: seconds)
        case .refreshTokenNotFound:
            self.init(status: .badRequest, code: .refreshTokenNotFound, message: "Invalid Refresh Token: Refresh Token Not Found")
        case .refreshTokenReused:
            self.init(status: .badRequest, code: .refreshTokenAlreadyUsed, message: "Invalid Refresh Token: Already Used")
        case .sessionNotFound:
            // The refresh grant's wording; a JWT naming a gone session is refused in Authentication.swift.
            self.init(status: .badRequest, code: .sessionNotFound, message: "Invalid Refresh Token: No Valid Session Found")
        case .sessionExpired(let reason):
            let suffix = switch reason {
            case nil: ""
            case .inactivity?: " (Inactivity)"
            case .lowAssurance?: " (Low AAL: User Needs MFA Verification)"
            case .newerLogin?: " (Revoked by Newer Login)"
            }
            self.init(status: .badRequest, code: .sessionExpired, message: "Invalid Refresh Token: Session Expired" + suffix)
        case .codeInvalid, .codeExpired, .wrongCode, .tooManyAttempts:
            self.init(status: .forbidden, code: .otpExpired, message: "Token has expired or is invalid")
        case .flowStateNotFound:
            self.init(status: .notFound, code: .flowStateNotFound, message: "invalid flow state, no valid flow state found")
        case .flowStateExpired:
            self.init(status: .unprocessableContent, code: .flowStateExpired, message: "invalid flow state, flow state has expired")
        case .badCodeVerifier:
            self.init(status: .badRequest, code: .badCodeVerifier, message: "code challenge does not match previously saved code verifier")
        case .factorNotFound:
            self.init(status: .notFound, code: .mfaFactorNotFound, message: "Factor not found")
        case .factorNameTaken:
            self.init(status: .unprocessableContent, code: .mfaFactorNameConflict, message: "A factor with the friendly name already exists")
        case .tooManyFactors:
            self.init(status: .unprocessableContent, code: .tooManyEnrolledMFAFactors, message: "Maximum number of verified factors reached, unenroll to continue")
        case .verifiedFactorExists:
            self.init(status: .unprocessableContent, code: .mfaVerifiedFactorExists,
                      message: "A verified phone factor already exists, unenroll the existing factor to continue")
        case .mfaChallengeExpired:
            self.init(status: .unprocessableContent, code: .mfaChallengeExpired, message: "MFA challenge has expired, verify against another challenge or create a new challenge.")
        case .mfaIPMismatch:
            self.init(status: .unprocessableContent, code: .mfaIPAddressMismatch, message: "Challenge and verify IP addresses mismatch.")
        case .mfaVerificationFailed, .codeReused:
            // GoTrue has no answer of its own for a replayed code: it is an invalid one.
            self.init(status: .unprocessableContent, code: .mfaVerificationFailed, message: "Invalid TOTP code entered")
        case .insufficientAAL(.credentialChange):
            self.init(status: .unauthorized, code: .insufficientAAL, message: "AAL2 session is required to update email or password when MFA is enabled.")
        case .insufficientAAL(.factorEnrollment):
            self.init(status: .forbidden, code: .insufficientAAL, message: "AAL2 required to enroll a new factor")
        case .insufficientAAL(.verifiedFactorRemoval):
            self.init(status: .unprocessableContent, code: .insufficientAAL, message: "AAL2 required to unenroll verified factor")
        case .identityNotFound:
            self.init(status: .unprocessableContent, code: .identityNotFound, message: "Identity doesn't exist")
        case .lastIdentity:
            self.init(status: .unprocessableContent, code: .singleIdentityNotDeletable, message: "User must have at least 1 identity after unlinking")
        case .identityTaken:
            self.init(status: .unprocessableContent, code: .identityAlreadyExists, message: "Identity is already linked to another user")
        case .rateLimited(let retryAfter):
            self.init(status: .tooManyRequests, code: .overRequestRateLimit, message: "Request rate limit reached",
                      retryAfter: max(1, Int(retryAfter.rounded(.up))))
        case .webAuthn(let failure):
            self.init(webAuthn: failure)
        }
    }
}

extension SupabaseError {
    /// The passkey endpoints' answers (`passkey_registration.go`, `passkey_authentication.go`): every
    /// verification failure is one 400 `webauthn_verification_failed`, a response that cannot be parsed
    /// says so in its message.
    init(webAuthn failure: WebAuthnFailure) {
        switch failure {
        case .challengeNotFound:
            self.init(status: .badRequest, code: .webAuthnChallengeNotFound, message: "Challenge not found or already used")
        case .challengeExpired:
            self.init(status: .badRequest, code: .webAuthnChallengeExpired, message: "Challenge has expired")
        case .malformed:
            self.init(status: .badRequest, code: .webAuthnVerificationFailed, message: "Invalid credential response")
        case .rejected, .unsupportedAttestation, .credentialNotFound:
            self.init(status: .badRequest, code: .webAuthnVerificationFailed, message: "Credential verification failed")
        case .credentialExists:
            self.init(status: .unprocessableContent, code: .webAuthnCredentialExists, message: "This credential is already registered")
        case .tooManyCredentials:
            self.init(status: .unprocessableContent, code: .tooManyPasskeys, message: "Maximum number of passkeys reached")
        }
    }
}

extension SupabaseError {
    /// A fault's error as GoTrue (or the gateway in front of it) answers: each meaning as that failure's own
    /// answer, or any GoTrue code by name (429 for the `over_*` limits, else 400, the code's words as the
    /// message). The code is a string: a rule may name one Fauxth never raises.
    static func fault(_ kind: FaultErrorKind) -> (status: HTTPResponse.Status, code: String, message: String) {
        switch kind {
        case .meaning(let meaning):
            let failure = fault(meaning)
            return (failure.status, failure.code.rawValue, failure.message)
        case .vendorCode(let code):
            return (code.hasPrefix("over_") ? .tooManyRequests : .badRequest, code, code.replacingOccurrences(of: "_", with: " "))
        }
    }

    private static func fault(_ meaning: FaultMeaning) -> SupabaseError {
        switch meaning {
        case .rateLimited, .quotaExceeded: SupabaseError(status: .tooManyRequests, code: .overRequestRateLimit, message: "Request rate limit reached")
        case .serverError: SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: "Internal Server Error")
        case .unavailable: SupabaseError(status: .serviceUnavailable, code: .unexpectedFailure, message: "Service Unavailable")
        case .timeoutError:
            SupabaseError(status: .gatewayTimeout, code: .requestTimeout, message: "Processing this request timed out, please retry after a moment.")
        case .networkError: SupabaseError(status: .badGateway, code: .unexpectedFailure, message: "Bad Gateway")
        }
    }
}
