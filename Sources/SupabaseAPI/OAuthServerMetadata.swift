import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `GET /.well-known/openid-configuration`, and with the OAuth server on `/.well-known/oauth-authorization-server`
/// (RFC 8414): one document for both, as GoTrue's `WellKnownOpenID` serves it (`jwks.go`).
enum OpenIDConfiguration {
    static func handle(_ call: Call) throws -> Response {
        try document(call, project: try call.project())
    }

    static func authorizationServer(_ call: Call) throws -> Response {
        try document(call, project: try OAuthServer.project(call))
    }

    /// The issuer GoTrue names (`GOTRUE_JWT_ISSUER`), else this server's own URL; the endpoints hang off it.
    static func issuer(_ call: Call, project: SupabaseProject) -> String {
        project.config.jwtIssuer.flatMap { $0.isEmpty ? nil : $0 } ?? (project.config.externalURL ?? call.authURL)
    }

    private static func document(_ call: Call, project: SupabaseProject) throws -> Response {
        let issuer = issuer(call, project: project)
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        // The algorithms the project's keys sign with: GoTrue lists RS256, HS256 and ES256 whatever its keys
        // (a TODO there); a client that trusts this list should find the key it names in the JWKS.
        let algorithms = Set(project.config.verificationKeys.map(\.algorithm.rawValue)).sorted()
        var fields: [String: JSON] = [
            "issuer": .string(issuer), "authorization_endpoint": .string(base + "/oauth/authorize"),
            "token_endpoint": .string(base + "/oauth/token"), "jwks_uri": .string(base + "/.well-known/jwks.json"),
            "userinfo_endpoint": .string(base + "/oauth/userinfo"),
            "scopes_supported": .array(OAuthServer.supportedScopes.map(JSON.string)), "response_types_supported": ["code"],
            "response_modes_supported": ["query"], "grant_types_supported": ["authorization_code", "refresh_token"],
            "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": .array(algorithms.map(JSON.string)),
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "claims_supported": ["sub", "aud", "iss", "exp", "iat", "auth_time", "nonce", "email", "email_verified", "phone_number",
                                 "phone_number_verified", "name", "picture", "preferred_username", "updated_at"],
            "code_challenge_methods_supported": ["S256", "plain"],
        ]
        if project.config.oauthServer.enabled && project.config.oauthServer.allowDynamicRegistration {
            fields["registration_endpoint"] = .string(base + "/oauth/clients/register")
        }
        return .json(.object(fields), headers: [.cacheControl: "public, max-age=600"])
    }
}
