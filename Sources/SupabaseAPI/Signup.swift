import AuthCore
import Foundation
import Hummingbird

/// `POST /signup` (`internal/api/signup.go`).
struct Signup {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let body = try await JSONBody.read(request)
        let project = try projects.project(tenant)
        let config = project.config
        if config.disableSignup { throw AuthError.signupDisabled }
        let email = try body.string("email"), phone = try body.string("phone"), password = try body.string("password")
        let data = try body.object("data") ?? [:]
        let challenge = try PKCE.challenge(in: body)
        if (email ?? "").isEmpty && (phone ?? "").isEmpty {
            // No identifier is an anonymous sign-in in GoTrue.
            guard config.anonymousEnabled else {
                throw SupabaseError(status: .unprocessableContent, code: .anonymousProviderDisabled, message: "Anonymous sign-ins are disabled")
            }
            let user = try emulator.createUser(in: tenant, NewUser(isAnonymous: true, userMetadata: data), origin: origin, event: .userSignedUp)
            return try emulator.goTrueSession(for: user, method: "anonymous", project: project, origin: origin)
        }
        guard (phone ?? "").isEmpty else { throw AuthError.providerDisabled("phone") }
        guard config.emailEnabled else { throw AuthError.providerDisabled("email") }
        guard let password, !password.isEmpty else { throw SupabaseError.validation("Signup requires a valid password") }
        guard password.utf8.count <= 72 else { throw SupabaseError.validation("Password cannot be longer than 72 characters") }
        try config.passwordPolicy.check(password)
        guard let normalized = try Identifiers.email(email) else { throw AuthError.invalidEmail }
        let mailer = call.mailer(project)
        let redirect = Redirects.target(for: request, project: project, emulator: emulator)

        if let existing = try emulator.user(in: tenant, .email(normalized)) {
            return try signUpExisting(existing, project: project, mailer: mailer, redirect: redirect, origin: origin, challenge: challenge)
        }
        var metadata = data
        if config.mailerAutoconfirm { metadata["email_verified"] = true }
        var identityData = data
        identityData["email_verified"] = .bool(config.mailerAutoconfirm)
        identityData["phone_verified"] = false
        let user = try emulator.createUser(in: tenant, NewUser(
            email: normalized, password: password, emailVerified: config.mailerAutoconfirm, userMetadata: metadata,
            identityData: identityData), origin: origin, event: .userSignedUp)
        if config.mailerAutoconfirm {
            return try emulator.goTrueSession(for: user, method: "password", project: project, origin: origin)
        }
        try mailer.send(.confirmation, to: user, redirectTo: redirect, origin: origin, challenge: challenge)
        return GoTrueJSON.user(try emulator.requireUser(in: tenant, id: user.id), config: config)
    }

    /// GoTrue never reveals that an email is taken when confirmations are on: a confirmed user gets a
    /// made-up user back (new id, no identities); an unconfirmed one gets the confirmation again,
    /// subject to `GOTRUE_SMTP_MAX_FREQUENCY`. With autoconfirm on it answers `user_already_exists`.
    private func signUpExisting(_ user: User, project: SupabaseProject, mailer: Mailer, redirect: String, origin: RequestOrigin,
                                challenge: PKCEChallenge?) throws -> JSON {
        let config = project.config
        if user.emailVerifiedAt != nil {
            if config.mailerAutoconfirm {
                throw SupabaseError(status: .unprocessableContent, code: .userAlreadyExists, message: "User already registered")
            }
            let now = emulator.clock.now
            var decoy = user
            decoy.id = emulator.generator.uuid()
            decoy.identities = []
            decoy.emailVerifiedAt = nil
            decoy.createdAt = now; decoy.updatedAt = now; decoy.verificationSentAt = now; decoy.lastSignInAt = nil
            decoy.userMetadata = [:]; decoy.appMetadata = [:]
            return GoTrueJSON.user(decoy, config: config)
        }
        try mailer.checkFrequency(.confirmation, for: user)
        try mailer.send(.confirmation, to: user, redirectTo: redirect, origin: origin, challenge: challenge)
        return GoTrueJSON.user(try emulator.requireUser(in: user.tenant, id: user.id), config: config)
    }
}
