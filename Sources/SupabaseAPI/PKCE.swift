import AuthCore
import Foundation
import HTTPSupport

/// GoTrue's PKCE parameters (`internal/api/pkce.go`): `code_challenge` and `code_challenge_method`
/// come together or not at all. A flow that has one gets `pkce_`-prefixed link tokens, and its email
/// link redirects with `?code=` for `grant_type=pkce` instead of a session in the fragment.
enum PKCE {
    static func challenge(in body: JSONBody) throws -> PKCEChallenge? {
        try self.challenge(challenge: try body.string("code_challenge") ?? "", method: try body.string("code_challenge_method") ?? "")
    }

    /// GoTrue's `validatePKCEParams` on the two values, wherever they came from (a body or `/authorize`'s query).
    static func challenge(challenge: String, method: String) throws -> PKCEChallenge? {
        if challenge.isEmpty && method.isEmpty { return nil }
        guard !challenge.isEmpty, !method.isEmpty else {
            throw SupabaseError.validation("PKCE flow requires code_challenge_method and code_challenge")
        }
        guard (43...128).contains(challenge.count), challenge.wholeMatch(of: #/[a-zA-Z._~0-9-]+/#) != nil else {
            throw SupabaseError.validation("code challenge has to be between 43 and 128 characters and use only unreserved characters")
        }
        guard let parsed = PKCEChallenge.Method(rawValue: method.lowercased()) else {
            throw SupabaseError.validation("code challenge method not supported")
        }
        return PKCEChallenge(challenge: challenge, method: parsed)
    }

    static let tokenPrefix = "pkce_"
}
