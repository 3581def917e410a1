import AuthCore
import Foundation
import HTTPSupport

/// What a signed-in user gets back: a session's ID token and refresh token.
struct IssuedTokens {
    var idToken: String
    var refreshToken: String
    var expiresIn: Int
    var user: User

    /// The `idToken`/`refreshToken`/`expiresIn`/`localId` fields every sign-in answer carries.
    var fields: [String: JSON] {
        ["idToken": .string(idToken), "refreshToken": .string(refreshToken), "expiresIn": .string(String(expiresIn)),
         "localId": .string(user.id)]
    }
}

/// A request's caller as its ID token names them.
struct TokenCaller {
    var scope: FirebaseScope
    var user: User
    var claims: [String: JSON]
}

extension FirebaseCall {
    /// Opens a session for `user` signed in with `provider` and answers its tokens; a user with a second
    /// factor gets an MFA pending credential instead (`mfaPendingCredential`, `mfaInfo`) when the scope
    /// has MFA on and `allowMFA` (admin and linking flows skip it). With `blocking`, the project's
    /// `beforeSignIn` function is called first (not before the second factor: after it, in `MFA`), and its
    /// `sessionClaims` stay in every ID token of the session.
    func signIn(_ user: User, scope: FirebaseScope, provider: String, isNewUser: Bool? = nil, allowMFA: Bool = true,
                blocking method: BlockingFunctions.SignInMethod? = nil) async throws -> [String: JSON] {
        try await signedIn(user, scope: scope, provider: provider, isNewUser: isNewUser, allowMFA: allowMFA, blocking: method).answer
    }

    /// `signIn`'s answer, and the user as the sign-in left it (a beforeSignIn function's changes and the sign-in's
    /// stamps), for answers that describe the profile without reading it again.
    func signedIn(_ user: User, scope: FirebaseScope, provider: String, isNewUser: Bool? = nil, allowMFA: Bool = true,
                  blocking method: BlockingFunctions.SignInMethod? = nil) async throws -> (answer: [String: JSON], user: User) {
        try emulator.checkCanSignIn(user, origin: origin)
        // Second factors are read only where the project asks for them: a sign-in without MFA has one store
        // round trip fewer.
        if allowMFA, scope.settings.mfaEnabled, case let factors = try emulator.factors(in: scope.coreTenant, userId: user.id).filter(\.verified),
           !factors.isEmpty {
            emulator.record(.signInSucceeded, tenant: scope.coreTenant, userId: user.id, origin: origin,
                            detail: ["method": .string(provider), "aal": "aal1", "mfa": "pending"])
            var answer: [String: JSON] = ["mfaPendingCredential": .string(try FirebaseTokens.pendingCredential(user: user, provider: provider, emulator: emulator)),
                                          "mfaInfo": .array(factors.map { FirebaseUserJSON.mfaInfo($0, obfuscated: true) }), "localId": .string(user.id)]
            answer["email"] = user.email.map(JSON.string)
            return (answer, user)
        }
        var user = user, sessionClaims: [String: JSON] = [:]
        if let method { (user, sessionClaims) = try await beforeSignIn(user, scope: scope, method) }
        // Kept with the session under the reserved claim, which no function or custom token may set: every ID token of
        // the session carries them (FirebaseTokens.idTokenClaims).
        if let attributes = method?.signInAttributes { sessionClaims["firebase"] = ["sign_in_attributes": attributes] }
        let issued = try startSession(user, scope: scope, provider: provider, sessionClaims: sessionClaims)
        var answer = issued.fields
        answer["isNewUser"] = isNewUser.map(JSON.bool)
        return (answer, issued.user)
    }

    /// A new session and its first tokens; `sessionClaims` (a custom token's, a blocking function's) go into
    /// every ID token of the session, refreshes included.
    func startSession(_ user: User, scope: FirebaseScope, provider: String, sessionClaims: [String: JSON] = [:]) throws -> IssuedTokens {
        let issued = try emulator.startSession(for: user, method: provider, origin: origin, claims: sessionClaims,
                                               refreshToken: FirebaseTokens.newRefreshToken)
        return try tokens(for: issued.session, refreshToken: issued.refreshToken, scope: scope, user: issued.user)
    }

    /// A fresh ID token for a session, with the refresh token it goes with. `user` is the session's user
    /// when the caller has just read or stamped it; otherwise it is read here.
    func tokens(for session: Session, refreshToken: String, scope: FirebaseScope, user known: User? = nil,
                extraClaims: [String: JSON] = [:]) throws -> IssuedTokens {
        let user = try known ?? emulator.requireUser(in: scope.coreTenant, id: session.userId)
        // A custom token's claims belong to the session, so every refresh carries them again.
        let claims = FirebaseTokens.idTokenClaims(user: user, scope: scope, session: session, now: emulator.clock.now,
                                                  extraClaims: session.claims.merging(extraClaims) { $1 })
        return IssuedTokens(idToken: try FirebaseTokens.sign(claims, scope: scope, emulator: emulator), refreshToken: refreshToken,
                            expiresIn: Int(scope.settings.idTokenTTL), user: user)
    }

    /// The caller an ID token names: signed as the project signs, issued by `securetoken` for this
    /// project (Identity Toolkit checks both `aud` and `iss`; the Firebase emulator checks neither, but an
    /// unsigned token with another issuer, or whose `user_id` is not its `sub`, is no token of this
    /// project), unexpired on the emulator clock, for a user who exists, is enabled and has not had tokens
    /// revoked since.
    func caller(idToken: String?) throws -> TokenCaller {
        let project = try projectId()
        guard let idToken, !idToken.isEmpty else { throw FirebaseError(.missingIDToken) }
        let probe = try projects.scope(project: project, tenant: nil)
        guard let claims = FirebaseTokens.decode(idToken, signing: probe.settings.signing, emulator: emulator),
              claims["aud"]?.stringValue == project, claims["iss"]?.stringValue == "https://securetoken.google.com/\(project)",
              let uid = claims["sub"]?.stringValue ?? claims["user_id"]?.stringValue,
              (claims["user_id"]?.stringValue).map({ $0 == uid }) ?? true else {
            throw FirebaseError(.invalidIDToken)
        }
        if emulator.clock.hasPassed(expiryOf: claims) { throw FirebaseError(.invalidIDToken) }
        let scope = try self.scope(tokenTenant: claims["firebase"]?["tenant"]?.stringValue)
        guard let user = try emulator.user(in: scope.coreTenant, id: uid) else { throw FirebaseError(.userNotFound) }
        try emulator.checkCanSignIn(user, stage: .token, origin: origin)
        if let validSince = user.tokensValidAfter, let iat = claims["iat"]?.intValue, Double(iat) < validSince.timeIntervalSince1970 {
            throw FirebaseError(.tokenExpired)
        }
        return TokenCaller(scope: scope, user: user, claims: claims)
    }

    /// Identity Toolkit's rule for sensitive changes (a new email or password, deleting the account): the
    /// caller's sign-in must be recent, else `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` and the app re-authenticates.
    /// Owners are exempt.
    func requireRecentSignIn(of known: TokenCaller? = nil) throws {
        guard !isOwner else { return }
        let caller = try known ?? caller(idToken: try body.string("idToken"))
        guard let authTime = caller.claims["auth_time"]?.intValue else { return }
        if emulator.clock.now.timeIntervalSince1970 - Double(authTime) > caller.scope.settings.recentSignInWindow {
            throw FirebaseError(.credentialTooOld)
        }
    }

    /// The sign-in provider of the caller's token (`password`, `phone`, `google.com`…).
    static func provider(of claims: [String: JSON]) -> String {
        claims["firebase"]?["sign_in_provider"]?.stringValue ?? "password"
    }

    /// The user an admin request names by `localId`, or the caller of its ID token.
    func subject(adminKey: String = "localId") throws -> (scope: FirebaseScope, user: User) {
        if isOwner, try body.string("idToken") == nil, (try body.string(adminKey) ?? "").isEmpty { throw FirebaseError(.missingLocalID) }
        if isOwner, let localId = try body.string(adminKey), !localId.isEmpty {
            let scope = try self.scope()
            guard let user = try emulator.user(in: scope.coreTenant, id: localId) else { throw FirebaseError(.userNotFound) }
            return (scope, user)
        }
        if try body.string(adminKey) != nil, !isOwner, try body.string("idToken") == nil { throw FirebaseError(.missingIDToken) }
        let caller = try self.caller(idToken: try body.string("idToken"))
        return (caller.scope, caller.user)
    }
}
