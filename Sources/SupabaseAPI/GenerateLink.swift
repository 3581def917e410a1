import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `POST /admin/generate_link` and `POST /invite` (`internal/api/mail.go`, `invite.go`).
struct GenerateLink {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// Issues the code and link of an email without sending it, and answers the user with the link
    /// properties flattened into the same object, as GoTrue does.
    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        try Authentication(emulator: emulator).requireAdmin(request, project: project)
        var type = try body.string("type") ?? ""
        let email = try Validation.email(try body.string("email"))
        // The body's `redirect_to` (GoTrue's `GenerateLinkParams`, which raw callers send) wins when allowed; then the
        // query's or header's, as everywhere (supabase-js and supabase-py send it there).
        let requested = try body.string("redirect_to").flatMap { Redirects.isAllowed($0, config: project.config) ? $0 : nil }
        let redirect = requested ?? Redirects.target(for: request, project: project, emulator: emulator)
        let kind: Mailer.Kind
        var user: User
        var address: String?
        switch type {
        case "signup":
            kind = .confirmation
            user = try await signUp(email, tenant: tenant, password: try body.string("password"), data: try body.object("data"), origin: origin, project: project)
        case "invite":
            kind = .invite
            user = try await newOrUnconfirmed(email, tenant: tenant, password: nil, data: try body.object("data"), origin: origin, project: project)
        case "magiclink" where try emulator.user(in: tenant, .email(email)) == nil:
            // GoTrue turns a magic link for an unknown address into a sign-up (with a password nobody knows).
            (type, kind) = ("signup", .confirmation)
            user = try await newOrUnconfirmed(email, tenant: tenant, password: nil, data: try body.object("data"), origin: origin, project: project)
        case "magiclink", "recovery":
            kind = type == "recovery" ? .recovery : .magicLink
            user = try existing(email, tenant: tenant)
        case "email_change_current", "email_change_new":
            kind = .emailChange
            user = try existing(email, tenant: tenant)
            (user, address) = try pendEmailChange(user, type: type, newEmail: try body.string("new_email"), project: project)
        default:
            throw SupabaseError.validation("Invalid email action link type requested: \(type)")
        }
        let prepared = try call.mailer(project).prepare(kind, for: user, address: address, redirectTo: redirect, origin: origin)
        // Stamped though nothing is sent, as GoTrue's `adminGenerateLink` does.
        try emulator.markSent(kind.sentMessage, in: tenant, userId: user.id)
        if kind == .invite { try emulator.markInvited(in: tenant, userId: user.id) }
        var json = GoTrueJSON.user(try emulator.requireUser(in: tenant, id: user.id), config: project.config).objectValue ?? [:]
        json["action_link"] = .string(prepared.link)
        json["email_otp"] = .string(prepared.code.code)
        json["hashed_token"] = JSON(prepared.code.linkToken)
        json["verification_type"] = .string(type)
        json["redirect_to"] = .string(redirect)
        return .object(json)
    }

    private func existing(_ email: String, tenant: String) throws -> User {
        guard let user = try emulator.user(in: tenant, .email(email)) else {
            throw SupabaseError(status: .notFound, code: .userNotFound, message: "User with this email not found")
        }
        return user
    }

    /// `email_change_current` / `email_change_new` (GoTrue's `adminGenerateLink`): `new_email` waits as
    /// the user's `new_email`; the link goes to the current address or to the new one, and `/verify`
    /// type `email_change` applies the change once every link issued is used. The `hashed_token`
    /// answered is the link's own (GoTrue answers the current address's hash even for the new one's
    /// link, which verifies nothing).
    private func pendEmailChange(_ user: User, type: String, newEmail: String?, project: SupabaseProject) throws -> (User, String?) {
        if type == "email_change_current", !project.config.secureEmailChange {
            throw SupabaseError.validation("Enable secure email change to generate link for current email")
        }
        let address = try Validation.email(newEmail)
        try emulator.setPendingEmail(in: user.tenant, userId: user.id, address)
        return (try emulator.requireUser(in: user.tenant, id: user.id), type == "email_change_new" ? address : user.email)
    }

    /// `POST /invite`: creates the user if needed and sends the invitation.
    func invite(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try call.bodyAndProject()
        try Authentication(emulator: emulator).requireAdmin(request, project: project)
        let email = try Validation.email(try body.string("email"))
        let user = try await newOrUnconfirmed(email, tenant: tenant, password: nil, data: try body.object("data"), origin: origin, project: project)
        try await call.mailer(project).send(.invite, to: user, redirectTo: Redirects.target(for: request, project: project, emulator: emulator), origin: origin)
        try emulator.markInvited(in: tenant, userId: user.id)
        return GoTrueJSON.user(try emulator.requireUser(in: tenant, id: user.id), config: project.config)
    }

    /// A `signup` link's user, as GoTrue's `adminGenerateLink` makes it: a new one needs a password (checked as a sign-up's
    /// is); an unconfirmed one takes `data` into its metadata, merged as a user update merges it.
    private func signUp(_ email: String, tenant: String, password: String?, data: [String: JSON]?, origin: RequestOrigin,
                        project: SupabaseProject) async throws -> User {
        if let existing = try emulator.user(in: tenant, .email(email)) {
            guard existing.emailVerifiedAt == nil else { throw AuthError.emailTaken }
            guard let data else { return existing }
            return try emulator.updateUser(in: tenant, id: existing.id, UserChanges(userMetadata: data), origin: origin)
        }
        guard let password, !password.isEmpty else { throw SupabaseError.validation("Signup requires a valid password") }
        return try await newOrUnconfirmed(email, tenant: tenant, password: password, data: data, origin: origin, project: project)
    }

    /// The unconfirmed user with this email, created when absent; a confirmed one is `email_exists`.
    private func newOrUnconfirmed(_ email: String, tenant: String, password: String?, data: [String: JSON]?, origin: RequestOrigin,
                                  project: SupabaseProject) async throws -> User {
        if let existing = try emulator.user(in: tenant, .email(email)) {
            guard existing.emailVerifiedAt == nil else { throw AuthError.emailTaken }
            return existing
        }
        if let password { try project.config.passwordPolicy.check(password) }
        return try await AuthHooks(emulator: emulator, project: project).createUser(
            NewUser(email: email, password: password, userMetadata: data ?? [:], identityData: ["email_verified": false, "phone_verified": false]),
            provider: "email", origin: origin, event: .userCreated)
    }
}
