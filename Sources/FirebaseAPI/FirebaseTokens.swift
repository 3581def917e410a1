import AuthCore
import Foundation
import HTTPSupport

/// Firebase ID tokens, session cookies, refresh tokens, custom tokens and MFA pending credentials.
enum FirebaseTokens {
    /// The audience firebase-admin puts in custom tokens.
    static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Claims a custom token may not set (firebase-admin's list).
    static let reservedClaims: Set = ["acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat",
                                      "iss", "jti", "nbf", "nonce", "sub"]

    /// How the session was signed in: the first factor, and the second one if any.
    struct SignIn: Sendable {
        var provider: String
        var secondFactor: (kind: String, enrollmentId: String)?

        /// What a session's `amr` says: its oldest entry is the first factor, an `mfa:<kind>:<id>` entry the second.
        init(session: Session) {
            provider = session.amr.last?.method ?? "password"
            // Only an `mfa:` entry is split: most sessions have none, and every token of theirs asks.
            secondFactor = session.amr.lazy.filter { $0.method.hasPrefix("mfa:") }.compactMap { entry -> (String, String)? in
                let parts = entry.method.split(separator: ":", maxSplits: 2).map(String.init)
                return parts.count == 3 && parts[0] == "mfa" ? (parts[1], parts[2]) : nil
            }.first
        }

        static func amrMethod(secondFactor kind: String, enrollmentId: String) -> String { "mfa:\(kind):\(enrollmentId)" }
    }

    /// An ID token's claims, as Identity Toolkit sets them: profile claims first so custom claims can
    /// override `name` and `picture`, then the reserved ones, which nothing overrides.
    static func idTokenClaims(user: User, scope: FirebaseScope, session: Session, now: Date, issuer: String? = nil,
                              lifetime: TimeInterval? = nil, extraClaims: [String: JSON] = [:]) -> [String: JSON] {
        let signIn = SignIn(session: session)
        // Room for the reserved claims and a few more from the start: growing a dictionary rehashes it.
        var claims = [String: JSON](minimumCapacity: 24)
        claims["name"] = user.userMetadata["displayName"]
        claims["picture"] = user.userMetadata["photoUrl"]
        claims.merge(user.appMetadata) { $1 }
        claims.merge(extraClaims) { $1 }
        let iat = Int(now.timeIntervalSince1970)
        claims["iss"] = .string(issuer ?? "https://securetoken.google.com/\(scope.projectId)")
        claims["aud"] = .string(scope.projectId)
        claims["auth_time"] = .int(Int(session.createdAt.timeIntervalSince1970))
        claims["user_id"] = .string(user.id)
        claims["sub"] = .string(user.id)
        claims["iat"] = .int(iat)
        claims["exp"] = .int(iat + Int(lifetime ?? scope.settings.idTokenTTL))
        if let email = user.email {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(user.emailVerifiedAt != nil)
        }
        if let phone = user.phone { claims["phone_number"] = .string(phone) }
        if user.isAnonymous { claims["provider_id"] = "anonymous" }
        var firebase: [String: JSON] = ["identities": .object(identities(of: user)), "sign_in_provider": .string(signIn.provider)]
        firebase["tenant"] = scope.tenantId.map(JSON.string)
        // A SAML sign-in's attributes, kept in the session's claims (FirebaseCall.signedIn).
        firebase["sign_in_attributes"] = extraClaims["firebase"]?["sign_in_attributes"]
        if let second = signIn.secondFactor {
            firebase["sign_in_second_factor"] = .string(second.kind)
            firebase["second_factor_identifier"] = .string(second.enrollmentId)
        }
        claims["firebase"] = .object(firebase)
        return claims
    }

    /// `firebase.identities`: the email, the phone and every linked provider's subjects.
    static func identities(of user: User) -> [String: JSON] {
        var identities: [String: [String]] = [:]
        if let email = user.email { identities["email", default: []].append(email) }
        if let phone = user.phone { identities["phone", default: []].append(phone) }
        for identity in user.identities where !["email", "phone"].contains(identity.provider) {
            identities[identity.provider, default: []].append(identity.subject)
        }
        return identities.mapValues { .array($0.map(JSON.string)) }
    }

    /// Signs claims as the project signs ID tokens: unsigned (`alg: none`) by default, RS256 with the
    /// emulator's key when the project asks for it.
    static func sign(_ claims: [String: JSON], scope: FirebaseScope, emulator: Emulator) throws -> String {
        switch scope.settings.signing {
        case .unsigned: return try JWS.sign(claims, with: .unsigned)
        case .rs256: return try JWS.sign(claims, with: try emulator.keyring.rsaKey(keyScope))
        }
    }

    /// The keyring scope of the RS256 key, shared by every project as Google's `securetoken` keys are.
    static let keyScope = "firebase-securetoken"

    /// A refresh token: opaque, long, and only its hash is stored.
    static func newRefreshToken(_ generator: Generator) -> String {
        "AMf-vB" + generator.string(150, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    }

    /// Decodes a token the project accepted: unsigned only where the project issues unsigned tokens,
    /// RS256 only with the emulator's own key. Time claims are the caller's to check.
    static func decode(_ token: String, signing: FirebaseSettings.Signing, emulator: Emulator) -> [String: JSON]? {
        let keys = signing == .rs256 ? [(try? emulator.keyring.rsaKey(keyScope))?.verificationKey].compactMap { $0 } : []
        if let verified = try? JWS.verify(token, keys: keys, allowNone: signing == .unsigned) { return verified.claims }
        // An unsigned project still accepts the RS256 tokens it issued before its setting changed.
        if signing == .unsigned, let key = try? emulator.keyring.rsaKey(keyScope),
           let verified = try? JWS.verify(token, keys: [key.verificationKey]) { return verified.claims }
        return nil
    }

    /// An MFA pending credential: signed by the emulator, naming the user, the tenant and the first
    /// factor, and valid for ten minutes.
    static func pendingCredential(user: User, provider: String, emulator: Emulator) throws -> String {
        let now = Int(emulator.clock.now.timeIntervalSince1970)
        return try JWS.sign(["sub": .string(user.id), "tenant": .string(user.tenant), "provider": .string(provider), "exp": .int(now + 600)],
                            with: emulator.keyring.hmacKey("firebase-mfa", generator: emulator.generator))
    }

    /// The user id, core tenant and first factor of a pending credential.
    static func readPendingCredential(_ credential: String, emulator: Emulator) throws -> (userId: String, tenant: String, provider: String) {
        let key = emulator.keyring.hmacKey("firebase-mfa", generator: emulator.generator)
        guard let claims = try? JWS.verify(credential, keys: [key.verificationKey]).claims,
              let sub = claims["sub"]?.stringValue, let tenant = claims["tenant"]?.stringValue else {
            throw FirebaseError(.invalidMFAPendingCredential)
        }
        guard !emulator.clock.hasPassed(expiryOf: claims, required: true) else {
            throw FirebaseError(.invalidMFAPendingCredential, "The MFA pending credential has expired.")
        }
        return (sub, tenant, claims["provider"]?.stringValue ?? "password")
    }
}
