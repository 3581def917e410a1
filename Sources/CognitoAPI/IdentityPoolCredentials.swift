import AuthCore
import Foundation
import HTTPSupport

/// What an app asks an identity pool for (`GetId`, `GetCredentialsForIdentity`), in the enhanced flow Amplify uses: an
/// identity for the user a user pool's ID token names (the same one for every later sign-in), or an unauthenticated
/// one if the pool allows them, then temporary AWS credentials for the role of its kind.
enum IdentityPoolCredentials {
    /// How long credentials last: an hour, as the enhanced flow's do.
    static let credentialLifetime: TimeInterval = 3600

    static func getId(_ call: IdentityPoolCall) throws -> JSON {
        let pool = try call.identityPool()
        let logins = try verifiedLogins(call, pool: pool).mapValues(\.subject)
        let identity: PoolIdentity
        if logins.isEmpty {
            guard pool.allowsUnauthenticated else { throw unauthenticatedRefused }
            identity = try call.emulator.newPoolIdentity(in: pool.home.id, poolId: pool.id, id: newIdentityId(pool, call))
        } else {
            identity = try call.emulator.signInPoolIdentity(in: pool.home.id, poolId: pool.id, logins: logins) { newIdentityId(pool, call) }
        }
        return ["IdentityId": .string(identity.id)]
    }

    /// Credentials for an identity: an authenticated one must come with one of its logins. An unauthenticated one that
    /// comes with logins is the user's from then on (Amplify's guest signing in), unless the user has an identity
    /// already: then the answer is that one's, and the guest is merged into it and disabled (a disabled identity is
    /// forbidden).
    static func credentials(_ call: IdentityPoolCall) throws -> JSON {
        let id = try IdentityPool.checkedIdentityId(try call.body.required("IdentityId"))
        guard var identity = try call.emulator.poolIdentity(id: id),
              let pool = try? IdentityPool.find(identity.poolId, call.pools) else { throw IdentityPools.identityNotFound(id) }
        guard !identity.disabled else { throw CognitoError(.notAuthorized, "Access to Identity '\(id)' is forbidden.") }
        let verified = try verifiedLogins(call, pool: pool)
        let logins = verified.mapValues(\.subject)
        if identity.isAuthenticated {
            guard logins.contains(where: { identity.logins[$0.key] == $0.value }) else { throw loginsDoNotMatch }
        } else if !logins.isEmpty {
            identity = try call.emulator.signInPoolIdentity(in: pool.home.id, poolId: pool.id, logins: logins, guest: identity) {
                newIdentityId(pool, call)
            }
        } else if !pool.allowsUnauthenticated {
            throw unauthenticatedRefused
        }
        if identity.isAuthenticated {
            try IdentityPoolRoles.checkAccess(pool, logins: verified.mapValues(\.claims), customRoleArn: try call.body.string("CustomRoleArn"))
        }
        guard let role = pool.roles[identity.isAuthenticated ? "authenticated" : "unauthenticated"], !role.isEmpty else {
            throw CognitoError(.invalidIdentityPoolConfiguration, "Invalid identity pool configuration. Check assigned IAM roles for this pool.")
        }
        let generator = call.emulator.generator
        let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
        let base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        return ["IdentityId": .string(identity.id),
                "Credentials": ["AccessKeyId": .string("ASIA" + generator.string(16, alphabet: upper)),
                                "SecretKey": .string(generator.string(40, alphabet: base64)),
                                "SessionToken": .string("IQoJb3JpZ2luX2VjE" + generator.string(600, alphabet: base64)),
                                "Expiration": .double((call.emulator.clock.now + credentialLifetime).timeIntervalSince1970.rounded(.down))]]
    }

    static let unauthenticatedRefused = CognitoError(.notAuthorized, "Unauthenticated access is not supported for this identity pool.")
    static let unsupportedProvider = CognitoError(.notAuthorized, "Token is not from a supported provider of this identity pool.")
    static let loginsDoNotMatch = CognitoError(.notAuthorized, "Logins don't match. Please include at least one valid login for this identity or identity pool.")

    static func newIdentityId(_ pool: IdentityPool, _ call: IdentityPoolCall) -> String { "\(pool.region):\(call.emulator.generator.uuid())" }

    /// The request's `Logins` (provider name to token), each checked as AWS checks a user pool's ID token: a provider
    /// the pool has, signed by that user pool's ID-token key, issued by it, for the provider's client, unexpired on
    /// the emulator clock, and with `ServerSideTokenCheck` of a session still live and a user still enabled. Answers
    /// provider name to `sub` and the token's claims. The messages are AWS's; the last one's is Fauxth's (AWS's is not
    /// known).
    static func verifiedLogins(_ call: IdentityPoolCall, pool: IdentityPool) throws -> [String: (subject: String, claims: [String: JSON])] {
        var subjects: [String: (subject: String, claims: [String: JSON])] = [:]
        for (name, token) in try call.body.map("Logins") {
            // A pool that issues with Fauxth's own URL (`issuer: emulator`) is named by that URL without its scheme, as
            // Amplify forms the key from `iss`; the identity records the provider's own name either way.
            guard let provider = pool.providers.first(where: { $0.name == name }) ?? pool.providers.first(where: { name.hasSuffix("/" + $0.userPoolId) }),
                  let userPool = try? call.pools.pool(provider.userPoolId) else {
                throw unsupportedProvider
            }
            // Either of the pool's keys, as both are in its JWKS: an access token is refused for its missing `aud`.
            let keys = try ["id", "access"].map { try CognitoTokens.key(userPool, $0, emulator: call.emulator).verificationKey }
            guard let claims = try? JWS.verify(token, keys: keys).claims else {
                throw invalidLogin("Couldn't verify signed token.")
            }
            guard let audience = claims["aud"]?.stringValue else { throw invalidLogin("Missing a required claim: aud") }
            let issuer = claims["iss"]?.stringValue ?? ""
            guard issuer.replacing(#/^\w+:\/\//#, with: "") == name else {
                throw invalidLogin("Issuer doesn't match providerName")
            }
            if let clientId = provider.clientId, !clientId.isEmpty, clientId != audience { throw unsupportedProvider }
            if let exp = claims["exp"]?.intValue, call.emulator.clock.hasPassed(expiryOf: claims) {
                throw invalidLogin("Token expired: \(Int(call.emulator.clock.now.timeIntervalSince1970)) >= \(exp)")
            }
            guard let subject = claims["sub"]?.stringValue else { throw invalidLogin("Missing a required claim: sub") }
            if provider.serverSideTokenCheck {
                let session = try (claims["origin_jti"]?.stringValue).flatMap { try call.emulator.session(in: userPool.id, id: $0) }
                guard session?.revokedAt == nil, session != nil, let user = try call.emulator.user(in: userPool.id, id: subject), !user.disabled else {
                    throw invalidLogin("Token is not valid for this user pool: the user signed out, or is disabled or gone.")
                }
            }
            subjects[provider.name] = (subject, claims)
        }
        return subjects
    }

    static func invalidLogin(_ reason: String) -> CognitoError { CognitoError(.notAuthorized, "Invalid login token. " + reason) }
}
