import Foundation

/// A third-party application registered with a tenant's OAuth 2.1 authorization server (RFC 7591 terms:
/// GoTrue's `oauth_clients`). Only the SHA-256 of a confidential client's secret is kept.
public struct OAuthClient: Sendable, Equatable {
    public var tenant: String
    public var id: String
    /// `manual` (registered by an admin) or `dynamic` (RFC 7591 registration).
    public var registrationType: String
    /// `public` (no secret, PKCE only) or `confidential`.
    public var clientType: String
    /// `none`, `client_secret_basic` or `client_secret_post`: how the client must authenticate at the token endpoint.
    public var tokenEndpointAuthMethod: String
    public var redirectURIs: [String]
    public var grantTypes: [String]
    public var name: String?
    public var uri: String?
    public var logoURI: String?
    public var createdAt: Date
    public var updatedAt: Date
    var secretHash: String?

    public var isPublic: Bool { clientType == "public" }

    public init(tenant: String, id: String = "", registrationType: String, clientType: String, tokenEndpointAuthMethod: String,
                redirectURIs: [String], grantTypes: [String], name: String? = nil, uri: String? = nil, logoURI: String? = nil,
                createdAt: Date = .distantPast, updatedAt: Date = .distantPast) {
        self.tenant = tenant; self.id = id; self.registrationType = registrationType; self.clientType = clientType
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod; self.redirectURIs = redirectURIs; self.grantTypes = grantTypes
        self.name = name; self.uri = uri; self.logoURI = logoURI; self.createdAt = createdAt; self.updatedAt = updatedAt
    }

    /// Whether `secret` is this client's, compared in constant time on the hashes so neither its length nor
    /// its prefix leaks. A public client has no secret and matches none.
    public func isSecret(_ secret: String) -> Bool {
        guard let secretHash else { return false }
        return constantTimeEquals(Emulator.clientSecretHash(secret), secretHash)
    }
}

/// A user's answer to a client's request, waiting or given: GoTrue's `oauth_authorizations` row. Its id
/// is what the consent screen is opened with.
public struct OAuthAuthorization: Sendable, Equatable {
    public enum Status: String, Sendable { case pending, approved, denied, expired }

    public var tenant: String
    public var id: String
    public var clientId: String
    /// Set by the first signed-in user who opens it; nobody else may answer it after that.
    public var userId: String?
    public var redirectURI: String
    public var scope: String
    public var state: String?
    public var resource: String?
    public var challenge: PKCEChallenge
    public var nonce: String?
    public var status: Status
    public var createdAt: Date
    public var expiresAt: Date
    public var approvedAt: Date?

    public var scopes: [String] { OAuthScopes.parse(scope) }

    /// Where the user's browser goes after approving: the redirect URI with `code` and `state`.
    public func successRedirect(code: String) -> String {
        GoQueryURL.url(redirectURI, setting: [("code", code)] + (state.map { $0.isEmpty ? [] : [("state", $0)] } ?? []))
    }

    /// Where it goes after a refusal or an invalid request: the redirect URI with `error`, `error_description`
    /// and `state`.
    public func errorRedirect(error: String, description: String) -> String {
        GoQueryURL.error(redirectURI, error: error, description: description, state: state)
    }
}

/// What a user let a client do, remembered so the next request for no more than that skips the consent
/// screen; revoking it ends the client's sessions.
public struct OAuthConsent: Sendable, Equatable {
    public var clientId: String
    public var userId: String
    public var scopes: [String]
    public var grantedAt: Date
}

/// Space-separated scope strings as GoTrue reads them (`models.ParseScopeString`).
public enum OAuthScopes {
    public static func parse(_ text: String) -> [String] {
        text.split(separator: " ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// URLs as GoTrue writes them with Go's `url.Values`: the URL's own query kept, the parameters set (replacing any
/// of the same name), all keys sorted and `QueryEscape`d (a space is `+`), so a client parses exactly what GoTrue
/// would have sent it: OAuth redirects, and the admin listing's `Link` header.
public enum GoQueryURL {
    public static func error(_ redirectURI: String, error: String, description: String, state: String?) -> String {
        url(redirectURI, setting: [("error", error), ("error_description", description)] + (state.map { $0.isEmpty ? [] : [("state", $0)] } ?? []))
    }

    public static func url(_ base: String, setting parameters: [(String, String)]) -> String {
        let withoutFragment = base.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let fragment = withoutFragment.count > 1 ? "#" + withoutFragment[1] : ""
        let parts = withoutFragment[0].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [(String, String)] = parts.count > 1 ? decode(String(parts[1])) : []
        let names = Set(parameters.map(\.0))
        query.removeAll { names.contains($0.0) }
        query += parameters
        // Go sorts by key and keeps each key's values in order: a stable sort.
        let sorted = query.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
        return String(parts[0]) + "?" + sorted.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&") + fragment
    }

    private static func decode(_ query: String) -> [(String, String)] {
        query.split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            return (kv[0], kv.count > 1 ? kv[1] : "")
        }
    }

    /// Go's `url.QueryEscape`.
    private static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
