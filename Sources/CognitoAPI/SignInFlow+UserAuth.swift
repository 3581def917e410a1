import AuthCore
import Foundation

/// `USER_AUTH`, choice-based sign-in: the first factors the pool's sign-in policy offers a user, the
/// preferred one or `SELECT_CHALLENGE`, and the `WEB_AUTHN` (passkey) factor's ceremony.
extension SignInFlow {
    /// The first factors `USER_AUTH` offers: those the pool's sign-in policy allows that the user can
    /// use (a password needs one set; codes need an address).
    func availableFirstFactors(_ user: User) -> [String] { Self.firstFactors(user, pool: pool, emulator: emulator) }

    /// The same, for a user outside a sign-in (`GetUserAuthFactors`).
    static func firstFactors(_ user: User, pool: CognitoPool, emulator: Emulator) -> [String] {
        let allowed = pool.allowedFirstAuthFactors
        var available: [String] = []
        if allowed.contains("PASSWORD"), user.hasPassword { available += ["PASSWORD", "PASSWORD_SRP"] }
        if allowed.contains("EMAIL_OTP"), user.email != nil { available.append("EMAIL_OTP") }
        if allowed.contains("SMS_OTP"), user.phone != nil { available.append("SMS_OTP") }
        if allowed.contains("WEB_AUTHN"), pool.relyingParty != nil,
           !((try? emulator.webAuthnCredentials(in: pool.id, userId: user.id, kind: .passkey)) ?? []).isEmpty {
            available.append("WEB_AUTHN")
        }
        return available
    }

    /// `WEB_AUTHN`: an assertion over the user's passkeys; `CREDENTIAL_REQUEST_OPTIONS` is the options JSON
    /// a browser's `navigator.credentials.get` takes, the challenge's id travels sealed in the session.
    func startWebAuthn(_ user: User, from previous: ChallengeSession? = nil) throws -> SignInStep {
        let rp = try pool.requireRelyingParty()
        let passkeys = try emulator.webAuthnCredentials(in: pool.id, userId: user.id, kind: .passkey)
        let ceremony = try emulator.beginWebAuthnAssertion(in: pool.id, userId: user.id, relyingParty: rp, kind: .passkey, allow: passkeys)
        let data: [String: JSON] = ["webauthn_challenge": .string(ceremony.id)]
        let session = next(previous, user: user, challenge: "WEB_AUTHN", firstFactor: "webauthn", data: data)
        return .challenge("WEB_AUTHN", parameters: ["CREDENTIAL_REQUEST_OPTIONS": ceremony.options.serialized()], session: session)
    }

    /// The answer to `WEB_AUTHN`: the assertion JSON in `CREDENTIAL`. A passkey is a sign-in of its own:
    /// no MFA follows it.
    func answerWebAuthn(_ session: ChallengeSession, user: User, credential: String) throws -> SignInStep {
        guard let challengeId = session.data["webauthn_challenge"]?.stringValue else { throw CognitoError.staleSession }
        guard let response = try? JSON.parse(text: credential), response.objectValue != nil else {
            throw CognitoError.invalid("CREDENTIAL must be the JSON of the WebAuthn assertion (PublicKeyCredential).")
        }
        _ = try emulator.finishWebAuthnAssertion(in: pool.id, challengeId: challengeId, userId: user.id, kind: .passkey, response: response,
                                                 origin: origin)
        try emulator.checkCanSignIn(user, origin: origin)
        return .signedIn(user, firstFactor: "webauthn", mfa: nil)
    }

    /// The challenge name a sign-up's `Session` carries (`SignUp.signUpSession`).
    static let signUpChallenge = "SIGN_UP"

    /// `USER_AUTH` with the `Session` of a sign-up: the user it confirmed, signed in once with no further factor, if they
    /// have never signed in (InitiateAuth's `Session`: "only valid for users who have confirmed their sign-up and are
    /// signing in for the first time"; the MFA guide: "issues tokens, even if your user pool requires MFA").
    func signUpSession(_ sealed: String, user: User?) throws -> SignInStep {
        let session = try ChallengeSession.open(sealed, clientId: client.id, emulator: emulator, replays: pools.replays)
        guard session.challenge == Self.signUpChallenge, session.poolId == pool.id, session.data["confirmed"] == true,
              let user, user.id == session.userId, CognitoUsers.status(user) == "CONFIRMED", user.lastSignInAt == nil else {
            throw CognitoError(.notAuthorized, "Invalid session for the user.")
        }
        guard pools.replays.spend(session, now: now) else { throw CognitoError.staleSession }
        try emulator.checkCanSignIn(user, origin: origin)
        return .signedIn(user, firstFactor: session.firstFactor, mfa: nil)
    }

    /// `USER_AUTH`: straight to the `PREFERRED_CHALLENGE` when it is available, else `SELECT_CHALLENGE`.
    func choiceBased(_ user: User?, name: String, parameters: [String: String]) async throws -> SignInStep {
        guard let user else { return try await unknownUser(name, parameters: parameters) }
        let available = availableFirstFactors(user)
        switch parameters["PREFERRED_CHALLENGE"] {
        case "PASSWORD"? where available.contains("PASSWORD"):
            guard let password = parameters["PASSWORD"] else { throw CognitoError.invalid("Missing required parameter PASSWORD") }
            return try await self.password(user, password)
        case "PASSWORD_SRP"? where available.contains("PASSWORD_SRP"):
            guard let srpA = parameters["SRP_A"] else { throw CognitoError.invalid("Missing required parameter SRP_A") }
            return try await startSRP(user, srpA: srpA)
        case let otp? where (otp == "EMAIL_OTP" || otp == "SMS_OTP") && available.contains(otp):
            return try await startOTP(user, challenge: otp)
        case "WEB_AUTHN"? where available.contains("WEB_AUTHN"):
            return try startWebAuthn(user)
        default:
            guard !available.isEmpty else { throw CognitoError.invalid("No sign-in method of the pool's policy is available for the user.") }
            let session = newSession(userId: user.id, challenge: "SELECT_CHALLENGE", firstFactor: "password")
            return .challenge("SELECT_CHALLENGE", parameters: [:], session: session)
        }
    }

    /// `USER_AUTH` for a name no user has, whatever the client's `PreventUserExistenceErrors` ("choice-based
    /// authentication isn't affected by" it, the developer guide's user existence page): not the other flows' failure but
    /// a challenge the pool allows, as a user would get ("randomly selecting from the challenge types your user pool
    /// allows"). The preferred one when the pool offers it, else one of its code factors or the password, picked by the
    /// emulator's generator; a code's destination is the name when it is an address of that kind. No answer passes it: a
    /// code fails as a wrong one, a password or an SRP proof as a wrong password. Passkeys are left out (there is no
    /// credential to ask for).
    func unknownUser(_ name: String, parameters: [String: String]) async throws -> SignInStep {
        let allowed = pool.allowedFirstAuthFactors
        var choice = parameters["PREFERRED_CHALLENGE"].flatMap { allowed.contains($0 == "PASSWORD_SRP" ? "PASSWORD" : $0) ? $0 : nil }
        // As for a user: a preferred password comes with the password.
        if choice == "PASSWORD", parameters["PASSWORD"] == nil { throw CognitoError.invalid("Missing required parameter PASSWORD") }
        if choice == nil || choice == "WEB_AUTHN" {
            let options = pool.passwordlessFactors + (allowed.contains("PASSWORD") ? [parameters["SRP_A"] == nil ? "PASSWORD" : "PASSWORD_SRP"] : [])
            guard !options.isEmpty else { throw CognitoError.incorrectCredentials }
            choice = options[emulator.generator.int(in: 0...options.count - 1)]
        }
        switch choice {
        case "PASSWORD"? where parameters["PASSWORD"] == nil:
            let session = newSession(userId: "", challenge: "PASSWORD", firstFactor: "password", data: ["ghost": true])
            return .challenge("PASSWORD", parameters: [:], session: session)
        case "PASSWORD_SRP"?:
            guard let srpA = parameters["SRP_A"] else { throw CognitoError.invalid("Missing required parameter SRP_A") }
            return try await startSRP(nil, srpA: srpA)
        case let otp? where otp == "EMAIL_OTP" || otp == "SMS_OTP":
            let email = otp == "EMAIL_OTP"
            let destination = (email ? name.contains("@") : name.hasPrefix("+")) ? name : (email ? "user@example.com" : "+15550100000")
            let session = newSession(userId: "", challenge: otp, firstFactor: "otp", data: ["ghost": true, "passwordless": true])
            return .challenge(otp, parameters: codeDelivery(destination), session: session)
        default:
            throw CognitoError.incorrectCredentials
        }
    }
}
