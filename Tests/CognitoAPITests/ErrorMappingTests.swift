import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing
@testable import CognitoAPI

/// Every core `AuthError` as the Cognito dialect answers it: through its one mapping
/// (`CognitoError(core:)`) and its JSON 1.1 renderer (`CognitoDialect.failure`), compared with what AWS
/// answers. A core case without an entry here fails, so a new one cannot slip through unrendered.
@Suite struct ErrorMappingTests {
    struct Wire: Equatable, CustomStringConvertible {
        var type: String
        var status: Int
        var message: String
        var description: String { "\(status) \(type): \(message)" }
        init(_ type: String, _ message: String, status: Int = 400) { self.type = type; self.status = status; self.message = message }
    }

    /// What AWS answers, by `AuthError.caseName`. Where the earlier mapping differed from AWS it was corrected:
    /// `rateLimited` (AWS throttles with "Rate exceeded": amplify-js#3554, boto3#2517), `refreshTokenNotFound`
    /// (AWS ends the sentence: "Invalid Refresh Token.", aws-sdk-cpp#1789) and `weakPassword` (every Cognito
    /// `InvalidPasswordException` reads "Password did not conform with policy: …").
    static let expected: [String: Wire] = [
        "invalidInput": Wire("InvalidParameterException", "email is required"),
        "invalidEmail": Wire("InvalidParameterException", "Invalid email address format."),
        "invalidPhone": Wire("InvalidParameterException", "Invalid phone number format."),
        "weakPassword": Wire("InvalidPasswordException", "Password did not conform with policy: Password not long enough"),
        "emailTaken": Wire("AliasExistsException", "An account with the email already exists."),
        "phoneTaken": Wire("AliasExistsException", "An account with the phone_number already exists."),
        "signupDisabled": Wire("NotAuthorizedException", "SignUp is not permitted for this user pool"),
        "providerDisabled": Wire("NotAuthorizedException", "This sign-in method is not enabled for this user pool"),
        "invalidCredentials": Wire("NotAuthorizedException", "Incorrect username or password."),
        "emailNotConfirmed": Wire("UserNotConfirmedException", "User is not confirmed."),
        "phoneNotConfirmed": Wire("UserNotConfirmedException", "User is not confirmed."),
        "userDisabled": Wire("NotAuthorizedException", "User is disabled."),
        "userBanned": Wire("NotAuthorizedException", "User is disabled."),
        "userNotFound": Wire("UserNotFoundException", "User does not exist."),
        "tenantNotFound": Wire("ResourceNotFoundException", "User pool missing does not exist."),
        "tenantExists": Wire("InvalidParameterException", "User pool default already exists."),
        "lockedOut": Wire("NotAuthorizedException", "Password attempts exceeded"),
        "rateLimited": Wire("TooManyRequestsException", "Rate exceeded"),
        "sendLimited": Wire("LimitExceededException", "Exceeded daily email limit for the operation or the account. If a higher limit is required, "
                            + "please configure your user pool to use your own Amazon SES configuration for sending email."),
        "refreshTokenNotFound": Wire("NotAuthorizedException", "Invalid Refresh Token."),
        "refreshTokenReused": Wire("NotAuthorizedException", "Refresh Token has been revoked"),
        "sessionNotFound": Wire("NotAuthorizedException", "Refresh Token has been revoked"),
        "sessionExpired": Wire("NotAuthorizedException", "Refresh Token has expired"),
        "codeInvalid": Wire("ExpiredCodeException", "Invalid code provided, please request a code again."),
        "codeExpired": Wire("ExpiredCodeException", "Invalid code provided, please request a code again."),
        "wrongCode": Wire("CodeMismatchException", "Invalid verification code provided, please try again."),
        "mfaVerificationFailed": Wire("CodeMismatchException", "Invalid verification code provided, please try again."),
        "tooManyAttempts": Wire("LimitExceededException", "Attempt limit exceeded, please try after some time."),
        "webAuthn.challenge_not_found": Wire("WebAuthnChallengeNotFoundException", "The WebAuthn challenge was not found or has expired."),
        "webAuthn.challenge_expired": Wire("WebAuthnChallengeNotFoundException", "The WebAuthn challenge was not found or has expired."),
        "webAuthn.malformed": Wire("InvalidParameterException", "Invalid WebAuthn credential: clientDataJSON is missing"),
        "webAuthn.origin_not_allowed": Wire("WebAuthnOriginNotAllowedException", "The origin of the request is not allowed."),
        "webAuthn.rp_id_mismatch": Wire("WebAuthnRelyingPartyMismatchException", "The relying party ID does not match."),
        "webAuthn.bad_signature": Wire("NotAuthorizedException", "The WebAuthn credential could not be verified."),
        "webAuthn.unsupported_attestation": Wire("WebAuthnCredentialNotSupportedException", "The credential is not supported."),
        "webAuthn.credential_not_found": Wire("ResourceNotFoundException", "The WebAuthn credential was not found."),
        "webAuthn.credential_exists": Wire("InvalidParameterException", "The WebAuthn credential is already registered."),
        "webAuthn.too_many_credentials": Wire("LimitExceededException", "The maximum number of WebAuthn credentials has been reached."),
        "flowStateNotFound": Wire("NotAuthorizedException", "Invalid authorization code"),
        "flowStateExpired": Wire("NotAuthorizedException", "Invalid authorization code"),
        "badCodeVerifier": Wire("NotAuthorizedException", "Invalid authorization code"),
        "factorNotFound": Wire("SoftwareTokenMFANotFoundException", "Software Token MFA has not been set up."),
        "factorNameTaken": Wire("InvalidParameterException", "The software token is already associated."),
        "tooManyFactors": Wire("InvalidParameterException", "The software token is already associated."),
        "verifiedFactorExists": Wire("InvalidParameterException", "The software token is already associated."),
        "mfaChallengeExpired": Wire("NotAuthorizedException", "Invalid session for the user, session is expired."),
        "mfaIPMismatch": Wire("NotAuthorizedException", "Invalid session for the user."),
        "identityNotFound": Wire("InvalidParameterException", "The provider account is not linked."),
        "lastIdentity": Wire("InvalidParameterException", "The user must keep one sign-in method."),
        "identityTaken": Wire("InvalidParameterException",
                              "Merging is not currently supported, provide a SourceUser with ProviderName and ProviderAttributeValue"),
        "sendCooldown": Wire("LimitExceededException", "Attempt limit exceeded, please try after some time."),
        // VerifySoftwareToken and SOFTWARE_TOKEN_MFA answer a code whose time step was used already so.
        "codeReused": Wire("ExpiredCodeException", "Your software token has already been used once."),
        // Cognito has no assurance levels: nothing of it asks the core for aal2.
        "insufficientAAL.credential_change": Wire("NotAuthorizedException", "Access Token does not have required scopes"),
        "insufficientAAL.factor_enrollment": Wire("NotAuthorizedException", "Access Token does not have required scopes"),
        "insufficientAAL.verified_factor_removal": Wire("NotAuthorizedException", "Access Token does not have required scopes"),
    ]

    /// Collects what a response body writes.
    final class Sink: @unchecked Sendable {
        var bytes = ByteBuffer()
    }

    struct Collector: ResponseBodyWriter {
        let sink: Sink
        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            sink.bytes.writeBuffer(&buffer)
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    static func render(_ error: AuthError) async throws -> (Wire, headers: HTTPFields, body: JSON) {
        let response = CognitoDialect.failure(error, requestId: "request-1", logger: Logger(label: "test"))
        let sink = Sink()
        try await response.body.write(Collector(sink: sink))
        let body = try JSON.parse(sink.bytes.readableBytesView)
        let wire = Wire(body["__type"]?.stringValue ?? "", body["message"]?.stringValue ?? "", status: response.status.code)
        return (wire, response.headers, body)
    }

    @Test(arguments: AuthError.samples)
    func eachCoreErrorHasCognitosAnswer(_ error: AuthError) async throws {
        let expected = try #require(Self.expected[error.caseName], "no expected Cognito answer for \(error.caseName)")
        let (wire, headers, body) = try await Self.render(error)
        #expect(wire == expected)
        #expect(body.objectValue?.keys.sorted() == ["__type", "message"])
        #expect(headers[HTTPField.Name("x-amzn-ErrorType")!] == expected.type + ":")
        #expect(headers[.contentType] == "application/x-amz-json-1.1")
    }

    /// Every entry of the table is some sample's: the table holds no stale case.
    @Test func theTableHasNoEntryWithoutASample() {
        #expect(Set(Self.expected.keys) == Set(AuthError.samples.map(\.caseName)))
    }
}
