import AuthCore
import Foundation

/// `MFA_SETUP`: a pool that requires MFA signs in a user who has none by having them set one up first. TOTP goes
/// through `AssociateSoftwareToken` and `VerifySoftwareToken` with the challenge's session; email MFA, in a pool that
/// has it, by answering the challenge with the address to use (`EMAIL`, as Amplify's `confirmSignIn` sends it after
/// `CONTINUE_SIGN_IN_WITH_EMAIL_SETUP`), then the code sent there.
extension SignInFlow {
    /// The challenge, naming what the pool lets the user set up (`MFAS_CAN_SETUP`).
    func mfaSetup(_ user: User, firstFactor: String, from previous: ChallengeSession?) throws -> SignInStep {
        var canSetUp = pool.smsMFAEnabled ? ["SMS_MFA"] : []
        if pool.softwareTokenMFAEnabled { canSetUp.append("SOFTWARE_TOKEN_MFA") }
        if pool.emailMFAEnabled { canSetUp.append("EMAIL_OTP") }
        guard !canSetUp.isEmpty else { throw CognitoError(.invalidUserPoolConfiguration, "MFA is required but no MFA method is enabled for the user pool.") }
        let session = next(previous, user: user, challenge: "MFA_SETUP", firstFactor: firstFactor)
        return .challenge("MFA_SETUP", parameters: ["MFAS_CAN_SETUP": JSON.array(canSetUp.map(JSON.string)).serialized()], session: session)
    }

    /// The answer: after `VerifySoftwareToken`, the sign-in; with an `EMAIL`, a code sent to that address as an
    /// `EMAIL_OTP` challenge whose right answer makes it the user's verified email and their MFA (`finishEmailSetup`).
    func answerMFASetup(_ user: User, session: ChallengeSession, responses: [String: String], spend: () throws -> Void) async throws -> SignInStep {
        if session.data["totp_verified"] == true {
            try spend()
            return .signedIn(user, firstFactor: session.firstFactor, mfa: "SOFTWARE_TOKEN_MFA")
        }
        guard let given = responses["EMAIL"], !given.isEmpty else {
            throw CognitoError.invalid("Set up MFA first: AssociateSoftwareToken and VerifySoftwareToken with this session"
                                       + (pool.emailMFAEnabled ? ", or answer with an EMAIL for email MFA." : "."))
        }
        guard pool.emailMFAEnabled else { throw CognitoError.invalid("Email MFA is not enabled for the user pool.") }
        let address: String
        do { address = try Identifiers.email(given) ?? given } catch let error as AuthError { throw CognitoError(core: error) }
        try spend()
        try await mailer.send(.mfa, to: address, user: user, origin: origin, cause: authenticationMessage)
        let next = session.next("EMAIL_OTP", data: ["destination": .string(address), "mfa_setup": true], lifetime: sessionLifetime, emulator: emulator)
        return .challenge("EMAIL_OTP", parameters: codeDelivery(address), session: next)
    }

    /// After the code sent to a new MFA address came back: the address is the user's email, verified, and email MFA
    /// is on and preferred. An address another user has as theirs is refused as any change to it would be.
    func finishEmailSetup(_ user: User, address: String) throws -> User {
        let updated = try emulator.updateUser(in: pool.id, id: user.id, UserChanges(email: address, emailVerified: true), origin: origin)
        return try SoftwareToken.setMFA(updated, method: "EMAIL_OTP", enabled: true, preferred: true, emulator: emulator)
    }
}
