import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A seed with one Firebase project `p` (API key `k`, app name "Demo App") whose settings each test
/// chooses, plus any Identity Platform tenants (`p:<tenant>`).
func firebaseProject(_ settings: [String: JSON] = [:], users: [Seed.UserSeed] = [], tenants: [Seed.TenantSeed] = []) -> Seed {
    var all: [String: JSON] = ["api_keys": ["k"]]
    all.merge(settings) { $1 }
    return Seed(tenants: [Seed.TenantSeed(id: "p", dialect: .firebase, name: "Demo App", settings: all, users: users)] + tenants)
}

/// A client endpoint with the API key: `accounts:<operation>`.
func accounts(_ operation: String) -> String { "/identitytoolkit.googleapis.com/v1/accounts:\(operation)?key=k" }
/// An admin endpoint of project `p` (send with `owner`).
func projectAccounts(_ operation: String) -> String { "/identitytoolkit.googleapis.com/v1/projects/p/accounts:\(operation)" }
/// A v2 multi-factor endpoint.
func mfa(_ operation: String) -> String { "/identitytoolkit.googleapis.com/v2/accounts/\(operation)?key=k" }
let tokenEndpoint = "/securetoken.googleapis.com/v1/token?key=k"
let owner: HTTPFields = [.authorization: "Bearer owner"]

let alice = Seed.UserSeed(id: "alice-uid", email: "alice@example.com", password: "secret123", emailVerified: true,
                          userMetadata: ["displayName": "Alice"])
let unverifiedBob = Seed.UserSeed(id: "bob-uid", email: "bob@example.com", password: "secret123", emailVerified: false)

/// The claims of an ID token the project issued unsigned (`alg: none`, the emulator's default).
func claims(_ token: JSON?) throws -> [String: JSON] {
    let text = try #require(token?.stringValue)
    let verified = try JWS.verify(text, keys: [], allowNone: true)
    #expect(verified.header["alg"] == "none")
    return verified.claims
}

/// `error.message` of a Firebase error answer.
func errorMessage(_ reply: Reply) -> String? { reply.json["error"]?["message"]?.stringValue }

/// Signs in with email and password; answers the whole response.
func passwordSignIn(_ client: Client, _ email: String = "alice@example.com", _ password: String = "secret123") async throws -> JSON {
    try await client.send(.post, accounts("signInWithPassword"), json: ["email": .string(email), "password": .string(password),
                                                                       "returnSecureToken": true]).json
}

/// The query items of a URL, by name.
func queryItems(_ url: String) -> [String: String] {
    Dictionary((URLComponents(string: url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
}

/// The path, past the host, of a link (what the in-process client can request).
func pathAndQuery(_ link: String) throws -> String {
    let components = try #require(URLComponents(string: link))
    return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
}

/// A provider ID token as the Firebase emulator takes it: plain JSON, form-encoded into `postBody`.
func idpPostBody(_ provider: String, _ claims: [String: JSON]) -> String {
    let token = JSON.object(claims).serialized()
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return "providerId=\(provider)&id_token=\(token.addingPercentEncoding(withAllowedCharacters: allowed)!)"
}
