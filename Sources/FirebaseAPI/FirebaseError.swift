import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes

/// An error as Identity Toolkit renders it: `{"error":{"code","message","errors":[…],"status"?}}`, the
/// message being `CODE` or `CODE : detail`, which the SDKs split on `" : "`.
///
/// The codes are Identity Toolkit's own; no other file spells one.
struct FirebaseError: Error, Equatable {
    enum Code: String, CaseIterable {
        // Request and caller
        case invalidArgument = "INVALID_ARGUMENT"
        case permissionDenied = "PERMISSION_DENIED"
        case unauthenticated = "UNAUTHENTICATED"
        case notFound = "NOT_FOUND"
        case notImplemented = "NOT_IMPLEMENTED"
        case insufficientPermission = "INSUFFICIENT_PERMISSION"
        case tenantIDMismatch = "TENANT_ID_MISMATCH"
        case tenantNotFound = "TENANT_NOT_FOUND"
        case unsupportedTenantOperation = "UNSUPPORTED_TENANT_OPERATION"
        case projectDisabled = "PROJECT_DISABLED"
        case operationNotAllowed = "OPERATION_NOT_ALLOWED"
        case adminOnlyOperation = "ADMIN_ONLY_OPERATION"
        case passwordLoginDisabled = "PASSWORD_LOGIN_DISABLED"
        case tooManyAttempts = "TOO_MANY_ATTEMPTS_TRY_LATER"
        case quotaExceeded = "QUOTA_EXCEEDED"
        case unexpectedParameter = "UNEXPECTED_PARAMETER"
        // Accounts
        case missingEmail = "MISSING_EMAIL"
        case missingPassword = "MISSING_PASSWORD"
        case invalidEmail = "INVALID_EMAIL"
        case emailExists = "EMAIL_EXISTS"
        case emailNotFound = "EMAIL_NOT_FOUND"
        case invalidPassword = "INVALID_PASSWORD"
        case invalidLoginCredentials = "INVALID_LOGIN_CREDENTIALS"
        case weakPassword = "WEAK_PASSWORD"
        case userDisabled = "USER_DISABLED"
        case userNotFound = "USER_NOT_FOUND"
        case missingLocalID = "MISSING_LOCAL_ID"
        case duplicateLocalID = "DUPLICATE_LOCAL_ID"
        case duplicateEmail = "DUPLICATE_EMAIL"
        case duplicateRawID = "DUPLICATE_RAW_ID"
        case missingUserAccount = "MISSING_USER_ACCOUNT"
        case localIDListExceedsLimit = "LOCAL_ID_LIST_EXCEEDS_LIMIT"
        case missingIdentifier = "MISSING_IDENTIFIER"
        case invalidIdentifier = "INVALID_IDENTIFIER"
        case missingContinueURI = "MISSING_CONTINUE_URI"
        case invalidContinueURI = "INVALID_CONTINUE_URI"
        case unauthorizedDomain = "UNAUTHORIZED_DOMAIN"
        case credentialTooOld = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
        case invalidProviderID = "INVALID_PROVIDER_ID"
        case missingProviderID = "MISSING_PROVIDER_ID"
        case missingRawID = "MISSING_RAW_ID"
        case missingOrInvalidNonce = "MISSING_OR_INVALID_NONCE"
        // Tokens
        case missingIDToken = "MISSING_ID_TOKEN"
        case invalidIDToken = "INVALID_ID_TOKEN"
        case tokenExpired = "TOKEN_EXPIRED"
        case missingRefreshToken = "MISSING_REFRESH_TOKEN"
        case invalidRefreshToken = "INVALID_REFRESH_TOKEN"
        case missingGrantType = "MISSING_GRANT_TYPE"
        case invalidGrantType = "INVALID_GRANT_TYPE"
        case invalidDuration = "INVALID_DURATION"
        case missingCustomToken = "MISSING_CUSTOM_TOKEN"
        case invalidCustomToken = "INVALID_CUSTOM_TOKEN"
        case invalidClaims = "INVALID_CLAIMS"
        case claimsTooLarge = "CLAIMS_TOO_LARGE"
        case forbiddenClaim = "FORBIDDEN_CLAIM"
        // Out-of-band codes
        case missingReqType = "MISSING_REQ_TYPE"
        case invalidReqType = "INVALID_REQ_TYPE"
        case missingOOBCode = "MISSING_OOB_CODE"
        case invalidOOBCode = "INVALID_OOB_CODE"
        case expiredOOBCode = "EXPIRED_OOB_CODE"
        case missingNewEmail = "MISSING_NEW_EMAIL"
        // Phone
        case invalidPhoneNumber = "INVALID_PHONE_NUMBER"
        case missingPhoneNumber = "MISSING_PHONE_NUMBER"
        case phoneNumberExists = "PHONE_NUMBER_EXISTS"
        case missingSessionInfo = "MISSING_SESSION_INFO"
        case invalidSessionInfo = "INVALID_SESSION_INFO"
        case sessionExpired = "SESSION_EXPIRED"
        case missingCode = "MISSING_CODE"
        case invalidCode = "INVALID_CODE"
        case invalidTemporaryProof = "INVALID_TEMPORARY_PROOF"
        // Identity providers
        case missingRequestURI = "MISSING_REQUEST_URI"
        case invalidRequestURI = "INVALID_REQUEST_URI"
        case invalidCredentialOrProviderID = "INVALID_CREDENTIAL_OR_PROVIDER_ID"
        case invalidIDPResponse = "INVALID_IDP_RESPONSE"
        case federatedUserIDAlreadyLinked = "FEDERATED_USER_ID_ALREADY_LINKED"
        // Multi-factor
        case unverifiedEmail = "UNVERIFIED_EMAIL"
        case unsupportedFirstFactor = "UNSUPPORTED_FIRST_FACTOR"
        case secondFactorExists = "SECOND_FACTOR_EXISTS"
        // The backend's code; `auth/maximum-second-factor-count-exceeded` (ERROR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED on
        // Android) is the name the SDKs give the error they raise from it.
        case secondFactorLimitExceeded = "SECOND_FACTOR_LIMIT_EXCEEDED"
        case mfaEnrollmentNotFound = "MFA_ENROLLMENT_NOT_FOUND"
        case missingMFAPendingCredential = "MISSING_MFA_PENDING_CREDENTIAL"
        case invalidMFAPendingCredential = "INVALID_MFA_PENDING_CREDENTIAL"
        case missingMFAEnrollmentID = "MISSING_MFA_ENROLLMENT_ID"
        case invalidMFAPhoneNumber = "INVALID_MFA_PHONE_NUMBER"
        // Passkeys: the codes the SDKs map (the JS SDK's `passkey` branch, the iOS SDK's `passkey-sv`), and the emulator's
        // for a request without the authenticator's answer.
        case invalidAuthenticatorResponse = "INVALID_AUTHENTICATOR_RESPONSE"
        case missingAuthenticatorResponse = "MISSING_AUTHENTICATOR_RESPONSE"
        case passkeyEnrollmentNotFound = "PASSKEY_ENROLLMENT_NOT_FOUND"
        case passkeyExists = "PASSKEY_EXISTS"
        case passkeyChallengeTimeout = "PASSKEY_CHALLENGE_TIMEOUT"
        case passkeyLimitExceeded = "PASSKEY_LIMIT_EXCEEDED"
        // Tenants
        case invalidTenantID = "INVALID_TENANT_ID"
        // Provider configurations (`oauthIdpConfigs`, `inboundSamlConfigs`)
        case configurationExists = "CONFIGURATION_EXISTS"
        case configurationNotFound = "CONFIGURATION_NOT_FOUND"
        case invalidConfig = "INVALID_CONFIG"
        case missingIssuer = "MISSING_ISSUER"
        case missingOAuthClientID = "MISSING_OAUTH_CLIENT_ID"
        case missingSAMLRelyingPartyConfig = "MISSING_SAML_RELYING_PARTY_CONFIG"
        /// A page token that names no page: the server's code, which the Admin SDKs call `invalid-page-token`.
        case invalidPageSelection = "INVALID_PAGE_SELECTION"
        // Blocking functions
        case invalidBlockingFunction = "INVALID_BLOCKING_FUNCTION"
        case blockingFunctionErrorResponse = "BLOCKING_FUNCTION_ERROR_RESPONSE"
    }

    var status: HTTPResponse.Status
    var code: Code
    /// Text after `CODE : `, or nil for a bare code.
    var detail: String?
    /// The Google API `status` string; Identity Toolkit leaves it out of most 400s.
    var googleStatus: String?
    /// Seconds to send as `Retry-After`.
    var retryAfter: Int?
    /// A message that is not `CODE : detail` (schema and JSON complaints, Google's generic errors).
    var rawMessage: String?

    init(_ code: Code, _ detail: String? = nil, status: HTTPResponse.Status = .badRequest, googleStatus: String? = nil,
         retryAfter: Int? = nil) {
        self.status = status; self.code = code; self.detail = detail; self.googleStatus = googleStatus; self.retryAfter = retryAfter
    }

    var message: String { rawMessage ?? detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue }

    /// A schema-style complaint about the request body, as the emulator's validator words it.
    static func badBody(_ text: String) -> FirebaseError {
        FirebaseError(.invalidArgument, googleStatus: "INVALID_ARGUMENT").withMessage(text)
    }

    static let missingAPIKey = FirebaseError(.permissionDenied, status: .forbidden, googleStatus: "PERMISSION_DENIED")
        .withMessage("The request is missing a valid API key.")
    static let notOwner = FirebaseError(.insufficientPermission)
    /// Google's front end's answer for a path no API has.
    static let notFound = FirebaseError(.notFound, status: .notFound, googleStatus: "NOT_FOUND").withMessage("Not Found")
    /// Google's 500, with Google's generic words unless `message` says more.
    static func internalError(_ message: String? = nil) -> FirebaseError {
        let failure = FirebaseError(.invalidArgument, status: .internalServerError, googleStatus: "INTERNAL")
        return message.map(failure.withMessage) ?? failure
    }
    /// A blocking function refused or failed: 400 for its refusal and answers it should not have given,
    /// 500 (`INTERNAL`) when it could not be reached, timed out or answered no JSON, as the emulator answers.
    static func blockingFunction(_ status: HTTPResponse.Status, _ detail: String) -> FirebaseError {
        FirebaseError(.blockingFunctionErrorResponse, detail, status: status, googleStatus: status == .badRequest ? nil : "INTERNAL")
    }
    static let passwordLockout = "Access to this account has been temporarily disabled due to many failed login attempts. "
        + "You can immediately restore it by resetting your password or you can try again later."
}

extension FirebaseError {
    /// The one mapping from core errors to Identity Toolkit's codes.
    init(core error: AuthError) {
        switch error {
        case .invalidInput(let field, let reason): self.init(.invalidArgument, "\(field) \(reason)")
        case .invalidEmail: self.init(.invalidEmail)
        case .invalidPhone: self.init(.invalidPhoneNumber, "Invalid format.")
        case .weakPassword(_, let message): self.init(.weakPassword, message)
        case .emailTaken: self.init(.emailExists)
        case .phoneTaken: self.init(.phoneNumberExists)
        case .signupDisabled: self.init(.adminOnlyOperation)
        case .providerDisabled: self.init(.operationNotAllowed)
        case .invalidCredentials: self.init(.invalidLoginCredentials)
        case .emailNotConfirmed, .phoneNotConfirmed: self.init(.operationNotAllowed, "The address is not verified.")
        case .userDisabled, .userBanned: self.init(.userDisabled)
        case .userNotFound: self.init(.userNotFound)
        case .tenantNotFound: self.init(.tenantNotFound)
        case .tenantExists: self.init(.invalidTenantID, "A tenant with this id exists.")
        case .lockedOut(let kind, _, let retryAfter):
            // Production's wording for a password lockout; codes get the bare code, as there.
            self.init(.tooManyAttempts, kind == .password ? Self.passwordLockout : nil, retryAfter: max(1, Int(retryAfter.rounded(.up))))
        case .rateLimited(let retryAfter):
            self.init(.tooManyAttempts, retryAfter: max(1, Int(retryAfter.rounded(.up))))
        case .sendLimited(let limit, let retryAfter):
            // The project's SMS quota is QUOTA_EXCEEDED (auth/quota-exceeded); every other send limit is
            // TOO_MANY_ATTEMPTS_TRY_LATER (auth/too-many-requests).
            self.init(limit == .smsSent ? .quotaExceeded : .tooManyAttempts, retryAfter: max(1, Int(retryAfter.rounded(.up))))
        case .sendCooldown(_, let retryAfter): self.init(.tooManyAttempts, retryAfter: max(1, Int(retryAfter.rounded(.up))))
        case .refreshTokenNotFound: self.init(.invalidRefreshToken)
        case .refreshTokenReused, .sessionNotFound, .sessionExpired: self.init(.tokenExpired)
        case .codeInvalid: self.init(.invalidOOBCode)
        case .codeExpired: self.init(.expiredOOBCode)
        case .wrongCode: self.init(.invalidCode)
        case .tooManyAttempts: self.init(.tooManyAttempts)
        case .webAuthn(let failure):
            switch failure {
            case .challengeExpired: self.init(.passkeyChallengeTimeout)
            case .credentialExists: self.init(.passkeyExists)
            // A passkey no user has: production's answer to one (the iOS SDK's integration test signs in with a made-up one).
            case .credentialNotFound: self.init(.userNotFound)
            case .tooManyCredentials: self.init(.passkeyLimitExceeded)
            case .challengeNotFound, .malformed, .rejected, .unsupportedAttestation: self.init(.invalidAuthenticatorResponse, failure.reason)
            }
        case .flowStateNotFound, .flowStateExpired, .badCodeVerifier: self.init(.invalidArgument)
        case .factorNotFound: self.init(.mfaEnrollmentNotFound)
        case .factorNameTaken: self.init(.invalidArgument, "A second factor with this display name exists.")
        case .tooManyFactors: self.init(.secondFactorLimitExceeded)
        case .verifiedFactorExists: self.init(.secondFactorExists, "Phone number already enrolled as second factor for this account.")
        case .mfaChallengeExpired: self.init(.sessionExpired)
        case .mfaIPMismatch: self.init(.invalidSessionInfo)
        case .mfaVerificationFailed, .codeReused: self.init(.invalidCode)
        // Identity Toolkit's own guard on sensitive changes is a recent sign-in; no Firebase route asks the core for aal2.
        case .insufficientAAL: self.init(.credentialTooOld)
        case .identityNotFound: self.init(.invalidProviderID)
        case .lastIdentity: self.init(.invalidArgument, "The user must keep one sign-in method.")
        case .identityTaken: self.init(.federatedUserIDAlreadyLinked)
        }
    }
}

extension FirebaseError {
    /// A fault's error as Identity Toolkit answers: each meaning as Google's front end and the service
    /// answer that failure (a rule's `message` replacing theirs), or any Identity Toolkit code by name (400,
    /// `CODE : message`). The code is a string: a rule may name one Fauxth never raises.
    init(fault kind: FaultErrorKind, message: String?, retryAfter: Int?) {
        switch kind {
        case .meaning(let meaning):
            self = Self.fault(meaning)
            if let message { self = withMessage(message) }
        case .vendorCode(let code):
            self = FirebaseError(.invalidArgument).withMessage(message.map { "\(code) : \($0)" } ?? code)
        }
        self.retryAfter = retryAfter
    }

    private static func fault(_ meaning: FaultMeaning) -> FirebaseError {
        switch meaning {
        case .rateLimited: FirebaseError(.tooManyAttempts)
        case .quotaExceeded: FirebaseError(.quotaExceeded)
        case .serverError: .internalError("Internal error encountered.")
        case .unavailable: FirebaseError(.invalidArgument, status: .serviceUnavailable, googleStatus: "UNAVAILABLE").withMessage("The service is currently unavailable.")
        case .timeoutError:
            FirebaseError(.invalidArgument, status: .gatewayTimeout, googleStatus: "DEADLINE_EXCEEDED").withMessage("Deadline expired before operation could complete.")
        case .networkError: FirebaseError(.invalidArgument, status: .badGateway, googleStatus: "UNAVAILABLE").withMessage("Bad Gateway")
        }
    }
}
