import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:sendOobCode` and `accounts:resetPassword` (`operations.ts` `sendOobCode`, `resetPassword`).
enum Oob {
    static func send(_ call: FirebaseCall) async throws -> Response {
        let body = call.body
        guard let typeName = try body.string("requestType"), !typeName.isEmpty else { throw FirebaseError(.missingReqType) }
        guard let type = OobType(rawValue: typeName), type != .recoverEmail else {
            throw FirebaseError(.invalidReqType, "Unsupported request parameters.")
        }
        let returnLink = try body.bool("returnOobLink") ?? false
        if returnLink { try call.requireOwner() }
        let continueURL = try Self.continueURL(call, required: type == .emailSignIn)
        let (scope, user, email, newEmail) = try target(call, type: type)
        guard let email else {
            // Email enumeration protection: an unknown address gets the same answer and no code.
            return .json(["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(try body.string("email") ?? "")])
        }
        // beforeSendEmail sees the emails its event names, sign-in links and password resets, and only those
        // really sent (an admin's generated link is not).
        if !returnLink, let emailType = [OobType.emailSignIn: "EMAIL_SIGN_IN", .passwordReset: "PASSWORD_RESET"][type] {
            try await call.beforeSendEmail(to: email, type: emailType, scope: scope)
        }
        let issued = try OobMailer(call: call, scope: scope).issue(type, email: email, user: user, newEmail: newEmail,
                                                                  continueURL: continueURL, send: !returnLink)
        var answer: [String: JSON] = ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email)]
        if returnLink {
            answer["oobCode"] = .string(issued.code)
            answer["oobLink"] = .string(issued.link)
        }
        return .json(.object(answer))
    }

    /// Who the code is for and where it goes; a nil email means "answer as if sent" (privacy on).
    private static func target(_ call: FirebaseCall, type: OobType) throws -> (FirebaseScope, User?, String?, String?) {
        let body = call.body
        switch type {
        case .verifyEmail:
            if call.isOwner, let email = try body.string("email")?.lowercased(), try body.string("idToken") == nil {
                let scope = try call.scope()
                guard let user = try call.emulator.user(in: scope.coreTenant, .email(email)) else { throw FirebaseError(.userNotFound) }
                return (scope, user, user.email, nil)
            }
            let caller = try call.caller(idToken: try body.string("idToken"))
            guard let email = caller.user.email else { throw FirebaseError(.missingEmail) }
            return (caller.scope, caller.user, email, nil)
        case .passwordReset:
            let scope = try call.scope()
            guard let email = try body.string("email")?.lowercased(), !email.isEmpty else { throw FirebaseError(.missingEmail) }
            guard let user = try call.emulator.user(in: scope.coreTenant, .email(email)) else {
                if scope.settings.improvedEmailPrivacy { return (scope, nil, nil, nil) }
                throw FirebaseError(.emailNotFound)
            }
            return (scope, user, user.email ?? email, nil)
        case .emailSignIn:
            let scope = try call.scope()
            guard scope.settings.enableEmailLinkSignin else { throw FirebaseError(.operationNotAllowed) }
            guard let email = try body.string("email")?.lowercased(), !email.isEmpty else { throw FirebaseError(.missingEmail) }
            guard email.contains("@") else { throw FirebaseError(.invalidEmail) }
            return (scope, try call.emulator.user(in: scope.coreTenant, .email(email)), email, nil)
        case .verifyAndChangeEmail:
            // As the emulator's sendOobCode: the new address first; an admin's generated link (firebase-admin's
            // generateVerifyAndChangeEmailLink) names the account by its address; the account needs an address to
            // change, and the new one must be no account's, the caller's own included.
            guard let newEmail = try body.string("newEmail")?.lowercased(), !newEmail.isEmpty else { throw FirebaseError(.missingNewEmail) }
            let scope: FirebaseScope, user: User
            if call.isOwner, try body.string("idToken") == nil, try body.string("localId") == nil {
                scope = try call.scope()
                guard let email = try body.string("email")?.lowercased(), !email.isEmpty else { throw FirebaseError(.missingEmail) }
                guard let found = try call.emulator.user(in: scope.coreTenant, .email(email)) else { throw FirebaseError(.userNotFound) }
                user = found
            } else {
                (scope, user) = try call.subject()
            }
            guard let email = user.email else { throw FirebaseError(.missingEmail) }
            guard newEmail.contains("@") else { throw FirebaseError(.invalidEmail) }
            if try call.emulator.user(in: scope.coreTenant, .email(newEmail)) != nil { throw FirebaseError(.emailExists) }
            return (scope, user, email, newEmail)
        case .recoverEmail:
            throw FirebaseError(.invalidReqType, "Unsupported request parameters.")
        }
    }

    /// `continueUrl`: absolute, and for web URLs on one of the project's authorized domains. App-scheme
    /// URLs are accepted: they are where a tester sees the deep link the app would have been opened with.
    static func continueURL(_ call: FirebaseCall, required: Bool) throws -> String? {
        guard let text = try call.body.string("continueUrl"), !text.isEmpty else {
            if required { throw FirebaseError(.missingContinueURI, "A continue URL must be provided in the request.") }
            return nil
        }
        try checkContinueURL(text, scope: try call.scope())
        return text
    }

    /// A continue URL must be absolute, and a web one on the project's authorized domains. Script-carrying
    /// schemes are no app (the action page would put them in a link), and a URL a browser reads otherwise
    /// than we do (`RedirectURL`) is refused.
    static func checkContinueURL(_ text: String, scope: FirebaseScope) throws {
        guard let target = RedirectURL(text), !["javascript", "data", "vbscript", "file"].contains(target.scheme),
              URLComponents(string: text)?.host != nil else {
            throw FirebaseError(.invalidContinueURI, "((expected an absolute URI with valid scheme and host))")
        }
        if target.isWeb {
            let domains = scope.settings.authorizedDomains + ["\(scope.projectId).firebaseapp.com", "\(scope.projectId).web.app"]
            guard domains.contains(target.host) else { throw FirebaseError(.unauthorizedDomain, "Domain not allowlisted by project") }
        }
    }

    /// Without `newPassword`: what the code is for, the code left unused (the JS SDK's `checkActionCode`). With it: a
    /// password reset (or the matching action) is applied, the email counts as verified and older tokens stop working.
    static func resetPassword(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.scope()
        // The emulator's first check, before the code: a project or tenant without password sign-in has no reset either.
        guard scope.settings.allowPasswordSignup else { throw FirebaseError(.passwordLoginDisabled) }
        guard let oobCode = try call.body.string("oobCode"), !oobCode.isEmpty else { throw FirebaseError(.missingOOBCode) }
        let record = try OobActions(call: call, scope: scope).live(oobCode)
        guard let type = OobType(purpose: record.purpose) else { throw FirebaseError(.invalidOOBCode) }
        var answer: [String: JSON] = ["kind": "identitytoolkit#ResetPasswordResponse", "requestType": .string(type.rawValue)]
        // The address the code works on, and the other one of a change: for VERIFY_AND_CHANGE_EMAIL the account's
        // address and the new one in `newEmail`, which the SDK requires (`checkActionCode`); for RECOVER_EMAIL the
        // address it restores, and the account's current one in `newEmail` (the SDK's `previousEmail`).
        let current = try record.userId.flatMap { try call.emulator.user(in: scope.coreTenant, id: $0) }?.email
        switch type {
        case .emailSignIn: break
        case .verifyAndChangeEmail:
            answer["email"] = current.map(JSON.string)
            answer["newEmail"] = .string(record.target)
        case .recoverEmail:
            answer["email"] = .string(record.target)
            if let current, current != record.target { answer["newEmail"] = .string(current) }
        case .passwordReset, .verifyEmail:
            answer["email"] = .string(record.target)
        }
        guard let newPassword = try call.body.string("newPassword") else { return .json(.object(answer)) }
        guard type == .passwordReset else { throw FirebaseError(.invalidOOBCode) }
        let user = try OobActions(call: call, scope: scope).resetPassword(oobCode, newPassword: newPassword)
        answer["email"] = user.email.map(JSON.string)
        return .json(.object(answer))
    }
}
