import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// What the hosted UI's forms do: sign in (with the password, then any challenge), sign up and confirm,
/// and reset a forgotten password. Errors show on the same page, in Cognito's words.
extension HostedUI {
    /// A page of the sign-in for `username`, with a notice or an alert.
    func page(_ kind: LoginPages.Kind, _ a: Authorization, csrf: CSRF, username: String, notice: String? = nil, alert: String? = nil,
              email: String = "") -> Response {
        var content = self.content(kind, a, csrf: csrf.token)
        content.username = username
        content.email = email
        content.notice = notice
        content.alert = alert
        return page(content, csrf: csrf)
    }

    /// "We sent a code to a***@e***": the masked destination of a delivery.
    func sentTo(_ delivery: JSON?) -> String { delivery?["Destination"]?.stringValue ?? "you" }

    func login(_ call: HostedUICall) async throws -> Response {
        let (form, a, csrf) = try posted(call)
        let origin = call.origin
        let flow = SignInFlow(emulator: emulator, pools: pools, pool: a.pool, client: a.client, origin: origin)
        let username = form["username"] ?? ""
        do {
            if let sealed = form["session"], !sealed.isEmpty {
                let session = try ChallengeSession.open(sealed, clientId: a.client.id, emulator: emulator, replays: pools.replays)
                if session.challenge == "MFA_SETUP" {
                    return try await finishAuthenticatorSetup(session, code: form["code"] ?? "", a, flow: flow, csrf: csrf, origin: origin)
                }
                let responses = switch session.challenge {
                case "NEW_PASSWORD_REQUIRED": ["NEW_PASSWORD": form["new_password"] ?? ""]
                case "SMS_MFA": ["SMS_MFA_CODE": form["code"] ?? ""]
                case "EMAIL_OTP": ["EMAIL_OTP_CODE": form["code"] ?? ""]
                case "WEB_AUTHN": ["CREDENTIAL": form["credential"] ?? ""]
                default: ["SOFTWARE_TOKEN_MFA_CODE": form["code"] ?? ""]
                }
                return try await finish(try await flow.respond(session.challenge, session: session, responses: responses), a, flow: flow, csrf: csrf, origin: origin)
            }
            if form["passkey"] == "1" { return try await passkeySignIn(username, a, flow: flow, csrf: csrf, origin: origin) }
            guard !username.isEmpty, let password = form["password"], !password.isEmpty else {
                return page(.login, a, csrf: csrf, username: username, alert: "Enter your \(content(.login, a, csrf: "").usernameLabel.lowercased()) and password.")
            }
            // As InitiateAuth: a user the pool lacks may be one the migration function knows; the pre
            // authentication function may refuse the sign-in before the password is checked.
            let triggers = pools.triggers(a.pool, origin: origin)
            var user = try CognitoUsers.find(username, pool: a.pool, emulator: emulator)
            if user == nil {
                user = try await Auth.migrate(username, password: password, triggers: triggers, client: a.client, validationData: [], clientMetadata: .null)
            }
            let signingIn = try user ?? flow.user(named: username)
            try await triggers.preAuthentication(user: signingIn, userName: username, clientId: a.client.id, validationData: [], clientMetadata: .null)
            return try await finish(try await flow.password(signingIn, password), a, flow: flow, csrf: csrf, origin: origin)
        } catch let error as CognitoError {
            return try await recover(from: error, username: username, session: form["session"], a, flow: flow, csrf: csrf, origin: origin)
        } catch let error as AuthError {
            // A passkey the core refuses (wrong origin, replayed challenge…) is a failed sign-in like any other.
            return try await recover(from: CognitoError(core: error), username: username, session: form["session"], a, flow: flow, csrf: csrf,
                                     origin: origin)
        }
    }

    /// The page after a sign-in step: back to the app, or the challenge's page.
    func finish(_ step: SignInStep, _ a: Authorization, flow: SignInFlow, csrf: CSRF, origin: RequestOrigin) async throws -> Response {
        switch step {
        case .signedIn(let user, let firstFactor, let mfa):
            return try await complete(user, firstFactor: firstFactor, mfa: mfa, a, origin: origin)
        case .challenge("SELECT_MFA_TYPE", let parameters, let session):
            // The page asks for the first method the user can use, as the hosted UI picks one.
            let choices = (try? JSON.parse(text: parameters["MFAS_CAN_CHOOSE"] ?? "[]"))?.arrayValue?.compactMap(\.stringValue) ?? []
            let step = try await flow.respond("SELECT_MFA_TYPE", session: session, responses: ["ANSWER": choices.first ?? "SOFTWARE_TOKEN_MFA"])
            return try await finish(step, a, flow: flow, csrf: csrf, origin: origin)
        case .challenge("WEB_AUTHN", let parameters, let session):
            var content = self.content(.passkey, a, csrf: csrf.token)
            content.heading = "Sign in with passkey"
            content.message = "Use the passkey you saved for this account."
            content.session = try session.sealed(emulator)
            content.passkeyOptions = parameters["CREDENTIAL_REQUEST_OPTIONS"] ?? "{}"
            content.submitLabel = "Continue with passkey"
            return page(content, csrf: csrf)
        case .challenge("MFA_SETUP", let parameters, let session):
            // A pool that requires MFA of a user without any: the page enrols an authenticator app, as Cognito's does.
            // Setting up a phone for SMS codes is not a page the hosted UI has.
            guard parameters["MFAS_CAN_SETUP"]?.contains("SOFTWARE_TOKEN_MFA") == true else {
                return pages.error("This account must set up multi-factor authentication first, and the only method this pool offers is SMS: "
                                   + "give the user a verified phone_number, then sign in here.", status: .ok)
            }
            guard let user = try emulator.user(in: a.pool.id, id: session.userId) else { throw CognitoError.userDoesNotExist }
            let (factor, next) = try SoftwareToken.associate(user, pool: a.pool, session: session, emulator: emulator, replays: pools.replays)
            guard let next else { throw CognitoError.staleSession }
            return page(try authenticatorSetup(user, factor: factor, sealed: try next.sealed(emulator), a, csrf: csrf), csrf: csrf)
        case .challenge(let name, let parameters, let session):
            return page(challengeContent(name, destination: parameters["CODE_DELIVERY_DESTINATION"], sealed: try session.sealed(emulator), a, csrf: csrf),
                        csrf: csrf)
        }
    }

    func challengeContent(_ name: String, destination: String?, sealed: String, _ a: Authorization, csrf: CSRF) -> LoginPages.Content {
        var content = self.content(.challenge, a, csrf: csrf.token)
        content.session = sealed
        switch name {
        case "NEW_PASSWORD_REQUIRED":
            content.heading = "Change your password"
            content.message = "Please enter a new password to finish signing in."
            content.newPassword = true
            content.submitLabel = "Change password"
        case "SOFTWARE_TOKEN_MFA":
            content.heading = "Multi-factor authentication"
            content.message = "Enter the 6-digit code from your authenticator app."
            content.codeLabel = "Authenticator code"
        default:
            content.heading = "Multi-factor authentication"
            content.message = "We sent a code to \(destination ?? "you"). Enter it to sign in."
            content.codeLabel = "Code"
        }
        return content
    }

    /// A sign-in that failed: a user who must confirm or reset first goes to that page (with a fresh
    /// code); anything else shows on the page it came from.
    func recover(from error: CognitoError, username: String, session sealed: String?, _ a: Authorization, flow: SignInFlow, csrf: CSRF,
                 origin: RequestOrigin) async throws -> Response {
        let user = username.isEmpty ? nil : try CognitoUsers.find(username, pool: a.pool, emulator: emulator)
        switch error.kind {
        case .userNotConfirmed:
            if let user, let delivery = try? await SignUp.resendCode(user, triggers: pools.triggers(a.pool, origin: origin), cause: .init(source: "ResendCode", clientId: a.client.id)) {
                return page(.confirm, a, csrf: csrf, username: username, notice: "Your account is not confirmed yet. We sent a code to \(sentTo(delivery)).")
            }
        case .passwordResetRequired:
            if let user, let delivery = try? await Passwords.sendResetCode(user, triggers: pools.triggers(a.pool, origin: origin), cause: .init(source: "ForgotPassword", clientId: a.client.id)) {
                return page(.reset, a, csrf: csrf, username: username, notice: "Your password must be reset. We sent a code to \(sentTo(delivery)).")
            }
        default:
            if let sealed, !sealed.isEmpty,
               let session = try? ChallengeSession.open(sealed, clientId: a.client.id, emulator: emulator, replays: pools.replays) {
                if session.challenge == "MFA_SETUP", let user = try emulator.user(in: a.pool.id, id: session.userId),
                   let factor = try emulator.factors(in: a.pool.id, userId: user.id).last(where: { $0.kind == "totp" && !$0.verified }) {
                    var content = try authenticatorSetup(user, factor: factor, sealed: sealed, a, csrf: csrf)
                    content.alert = error.message
                    return page(content, csrf: csrf)
                }
                var content = challengeContent(session.challenge, destination: session.data["destination"]?.stringValue.map(CognitoUsers.masked),
                                               sealed: sealed, a, csrf: csrf)
                content.alert = error.message
                return page(content, csrf: csrf)
            }
        }
        return page(.login, a, csrf: csrf, username: username, alert: sealed?.isEmpty == false && error == .staleSession ? "Your sign-in expired. Please sign in again." : error.message)
    }

    func signUp(_ call: HostedUICall) async throws -> Response {
        let (form, a, csrf) = try posted(call)
        let origin = call.origin
        guard !a.pool.adminCreateUserOnly else { return pages.error("Sign-up is not allowed for this user pool.", status: .forbidden) }
        let username = form["username"] ?? "", email = form["email"] ?? "", password = form["password"] ?? ""
        do {
            guard !username.isEmpty, !password.isEmpty else { throw CognitoError.invalid("Enter a \(content(.signup, a, csrf: "").usernameLabel.lowercased()) and a password.") }
            let attributes = a.pool.usernameAttributes.isEmpty && !email.isEmpty ? [(name: "email", value: email)] : []
            let registered = try await SignUp.register(username: username, password: password, attributes: attributes, validationData: [],
                                                       triggers: pools.triggers(a.pool, origin: origin), cause: .init(source: "SignUp", clientId: a.client.id))
            if registered.confirmed {
                return page(.login, a, csrf: csrf, username: username, notice: "Your account is confirmed. Sign in to continue.")
            }
            guard let delivery = registered.delivery else {
                return page(.login, a, csrf: csrf, username: username, notice: "Your account was created. An administrator must confirm it before you can sign in.")
            }
            return page(.confirm, a, csrf: csrf, username: username, notice: "We sent a code to \(sentTo(delivery)). Enter it to confirm your account.")
        } catch let error as CognitoError {
            return page(.signup, a, csrf: csrf, username: username, alert: error.message, email: email)
        }
    }

    func confirm(_ call: HostedUICall) async throws -> Response {
        let (form, a, csrf) = try posted(call)
        let origin = call.origin
        let username = form["username"] ?? ""
        do {
            let user = try CognitoUsers.require(username, pool: a.pool, emulator: emulator)
            try SignUp.confirm(user, code: form["code"] ?? "", pool: a.pool, emulator: emulator, origin: origin)
            try await SignUp.confirmed(user, triggers: pools.triggers(a.pool, origin: origin), source: "PostConfirmation_ConfirmSignUp",
                                       clientId: a.client.id, clientMetadata: .null)
            return page(.login, a, csrf: csrf, username: username, notice: "Your account is confirmed. Sign in to continue.")
        } catch let error as CognitoError {
            return page(.confirm, a, csrf: csrf, username: username, alert: error.message)
        }
    }

    func resendCode(_ call: HostedUICall) async throws -> Response {
        let (form, a, csrf) = try posted(call)
        let origin = call.origin
        let username = form["username"] ?? ""
        do {
            let user = try CognitoUsers.require(username, pool: a.pool, emulator: emulator)
            let delivery = try await SignUp.resendCode(user, triggers: pools.triggers(a.pool, origin: origin), cause: .init(source: "ResendCode", clientId: a.client.id))
            return page(.confirm, a, csrf: csrf, username: username, notice: "We sent a new code to \(sentTo(delivery)).")
        } catch let error as CognitoError {
            return page(.confirm, a, csrf: csrf, username: username, alert: error.message)
        }
    }

    func forgotPassword(_ call: HostedUICall) async throws -> Response {
        let (form, a, csrf) = try posted(call)
        let origin = call.origin
        let username = form["username"] ?? ""
        do {
            guard let user = try CognitoUsers.find(username, pool: a.pool, emulator: emulator) else {
                guard a.client.preventUserExistenceErrors else { throw CognitoError.userDoesNotExist }
                // A client that hides which users exist shows the same page either way.
                return page(.reset, a, csrf: csrf, username: username, notice: "If the account exists, we sent it a code.")
            }
            let delivery = try await Passwords.sendResetCode(user, triggers: pools.triggers(a.pool, origin: origin), cause: .init(source: "ForgotPassword", clientId: a.client.id))
            return page(.reset, a, csrf: csrf, username: username, notice: "We sent a code to \(sentTo(delivery)). Enter it with your new password.")
        } catch let error as CognitoError {
            return page(.forgot, a, csrf: csrf, username: username, alert: error.message)
        }
    }

    func confirmForgotPassword(_ call: HostedUICall) async throws -> Response {
        let (form, a, csrf) = try posted(call)
        let origin = call.origin
        let username = form["username"] ?? ""
        do {
            let user = try CognitoUsers.require(username, pool: a.pool, emulator: emulator)
            try Passwords.reset(user, code: form["code"] ?? "", password: form["password"] ?? "", pool: a.pool, emulator: emulator, origin: origin)
            try await SignUp.confirmed(user, triggers: pools.triggers(a.pool, origin: origin), source: "PostConfirmation_ConfirmForgotPassword",
                                       clientId: a.client.id, clientMetadata: .null)
            return page(.login, a, csrf: csrf, username: username, notice: "Your password has been changed. Sign in with your new password.")
        } catch let error as CognitoError {
            return page(.reset, a, csrf: csrf, username: username, alert: error.message)
        }
    }
}
