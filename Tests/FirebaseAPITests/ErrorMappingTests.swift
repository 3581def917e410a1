import AuthCore
import FauxthTesting
@testable import FirebaseAPI
import Hummingbird
import Testing

/// Every core error as the Firebase dialect puts it on the wire: through its one mapping
/// (`FirebaseError(core:)`) and its renderer, the HTTP status and `error.message` Identity Toolkit answers.
@Suite struct ErrorMappingTests {
    /// `AuthError.caseName` → the status and `error.message` of the answer.
    static let expected: [String: (status: Int, message: String)] = [
        "invalidInput": (400, "INVALID_ARGUMENT : email is required"),
        "invalidEmail": (400, "INVALID_EMAIL"),
        "invalidPhone": (400, "INVALID_PHONE_NUMBER : Invalid format."),
        "weakPassword": (400, "WEAK_PASSWORD : Password should be at least 6 characters."),
        "emailTaken": (400, "EMAIL_EXISTS"),
        "phoneTaken": (400, "PHONE_NUMBER_EXISTS"),
        "signupDisabled": (400, "ADMIN_ONLY_OPERATION"),
        "providerDisabled": (400, "OPERATION_NOT_ALLOWED"),
        "invalidCredentials": (400, "INVALID_LOGIN_CREDENTIALS"),
        "emailNotConfirmed": (400, "OPERATION_NOT_ALLOWED : The address is not verified."),
        "phoneNotConfirmed": (400, "OPERATION_NOT_ALLOWED : The address is not verified."),
        "userDisabled": (400, "USER_DISABLED"),
        "userBanned": (400, "USER_DISABLED"),
        "userNotFound": (400, "USER_NOT_FOUND"),
        "tenantNotFound": (400, "TENANT_NOT_FOUND"),
        "tenantExists": (400, "INVALID_TENANT_ID : A tenant with this id exists."),
        "lockedOut": (400, "TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled due to many failed login "
                      + "attempts. You can immediately restore it by resetting your password or you can try again later."),
        "rateLimited": (400, "TOO_MANY_ATTEMPTS_TRY_LATER"),
        "sendLimited": (400, "TOO_MANY_ATTEMPTS_TRY_LATER"),
        "sendCooldown": (400, "TOO_MANY_ATTEMPTS_TRY_LATER"),
        "refreshTokenNotFound": (400, "INVALID_REFRESH_TOKEN"),
        "refreshTokenReused": (400, "TOKEN_EXPIRED"),
        "sessionNotFound": (400, "TOKEN_EXPIRED"),
        "sessionExpired": (400, "TOKEN_EXPIRED"),
        "codeInvalid": (400, "INVALID_OOB_CODE"),
        "flowStateNotFound": (400, "INVALID_ARGUMENT"),
        "flowStateExpired": (400, "INVALID_ARGUMENT"),
        "badCodeVerifier": (400, "INVALID_ARGUMENT"),
        "factorNotFound": (400, "MFA_ENROLLMENT_NOT_FOUND"),
        "factorNameTaken": (400, "INVALID_ARGUMENT : A second factor with this display name exists."),
        // The backend's code: the JS SDK's `ServerError` and the Android SDK both read SECOND_FACTOR_LIMIT_EXCEEDED
        // (MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED is the SDKs' own name for the error they raise from it).
        "tooManyFactors": (400, "SECOND_FACTOR_LIMIT_EXCEEDED"),
        "verifiedFactorExists": (400, "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account."),
        "mfaChallengeExpired": (400, "SESSION_EXPIRED"),
        "mfaIPMismatch": (400, "INVALID_SESSION_INFO"),
        "mfaVerificationFailed": (400, "INVALID_CODE"),
        // A replayed authenticator code is as wrong as a mistyped one (auth/invalid-verification-code).
        "codeReused": (400, "INVALID_CODE"),
        // No Firebase route asks for aal2; Identity Toolkit's guard on sensitive changes is a recent sign-in.
        "insufficientAAL.credential_change": (400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"),
        "insufficientAAL.factor_enrollment": (400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"),
        "insufficientAAL.verified_factor_removal": (400, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"),
        "identityNotFound": (400, "INVALID_PROVIDER_ID"),
        "lastIdentity": (400, "INVALID_ARGUMENT : The user must keep one sign-in method."),
        "identityTaken": (400, "FEDERATED_USER_ID_ALREADY_LINKED"),
        "codeExpired": (400, "EXPIRED_OOB_CODE"),
        "wrongCode": (400, "INVALID_CODE"),
        "tooManyAttempts": (400, "TOO_MANY_ATTEMPTS_TRY_LATER"),
        // Passkeys' refusals, with the codes the SDKs' passkey work maps.
        "webAuthn.challenge_not_found": (400, "INVALID_AUTHENTICATOR_RESPONSE : challenge not found or already used"),
        "webAuthn.challenge_expired": (400, "PASSKEY_CHALLENGE_TIMEOUT"),
        "webAuthn.malformed": (400, "INVALID_AUTHENTICATOR_RESPONSE : malformed response: clientDataJSON is missing"),
        "webAuthn.origin_not_allowed": (400, "INVALID_AUTHENTICATOR_RESPONSE : verification failed: origin not allowed"),
        "webAuthn.rp_id_mismatch": (400, "INVALID_AUTHENTICATOR_RESPONSE : verification failed: rp id mismatch"),
        "webAuthn.bad_signature": (400, "INVALID_AUTHENTICATOR_RESPONSE : verification failed: bad signature"),
        "webAuthn.unsupported_attestation": (400, "INVALID_AUTHENTICATOR_RESPONSE : attestation format tpm is not supported (only none and packed self-attestation)"),
        "webAuthn.credential_not_found": (400, "USER_NOT_FOUND"),
        "webAuthn.credential_exists": (400, "PASSKEY_EXISTS"),
        "webAuthn.too_many_credentials": (400, "PASSKEY_LIMIT_EXCEEDED"),
    ]

    @Test(arguments: AuthError.samples)
    func everyCoreErrorHasItsIdentityToolkitAnswer(_ error: AuthError) throws {
        let answer = try #require(Self.expected[error.caseName], "no expected Firebase answer for AuthError.\(error.caseName)")
        let failure = FirebaseError(core: error)
        let body = FirebaseErrorMiddleware<BasicRequestContext>.body(for: failure)
        #expect(Int(failure.status.code) == answer.status)
        #expect(body["error"]?["code"] == .int(answer.status))
        #expect(body["error"]?["message"] == .string(answer.message))
        #expect(body["error"]?["errors"]?[0]?["message"] == .string(answer.message))
        #expect(body["error"]?["errors"]?[0]?["reason"] == "invalid")
    }

    /// The table names exactly the cases sampled, so a stale entry is noticed too.
    @Test func theTableNamesEverySampledCaseAndNoOther() {
        #expect(Set(Self.expected.keys) == Set(AuthError.samples.map(\.caseName)))
    }
}
