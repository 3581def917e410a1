import AuthCore
import Foundation
import HTTPTypes

/// An error as Cognito renders it: HTTP 400, body `{"__type","message"}`, headers
/// `x-amzn-ErrorType: <Type>:` and `x-amzn-ErrorMessage`. The types are Cognito's own; no other file
/// spells one.
struct CognitoError: Error, Equatable {
    enum Kind: String, CaseIterable {
        case notAuthorized = "NotAuthorizedException"
        case userNotFound = "UserNotFoundException"
        case usernameExists = "UsernameExistsException"
        case aliasExists = "AliasExistsException"
        case invalidParameter = "InvalidParameterException"
        case invalidPassword = "InvalidPasswordException"
        case codeMismatch = "CodeMismatchException"
        case expiredCode = "ExpiredCodeException"
        case limitExceeded = "LimitExceededException"
        case tooManyRequests = "TooManyRequestsException"
        case tooManyFailedAttempts = "TooManyFailedAttemptsException"
        case userNotConfirmed = "UserNotConfirmedException"
        case passwordResetRequired = "PasswordResetRequiredException"
        case resourceNotFound = "ResourceNotFoundException"
        case preconditionNotMet = "PreconditionNotMetException"
        case groupExists = "GroupExistsException"
        case duplicateProvider = "DuplicateProviderException"
        case invalidUserPoolConfiguration = "InvalidUserPoolConfigurationException"
        case softwareTokenMFANotFound = "SoftwareTokenMFANotFoundException"
        case enableSoftwareTokenMFA = "EnableSoftwareTokenMFAException"
        case mfaMethodNotFound = "MFAMethodNotFoundException"
        case unauthorized = "UnauthorizedException"
        case unsupportedTokenType = "UnsupportedTokenTypeException"
        case unsupportedOperation = "UnsupportedOperationException"
        case unsupportedUserState = "UnsupportedUserStateException"
        case codeDeliveryFailure = "CodeDeliveryFailureException"
        case internalError = "InternalErrorException"
        case serviceUnavailable = "ServiceUnavailableException"
        case requestTimeout = "RequestTimeoutException"
        case unknownOperation = "UnknownOperationException"
        case serialization = "SerializationException"
        case userLambdaValidation = "UserLambdaValidationException"
        case invalidLambdaResponse = "InvalidLambdaResponseException"
        case unexpectedLambda = "UnexpectedLambdaException"
        // KMS's, for the `Decrypt` custom sender functions call (KMSKeys).
        case invalidCiphertext = "InvalidCiphertextException"
        case incorrectKey = "IncorrectKeyException"
        case webAuthnChallengeNotFound = "WebAuthnChallengeNotFoundException"
        case webAuthnOriginNotAllowed = "WebAuthnOriginNotAllowedException"
        case webAuthnRelyingPartyMismatch = "WebAuthnRelyingPartyMismatchException"
        case webAuthnClientMismatch = "WebAuthnClientMismatchException"
        case webAuthnCredentialNotSupported = "WebAuthnCredentialNotSupportedException"
        case webAuthnNotEnabled = "WebAuthnNotEnabledException"
        case webAuthnConfigurationMissing = "WebAuthnConfigurationMissingException"
        // Identity pools (cognito-identity)
        case invalidIdentityPoolConfiguration = "InvalidIdentityPoolConfigurationException"
        case validation = "ValidationException"
    }

    var kind: Kind
    var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static func invalid(_ message: String) -> CognitoError { CognitoError(.invalidParameter, message) }
    /// No period: clients match the words as AWS writes them.
    static let resetRequired = CognitoError(.passwordResetRequired, "Password reset required for the user")
    static let incorrectCredentials = CognitoError(.notAuthorized, "Incorrect username or password.")
    static let userDoesNotExist = CognitoError(.userNotFound, "User does not exist.")
    /// The same refusal where a call names the user for a client's code (confirming a sign-up, recovering a password),
    /// in the words AWS uses there (aws-sdk-ios #4837, amazon-cognito-identity-js #537).
    static let userNotFoundForClient = CognitoError(.userNotFound, "Username/client id combination not found.")
    static let usernameTaken = CognitoError(.usernameExists, "User already exists")
    /// An email or phone another user has verified as an alias, in Cognito's words for it.
    static func aliasTaken(_ channel: Channel) -> CognitoError {
        CognitoError(.aliasExists, "An account with the \(channel == .email ? "email" : "phone_number") already exists.")
    }
    static let invalidAccessToken = CognitoError(.notAuthorized, "Invalid Access Token")
    static let codeMismatch = CognitoError(.codeMismatch, "Invalid verification code provided, please try again.")
    static let expiredCode = CognitoError(.expiredCode, "Invalid code provided, please request a code again.")
    /// AWS ends this one with a full stop (aws-sdk-cpp#1789 shows the body).
    static let invalidRefreshToken = CognitoError(.notAuthorized, "Invalid Refresh Token.")

    /// The one mapping from core errors to Cognito's exceptions.
    init(core error: AuthError) {
        switch error {
        case .invalidInput(let field, let reason): self.init(.invalidParameter, "\(field) \(reason)")
        case .invalidEmail: self.init(.invalidParameter, "Invalid email address format.")
        case .invalidPhone: self.init(.invalidParameter, "Invalid phone number format.")
        // Cognito words every policy refusal "Password did not conform with policy: …" (CognitoMailer.checkPassword).
        case .weakPassword(let reasons, let message):
            self.init(.invalidPassword, "Password did not conform with policy: " + (reasons.first == "length" ? "Password not long enough" : message))
        // An address another user has verified as an alias (`AdminUpdateUserAttributes`, `VerifyUserAttribute`, the
        // confirmations); a sign-up's clash on what users sign in with is `UsernameExistsException` (SignUp.create).
        case .emailTaken: self = .aliasTaken(.email)
        case .phoneTaken: self = .aliasTaken(.sms)
        case .signupDisabled: self.init(.notAuthorized, "SignUp is not permitted for this user pool")
        case .providerDisabled: self.init(.notAuthorized, "This sign-in method is not enabled for this user pool")
        case .invalidCredentials: self = .incorrectCredentials
        case .emailNotConfirmed, .phoneNotConfirmed: self.init(.userNotConfirmed, "User is not confirmed.")
        case .userDisabled, .userBanned: self.init(.notAuthorized, "User is disabled.")
        case .userNotFound: self = .userDoesNotExist
        case .tenantNotFound(let id): self.init(.resourceNotFound, "User pool \(id) does not exist.")
        case .tenantExists(let id): self.init(.invalidParameter, "User pool \(id) already exists.")
        case .lockedOut(.password, _, _): self.init(.notAuthorized, "Password attempts exceeded")
        case .lockedOut(.code, _, _): self.init(.tooManyFailedAttempts, "Too many failed attempts, please try after some time.")
        case .lockedOut(.mfa, _, _): self.init(.notAuthorized, "Too many invalid MFA codes, please try after some time.")
        // AWS throttles with "Rate exceeded" (amplify-js#3554, boto3#2517).
        case .rateLimited: self.init(.tooManyRequests, "Rate exceeded")
        case .sendLimited(.emailSent, _):
            self.init(.limitExceeded, "Exceeded daily email limit for the operation or the account. "
                      + "If a higher limit is required, please configure your user pool to use your own Amazon SES configuration for sending email.")
        case .sendLimited: self.init(.limitExceeded, "Attempt limit exceeded, please try after some time.")
        case .sendCooldown: self.init(.limitExceeded, "Attempt limit exceeded, please try after some time.")
        case .codeReused: self.init(.expiredCode, "Your software token has already been used once.")
        // Cognito has no assurance levels of its own; nothing of it asks the core for one.
        case .insufficientAAL: self.init(.notAuthorized, "Access Token does not have required scopes")
        case .refreshTokenNotFound: self = .invalidRefreshToken
        case .refreshTokenReused, .sessionNotFound: self.init(.notAuthorized, "Refresh Token has been revoked")
        case .sessionExpired: self.init(.notAuthorized, "Refresh Token has expired")
        case .codeInvalid, .codeExpired: self = .expiredCode
        case .wrongCode, .mfaVerificationFailed: self = .codeMismatch
        case .tooManyAttempts: self.init(.limitExceeded, "Attempt limit exceeded, please try after some time.")
        case .webAuthn(let failure): self.init(webAuthn: failure)
        case .flowStateNotFound, .flowStateExpired, .badCodeVerifier: self.init(.notAuthorized, "Invalid authorization code")
        case .factorNotFound: self.init(.softwareTokenMFANotFound, "Software Token MFA has not been set up.")
        case .factorNameTaken, .tooManyFactors, .verifiedFactorExists: self.init(.invalidParameter, "The software token is already associated.")
        case .mfaChallengeExpired: self.init(.notAuthorized, "Invalid session for the user, session is expired.")
        case .mfaIPMismatch: self.init(.notAuthorized, "Invalid session for the user.")
        case .identityNotFound: self.init(.invalidParameter, "The provider account is not linked.")
        case .lastIdentity: self.init(.invalidParameter, "The user must keep one sign-in method.")
        case .identityTaken: self.init(.invalidParameter, "Merging is not currently supported, provide a SourceUser with ProviderName and ProviderAttributeValue")
        }
    }
}

extension CognitoError {
    /// WebAuthn failures as Cognito's own WebAuthn exceptions where it has one (the API reference lists
    /// them for CompleteWebAuthnRegistration and RespondToAuthChallenge), else its generic ones.
    init(webAuthn failure: WebAuthnFailure) {
        switch failure {
        case .challengeNotFound, .challengeExpired: self.init(.webAuthnChallengeNotFound, "The WebAuthn challenge was not found or has expired.")
        case .rejected(.originNotAllowed), .rejected(.crossOrigin): self.init(.webAuthnOriginNotAllowed, "The origin of the request is not allowed.")
        case .rejected(.rpIdMismatch): self.init(.webAuthnRelyingPartyMismatch, "The relying party ID does not match.")
        case .rejected(.wrongCeremony): self.init(.webAuthnClientMismatch, "The client data does not match the request.")
        case .rejected(.algorithmNotAllowed), .unsupportedAttestation: self.init(.webAuthnCredentialNotSupported, "The credential is not supported.")
        case .rejected: self.init(.notAuthorized, "The WebAuthn credential could not be verified.")
        case .malformed(let detail): self.init(.invalidParameter, "Invalid WebAuthn credential: \(detail)")
        case .credentialExists: self.init(.invalidParameter, "The WebAuthn credential is already registered.")
        case .credentialNotFound: self.init(.resourceNotFound, "The WebAuthn credential was not found.")
        case .tooManyCredentials: self.init(.limitExceeded, "The maximum number of WebAuthn credentials has been reached.")
        }
    }
}

extension CognitoError {
    /// A fault's error as Cognito answers a JSON 1.1 call: each meaning as Cognito and AWS's front end answer
    /// that failure, or any exception type by name (500 for the `Internal…` ones, else 400, the name as the
    /// message). The type is a string: a rule may name one Fauxth never raises.
    static func fault(_ kind: FaultErrorKind) -> (status: HTTPResponse.Status, type: String, message: String) {
        switch kind {
        case .meaning(let meaning):
            let (status, failure) = fault(meaning)
            return (status, failure.kind.rawValue, failure.message)
        case .vendorCode(let type):
            return (type.hasPrefix("Internal") ? .internalServerError : .badRequest, type, type)
        }
    }

    private static func fault(_ meaning: FaultMeaning) -> (HTTPResponse.Status, CognitoError) {
        switch meaning {
        case .rateLimited: (.badRequest, CognitoError(.tooManyRequests, "Rate exceeded"))
        case .quotaExceeded: (.badRequest, CognitoError(.limitExceeded, "Attempt limit exceeded, please try after some time."))
        case .serverError: (.internalServerError, CognitoError(.internalError, "Internal server error."))
        case .unavailable: (.serviceUnavailable, CognitoError(.serviceUnavailable, "Service is unavailable."))
        case .timeoutError: (.gatewayTimeout, CognitoError(.requestTimeout, "Request timed out."))
        case .networkError: (.badGateway, CognitoError(.internalError, "Bad Gateway"))
        }
    }

    /// A fault's error as the hosted UI answers, in OAuth's terms: a busy service asks the client to
    /// `slow_down` (429), an unavailable one is `temporarily_unavailable`, any other 5xx a `server_error`,
    /// and an exception named by a rule is its own error code.
    static func oauthFault(_ kind: FaultErrorKind) -> (error: String, status: HTTPResponse.Status) {
        let status = fault(kind).status
        switch kind {
        case .meaning(.rateLimited), .meaning(.quotaExceeded): return ("slow_down", .tooManyRequests)
        case .meaning(.unavailable): return ("temporarily_unavailable", status)
        case .meaning(.serverError), .meaning(.timeoutError), .meaning(.networkError): return ("server_error", status)
        case .vendorCode(let type): return (status.code >= 500 ? "server_error" : type, status)
        }
    }
}
