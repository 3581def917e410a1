import AuthCore
import Crypto
import Foundation

/// One fake identity provider: Google, Apple or a generic OIDC provider, with its issuer and the
/// claims its ID tokens carry, shaped like the real provider's.
public struct FakeProvider: Sendable {
    public let record: IdentityProviderRecord
    public var id: String { record.id }
    public var kind: String { record.kind }
    public var name: String { record.name }

    /// Google and Apple exist without being declared; a seed may add accounts or settings to them.
    static let builtIns: [String: IdentityProviderRecord] = [
        "google": IdentityProviderRecord(id: "google", kind: "google", name: "Google"),
        "apple": IdentityProviderRecord(id: "apple", kind: "apple", name: "Apple"),
    ]

    /// ID tokens last an hour, as Google's and Apple's do.
    static let tokenLifetime = 3600

    /// The `iss` of its tokens: the real provider's for Google and Apple (so verifiers that pin it accept
    /// them, once pointed at Fauxth's keys), this server's path for a generic provider, or the
    /// provider's `issuer` setting.
    public func issuer(baseURL: String) -> String {
        if let issuer = record.settings["issuer"]?.stringValue, !issuer.isEmpty { return issuer }
        switch kind {
        case "google": return "https://accounts.google.com"
        case "apple": return "https://appleid.apple.com"
        default: return "\(baseURL)/_emu/idp/\(id)"
        }
    }

    /// Where the provider's endpoints are on this server.
    public func baseURL(_ serverURL: String) -> String { "\(serverURL)/_emu/idp/\(id)" }

    /// `{id}` of a `baseURL` (`…/_emu/idp/{id}`): the fake provider an issuer configured elsewhere names.
    public static func id(inBaseURL url: String) -> String? {
        guard let path = URL(string: url)?.path else { return nil }
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "_emu", parts[1] == "idp" else { return nil }
        return String(parts[2])
    }

    /// A subject as the provider writes them: Google's 21 digits, Apple's `000123.<32 hex>.0123`, a UUID.
    func newSubject(_ generator: Generator) -> String {
        switch kind {
        case "google": return "1" + generator.digits(20)
        case "apple": return "000\(generator.digits(3)).\(generator.string(32, alphabet: "0123456789abcdef")).\(generator.digits(4))"
        default: return generator.uuid()
        }
    }

    /// Claims a new account gets from what a person typed (email, name, verified or not, Apple's private
    /// relay address).
    func newAccountClaims(email: String, name: String, emailVerified: Bool, privateEmail: Bool, generator: Generator) -> [String: JSON] {
        let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
        var claims: [String: JSON] = ["email_verified": .bool(emailVerified)]
        if kind == "apple", privateEmail {
            claims["email"] = .string("\(generator.string(10, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789"))@privaterelay.appleid.com")
            claims["is_private_email"] = true
        } else {
            claims["email"] = .string(email)
        }
        if !name.isEmpty {
            claims["name"] = .string(name)
            claims["given_name"] = .string(parts.first ?? name)
            if parts.count > 1 { claims["family_name"] = .string(parts[1]) }
        }
        return claims
    }

    /// The claims of an ID token for `account`, as the real provider shapes them. Claims the account or
    /// the provider's `claims` setting carry are added; the protocol's own cannot be overridden.
    func idTokenClaims(_ account: IdentityProviderAccount, audience: String, nonce: String?, accessToken: String?, code: String?,
                       now: Int, baseURL: String) -> [String: JSON] {
        var claims: [String: JSON] = (record.settings["claims"]?.objectValue ?? [:]).merging(account.claims) { $1 }
        let verified = account.claims["email_verified"].map { $0.boolValue ?? ($0.stringValue == "true") } ?? true
        claims.merge(["iss": .string(issuer(baseURL: baseURL)), "aud": .string(audience), "sub": .string(account.sub), "iat": .int(now),
                      "exp": .int(now + Self.tokenLifetime), "auth_time": .int(now)]) { $1 }
        claims["nonce"] = nonce.map(JSON.string)
        if let accessToken { claims["at_hash"] = .string(Self.halfHash(accessToken)) }
        switch kind {
        case "google":
            claims["azp"] = .string(audience)
            claims["email_verified"] = .bool(verified)
            claims.removeValue(forKey: "auth_time")
        case "apple":
            // Apple writes its booleans as strings and says whether the nonce was checked and the user is real.
            claims["email_verified"] = .string(verified ? "true" : "false")
            if let isPrivate = account.claims["is_private_email"] {
                claims["is_private_email"] = .string(isPrivate.boolValue == true || isPrivate.stringValue == "true" ? "true" : "false")
            }
            claims["real_user_status"] = 2
            claims["nonce_supported"] = true
            if let code { claims["c_hash"] = .string(Self.halfHash(code)) }
            // Apple puts the name in the `user` form field of the first sign-in, never in the token.
            for key in ["name", "given_name", "family_name", "picture"] { claims.removeValue(forKey: key) }
        default:
            claims["email_verified"] = .bool(verified)
        }
        return claims
    }

    /// The OpenID Connect `at_hash`/`c_hash`: the left half of the value's SHA-256, base64url.
    static func halfHash(_ value: String) -> String { Base64URL.encode(Array(SHA256.hash(data: Array(value.utf8)).prefix(16))) }

    /// The claims `/userinfo` answers with.
    func userInfo(_ account: IdentityProviderAccount) -> [String: JSON] {
        var info = account.claims
        info["sub"] = .string(account.sub)
        return info
    }
}
