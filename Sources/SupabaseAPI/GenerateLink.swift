import AuthCore
import Foundation
import Hummingbird

/// `POST /admin/generate_link` and `POST /invite` (`internal/api/mail.go`, `invite.go`).
struct GenerateLink {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// Issues the code and link of an email without sending it, and answers the user with the link
    /// properties flattened into the same object, as GoTrue does.
    func handle(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try await call.bodyAndProject()
        try Authentication(emulator: emulator).requireAdmin(request, project: project)
        let type = try body.string("type") ?? ""
        guard let email = try Identifiers.email(try body.string("email")) else { throw AuthError.invalidEmail }
        let redirect = Redirects.target(for: request, project: project, emulator: emulator)
        let kind: Mailer.Kind
        let user: User
        switch type {
        case "signup":
            kind = .confirmation
            user = try newOrUnconfirmed(email, tenant: tenant, password: try body.string("password"), data: try body.object("data"), origin: origin, project: project)
        case "invite":
            kind = .invite
            user = try newOrUnconfirmed(email, tenant: tenant, password: nil, data: try body.object("data"), origin: origin, project: project)
        case "magiclink", "recovery":
            kind = type == "recovery" ? .recovery : .magicLink
            guard let existing = try emulator.user(in: tenant, .email(email)) else { throw AuthError.userNotFound }
            user = existing
        case "email_change_current", "email_change_new":
            throw SupabaseError.validation("Fauxth does not emulate email changes yet")
        default:
            throw SupabaseError.validation("Invalid email action link type requested: \(type)")
        }
        let prepared = try call.mailer(project).prepare(kind, for: user, redirectTo: redirect, origin: origin)
        var json = GoTrueJSON.user(try emulator.requireUser(in: tenant, id: user.id), config: project.config).objectValue ?? [:]
        json["action_link"] = .string(prepared.link)
        json["email_otp"] = .string(prepared.code.code)
        json["hashed_token"] = JSON(prepared.code.linkToken)
        json["verification_type"] = .string(type)
        json["redirect_to"] = .string(redirect)
        return .object(json)
    }

    /// `POST /invite`: creates the user if needed and sends the invitation.
    func invite(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let (body, project) = try await call.bodyAndProject()
        try Authentication(emulator: emulator).requireAdmin(request, project: project)
        guard let email = try Identifiers.email(try body.string("email")) else { throw AuthError.invalidEmail }
        let user = try newOrUnconfirmed(email, tenant: tenant, password: nil, data: try body.object("data"), origin: origin, project: project)
        try call.mailer(project).send(.invite, to: user, redirectTo: Redirects.target(for: request, project: project, emulator: emulator), origin: origin)
        return GoTrueJSON.user(try emulator.requireUser(in: tenant, id: user.id), config: project.config)
    }

    /// The unconfirmed user with this email, created when absent; a confirmed one is `email_exists`.
    private func newOrUnconfirmed(_ email: String, tenant: String, password: String?, data: [String: JSON]?, origin: RequestOrigin,
                                  project: SupabaseProject) throws -> User {
        if let existing = try emulator.user(in: tenant, .email(email)) {
            guard existing.emailVerifiedAt == nil else { throw AuthError.emailTaken }
            return existing
        }
        if let password { try project.config.passwordPolicy.check(password) }
        return try emulator.createUser(in: tenant, NewUser(email: email, password: password, userMetadata: data ?? [:],
                                                           identityData: ["email_verified": false, "phone_verified": false]), origin: origin)
    }
}
