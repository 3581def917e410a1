import AuthCore
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Server
import Testing

// The built-in seed's pool: signs in by email, auto-verifies email, OPTIONAL MFA, a hosted-UI domain.
let seedPool = "us-east-1_fauxth001"
let seedClient = "fauxthlocalclient000000001"
let aliceId = "00000000-0000-4000-8000-0000c0a11ce0"
let bobId = "00000000-0000-4000-8000-0000c00b0b00"
let carolId = "00000000-0000-4000-8000-0000c0ca4010"
let password = "password123"

// A pool each test shapes itself: usernames (no UsernameAttributes), email auto-verified, a lenient
// password policy (8+ characters, lowercase and numbers), MFA off unless the test turns it on.
let testPool = "us-east-1_Test12345"
let testClient = "testclient0000000000000001"

let dave = Seed.UserSeed(id: "00000000-0000-4000-8000-00000000da7e", email: "dave@example.com", username: "dave", password: password,
                         emailVerified: true, userMetadata: ["name": "Dave"])
let erin = Seed.UserSeed(id: "00000000-0000-4000-8000-00000000e214", email: "erin@example.com", phone: "+15555550123", username: "erin",
                         password: password, emailVerified: true, phoneVerified: true)

/// A seed with one Cognito pool `testPool` whose pool members, first client and other settings each test
/// overrides (shallow merges), plus `extraClients`. Each seeded password costs an SRP verifier (a 3072-bit
/// exponentiation), so tests seed only the users they use.
func cognitoSeed(pool: [String: JSON] = [:], client: [String: JSON] = [:], extraClients: [[String: JSON]] = [],
                 settings: [String: JSON] = [:], users: [Seed.UserSeed] = [dave]) -> Seed {
    var poolShape: [String: JSON] = [
        "AutoVerifiedAttributes": ["email"],
        "Policies": ["PasswordPolicy": ["MinimumLength": 8, "RequireUppercase": false, "RequireLowercase": true, "RequireNumbers": true,
                                        "RequireSymbols": false, "TemporaryPasswordValidityDays": 7]],
        "MfaConfiguration": "OFF",
    ]
    poolShape.merge(pool) { $1 }
    var firstClient: [String: JSON] = [
        "ClientId": .string(testClient), "ClientName": "tests",
        "ExplicitAuthFlows": ["ALLOW_USER_PASSWORD_AUTH", "ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH",
                              "ALLOW_USER_AUTH"],
    ]
    firstClient.merge(client) { $1 }
    var all: [String: JSON] = ["pool": .object(poolShape), "clients": .array(([firstClient] + extraClients).map(JSON.object))]
    all.merge(settings) { $1 }
    return Seed(tenants: [Seed.TenantSeed(id: testPool, dialect: .cognito, name: "Test pool", settings: all, users: users)])
}

/// The built-in seed (with `us-east-1_fauxth001`) and `seed`'s tenants beside it.
func builtInAnd(_ seed: Seed) throws -> Seed { try SeedLoader.builtIn().merged(with: seed) }

extension HTTPField.Name {
    static let xAmzTarget = Self("X-Amz-Target")!
    static let xAmznErrorType = Self("x-amzn-ErrorType")!
    static let xAmznErrorMessage = Self("x-amzn-ErrorMessage")!
    static let xAmznRequestId = Self("x-amzn-RequestId")!
}

extension Client {
    /// One JSON 1.1 operation: `POST /` with `X-Amz-Target: AWSCognitoIdentityProviderService.<operation>`.
    func cognito(_ operation: String, _ body: JSON) async throws -> Reply {
        try await send(.post, "/", raw: body.serialized(), headers: [
            .xAmzTarget: "AWSCognitoIdentityProviderService.\(operation)", .contentType: "application/x-amz-json-1.1",
        ])
    }

    /// `InitiateAuth` with `USER_PASSWORD_AUTH`.
    func passwordAuth(_ username: String, _ secret: String = password, clientId: String = seedClient,
                      extra: [String: JSON] = [:]) async throws -> Reply {
        var parameters: [String: JSON] = ["USERNAME": .string(username), "PASSWORD": .string(secret)]
        parameters.merge(extra) { $1 }
        return try await cognito("InitiateAuth", ["AuthFlow": "USER_PASSWORD_AUTH", "ClientId": .string(clientId), "AuthParameters": .object(parameters)])
    }

    /// Signs in with a password and answers `AuthenticationResult`, which must be there.
    func signIn(_ username: String, _ secret: String = password, clientId: String = seedClient) async throws -> JSON {
        let reply = try await passwordAuth(username, secret, clientId: clientId)
        return try #require(reply.json["AuthenticationResult"], "\(reply.text)")
    }

    /// `RespondToAuthChallenge`.
    func respond(_ challenge: String, session: JSON?, _ responses: [String: JSON], clientId: String = seedClient) async throws -> Reply {
        try await cognito("RespondToAuthChallenge", ["ClientId": .string(clientId), "ChallengeName": .string(challenge), "Session": session ?? .null,
                                                     "ChallengeResponses": .object(responses)])
    }

    /// A form post, as a browser sends one, with `cookies`.
    func form(_ uri: String, _ fields: [(String, String)], cookies: [String: String] = [:], headers: HTTPFields = [:]) async throws -> Reply {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        return try await send(.post, uri, raw: formEncode(fields), headers: headers)
    }
}

extension Reply {
    /// Cognito's error type, from the body's `__type`.
    var errorType: String? { json["__type"]?.stringValue }
    var message: String? { json["message"]?.stringValue }

    /// The value of the cookie `name` this response sets.
    func cookie(_ name: String) -> String? {
        for header in headers[values: .setCookie] {
            let pair = header.split(separator: ";", maxSplits: 1)[0]
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name { return String(parts[1]) }
            if parts.count == 1, parts[0] == name { return "" }
        }
        return nil
    }

    var location: String? { headers[.location] }
}

/// The claims of a token, unverified (the tests that care verify against the pool's JWKS).
func claims(_ token: JSON?) throws -> [String: JSON] {
    let text = try #require(token?.stringValue)
    return try #require(JWS.unverifiedClaims(text))
}

/// The newest code sent to `to` (optionally of one purpose).
func latestCode(_ harness: Harness, to: String, purpose: MessagePurpose? = nil) throws -> String {
    let message = try #require(try harness.emulator.messages(MessageFilter(to: to, purpose: purpose)).first, "no message to \(to)")
    return try #require(message.codes.first)
}

/// `SECRET_HASH`: base64(HMAC-SHA256(client secret, username ‖ client id)).
func secretHash(_ secret: String, username: String, clientId: String) -> String {
    Data(HMAC<SHA256>.authenticationCode(for: Array((username + clientId).utf8), using: SymmetricKey(data: Array(secret.utf8)))).base64EncodedString()
}

/// application/x-www-form-urlencoded.
func formEncode(_ fields: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return fields.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
        .joined(separator: "&")
}

/// The query (or fragment) items of a URL, by name.
func parameters(_ url: String, fragment: Bool = false) -> [String: String] {
    guard let components = URLComponents(string: url) else { return [:] }
    if fragment {
        var c = URLComponents()
        c.percentEncodedQuery = components.percentEncodedFragment
        return Dictionary((c.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
    }
    return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
}

/// PKCE's S256 challenge for `verifier`.
func pkceChallenge(_ verifier: String) -> String { Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) }

/// `Basic base64(id:secret)`.
func basicAuth(_ id: String, _ secret: String) -> String { "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString() }

/// The `code` of a redirect back to the app.
func callbackCode(_ reply: Reply) throws -> String {
    let location = try #require(reply.location, "no redirect: \(reply.status) \(reply.text.prefix(300))")
    return try #require(parameters(location)["code"], "no code in \(location)")
}

/// OIDC's `at_hash`: base64url of the left half of SHA-256 over the access token.
func atHash(_ accessToken: String) -> String { Base64URL.encode(Array(SHA256.hash(data: Array(accessToken.utf8))).prefix(16)) }
