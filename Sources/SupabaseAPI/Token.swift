import AuthCore
import Foundation
import Hummingbird

/// `POST /token?grant_type=…` (`internal/api/token.go`): the password and refresh_token grants.
struct Token {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> JSON {
        let grant = call.request.uri.queryParameters.get("grant_type") ?? ""
        switch grant {
        case "password":
            return try await password(call)
        case "refresh_token":
            return try await refresh(call)
        case "pkce":
            return try await pkce(call)
        case "web3":
            throw Disabled.web3()
        default:
            throw SupabaseError(status: .badRequest, code: .invalidCredentials, message: "unsupported_grant_type")
        }
    }

    /// Rotates the refresh token (`tokens/service.go` `RefreshTokenGrant`); reuse rules live in the core.
    private func refresh(_ call: Call) async throws -> JSON {
        let (origin, tenant) = (call.origin, call.tenant)
        let (body, project) = try await call.bodyAndProject()
        let token = try body.string("refresh_token") ?? ""
        guard !token.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .validationFailed, message: "refresh_token required", oauthError: "invalid_request")
        }
        guard token.count >= 12 else { throw SupabaseError.validation("Refresh token is not valid") }
        let (user, issued) = try emulator.refresh(in: tenant, token: token, policy: project.config.refreshPolicy, origin: origin,
                                                  newToken: Emulator.goTrueRefreshToken)
        return try emulator.goTrueSessionResponse(issued, userId: user.id, project: project)
    }

    /// Exchanges the `?code=` an email link redirected with, and the verifier only the client knows.
    private func pkce(_ call: Call) async throws -> JSON {
        let (origin, tenant) = (call.origin, call.tenant)
        let (body, project) = try await call.bodyAndProject()
        let code = try body.string("auth_code") ?? "", verifier = try body.string("code_verifier") ?? ""
        guard !code.isEmpty, !verifier.isEmpty else {
            throw SupabaseError.validation("invalid request: both auth code and code verifier should be non-empty")
        }
        let flow = try emulator.exchangeAuthCode(in: tenant, code: code, verifier: verifier, lifetime: project.config.flowStateExpiry)
        let user = try emulator.requireUser(in: tenant, id: flow.userId)
        return try emulator.goTrueSession(for: user, method: flow.method, project: project, origin: origin)
    }

    /// Email or phone plus password. An unconfirmed email is refused with `email_not_confirmed`.
    private func password(_ call: Call) async throws -> JSON {
        let (origin, tenant) = (call.origin, call.tenant)
        let (body, project) = try await call.bodyAndProject()
        let email = try body.string("email"), phone = try body.string("phone")
        let password = try body.string("password") ?? ""
        let identifier: Identifier
        if let email, !email.isEmpty {
            identifier = .email(email.trimmingCharacters(in: .whitespaces))
        } else if let phone, !phone.isEmpty {
            identifier = .phone(phone)
        } else {
            throw AuthError.invalidCredentials
        }
        let user = try emulator.authenticate(in: tenant, PasswordSignIn(identifier: identifier, password: password, requireVerified: true),
                                             origin: origin)
        return try emulator.goTrueSession(for: user, method: "password", project: project, origin: origin)
    }
}
