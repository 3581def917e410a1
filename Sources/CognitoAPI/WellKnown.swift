import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// A pool's public keys and OIDC discovery document, at the paths Cognito serves them
/// (`/{poolId}/.well-known/…`), so verifiers given the emulator's URL find them.
enum WellKnown {
    static func jwks(_ poolId: String, dialect: CognitoDialect) throws -> Response {
        guard let pool = try? dialect.pools.pool(poolId) else { return notFound(poolId) }
        let keys = try ["access", "id"].map { try CognitoTokens.key(pool, $0, emulator: dialect.emulator).verificationKey }
        let published = JWKS(publishing: keys).keys.map { key -> JSON in
            ["alg": .string(key.alg ?? "RS256"), "e": .string(key.e ?? ""), "kid": .string(key.kid ?? ""), "kty": .string(key.kty),
             "n": .string(key.n ?? ""), "use": .string(key.use ?? "sig")]
        }
        return .json(["keys": .array(published)], headers: [.cacheControl: "max-age=3600"])
    }

    static func openIDConfiguration(_ poolId: String, baseURL: String, dialect: CognitoDialect) throws -> Response {
        guard let pool = try? dialect.pools.pool(poolId) else { return notFound(poolId) }
        return .json([
            "issuer": .string(pool.issuer(baseURL: baseURL)),
            "jwks_uri": .string("\(baseURL)/\(pool.id)/.well-known/jwks.json"),
            "authorization_endpoint": .string("\(baseURL)/oauth2/authorize"),
            "token_endpoint": .string("\(baseURL)/oauth2/token"),
            "userinfo_endpoint": .string("\(baseURL)/oauth2/userInfo"),
            "revocation_endpoint": .string("\(baseURL)/oauth2/revoke"),
            "end_session_endpoint": .string("\(baseURL)/logout"),
            "response_types_supported": ["code", "token"],
            "scopes_supported": ["openid", "email", "phone", "profile"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
        ])
    }

    /// What Cognito answers for a pool that does not exist.
    private static func notFound(_ poolId: String) -> Response {
        .json(["message": .string("User pool \(poolId) does not exist.")], status: .notFound)
    }
}
