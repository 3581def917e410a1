import AuthCore
import Crypto
import Foundation

/// Cognito's tokens: RS256 access and ID tokens, each family with its own key (so its own `kid`), and
/// opaque refresh tokens kept as hashes in a core session. A session remembers the client, the scope
/// and the `event_id` of the sign-in in its claims, and its id is the tokens' `origin_jti`.
enum CognitoTokens {
    /// The scope of tokens from the API sign-in flows (not the hosted UI).
    static let adminScope = "aws.cognito.signin.user.admin"

    static func key(_ pool: CognitoPool, _ use: String, emulator: Emulator) throws -> SigningKey {
        try emulator.keyring.rsaKey("cognito:\(pool.id):\(use)")
    }

    /// `SECRET_HASH` for a client with a secret.
    static func secretHash(secret: String, username: String, clientId: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Array((username + clientId).utf8), using: SymmetricKey(data: Array(secret.utf8)))).base64EncodedString()
    }

    /// What a sign-in session carries into every token it mints.
    /// Hosted-UI sign-ins without the `openid` scope get no ID token, then or on refresh; with it, the
    /// ID token carries `at_hash` (`oauth`), as OpenID Connect has it.
    static func sessionClaims(client: CognitoClient, scope: String, emulator: Emulator, nonce: String? = nil, oauth: Bool = false) -> [String: JSON] {
        var claims: [String: JSON] = ["client_id": .string(client.id), "scope": .string(scope), "event_id": .string(emulator.generator.uuid())]
        claims["nonce"] = nonce.map(JSON.string)
        if oauth { claims["oauth"] = true }
        if scope != adminScope, !scope.split(separator: " ").contains("openid") { claims["no_id_token"] = true }
        return claims
    }

    /// An opaque refresh token, shaped like Cognito's encrypted ones.
    static func newRefreshToken(_ generator: Generator) -> String {
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        return "eyJjdHkiOiJKV1QiLCJlbmMiOiJBMjU2R0NNIiwiYWxnIjoiUlNBLU9BRVAifQ." + [342, 22, 640, 22].map { generator.string($0, alphabet: alphabet) }.joined(separator: ".")
    }

    struct Minted {
        var accessToken: String
        var idToken: String?
        var expiresIn: Int
    }

    /// Access and ID tokens for a session.
    /// `overrides` are a pre token generation function's changes.
    static func mint(user: User, pool: CognitoPool, client: CognitoClient, session: Session, baseURL: String, emulator: Emulator,
                     overrides: LambdaTriggers.TokenOverrides? = nil) throws -> Minted {
        let now = Int(emulator.clock.now.timeIntervalSince1970)
        let issuer: JSON = .string(pool.issuer(baseURL: baseURL))
        let scope = session.claims["scope"]?.stringValue ?? adminScope
        let groups = CognitoUsers.groups(user)
        let sub: JSON = .string(user.id), username: JSON = .string(CognitoUsers.username(user, pool: pool))
        let originJTI: JSON = .string(session.id), eventID = session.claims["event_id"] ?? originJTI
        let authTime: JSON = .int(Int(session.createdAt.timeIntervalSince1970))
        var access: [String: JSON] = [
            "sub": sub, "iss": issuer, "client_id": .string(client.id), "origin_jti": originJTI,
            "event_id": eventID, "token_use": "access", "scope": .string(scope),
            "auth_time": authTime, "iat": .int(now),
            "exp": .int(now + Int(client.accessTokenLifetime)), "jti": .string(emulator.generator.uuid()),
            "username": username, "version": 2,
        ]
        if !groups.isEmpty { access["cognito:groups"] = .array(groups.map(JSON.string)) }
        // The device the session was issued with, as Cognito's access tokens name it.
        access["device_key"] = session.claims["device_key"]
        if let overrides {
            overrides.applyToAccess(&access, scope: scope)
            if let groups = overrides.groups { access["cognito:groups"] = groups.isEmpty ? nil : .array(groups.map(JSON.string)) }
        }
        let accessToken = try JWS.sign(access, with: try key(pool, "access", emulator: emulator), extraHeader: [:])
        guard session.claims["no_id_token"] == nil else { return Minted(accessToken: accessToken, idToken: nil, expiresIn: Int(client.accessTokenLifetime)) }
        let attributes = CognitoUsers.attributePairs(user, only: client.readAttributes)
        // Room for the claims below as well: set one at a time into a table that never grows, rather than merged from a
        // second dictionary, which hashed every key twice and grew this one on the way.
        var id = [String: JSON](minimumCapacity: attributes.count + 14)
        for (name, value) in attributes {
            switch name {
            case _ where name.hasSuffix("_verified"): id[name] = .bool(value == "true")
            // The token carries the federated identities as an array, where the attribute is its JSON text.
            case "identities": id[name] = (try? JSON.parse(text: value)) ?? .string(value)
            default: id[name] = .string(value)
            }
        }
        id["sub"] = sub
        id["iss"] = issuer
        id["aud"] = .string(client.id)
        id["cognito:username"] = username
        id["origin_jti"] = originJTI
        id["event_id"] = eventID
        id["token_use"] = "id"
        id["auth_time"] = authTime
        id["iat"] = .int(now)
        id["exp"] = .int(now + Int(client.idTokenLifetime))
        id["jti"] = .string(emulator.generator.uuid())
        if !groups.isEmpty { id["cognito:groups"] = .array(groups.map(JSON.string)) }
        let (roles, preferredRole) = Groups.roles(of: groups, in: pool)
        if !roles.isEmpty { id["cognito:roles"] = .array(roles.map(JSON.string)) }
        id["cognito:preferred_role"] = preferredRole.map(JSON.string)
        id["nonce"] = session.claims["nonce"]
        if let overrides {
            LambdaTriggers.TokenOverrides.apply(overrides.idClaims, suppress: overrides.idSuppressed, to: &id)
            if let groups = overrides.groups { id["cognito:groups"] = groups.isEmpty ? nil : .array(groups.map(JSON.string)) }
            if let roles = overrides.roles, !roles.isEmpty { id["cognito:roles"] = .array(roles.map(JSON.string)) }
            if let role = overrides.preferredRole { id["cognito:preferred_role"] = .string(role) }
        }
        if session.claims["oauth"] == true {
            // The left half of the access token's SHA-256, base64url (OpenID Connect Core 3.1.3.6).
            id["at_hash"] = .string(Base64URL.encode(Array(SHA256.hash(data: Array(accessToken.utf8)).prefix(16))))
        }
        let idToken = try JWS.sign(id, with: try key(pool, "id", emulator: emulator))
        return Minted(accessToken: accessToken, idToken: idToken, expiresIn: Int(client.accessTokenLifetime))
    }

    /// A `client_credentials` access token: the client acting for itself, so `sub` is its id, no
    /// user claims and no session.
    /// `overrides`: a V3_0 pre token generation function's changes to it.
    static func mintClientCredentials(pool: CognitoPool, client: CognitoClient, scope: String, baseURL: String, emulator: Emulator,
                                      overrides: LambdaTriggers.TokenOverrides? = nil) throws -> Minted {
        let now = Int(emulator.clock.now.timeIntervalSince1970)
        var claims: [String: JSON] = [
            "sub": .string(client.id), "token_use": "access", "scope": .string(scope), "auth_time": .int(now), "iss": .string(pool.issuer(baseURL: baseURL)),
            "exp": .int(now + Int(client.accessTokenLifetime)), "iat": .int(now), "version": 2, "jti": .string(emulator.generator.uuid()),
            "client_id": .string(client.id),
        ]
        overrides?.applyToAccess(&claims, scope: scope)
        return Minted(accessToken: try JWS.sign(claims, with: try key(pool, "access", emulator: emulator)), idToken: nil,
                      expiresIn: Int(client.accessTokenLifetime))
    }

    /// Opens a session for a signed-in user and mints its first tokens.
    static func issue(_ user: User, pool: CognitoPool, client: CognitoClient, firstFactor: String, mfa: String?, scope: String = adminScope,
                      nonce: String? = nil, oauth: Bool = false, baseURL: String, emulator: Emulator,
                      origin: RequestOrigin, overrides: LambdaTriggers.TokenOverrides? = nil,
                      device: DeviceBinding? = nil) throws -> (Minted, refreshToken: String) {
        var claims = sessionClaims(client: client, scope: scope, emulator: emulator, nonce: nonce, oauth: oauth)
        claims.merge(device?.claims ?? [:]) { $1 }
        let issued = try emulator.startSession(for: user, aal: mfa == nil ? "aal1" : "aal2", method: firstFactor, origin: origin, claims: claims,
                                               refreshToken: newRefreshToken)
        return (try mint(user: user, pool: pool, client: client, session: issued.session, baseURL: baseURL, emulator: emulator, overrides: overrides),
                issued.refreshToken)
    }

    /// `AuthenticationResult`: the tokens, `Bearer`, and the access token's lifetime in seconds; with a new
    /// device, its `NewDeviceMetadata`.
    static func authenticationResult(_ minted: Minted, refreshToken: String?, newDevice: DeviceBinding? = nil) -> JSON {
        var result: [String: JSON] = ["AccessToken": .string(minted.accessToken), "ExpiresIn": .int(minted.expiresIn), "TokenType": "Bearer"]
        result["IdToken"] = minted.idToken.map(JSON.string)
        result["RefreshToken"] = refreshToken.map(JSON.string)
        if let newDevice, newDevice.isNew { result["NewDeviceMetadata"] = newDevice.metadata }
        return .object(result)
    }

    /// A refresh token issued with a device is good only with that device's key, and only while the user
    /// has the device registered: Cognito answers `Invalid Refresh Token.` to a refresh without `DEVICE_KEY`
    /// in a pool that tracks devices, to one before `ConfirmDevice`, and after `ForgetDevice` ("all future
    /// calls to revalidate that device's refresh tokens will fail"). Unknown tokens are left to the refresh.
    static func checkDevice(of token: String, given: String?, pool: CognitoPool, emulator: Emulator) throws {
        guard pool.tracksDevices, let session = try emulator.session(in: pool.id, refreshToken: token),
              let key = session.claims["device_key"]?.stringValue else { return }
        guard let given, constantTimeEquals(given, key), try emulator.device(in: pool.id, key: key, userId: session.userId) != nil else {
            throw CognitoError.invalidRefreshToken
        }
    }

    /// The session a refresh token of `client` continues: an unknown token is `Invalid Refresh Token.`, another client's
    /// "Refresh Token has different Client" (AWS's words since 2022, aws-sdk-js #4016).
    private static func sessionOfClient(_ token: String, pool: CognitoPool, client: CognitoClient, emulator: Emulator) throws -> Session {
        guard let session = try emulator.session(in: pool.id, refreshToken: token) else { throw CognitoError.invalidRefreshToken }
        guard session.claims["client_id"]?.stringValue == client.id else { throw CognitoError(.notAuthorized, "Refresh Token has different Client") }
        return session
    }

    /// Uses a refresh token of `client` without rotating it (Cognito's default): the user and session it
    /// continues. Unknown, revoked, expired, another client's, or of a deleted or disabled user: NotAuthorized.
    static func continueSession(_ token: String, pool: CognitoPool, client: CognitoClient, emulator: Emulator,
                                origin: RequestOrigin) throws -> (user: User, session: Session) {
        // Checked first for the client rule alone; the session continued is the core's.
        _ = try sessionOfClient(token, pool: pool, client: client, emulator: emulator)
        do {
            return try emulator.continueSession(in: pool.id, token: token, maxAge: client.refreshTokenLifetime, origin: origin)
        } catch AuthError.userNotFound {
            throw CognitoError(.notAuthorized, "User does not exist.")
        } catch AuthError.userDisabled {
            throw CognitoError(.notAuthorized, "User is disabled.")
        } catch let error as AuthError {
            throw CognitoError(core: error)
        }
    }

    /// The same with rotation (`RefreshTokenRotation` on): a new refresh token replaces the old one,
    /// which keeps working for the client's grace period.
    static func rotateSession(_ token: String, pool: CognitoPool, client: CognitoClient, emulator: Emulator,
                              origin: RequestOrigin) throws -> (user: User, session: Session, refreshToken: String) {
        let session = try sessionOfClient(token, pool: pool, client: client, emulator: emulator)
        guard emulator.clock.now.timeIntervalSince(session.createdAt) <= client.refreshTokenLifetime else {
            throw CognitoError(.notAuthorized, "Refresh Token has expired")
        }
        // A replaced token works for the grace period only, and using it later does not end the session.
        let policy = RefreshPolicy(rotationEnabled: true, reuseInterval: client.refreshTokenRotation.grace, parentOfLiveAllowed: false,
                                   reuseRevokesSession: false)
        do {
            let (user, issued) = try emulator.refresh(in: pool.id, token: token, policy: policy, origin: origin, newToken: newRefreshToken)
            return (user, issued.session, issued.refreshToken)
        } catch AuthError.userBanned {
            throw CognitoError(.notAuthorized, "User is disabled.")
        } catch let error as AuthError {
            throw CognitoError(core: error)
        }
    }

    /// A refresh by the client's own rule, for `GetTokensFromRefreshToken` and the token endpoint alike: a
    /// rotating client's answer carries the new refresh token, another's none.
    static func refreshSession(_ token: String, pool: CognitoPool, client: CognitoClient, emulator: Emulator,
                               origin: RequestOrigin) throws -> (user: User, session: Session, refreshToken: String?) {
        guard client.refreshTokenRotation.enabled else {
            let (user, session) = try continueSession(token, pool: pool, client: client, emulator: emulator, origin: origin)
            return (user, session, nil)
        }
        let (user, session, rotated) = try rotateSession(token, pool: pool, client: client, emulator: emulator, origin: origin)
        return (user, session, rotated)
    }

    /// The caller of an access token: signed by the pool's access key, an access token, unexpired on
    /// the emulator clock, of a live session (`GlobalSignOut` and `RevokeToken` end it) and of a user
    /// who still exists and is enabled.
    static func caller(_ token: String, pools: CognitoPools, emulator: Emulator, requireAdminScope: Bool = true) throws
        -> (pool: CognitoPool, user: User, claims: [String: JSON]) {
        // The client names the pool whatever the issuer is (a pool may have a custom one); the issuer's
        // last segment is the pool id otherwise.
        guard let unverified = JWS.unverifiedClaims(token),
              let pool = (unverified["client_id"]?.stringValue).flatMap({ try? pools.pool(clientId: $0).0 })
                ?? (unverified["iss"]?.stringValue?.split(separator: "/").last).flatMap({ try? pools.pool(String($0)) }),
              let claims = try? JWS.verify(token, keys: [try key(pool, "access", emulator: emulator).verificationKey]).claims,
              claims["token_use"]?.stringValue == "access" else {
            throw CognitoError(.notAuthorized, "Invalid Access Token")
        }
        if emulator.clock.hasPassed(expiryOf: claims) {
            throw CognitoError(.notAuthorized, "Access Token has expired")
        }
        if requireAdminScope, !(claims["scope"]?.stringValue ?? "").split(separator: " ").contains(Substring(adminScope)) {
            throw CognitoError(.notAuthorized, "Access Token does not have required scopes")
        }
        guard let sessionId = claims["origin_jti"]?.stringValue, let session = try emulator.session(in: pool.id, id: sessionId),
              session.revokedAt == nil else { throw CognitoError(.notAuthorized, "Access Token has been revoked") }
        guard let sub = claims["sub"]?.stringValue, let user = try emulator.user(in: pool.id, id: sub) else { throw CognitoError.userDoesNotExist }
        try emulator.checkCanSignIn(user, stage: .token)
        return (pool, user, claims)
    }
}
