import AuthCore
import Foundation
import Synchronization

/// The fake identity providers under `/_emu/idp/{provider}`: Google and Apple always, and any generic
/// OIDC provider the seed or the control API declares. Each signs RS256 tokens with its own key; the
/// dialects send browsers to them and exchange their codes in process.
public struct FakeIdentityProviders: Sendable {
    public let emulator: Emulator
    let page: @Sendable (String) -> String?
    let choices: Choices

    /// - Parameter page: the text of a file under `web/` (the account picker's template).
    public init(emulator: Emulator, page: @escaping @Sendable (String) -> String?) {
        self.emulator = emulator
        self.page = page
        choices = Choices()
    }

    /// A provider by id, declared or built in.
    public func provider(_ id: String) throws -> FakeProvider? {
        if let record = try emulator.identityProvider(id) { return FakeProvider(record: record) }
        return FakeProvider.builtIns[id].map(FakeProvider.init(record:))
    }

    /// Every provider: the built-in ones first, then the declared ones.
    public func providers() throws -> [FakeProvider] {
        let declared = try emulator.identityProviders()
        let builtIns = FakeProvider.builtIns.values.filter { builtIn in !declared.contains { $0.id == builtIn.id } }.sorted { $0.id < $1.id }
        return (builtIns + declared).map(FakeProvider.init(record:))
    }

    /// Makes the next browser sign-in at `provider` pick `account` (a sub or an email), without its page.
    public func queue(account: String, for provider: String) { choices.push(.account(account), for: provider) }

    /// Makes the next browser sign-in at `provider` end with an OAuth `error`.
    public func queue(error: String, for provider: String) { choices.push(.error(error), for: provider) }

    /// Forgets queued choices (a reset returns to the seed).
    public func clearQueue() { choices.clear() }

    func require(_ id: String) throws -> FakeProvider {
        guard let provider = try provider(id) else { throw ProviderError.notFound("No identity provider \(id)") }
        return provider
    }

    /// The provider's signing key; its `kid` is in the JWKS.
    func key(_ provider: FakeProvider) throws -> SigningKey { try emulator.keyring.rsaKey("idp:\(provider.id)") }

    // MARK: Accounts

    /// An account made from claims (`email`, `name`, `email_verified`, any other claim); `sub` is
    /// generated in the provider's shape when absent.
    @discardableResult
    public func createAccount(_ providerId: String, claims: [String: JSON]) throws -> IdentityProviderAccount {
        let provider = try require(providerId)
        let sub = claims["sub"]?.stringValue ?? provider.newSubject(emulator.generator)
        var stored = claims
        stored.removeValue(forKey: "sub")
        return try emulator.saveIdentityProviderAccount(provider.id, sub: sub, claims: stored)
    }

    /// The account a test names by subject or email; an email nobody has yet gets a new verified account.
    func account(_ provider: FakeProvider, named key: String) throws -> IdentityProviderAccount {
        if let account = try emulator.identityProviderAccount(provider.id, subOrEmail: key) { return account }
        guard key.contains("@") else { throw ProviderError.notFound("No account \(key) at \(provider.name)") }
        return try createAccount(provider.id, claims: provider.newAccountClaims(email: key, name: "", emailVerified: true, privateEmail: false,
                                                                                generator: emulator.generator))
    }

    // MARK: Tokens

    /// What a provider hands over for an account: an ID token, an access token for `/userinfo`, and for
    /// the native flows an authorization code too.
    public struct Tokens: Sendable {
        public var idToken: String
        public var accessToken: String
        public var code: String?
        public var claims: [String: JSON]
        public var account: IdentityProviderAccount
        /// Apple's `user` form field: the name, on the first consent to a client only.
        public var firstConsentUser: JSON?
    }

    /// Mints the tokens of `account` for `audience` (a client id).
    func mint(_ provider: FakeProvider, account: IdentityProviderAccount, audience: String, nonce: String?, scope: String, baseURL: String,
              code: String? = nil) throws -> Tokens {
        let now = Int(emulator.clock.now.timeIntervalSince1970)
        let access: [String: JSON] = ["iss": .string(provider.issuer(baseURL: baseURL)), "sub": .string(account.sub), "aud": .string(audience),
                                      "scope": .string(scope), "iat": .int(now), "exp": .int(now + FakeProvider.tokenLifetime),
                                      "jti": .string(emulator.generator.uuid()), "token_use": "access"]
        let signingKey = try key(provider)
        let accessToken = try JWS.sign(access, with: signingKey)
        let claims = provider.idTokenClaims(account, audience: audience, nonce: nonce, accessToken: accessToken, code: code, now: now, baseURL: baseURL)
        return Tokens(idToken: try JWS.sign(claims, with: signingKey), accessToken: accessToken, code: code, claims: claims, account: account)
    }

    /// `POST /_emu/v1/idp/{provider}/tokens`: what a native sign-in sheet gives the app, for an account
    /// named by `sub` or `email` (made if new), with any claims overridden.
    public func mintNative(_ providerId: String, request: [String: JSON], baseURL: String) throws -> Tokens {
        let provider = try require(providerId)
        let audience = request["aud"]?.stringValue ?? request["client_id"]?.stringValue ?? "fauxth-client"
        var account: IdentityProviderAccount
        if let key = request["sub"]?.stringValue ?? request["email"]?.stringValue {
            account = try self.account(provider, named: key)
        } else {
            account = try emulator.identityProviderAccounts(provider.id).first
                ?? createAccount(provider.id, claims: provider.newAccountClaims(email: "user@example.com", name: "", emailVerified: true,
                                                                               privateEmail: false, generator: emulator.generator))
        }
        let reserved: Set = ["sub", "aud", "client_id", "nonce", "redirect_uri", "scope"]
        account.claims.merge(request.filter { !reserved.contains($0.key) }) { $1 }
        let redirectURI = request["redirect_uri"]?.stringValue ?? ""
        let scope = request["scope"]?.stringValue ?? "openid email profile"
        let code = try issueCode(provider, account: account, clientId: audience, redirectURI: redirectURI, scope: scope,
                                 nonce: request["nonce"]?.stringValue, challenge: nil)
        var tokens = try mint(provider, account: account, audience: audience, nonce: request["nonce"]?.stringValue, scope: scope, baseURL: baseURL,
                              code: code)
        if try emulator.recordIdentityProviderConsent(provider.id, sub: account.sub, clientId: audience) { tokens.firstConsentUser = appleUser(account) }
        return tokens
    }

    /// Apple's `user` JSON: `{"name": {"firstName", "lastName"}, "email"}`.
    func appleUser(_ account: IdentityProviderAccount) -> JSON {
        var user: [String: JSON] = [:]
        user["email"] = account.claims["email"]
        var name: [String: JSON] = [:]
        name["firstName"] = account.claims["given_name"]
        name["lastName"] = account.claims["family_name"]
        if !name.isEmpty { user["name"] = .object(name) }
        return .object(user)
    }

    /// Claims with the name from Apple's `user` form field (sent on the first consent only) added where
    /// the token has none, as a relying party reads it.
    public static func addingAppleUser(_ field: String?, to claims: [String: JSON]) -> [String: JSON] {
        guard let field, case .object(let user)? = try? JSON.parse(text: field) else { return claims }
        var claims = claims
        claims["given_name"] = claims["given_name"] ?? user["name"]?["firstName"]
        claims["family_name"] = claims["family_name"] ?? user["name"]?["lastName"]
        return claims
    }

    /// A single-use authorization code for `account`, ten minutes long; the account's claims at that
    /// moment go with it.
    func issueCode(_ provider: FakeProvider, account: IdentityProviderAccount, clientId: String, redirectURI: String, scope: String,
                   nonce: String?, challenge: PKCEChallenge?) throws -> String {
        try emulator.issueAuthorizationCode(in: "idp:\(provider.id)", AuthorizationGrant(
            userId: account.sub, clientId: clientId, redirectURI: redirectURI, scope: scope, nonce: nonce, challenge: challenge,
            data: ["claims": .object(account.claims)]), lifetime: 600)
    }

    /// Exchanges a code the provider issued, as its token endpoint does (the dialects call this in
    /// process when the browser comes back to them). Errors are OAuth's `invalid_grant`.
    public func exchange(_ providerId: String, code: String, clientId: String, redirectURI: String?, verifier: String?,
                         baseURL: String) throws -> Tokens {
        let provider = try require(providerId)
        let grant: AuthorizationGrant
        do {
            grant = try emulator.redeemAuthorizationCode(in: "idp:\(provider.id)", code: code, clientId: clientId, redirectURI: redirectURI,
                                                         verifier: verifier)
        } catch let error as AuthError {
            throw ProviderError.invalidGrant(error == .badCodeVerifier ? "PKCE verification failed" : "Invalid or expired authorization code")
        }
        guard var account = try emulator.identityProviderAccount(provider.id, subOrEmail: grant.userId) else {
            throw ProviderError.invalidGrant("The account no longer exists")
        }
        account.claims = grant.data["claims"]?.objectValue ?? account.claims
        return try mint(provider, account: account, audience: clientId, nonce: grant.nonce, scope: grant.scope, baseURL: baseURL)
    }

    /// Checks an ID token one of the providers signed: the provider its `iss` names, the signature, the
    /// expiry on the emulator clock, and `aud` among `audiences` when given.
    public func verify(_ token: String, audiences: [String]?, baseURL: String) throws -> (provider: FakeProvider, claims: [String: JSON]) {
        guard let unverified = JWS.unverifiedClaims(token), let issuer = unverified["iss"]?.stringValue,
              let provider = try providers().first(where: { $0.issuer(baseURL: baseURL) == issuer }) else {
            throw ProviderError.invalidToken("The token's issuer is none of the emulator's identity providers")
        }
        guard let claims = try? JWS.verify(token, keys: [try key(provider).verificationKey]).claims else {
            throw ProviderError.invalidToken("The token's signature does not verify with \(provider.name)'s keys")
        }
        if emulator.clock.hasPassed(expiryOf: claims) {
            throw ProviderError.invalidToken("The token has expired")
        }
        if let audiences, !audiences.isEmpty {
            let audience = claims["aud"]?.stringValue ?? ""
            guard audiences.contains(audience) else { throw ProviderError.invalidToken("The token's audience \(audience) is not an accepted client id") }
        }
        return (provider, claims)
    }
}

/// Why a provider operation failed.
public enum ProviderError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case invalidRequest(String)
    case invalidGrant(String)
    case invalidToken(String)

    public var description: String {
        switch self {
        case .notFound(let m), .invalidRequest(let m), .invalidGrant(let m), .invalidToken(let m): m
        }
    }
}

/// What the next authorization at a provider does without showing its page: sign in an account, or end
/// with an error. Set through the control API for headless tests; each is used once.
final class Choices: Sendable {
    enum Choice: Sendable, Equatable {
        case account(String)
        case error(String)
    }

    private let queued = Mutex<[String: [Choice]]>([:])

    func push(_ choice: Choice, for provider: String) { queued.withLock { $0[provider, default: []].append(choice) } }

    func pop(_ provider: String) -> Choice? {
        queued.withLock { queued in
            guard var list = queued[provider], !list.isEmpty else { return nil }
            let first = list.removeFirst()
            queued[provider] = list
            return first
        }
    }

    func clear() { queued.withLock { $0.removeAll() } }
}
