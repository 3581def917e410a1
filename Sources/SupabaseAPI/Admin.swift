import AuthCore
import Foundation
import HTTPTypes
import HTTPSupport
import Hummingbird

/// The admin user API (`internal/api/admin.go`): list, create, read, update and delete users with a
/// service-role token.
struct Admin {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// The request's project, once the caller is shown to be an admin.
    private func adminProject(_ call: Call) throws -> SupabaseProject {
        let project = try call.project()
        try Authentication(emulator: emulator).requireAdmin(call.request, project: project)
        return project
    }

    /// `GET /admin/users?page=&per_page=`: empty values count as the defaults (1 and 50), as GoTrue
    /// reads them; `X-Total-Count` and `Link` tell the client how many pages there are.
    func list(_ call: Call) throws -> Response {
        let (request, tenant) = (call.request, call.tenant)
        let project = try adminProject(call)
        let query = request.uri.queryParameters
        let page = max(1, query.get("page").flatMap { Int($0) } ?? 1)
        let perPage = min(1000, max(1, query.get("per_page").flatMap { Int($0) } ?? 50))
        let filter = query.get("filter").flatMap { $0.isEmpty ? nil : $0 }
        let total = filter == nil ? try emulator.userCount(in: tenant) : try emulator.users(in: tenant, query: filter, limit: 10_000).count
        let users = try emulator.users(in: tenant, query: filter, limit: perPage, offset: (page - 1) * perPage)
        let last = max(1, (total + perPage - 1) / perPage)
        var links: [String] = []
        if page < last { links.append("</admin/users?page=\(page + 1)&per_page=\(perPage)>; rel=\"next\"") }
        links.append("</admin/users?page=\(last)&per_page=\(perPage)>; rel=\"last\"")
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Total-Count")!] = String(total)
        headers[HTTPField.Name("Link")!] = links.joined(separator: ", ")
        return .json(["users": .array(users.map { GoTrueJSON.user($0, config: project.config) }), "aud": .string(project.config.jwtAudience)],
                     headers: headers)
    }

    /// `POST /admin/users`.
    func create(_ call: Call) async throws -> JSON {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let body = try await JSONBody.read(request)
        let project = try adminProject(call)
        let email = try body.string("email"), phone = try body.string("phone")
        guard !(email ?? "").isEmpty || !(phone ?? "").isEmpty else {
            throw SupabaseError.validation("Unable to validate email address: invalid format")
        }
        let password = try body.string("password"), passwordHash = try body.string("password_hash")
        if let password { try project.config.passwordPolicy.check(password) }
        if let passwordHash {
            // An imported hash skips the password policy, as in GoTrue: the plaintext is not known.
            guard password == nil else { throw SupabaseError.validation("Only a password or a password hash should be provided") }
            if passwordHash.hasPrefix("$argon2") || passwordHash.hasPrefix("$fbscrypt$") {
                throw SupabaseError.validation("Fauxth checks bcrypt password hashes only; argon2 and Firebase scrypt imports are not emulated")
            }
            guard Bcrypt.Hash(passwordHash) != nil else {
                throw SupabaseError.validation("Invalid password hash: expected bcrypt ($2a$, $2b$ or $2y$, cost 4 to 31)")
            }
        }
        let confirmEmail = body.fields["email_confirm"]?.boolValue ?? false
        var userMetadata = try body.object("user_metadata") ?? [:]
        if confirmEmail { userMetadata["email_verified"] = true }
        var user = try emulator.createUser(in: tenant, NewUser(
            id: try body.string("id"), email: email, phone: phone, password: password, passwordHash: passwordHash,
            emailVerified: confirmEmail, phoneVerified: body.fields["phone_confirm"]?.boolValue ?? false,
            userMetadata: userMetadata, appMetadata: try body.object("app_metadata") ?? [:],
            identityData: ["email_verified": .bool(confirmEmail), "phone_verified": false]), origin: origin)
        if let ban = try banChange(body) { user = try emulator.updateUser(in: tenant, id: user.id, UserChanges(bannedUntil: ban), origin: origin) }
        return GoTrueJSON.user(user, config: project.config)
    }

    /// `GET /admin/users/{id}`.
    func get(_ call: Call) throws -> JSON {
        let (id, tenant) = (try call.parameter("id"), call.tenant)
        let project = try adminProject(call)
        return GoTrueJSON.user(try findUser(id, tenant: tenant), config: project.config)
    }

    /// `PUT /admin/users/{id}`: a password set here ends all the user's sessions.
    func update(_ call: Call) async throws -> JSON {
        let (request, id, origin, tenant) = (call.request, try call.parameter("id"), call.origin, call.tenant)
        let body = try await JSONBody.read(request)
        let project = try adminProject(call)
        _ = try findUser(id, tenant: tenant)
        let password = try body.string("password")
        if let password { try project.config.passwordPolicy.check(password) }
        let changes = UserChanges(
            email: try body.string("email"), phone: try body.string("phone"), password: password,
            emailVerified: body.fields["email_confirm"]?.boolValue, phoneVerified: body.fields["phone_confirm"]?.boolValue,
            userMetadata: try body.object("user_metadata"), appMetadata: try body.object("app_metadata"), bannedUntil: try banChange(body))
        let user = try emulator.updateUser(in: tenant, id: id, changes, origin: origin)
        if password != nil { try emulator.revokeSessions(in: tenant, userId: id, .all, reason: "password_changed_by_admin", origin: origin) }
        return GoTrueJSON.user(user, config: project.config)
    }

    /// `DELETE /admin/users/{id}` (a `should_soft_delete` body is accepted; the user is removed either way).
    func delete(_ call: Call) throws -> JSON {
        let (id, origin, tenant) = (try call.parameter("id"), call.origin, call.tenant)
        _ = try adminProject(call)
        _ = try findUser(id, tenant: tenant)
        try emulator.deleteUser(in: tenant, id: id, origin: origin)
        return [:]
    }

    private func findUser(_ id: String, tenant: String) throws -> User {
        guard UUID(uuidString: id) != nil else {
            throw SupabaseError(status: .notFound, code: .validationFailed, message: "user_id must be an UUID")
        }
        guard let user = try emulator.user(in: tenant, id: id) else { throw AuthError.userNotFound }
        return user
    }

    /// `ban_duration`: a Go duration from now, or `none` to lift a ban; nil when absent.
    private func banChange(_ body: JSONBody) throws -> Date?? {
        guard let raw = try body.string("ban_duration"), !raw.isEmpty else { return nil }
        if raw == "none" { return .some(nil) }
        guard let seconds = GoDuration.seconds(raw) else { throw SupabaseError.validation("invalid format for ban duration: \(raw)") }
        return .some(emulator.clock.now.addingTimeInterval(seconds))
    }
}
