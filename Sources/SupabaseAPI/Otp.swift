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

    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        let config = project.config
        if let phone = try body.string("phone"), !phone.isEmpty {
            return try await sms(phone: phone, body: body, call: call, project: project)
        }
        guard let raw = try body.string("email"), !raw.isEmpty else {
            throw SupabaseError.validation("An email address or phone number is required")
        }
        let email = try Validation.email(raw)
        guard config.emailEnabled else { throw AuthError.providerDisabled("email") }
        let createUser = body.fields["create_user"]?.boolValue ?? true
        let challenge = try PKCE.challenge(in: body)
        let redirect = Redirects.target(for: request, project: project, emulator: emulator)
        let mailer = call.mailer(project)
        if let user = try emulator.user(in: tenant, .email(email)) {
            let kind: Mailer.Kind = user.emailVerifiedAt == nil ? .confirmation : .magicLink
            try mailer.checkFrequency(kind, for: user)
            try await mailer.send(kind, to: user, redirectTo: redirect, origin: origin, challenge: challenge)
            return [:]
        }
        guard createUser else {
            throw SupabaseError(status: .unprocessableContent, code: .otpDisabled, message: "Signups not allowed for otp")
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
        guard project.config.phoneEnabled else { throw AuthError.providerDisabled("phone") }
        guard let normalized = try Identifiers.phone(phone) else { throw AuthError.invalidPhone }
        let sender = SmsSender(emulator: emulator, project: project)
        var user = try emulator.user(in: call.tenant, .phone(normalized))
        if user == nil {
            guard body.fields["create_user"]?.boolValue ?? true else {
                throw SupabaseError(status: .unprocessableContent, code: .otpDisabled, message: "Signups not allowed for otp")
            }
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
/// change's, again. `{}` when the user is unknown, already confirmed or has no change pending.
struct Resend {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        let type = try body.string("type") ?? ""
        switch type {
        case "signup":
            guard let raw = try body.string("email"), !raw.isEmpty else { throw SupabaseError.validation("Type provided requires an email address") }
            let email = try Validation.email(raw)
            guard let user = try emulator.user(in: tenant, .email(email)), user.emailVerifiedAt == nil else { return [:] }
            let mailer = call.mailer(project)
            try mailer.checkFrequency(.confirmation, for: user)
            try await mailer.send(.confirmation, to: user, redirectTo: Redirects.target(for: request, project: project, emulator: emulator), origin: origin)
            return [:]
        case "sms":
            guard let phone = try Identifiers.phone(try body.string("phone")) else {
                throw SupabaseError.validation("Type provided requires a phone number")
            }
            guard let user = try emulator.user(in: tenant, .phone(phone)), user.phoneVerifiedAt == nil else { return [:] }
            let sms = SmsSender(emulator: emulator, project: project)
            try sms.checkFrequency(for: user)
            return SmsSender.answer(try await sms.sendCode(to: user, origin: origin))
        case "email_change":
            // The current address names the user; the confirmation goes to the pending one (and the current).
            guard let raw = try body.string("email"), !raw.isEmpty else { throw SupabaseError.validation("Type provided requires an email address") }
            guard let user = try emulator.user(in: tenant, .email(try Validation.email(raw))), let pending = user.pendingEmail else { return [:] }
            try await UpdateUser.sendEmailChange(user, to: pending, call: call, project: project)
            return [:]
        case "phone_change":
            guard let phone = try Identifiers.phone(try body.string("phone")) else {
                throw SupabaseError.validation("Type provided requires a phone number")
            }
            guard let user = try emulator.user(in: tenant, .phone(phone)), let pending = user.pendingPhone else { return [:] }
            let sms = SmsSender(emulator: emulator, project: project)
            try sms.checkFrequency(for: user, address: pending, purpose: .phoneChange)
            return SmsSender.answer(try await sms.sendCode(to: user, address: pending, origin: origin, purpose: .phoneChange))
        default:
            throw SupabaseError.validation("Missing one of these types: signup, email_change, sms, phone_change")
        }
    }
}
