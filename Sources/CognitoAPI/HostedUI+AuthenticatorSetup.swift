import AuthCore
import Foundation
import Hummingbird

/// The hosted UI's page for an `MFA_SETUP` challenge: a pool that requires MFA signs in a user without any by having
/// them add an authenticator app (a QR code and the key to type), then asks for its first code. The page makes the
/// same calls an app makes through the API (`AssociateSoftwareToken` and `VerifySoftwareToken` with the sign-in
/// session, then `RespondToAuthChallenge`), through the functions those actions use.
extension HostedUI {
    /// The set-up page for the unverified `factor`, posting `sealed` (the session `AssociateSoftwareToken` answered) back
    /// with the code.
    func authenticatorSetup(_ user: User, factor: Factor, sealed: String, _ a: Authorization, csrf: CSRF) throws -> LoginPages.Content {
        guard let totp = factor.totp, let secret = factor.secret else { throw CognitoError.invalid("The authenticator key could not be read.") }
        // The label authenticator apps show: the pool's name and the user's name, as Cognito's QR codes carry them.
        let issuer = a.pool.tenant.name.isEmpty ? a.pool.id : a.pool.tenant.name
        let uri = totp.uri(issuer: issuer, account: CognitoUsers.username(user, pool: a.pool))
        var content = self.content(.challenge, a, csrf: csrf.token)
        content.heading = "Set up an authenticator app"
        content.message = "This account needs multi-factor authentication. Scan the QR code with your authenticator app, or enter the key, "
            + "then enter the 6-digit code the app shows."
        content.session = sealed
        content.authenticator = (qrCode: try QRCode(uri).svg(), key: secret)
        content.codeLabel = "Authenticator code"
        content.submitLabel = "Verify and sign in"
        return content
    }

    /// The code from the set-up page: checked as `VerifySoftwareToken` checks it (a wrong one shows the same page again,
    /// with the same key), then the sign-in goes on as `RespondToAuthChallenge` takes `MFA_SETUP`.
    func finishAuthenticatorSetup(_ session: ChallengeSession, code: String, _ a: Authorization, flow: SignInFlow, csrf: CSRF,
                                  origin: RequestOrigin) async throws -> Response {
        guard let user = try emulator.user(in: a.pool.id, id: session.userId) else { throw CognitoError.userDoesNotExist }
        guard let verified = try SoftwareToken.verify(user, pool: a.pool, session: session, code: code, friendlyName: nil, emulator: emulator,
                                                      origin: origin, replays: pools.replays) else { throw CognitoError.staleSession }
        return try await finish(try await flow.respond("MFA_SETUP", session: verified, responses: [:]), a, flow: flow, csrf: csrf, origin: origin)
    }
}
