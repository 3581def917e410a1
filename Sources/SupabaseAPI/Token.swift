import AuthCore
import Foundation
import Hummingbird

/// `POST /token?grant_type=…` (`internal/api/token.go`). This slice serves the password grant.
struct Token {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ request: Request, origin: RequestOrigin, tenant: String) async throws -> JSON {
        let grant = request.uri.queryParameters.get("grant_type") ?? ""
        switch grant {
        case "password":
            return try await password(request, origin: origin, tenant: tenant)
        default:
            throw SupabaseError(status: .badRequest, code: .invalidCredentials, message: "unsupported_grant_type")
        }
    }

    /// Email or phone plus password. An unconfirmed email is refused with `email_not_confirmed`.
    private func password(_ request: Request, origin: RequestOrigin, tenant: String) async throws -> JSON {
        let body = try await JSONBody.read(request)
        let project = try projects.project(tenant)
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
