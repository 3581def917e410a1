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

    /// `USER_AUTH`: straight to the `PREFERRED_CHALLENGE` when it is available, else `SELECT_CHALLENGE`.
    func choiceBased(_ user: User?, parameters: [String: String]) async throws -> SignInStep {
        guard let user else { throw CognitoError.incorrectCredentials }
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
}
