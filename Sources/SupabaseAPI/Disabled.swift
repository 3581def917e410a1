import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// Features GoTrue ships switched off by default, answered exactly as a GoTrue with them off answers
/// (`internal/api/sso.go`, `samlacs.go`), so clients get the vendor's own error.
enum Disabled {
    static func saml(_ call: Call) throws -> Response {
        throw SupabaseError(status: .notFound, code: .samlProviderDisabled, message: "SAML 2.0 is disabled")
    }
}

/// `GET /.well-known/openid-configuration` (`jwks.go`): where the project's keys are.
enum OpenIDConfiguration {
    static func handle(_ call: Call) throws -> JSON {
        let project = try call.projects.project(call.tenant)
        let base = project.config.externalURL ?? call.request.baseURL + "/auth/v1"
        let issuer = project.config.jwtIssuer.flatMap { $0.isEmpty ? nil : $0 } ?? base
        let algorithms = Set(project.config.verificationKeys.map(\.algorithm.rawValue)).sorted()
        return ["issuer": .string(issuer), "jwks_uri": .string(base + "/.well-known/jwks.json"),
                "authorization_endpoint": .string(base + "/authorize"), "token_endpoint": .string(base + "/token"),
                "userinfo_endpoint": .string(base + "/user"), "response_types_supported": ["code"],
                "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": .array(algorithms.map(JSON.string))]
    }
}
