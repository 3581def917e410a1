import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `PUT /user` (`internal/api/user.go` `UserUpdate`): the signed-in user changes their data or
/// password. A new password ends the user's other sessions and retires the codes sent before it, as GoTrue's
/// `UpdatePassword` does.
struct UpdateUser {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> JSON {
        let (body, project) = try call.bodyAndProject()
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        let user = caller.user
        // GoTrue's order (`UserUpdate`): the values' formats and the password's strength, admin-only
        // fields, the assurance level, then what depends on the user.
        var changedEmail: String?, changedPhone: String?
        let requestedEmail = try body.string("email") ?? "", requestedPhone = try body.string("phone") ?? ""
        if !requestedEmail.isEmpty {
            let normalized = try Validation.email(requestedEmail)
            if normalized != user.email?.lowercased() { changedEmail = normalized }
        }
        if !requestedPhone.isEmpty {
            let normalized = try Validation.phone(requestedPhone)
            try Validation.channel(try body.string("channel"), config: project.config)
            if normalized != user.phone { changedPhone = normalized }
        }
        let password = try body.string("password")
        if let password {
            try project.config.passwordPolicy.check(password)
        }
        if body.fields["app_metadata"].map({ !$0.isNull }) == true {
            throw SupabaseError(status: .forbidden, code: .notAdmin, message: "Updating app_metadata requires admin privileges")
        }
        if changedEmail != nil || changedPhone != nil || !(password ?? "").isEmpty {
            try emulator.requireAssurance(.credentialChange, session: caller.session)
        }
        if user.isAnonymous, !(password ?? "").isEmpty, requestedEmail.isEmpty, requestedPhone.isEmpty {
            throw SupabaseError(status: .unprocessableContent, code: .validationFailed,
                                message: "Updating password of an anonymous user without an email or phone is not allowed")
        }
        // The identity provider owns an SSO user's credentials: a new password, address or a reauthentication is refused.
        if try user.isSSOUser && (changedEmail != nil || changedPhone != nil || !(password ?? "").isEmpty || !(body.string("nonce") ?? "").isEmpty) {
            throw SupabaseError(status: .unprocessableContent, code: .userSSOManaged,
                                message: "Updating email, phone, password of a SSO account only possible via SSO")
        }
        // Another user's address refuses the whole update before anything is written, as GoTrue checks it first.
        if let changedEmail, let holder = try emulator.user(in: call.tenant, .email(changedEmail)), holder.id != user.id {
            throw SupabaseError(status: .unprocessableContent, code: .emailExists, message: "A user with this email address has already been registered")
        }
        if let changedPhone, let holder = try emulator.user(in: call.tenant, .phone(changedPhone)), holder.id != user.id {
            throw SupabaseError(status: .unprocessableContent, code: .phoneExists, message: "A user with this phone number has already been registered")
        }
        if let password {
            // Reauthentication first, as GoTrue: a valid nonce is spent even when the password then turns out the same.
            try checkReauthentication(caller, nonce: try body.string("nonce"), call: call, project: project)
            if !password.isEmpty, try emulator.hasPassword(in: call.tenant, userId: user.id) {
                try checkCurrentPassword(caller, try body.string("current_password"), call: call, project: project)
                if try emulator.checkPassword(password, in: call.tenant, userId: user.id) {
                    throw SupabaseError(status: .unprocessableContent, code: .samePassword,
                                        message: "New password should be different from the old password.")
                }
            }
        }
        // GoTrue sends the confirmations in the update's transaction, so one refused for its frequency writes nothing.
        if let changedEmail, !(project.config.mailerAutoconfirm && user.isAnonymous) {
            try call.mailer(project).checkFrequency(.emailChange, for: user, address: changedEmail)
        }
        if let changedPhone, !project.config.phoneAutoconfirm {
            try SmsSender(emulator: emulator, project: project).checkFrequency(for: user, address: changedPhone, purpose: .phoneChange)
        }
        var changes = UserChanges(password: password, userMetadata: try body.object("data"))
        changes.passwordRetiresCodes = true
        let updated = try emulator.updateUser(in: call.tenant, id: user.id, changes, origin: call.origin)
        if password != nil {
            try emulator.revokeSessions(in: call.tenant, userId: user.id, .allExcept(caller.session.id), reason: "password_changed", origin: call.origin)
        }
        var result = updated
        if let changedEmail {
            result = try await changeEmail(result, to: changedEmail, challenge: try PKCE.challenge(in: body), call: call, project: project)
        }
        if let changedPhone { result = try await changePhone(result, to: changedPhone, call: call, project: project) }
        return GoTrueJSON.user(result, config: project.config)
    }

    /// `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`: a session signed in more than a day
    /// ago needs the code `/reauthenticate` sent, as `nonce`.
    private func checkReauthentication(_ caller: Authentication.Caller, nonce: String?, call: Call, project: SupabaseProject) throws {
        guard project.config.passwordUpdateNeedsReauthentication else { return }
        guard emulator.clock.now.timeIntervalSince(caller.session.createdAt) > 24 * 3600 else { return }
        guard let nonce, !nonce.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .reauthenticationNeeded, message: "Password update requires reauthentication")
        }
        let target = caller.user.email?.lowercased() ?? caller.user.phone ?? ""
        do {
            _ = try emulator.consumeCode(in: call.tenant, purposes: [.reauthentication], .code(nonce, target: target), origin: call.origin)
        } catch AuthError.codeInvalid, AuthError.codeExpired, AuthError.wrongCode, AuthError.tooManyAttempts {
            throw SupabaseError(status: .unprocessableContent, code: .reauthenticationNotValid, message: "Nonce has expired or is invalid")
        }
    }

    /// `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`: the current password beside a new one, unless the
    /// session came from a code or link (GoTrue's `IsRecovery`: an `amr` of `otp`, `magiclink` or `recovery`), as a
    /// password reset's does. Both refusals have GoTrue's one message.
    private func checkCurrentPassword(_ caller: Authentication.Caller, _ current: String?, call: Call, project: SupabaseProject) throws {
        let recovery: Set<String> = ["otp", "magiclink", "recovery"]
        guard project.config.passwordUpdateNeedsCurrentPassword, !caller.session.amr.contains(where: { recovery.contains($0.method) }) else { return }
        let message = "Current password required when setting new password."
        guard let current, !current.isEmpty else { throw SupabaseError(status: .badRequest, code: .currentPasswordRequired, message: message) }
        guard try emulator.checkPassword(current, in: call.tenant, userId: caller.user.id) else {
            throw SupabaseError(status: .badRequest, code: .currentPasswordMismatch, message: message)
        }
    }

    /// With SMS autoconfirm the number changes at once; otherwise it waits as `new_phone` while the new
    /// number gets a `phone_change` code for `/verify`.
    private func changePhone(_ user: User, to phone: String, call: Call, project: SupabaseProject) async throws -> User {
        if project.config.phoneAutoconfirm {
            return try emulator.confirmAddressChange(in: call.tenant, userId: user.id, channel: .sms, address: phone, origin: call.origin)
        }
        let sms = SmsSender(emulator: emulator, project: project)
        try sms.checkFrequency(for: user, address: phone, purpose: .phoneChange)
        try emulator.setPendingPhone(in: call.tenant, userId: user.id, phone)
        try await sms.sendCode(to: user, address: phone, origin: call.origin, purpose: .phoneChange)
        return try emulator.requireUser(in: call.tenant, id: user.id)
    }

    /// An anonymous user under autoconfirm gets the address at once, as a sign-up would (GoTrue); anyone
    /// else waits with it as `new_email` while a confirmation goes to the new address and, with secure
    /// email change (GoTrue's default), to the current one too; `/verify` type `email_change` applies it
    /// once every link is used.
    /// With a PKCE `challenge` (a PKCE client's `updateUser`), the change is a PKCE flow, as GoTrue's `UserUpdate` makes
    /// it: its links carry `pkce_` tokens, and the last one used answers `?code=` for the client to exchange.
    private func changeEmail(_ user: User, to email: String, challenge: PKCEChallenge?, call: Call, project: SupabaseProject) async throws -> User {
        if project.config.mailerAutoconfirm, user.isAnonymous {
            return try emulator.confirmAddressChange(in: call.tenant, userId: user.id, channel: .email, address: email, origin: call.origin)
        }
        try emulator.setPendingEmail(in: call.tenant, userId: user.id, email)
        // The user as the messages see it: with its `new_email` (GoTrue sets it before it sends).
        let pending = try emulator.requireUser(in: call.tenant, id: user.id)
        if let challenge {
            try emulator.startFlow(in: call.tenant, userId: user.id, challenge: challenge, authenticationMethod: Mailer.Kind.emailChange.authenticationMethod)
        }
        try await Self.sendEmailChange(pending, to: email, pkce: challenge != nil, call: call, project: project)
        return try emulator.requireUser(in: call.tenant, id: user.id)
    }

    /// The confirmation of a pending email change (GoTrue's `sendEmailChange`): to the new address and,
    /// with secure email change, to the current one, under `GOTRUE_SMTP_MAX_FREQUENCY`.
    static func sendEmailChange(_ user: User, to email: String, pkce: Bool = false, call: Call, project: SupabaseProject) async throws {
        let mailer = call.mailer(project)
        try mailer.checkFrequency(.emailChange, for: user, address: email)
        let redirect = Redirects.target(for: call.request, project: project, emulator: call.emulator)
        try await mailer.sendEmailChange(to: user, newAddress: email, alsoCurrent: project.config.secureEmailChange, redirectTo: redirect,
                                         origin: call.origin, pkce: pkce)
    }
}

/// `GET /reauthenticate`: a code by email (or SMS for phone-only users) that a password update then
/// presents as `nonce`.
enum Reauthenticate {
    static func handle(_ call: Call) async throws -> JSON {
        let project = try call.project()
        let caller = try Authentication(emulator: call.emulator).require(call.request, project: project)
        let user = caller.user
        // GoTrue's Reauthenticate: the email if there is one, else the phone, and that address must be confirmed
        // (an OAuth user let in unverified, or a phone sign-in of a user with an unconfirmed email, is refused).
        if user.email != nil {
            guard user.emailVerifiedAt != nil else {
                throw SupabaseError(status: .unprocessableContent, code: .emailNotConfirmed, message: "Please verify your email first.")
            }
            let mailer = call.mailer(project)
            try mailer.checkFrequency(.reauthentication, for: user)
            try await mailer.send(.reauthentication, to: user, redirectTo: project.config.siteURL, origin: call.origin)
        } else if user.phone != nil {
            guard user.phoneVerifiedAt != nil else {
                throw SupabaseError(status: .unprocessableContent, code: .phoneNotConfirmed, message: "Please verify your phone first.")
            }
            // A test number's code answers `message_id` as /otp does.
            return SmsSender.answer(try await SmsSender(emulator: call.emulator, project: project)
                .sendCode(to: user, origin: call.origin, purpose: .reauthentication))
        } else {
            throw SupabaseError(status: .badRequest, code: .validationFailed, message: "Reauthentication requires the user to have an email or a phone number")
        }
        return [:]
    }
}
