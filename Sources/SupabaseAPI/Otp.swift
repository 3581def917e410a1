import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `POST /otp` and its legacy twin `POST /magiclink` (`internal/api/otp.go`, `magic_link.go`): a
/// passwordless sign-in by email. A new or unconfirmed address gets the sign-up confirmation (the
/// user is created unless `create_user` is false); a confirmed one gets the magic-link email. Either
/// way the answer is `{}`, so it never reveals whether the address exists.
struct Otp {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// GoTrue's `Otp`: its parameters' checks, then `shouldCreateUser`, then the email's or the phone's handler, each of
    /// which checks its own provider's switch.
    func handle(_ call: Call) async throws -> JSON {
        let (body, project) = try call.bodyAndProject()
        let email = try body.string("email") ?? "", phone = try body.string("phone") ?? ""
        if !email.isEmpty, !phone.isEmpty { throw SupabaseError.validation("Only an email address or phone number should be provided") }
        if !email.isEmpty, !(try body.string("channel") ?? "").isEmpty {
            throw SupabaseError.validation("Channel should only be specified with Phone OTP")
        }
        let challenge = try PKCE.challenge(in: body)
        // `create_user: false` refuses an unknown address or number before anything else is looked at.
        if !(body.fields["create_user"]?.boolValue ?? true), !(email.isEmpty && phone.isEmpty) {
            let identifier: Identifier = email.isEmpty ? .phone(try Validation.phone(phone)) : .email(try Validation.email(email))
            guard try emulator.user(in: call.tenant, identifier) != nil else {
                throw SupabaseError(status: .unprocessableContent, code: .otpDisabled, message: "Signups not allowed for otp")
            }
        }
        if !email.isEmpty { return try await magicLink(email: email, challenge: challenge, body: body, call: call, project: project) }
        if !phone.isEmpty { return try await sms(phone: phone, body: body, call: call, project: project) }
        throw SupabaseError.validation("One of email or phone must be set")
    }

    /// GoTrue's `MagicLink`: a new or unconfirmed address gets the sign-up confirmation, a confirmed one the magic link.
    private func magicLink(email raw: String, challenge: PKCEChallenge?, body: JSONBody, call: Call, project: SupabaseProject) async throws -> JSON {
        let (request, origin, tenant, config) = (call.request, call.origin, call.tenant, project.config)
        guard config.emailEnabled else {
            throw SupabaseError(status: .unprocessableContent, code: .emailProviderDisabled, message: "Email logins are disabled")
        }
        let email = try Validation.email(raw)
        let redirect = Redirects.target(for: request, project: project, emulator: emulator)
        let mailer = call.mailer(project)
        if let user = try emulator.user(in: tenant, .email(email)) {
            let kind: Mailer.Kind = user.emailVerifiedAt == nil ? .confirmation : .magicLink
            try mailer.checkFrequency(kind, for: user)
            try await mailer.send(kind, to: user, redirectTo: redirect, origin: origin, challenge: challenge)
            return [:]
        }
        if config.disableSignup { throw AuthError.signupDisabled }
        let data = try body.object("data") ?? [:]
        let user = try await AuthHooks(emulator: emulator, project: project).createUser(
            NewUser(email: email, userMetadata: data, identityData: data.merging(["email_verified": false, "phone_verified": false]) { $1 }),
            provider: "email", origin: origin)
        try await mailer.send(.confirmation, to: user, redirectTo: redirect, origin: origin, challenge: challenge)
        return [:]
    }
}

extension Otp {
    /// `/otp` with a phone: a code by SMS. A new (or unconfirmed) number is signed up and answered `{}`, as GoTrue's
    /// `SmsOtp` answers its sign-up path; a known one `SmsSender.answer`.
    private func sms(phone: String, body: JSONBody, call: Call, project: SupabaseProject) async throws -> JSON {
        guard project.config.phoneEnabled else {
            throw SupabaseError(status: .badRequest, code: .phoneProviderDisabled, message: "Unsupported phone provider")
        }
        let normalized = try Validation.phone(phone)
        try Validation.channel(try body.string("channel"), config: project.config)
        let sender = SmsSender(emulator: emulator, project: project)
        var user = try emulator.user(in: call.tenant, .phone(normalized))
        if user == nil {
            if project.config.disableSignup { throw AuthError.signupDisabled }
            let data = try body.object("data") ?? [:]
            user = try await AuthHooks(emulator: emulator, project: project).createUser(
                NewUser(phone: normalized, userMetadata: data, identityData: data.merging(["email_verified": false, "phone_verified": false]) { $1 }),
                provider: "phone", origin: call.origin)
        }
        guard let user else { throw AuthError.userNotFound }
        try sender.checkFrequency(for: user)
        let sent = try await sender.sendCode(to: user, origin: call.origin)
        return user.phoneVerifiedAt == nil && !project.config.phoneAutoconfirm ? [:] : SmsSender.answer(sent)
    }
}

/// `POST /recover` (`internal/api/recover.go`): the password-reset email. `{}` for unknown addresses
/// too, so nothing leaks.
struct Recover {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        // GoTrue's `requireEmailProvider`, in front of the handler.
        guard project.config.emailEnabled else {
            throw SupabaseError(status: .badRequest, code: .emailProviderDisabled, message: "Email logins are disabled")
        }
        guard let raw = try body.string("email"), !raw.isEmpty else { throw SupabaseError.validation("Password recovery requires an email") }
        let email = try Validation.email(raw)
        let challenge = try PKCE.challenge(in: body)
        guard let user = try emulator.user(in: tenant, .email(email)) else { return [:] }
        let mailer = call.mailer(project)
        try mailer.checkFrequency(.recovery, for: user)
        try await mailer.send(.recovery, to: user, redirectTo: Redirects.target(for: request, project: project, emulator: emulator), origin: origin,
                        challenge: challenge)
        return [:]
    }
}

/// `POST /resend` (`internal/api/resend.go`): the sign-up confirmation, or a pending email or phone
/// change's, again. `{}` when the user is unknown, already confirmed or has no change pending. A PKCE client's
/// sign-up or email change resent is a PKCE flow again, as GoTrue makes it (supabase-js sends its challenge).
struct Resend {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        let type = try body.string("type") ?? ""
        let email = try body.string("email") ?? "", phone = try body.string("phone") ?? ""
        // GoTrue's `ResendConfirmationParams.Validate`, in its order.
        let challenge: PKCEChallenge?
        switch type {
        case "signup", "email_change": challenge = try PKCE.challenge(in: body)
        case "sms", "phone_change": challenge = nil
        default: throw SupabaseError.validation("Missing one of these types: signup, email_change, sms, phone_change")
        }
        if email.isEmpty, type == "signup" { throw SupabaseError.validation("Type provided requires an email address") }
        if phone.isEmpty, type == "sms" { throw SupabaseError.validation("Type provided requires a phone number") }
        let identifier: Identifier
        switch (email.isEmpty, phone.isEmpty) {
        case (false, false): throw SupabaseError.validation("Only an email address or phone number should be provided.")
        case (false, true):
            guard project.config.emailEnabled else {
                throw SupabaseError(status: .badRequest, code: .emailProviderDisabled, message: "Email logins are disabled")
            }
            identifier = .email(try Validation.email(email))
        case (true, false):
            guard project.config.phoneEnabled else {
                throw SupabaseError(status: .badRequest, code: .phoneProviderDisabled, message: "Phone logins are disabled")
            }
            identifier = .phone(try Validation.phone(phone))
        case (true, true): throw SupabaseError.validation("Missing email address or phone number")
        }
        guard let user = try emulator.user(in: tenant, identifier) else { return [:] }
        switch type {
        case "signup":
            guard user.emailVerifiedAt == nil else { return [:] }
            let mailer = call.mailer(project)
            try mailer.checkFrequency(.confirmation, for: user)
            try await mailer.send(.confirmation, to: user, redirectTo: Redirects.target(for: request, project: project, emulator: emulator), origin: origin,
                                  challenge: challenge)
            return [:]
        case "sms":
            guard user.phoneVerifiedAt == nil else { return [:] }
            let sms = SmsSender(emulator: emulator, project: project)
            try sms.checkFrequency(for: user)
            return SmsSender.answer(try await sms.sendCode(to: user, origin: origin))
        case "email_change":
            // The confirmation goes to the pending address (and the current).
            guard let pending = user.pendingEmail else { return [:] }
            if let challenge {
                try call.mailer(project).checkFrequency(.emailChange, for: user, address: pending)
                try emulator.startFlow(in: tenant, userId: user.id, challenge: challenge, authenticationMethod: Mailer.Kind.emailChange.authenticationMethod)
            }
            try await UpdateUser.sendEmailChange(user, to: pending, pkce: challenge != nil, call: call, project: project)
            return [:]
        default:
            guard let pending = user.pendingPhone else { return [:] }
            let sms = SmsSender(emulator: emulator, project: project)
            try sms.checkFrequency(for: user, address: pending, purpose: .phoneChange)
            return SmsSender.answer(try await sms.sendCode(to: user, address: pending, origin: origin, purpose: .phoneChange))
        }
    }
}
