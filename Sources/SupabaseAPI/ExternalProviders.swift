import Foundation

/// GoTrue's built-in OAuth providers (`internal/api/external.go` `Provider`), each configured by
/// `GOTRUE_EXTERNAL_<NAME>_{ENABLED,CLIENT_ID,SECRET,REDIRECT_URI,URL,SKIP_NONCE_CHECK}`.
struct ExternalProvider: Sendable {
    var name: String
    var enabled: Bool
    var clientID: String
    var secret: String
    var redirectURI: String
    /// The provider's authorization endpoint.
    var authorizeURL: String
    /// What GoTrue asks for when the client names no scopes.
    var defaultScopes: String
    /// Whether `GOTRUE_EXTERNAL_<NAME>_URL` points the provider somewhere (a self-hosted GitLab or
    /// Keycloak), which Fauxth then leaves to it rather than to a fake provider.
    var hasCustomURL: Bool
    /// `GOTRUE_EXTERNAL_<NAME>_SKIP_NONCE_CHECK` (the dashboard's "Skip nonce checks", for native sign-in libraries
    /// that cannot pass the raw nonce); Facebook's Limited Login always skips it, as token_oidc.go sets it.
    var skipNonceCheck: Bool

    /// Where each provider sends the browser, and the scopes GoTrue asks for by default. Providers a team
    /// self-hosts (GitLab, Keycloak, WorkOS…) take their base from `GOTRUE_EXTERNAL_<NAME>_URL`.
    static let catalogue: [String: (path: String, base: String?, scopes: String)] = [
        "apple": ("https://appleid.apple.com/auth/authorize", nil, "email name"),
        "azure": ("/oauth2/v2.0/authorize", "https://login.microsoftonline.com/common", "openid"),
        "bitbucket": ("https://bitbucket.org/site/oauth2/authorize", nil, "account email"),
        "discord": ("https://discord.com/api/oauth2/authorize", nil, "email identify"),
        "facebook": ("https://www.facebook.com/dialog/oauth", nil, "email"),
        "figma": ("https://www.figma.com/oauth", nil, "files:read"),
        "fly": ("https://api.fly.io/oauth/authorize", nil, "read"),
        "github": ("https://github.com/login/oauth/authorize", nil, "user:email"),
        "gitlab": ("/oauth/authorize", "https://gitlab.com", "read_user"),
        "google": ("https://accounts.google.com/o/oauth2/auth", nil, "email profile"),
        "kakao": ("https://kauth.kakao.com/oauth/authorize", nil, "account_email profile_image profile_nickname"),
        "keycloak": ("/protocol/openid-connect/auth", "", "profile email"),
        "linkedin": ("https://www.linkedin.com/oauth/v2/authorization", nil, "r_emailaddress r_liteprofile"),
        "linkedin_oidc": ("https://www.linkedin.com/oauth/v2/authorization", nil, "openid email profile"),
        "notion": ("https://api.notion.com/v1/oauth/authorize", nil, ""),
        "slack": ("https://slack.com/oauth/authorize", nil, "profile email"),
        "slack_oidc": ("https://slack.com/openid/connect/authorize", nil, "profile email openid"),
        "snapchat": ("https://accounts.snapchat.com/accounts/oauth2/auth", nil, "https://auth.snapchat.com/oauth2/api/user.external_id"),
        "spotify": ("https://accounts.spotify.com/authorize", nil, "user-read-email"),
        "twitch": ("https://id.twitch.tv/oauth2/authorize", nil, "user:read:email"),
        "twitter": ("https://api.twitter.com/oauth/authenticate", nil, ""),
        "workos": ("/sso/authorize", "https://api.workos.com", ""),
        "zoom": ("https://zoom.us/oauth/authorize", nil, ""),
    ]

    /// The variable-name suffixes a provider reads; `isKnown` uses them to tell known variables apart.
    static let variables = ["ENABLED", "CLIENT_ID", "SECRET", "REDIRECT_URI", "URL", "SKIP_NONCE_CHECK"]

    /// The provider `name` as configured in `env`; nil when GoTrue has no such provider. Refuses an `ENABLED` that GoTrue
    /// would not start with.
    init?(name: String, env: [String: String]) throws {
        guard let entry = Self.catalogue[name] else { return nil }
        let prefix = "GOTRUE_EXTERNAL_\(name.uppercased())_"
        self.name = name
        enabled = try SupabaseConfig.bool(env, prefix + "ENABLED", default: false)
        clientID = env[prefix + "CLIENT_ID"] ?? ""
        secret = env[prefix + "SECRET"] ?? ""
        redirectURI = env[prefix + "REDIRECT_URI"] ?? ""
        let base = (env[prefix + "URL"].flatMap { $0.isEmpty ? nil : $0 } ?? entry.base ?? "")
        authorizeURL = entry.base == nil ? entry.path : base.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + entry.path
        defaultScopes = entry.scopes
        hasCustomURL = !(env[prefix + "URL"] ?? "").isEmpty
        skipNonceCheck = try SupabaseConfig.bool(env, prefix + "SKIP_NONCE_CHECK", default: false) || name == "facebook"
    }

    /// GoTrue's `ValidateOAuth`: why the provider cannot be used, or nil.
    var problem: String? {
        if !enabled { return "provider is not enabled" }
        if clientID.isEmpty { return "missing OAuth client ID" }
        if secret.isEmpty { return "missing OAuth secret" }
        return nil
    }

    /// Whether `variable` is one of the provider variables (`GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID`…).
    static func isKnown(_ variable: String) -> Bool {
        guard variable.hasPrefix("GOTRUE_EXTERNAL_") else { return false }
        let rest = variable.dropFirst("GOTRUE_EXTERNAL_".count)
        return catalogue.keys.contains { name in variables.contains { rest == "\(name.uppercased())_\($0)" } }
    }
}
