import AuthCore
import Foundation
import HTTPTypes
import HTTPSupport
import Hummingbird

/// `GET /settings` and `GET /.well-known/jwks.json` (`settings.go`, `jwks.go`).
struct Settings {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// The providers GoTrue lists in `external`; the ones Fauxth reads a setting for report it.
    static let providers = ["anonymous_users", "apple", "azure", "bitbucket", "discord", "facebook", "snapchat", "figma", "fly",
                            "github", "gitlab", "google", "keycloak", "kakao", "linkedin", "linkedin_oidc", "notion", "spotify",
                            "slack", "slack_oidc", "workos", "twitch", "twitter", "email", "phone", "zoom"]

    func settings(_ call: Call) throws -> JSON {
        let project = try call.project()
        let config = project.config
        var external: [String: JSON] = [:]
        for provider in Self.providers {
            external[provider] = .bool(config.externalProviders[provider]?.enabled ?? false)
        }
        external["email"] = .bool(config.emailEnabled)
        external["phone"] = .bool(config.phoneEnabled)
        external["anonymous_users"] = .bool(config.anonymousEnabled)
        return ["external": .object(external), "disable_signup": .bool(config.disableSignup),
                "mailer_autoconfirm": .bool(config.mailerAutoconfirm), "phone_autoconfirm": .bool(config.phoneAutoconfirm),
                "sms_provider": .string(config.smsProvider), "saml_enabled": .bool(config.saml.enabled), "saml_private_key_next_configured": false,
                "passkeys_enabled": .bool(config.passkeyEnabled)]
    }

    /// Public keys only: an HS256-only project answers `{"keys":[]}`, as GoTrue does.
    func jwks(_ call: Call) throws -> Response {
        let keys = try call.project().config.verificationKeys
        var seen = Set<String>()
        // GoTrue marks every public key it publishes for verifying only (`conf/jwk.go`), and some verifiers check it.
        let published = JWKS(publishing: keys).keys.filter { seen.insert($0.kid ?? $0.n ?? $0.x ?? "").inserted }.map { jwk in
            var jwk = jwk
            jwk.key_ops = ["verify"]
            return jwk
        }
        let body = JSON.array(published.compactMap { jwk in (try? JSONEncoder().encode(jwk)).flatMap { try? JSON.parse($0) } })
        return .json(["keys": body], headers: [.cacheControl: "public, max-age=600"])
    }
}
