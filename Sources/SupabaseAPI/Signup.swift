import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `POST /signup` (`internal/api/signup.go`).
struct Signup {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        let config = project.config
        let email = try body.string("email"), phone = try body.string("phone"), password = try body.string("password")
        let data = try body.object("data") ?? [:]
        let challenge = try PKCE.challenge(in: body)
        if (email ?? "").isEmpty && (phone ?? "").isEmpty {
            // No identifier is an anonymous sign-in in GoTrue.
            guard config.anonymousEnabled else {
                throw SupabaseError(status: .unprocessableContent, code: .anonymousProviderDisabled, message: "Anonymous sign-ins are disabled")
            }
            try call.checkRequestLimit(.anonymous)
            // The route decides anonymity from the body, then the anonymous switch and limit, and only then does
            // SignupAnonymously refuse a project without sign-ups.
            if config.disableSignup { throw AuthError.signupDisabled }
            let user = try await AuthHooks(emulator: emulator, project: project).createUser(NewUser(isAnonymous: true, userMetadata: data),
                                                                                          provider: "anonymous", origin: origin)
            return try await emulator.goTrueSession(for: user, method: "anonymous", project: project, origin: origin).json
        }
        if config.disableSignup { throw AuthError.signupDisabled }
        try call.checkRequestLimit(.otp)
        guard let password, !password.isEmpty else { throw SupabaseError.validation("Signup requires a valid password") }
        // GoTrue's `validateSignupParams`: the password's strength (its length in bytes first) before the address.
        try config.passwordPolicy.check(password)
        let signup = try Confirmation(email: email, phone: phone, config: config)
        let sender = Sender(mailer: call.mailer(project), sms: SmsSender(emulator: emulator, project: project),
                            redirect: Redirects.target(for: request, project: project, emulator: emulator), origin: origin, challenge: challenge)

        if let existing = try emulator.user(in: tenant, signup.identifier) {
            return try await signUpExisting(existing, signup, data: data, project: project, sender: sender)
        }
        let verified = signup.autoconfirm ? signup.verifiedFlag : nil
        var metadata = data
        if let verified { metadata[verified] = true }
        var identityData = data
        identityData["email_verified"] = .bool(verified == "email_verified")
        identityData["phone_verified"] = .bool(verified == "phone_verified")
        let hooks = AuthHooks(emulator: emulator, project: project)
        let user = try await hooks.createUser(NewUser(
            email: signup.email, phone: signup.phone, password: password, emailVerified: verified == "email_verified",
            phoneVerified: verified == "phone_verified", userMetadata: metadata, identityData: identityData),
            provider: signup.phone == nil ? "email" : "phone", origin: origin, thenAfter: false)
        if signup.autoconfirm {
            // GoTrue answers an auto-confirmed sign-up with its session before the point where it calls the
            // after-user-created hook (signup.go), so that hook is not called for one.
            return try await emulator.goTrueSession(for: user, method: "password", project: project, origin: origin).json
        }
        do {
            try await sender.sendConfirmation(to: user, signup)
        } catch {
            // GoTrue makes the user and sends the confirmation in one transaction: a send that fails (a
            // send_email or send_sms hook's refusal, a mail server down) leaves no user behind.
            try? emulator.deleteUser(in: tenant, id: user.id, origin: origin)
            throw error
        }
        do {
            try await hooks.afterUserCreated(user, origin: origin)
        } catch {
            // The user stays (it is committed); GoTrue wraps the hook's failure.
            throw SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: "Error invoking hook")
        }
        return GoTrueJSON.user(try emulator.requireUser(in: tenant, id: user.id), config: config)
    }

    /// GoTrue never reveals that an address is taken when confirmations are on: a confirmed user gets a
    /// made-up user back (new id, no identities); an unconfirmed one gets the confirmation again,
    /// subject to the send cooldown. With autoconfirm on it answers `user_already_exists`.
    private func signUpExisting(_ user: User, _ signup: Confirmation, data: [String: JSON], project: SupabaseProject,
                                sender: Sender) async throws -> JSON {
        let config = project.config
        let confirmed = signup.phone == nil ? user.emailVerifiedAt != nil : user.phoneVerifiedAt != nil
        if confirmed {
            // Either autoconfirm tells, whichever channel this sign-up is on (`config.Mailer.Autoconfirm || config.Sms.Autoconfirm`).
            if config.mailerAutoconfirm || config.phoneAutoconfirm {
                throw SupabaseError(status: .unprocessableContent, code: .userAlreadyExists, message: "User already registered")
            }
            // GoTrue's `sanitizeUser`, field by field: what it resets, and what it keeps of the real user (the other
            // `*_sent_at` stamps, `new_phone`, `invited_at`, a ban), as it does.
            let now = emulator.clock.now
            let provider = signup.phone == nil ? "email" : "phone"
            var decoy = user
            decoy.id = emulator.generator.uuid()
            decoy.identities = []
            decoy.emailVerifiedAt = nil; decoy.phoneVerifiedAt = nil; decoy.lastSignInAt = nil; decoy.pendingEmail = nil
            decoy.createdAt = now; decoy.updatedAt = now
            decoy.sentAt[.verification] = now; decoy.sentAt[.emailChange] = nil
            decoy.userMetadata = data
            decoy.appMetadata = ["provider": .string(provider), "providers": [.string(provider)]]
            if signup.phone == nil { decoy.phone = nil } else { decoy.email = nil }
            return GoTrueJSON.user(decoy, config: config, role: "")
        }
        try sender.checkFrequency(for: user, signup)
        try await sender.sendConfirmation(to: user, signup)
        var answered = try emulator.requireUser(in: user.tenant, id: user.id)
        // An invited user's answer keeps back what the inviter set ("Remove sensitive fields", signup.go).
        if answered.invitedAt != nil {
            answered.userMetadata = [:]
            answered.identities = []
        }
        return GoTrueJSON.user(answered, config: config)
    }

    /// What a sign-up confirms: an email (by mail) or a phone (by SMS), each with its own switches.
    struct Confirmation {
        var email: String?
        var phone: String?
        var autoconfirm: Bool
        var identifier: Identifier { phone.map(Identifier.phone) ?? .email(email ?? "") }
        var verifiedFlag: String { phone == nil ? "email_verified" : "phone_verified" }

        init(email: String?, phone: String?, config: SupabaseConfig) throws {
            if let phone, !phone.isEmpty {
                guard config.phoneEnabled else { throw AuthError.providerDisabled("phone") }
                guard let normalized = try Identifiers.phone(phone) else { throw AuthError.invalidPhone }
                self.phone = normalized
                autoconfirm = config.phoneAutoconfirm
            } else {
                guard config.emailEnabled else { throw AuthError.providerDisabled("email") }
                self.email = try Validation.email(email)
                autoconfirm = config.mailerAutoconfirm
            }
        }
    }

    /// Sends the confirmation by the right channel.
    struct Sender {
        let mailer: Mailer
        let sms: SmsSender
        let redirect: String
        let origin: RequestOrigin
        let challenge: PKCEChallenge?

        func sendConfirmation(to user: User, _ signup: Confirmation) async throws {
            if signup.phone != nil {
                try await sms.sendCode(to: user, origin: origin)
            } else {
                try await mailer.send(.confirmation, to: user, redirectTo: redirect, origin: origin, challenge: challenge)
            }
        }

        func checkFrequency(for user: User, _ signup: Confirmation) throws {
            if signup.phone != nil { try sms.checkFrequency(for: user) } else { try mailer.checkFrequency(.confirmation, for: user) }
        }
    }
}
