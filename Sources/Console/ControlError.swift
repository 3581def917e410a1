import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import IdentityProviders
import Logging

/// The control API's own error shape: `{"error":{"code","message"}}` with a fitting 4xx status.
public struct ControlError: Error, Equatable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status; self.code = code; self.message = message
    }

    static func badRequest(_ message: String) -> ControlError { ControlError(.badRequest, "bad_request", message) }
    static func notFound(_ message: String) -> ControlError { ControlError(.notFound, "not_found", message) }

    /// The one mapping from core errors to control API errors.
    init(_ error: AuthError) {
        switch error {
        case .invalidInput(let field, let reason): self.init(.badRequest, "invalid_input", "\(field) \(reason)")
        case .invalidEmail: self.init(.badRequest, "invalid_email", "not a valid email address")
        case .invalidPhone: self.init(.badRequest, "invalid_phone", "not an E.164 phone number")
        case .weakPassword(_, let message): self.init(.badRequest, "weak_password", message)
        case .emailTaken: self.init(.conflict, "email_taken", "a user with this email already exists")
        case .phoneTaken: self.init(.conflict, "phone_taken", "a user with this phone number already exists")
        case .signupDisabled: self.init(.forbidden, "signup_disabled", "sign-ups are disabled for this tenant")
        case .providerDisabled(let p): self.init(.forbidden, "provider_disabled", "\(p) sign-in is disabled for this tenant")
        case .invalidCredentials: self.init(.unauthorized, "invalid_credentials", "invalid credentials")
        case .emailNotConfirmed: self.init(.forbidden, "email_not_confirmed", "email not confirmed")
        case .phoneNotConfirmed: self.init(.forbidden, "phone_not_confirmed", "phone not confirmed")
        case .userDisabled: self.init(.forbidden, "user_disabled", "user is disabled")
        case .userBanned: self.init(.forbidden, "user_banned", "user is banned")
        case .userNotFound: self.init(.notFound, "user_not_found", "no such user")
        case .tenantNotFound(let id): self.init(.notFound, "tenant_not_found", "no tenant \(id)")
        case .tenantExists(let id): self.init(.conflict, "tenant_exists", "tenant \(id) already exists")
        case .lockedOut: self.init(.tooManyRequests, "locked_out", "locked out")
        case .rateLimited: self.init(.tooManyRequests, "rate_limited", "rate limited")
        case .sendLimited(let limit, _): self.init(.tooManyRequests, "send_limited", "the tenant's \(limit.rawValue) limit refused the message")
        case .sendCooldown(let channel, _): self.init(.tooManyRequests, "send_cooldown", "the user had a \(channel.rawValue) of this kind too recently")
        case .refreshTokenNotFound: self.init(.notFound, "refresh_token_not_found", "no such refresh token")
        case .refreshTokenReused: self.init(.conflict, "refresh_token_reused", "refresh token already used")
        case .sessionNotFound: self.init(.notFound, "session_not_found", "no such session")
        case .sessionExpired: self.init(.badRequest, "session_expired", "the session has expired")
        case .codeInvalid: self.init(.badRequest, "code_invalid", "the code is wrong, used or expired")
        case .flowStateNotFound: self.init(.notFound, "flow_state_not_found", "no such PKCE flow")
        case .flowStateExpired: self.init(.badRequest, "flow_state_expired", "the PKCE flow has expired")
        case .badCodeVerifier: self.init(.badRequest, "bad_code_verifier", "the PKCE verifier does not match")
        case .factorNotFound: self.init(.notFound, "factor_not_found", "no such MFA factor or challenge")
        case .factorNameTaken: self.init(.conflict, "factor_name_taken", "a factor with this name exists")
        case .tooManyFactors: self.init(.conflict, "too_many_factors", "the user has the most factors allowed")
        case .verifiedFactorExists: self.init(.conflict, "factor_exists", "the user already has a verified factor for this phone")
        case .mfaChallengeExpired: self.init(.badRequest, "mfa_challenge_expired", "the MFA challenge has expired")
        case .mfaIPMismatch: self.init(.badRequest, "mfa_ip_mismatch", "the challenge came from another IP address")
        case .mfaVerificationFailed: self.init(.badRequest, "mfa_verification_failed", "wrong MFA code")
        case .codeReused: self.init(.badRequest, "code_reused", "the code was already used once")
        case .insufficientAAL(let requirement): self.init(.forbidden, "insufficient_aal", "\(requirement.rawValue) needs a session that proved the second factor")
        case .identityNotFound: self.init(.notFound, "identity_not_found", "no such identity")
        case .lastIdentity: self.init(.conflict, "last_identity", "a user must keep at least one identity")
        case .identityTaken: self.init(.conflict, "identity_taken", "this provider account is linked to another user")
        case .codeExpired: self.init(.badRequest, "code_expired", "the code has expired")
        case .wrongCode: self.init(.badRequest, "wrong_code", "the code is wrong")
        case .tooManyAttempts: self.init(.tooManyRequests, "too_many_attempts", "too many wrong codes")
        case .webAuthn(let failure):
            let status: HTTPResponse.Status = switch failure {
            case .credentialNotFound: .notFound
            case .credentialExists, .tooManyCredentials: .conflict
            case .challengeNotFound, .challengeExpired, .malformed, .rejected, .unsupportedAttestation: .badRequest
            }
            self.init(status, "webauthn_\(failure.code)", failure.reason)
        }
    }

    /// Renders any error escaping a control handler.
    public static func response(for error: any Error, logger: Logger) -> Response {
        let failure: ControlError
        switch error {
        case let e as ControlError: failure = e
        case let e as AuthError: failure = ControlError(e)
        case let e as SnapshotError:
            switch e {
            case .notFound, .unknownName: failure = ControlError(.notFound, "snapshot_not_found", e.description)
            case .unreadable, .newerSchema, .checksumMismatch, .refusedTenant:
                failure = ControlError(.unprocessableContent, "snapshot_invalid", e.description)
            case .writeFailed: failure = ControlError(.unprocessableContent, "snapshot_write_failed", e.description)
            }
        case let e as ProviderError:
            // A fake provider's refusal of a mint or an account (no such account, a bad claim).
            switch e {
            case .notFound: failure = .notFound(e.description)
            case .invalidRequest, .invalidGrant, .invalidToken: failure = .badRequest(e.description)
            }
        case let e as HTTPError where e.status == .notFound: failure = .notFound("no such route")
        case let e as HTTPError where e.status == .methodNotAllowed: failure = ControlError(.methodNotAllowed, "method_not_allowed", "method not allowed")
        default:
            logger.error("unexpected error in control API: \(error)")
            failure = ControlError(.internalServerError, "internal", "unexpected error: \(error)")
        }
        return ControlJSON.response(["error": ["code": .string(failure.code), "message": .string(failure.message)]], status: failure.status)
    }
}

/// Renders control API errors inside the `/_emu/v1` group.
struct ControlErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch { return ControlError.response(for: error, logger: context.logger) }
    }
}
