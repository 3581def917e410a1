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

    /// `GET /admin/users?page=&per_page=&sort=`: newest first unless `sort=created_at asc`, as GoTrue
    /// lists them; empty values count as the defaults (1 and 50), anything but a whole number ≥ 0 is
    /// "Bad Pagination Parameters". `X-Total-Count` and `Link` tell the client how many pages there are.
    func list(_ call: Call) throws -> Response {
        let (request, tenant) = (call.request, call.tenant)
        let project = try adminProject(call)
        let query = request.uri.queryParameters
        // A form-encoded space is `+`, which Go's query parser reads as a space.
        let newestFirst = try Self.newestFirst(query.getAll("sort").map { $0.replacingOccurrences(of: "+", with: " ") })
        // Page 0 reads as page 1 (pop's Paginate), but GoTrue's links count from the page asked for. A page size of 0
        // is pop's 20 here; GoTrue's own link arithmetic divides by it and answers 500.
        let askedPage = try Self.pagination(query.get("page"), default: 1)
        let page = max(1, askedPage)
        var perPage = try Self.pagination(query.get("per_page"), default: 50)
        if perPage < 1 { perPage = 20 }
        perPage = min(perPage, 10_000)
        let filter = query.get("filter").map { UserSearch.goTrueFilter(String($0)) }
        let total = try emulator.userCount(in: tenant, search: filter)
        let users = try emulator.users(in: tenant, search: filter, limit: perPage, offset: (page - 1) * perPage, newestFirst: newestFirst)
        // GoTrue's calculateTotalPages: no users, no pages, so the last link names page 0.
        let last = (total + perPage - 1) / perPage
        var links: [String] = []
        if askedPage < last { links.append("<\(Self.pageLink(request, page: askedPage + 1))>; rel=\"next\"") }
        links.append("<\(Self.pageLink(request, page: last))>; rel=\"last\"")
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Total-Count")!] = String(total)
        headers[HTTPField.Name("Link")!] = links.joined(separator: ", ")
        return .json(["users": .array(users.map { GoTrueJSON.user($0, config: project.config) }), "aud": .string(project.config.jwtAudience)],
                     headers: headers)
    }

    /// A page's link as GoTrue's `addPaginationHeaders` writes it: the request's own path (as GoTrue sees it, under the
    /// gateway's `/auth/v1`) and query with `page` set, re-encoded as Go does, so `per_page`, `filter` and `sort` go on
    /// as the caller gave them.
    static func pageLink(_ request: Request, page: Int) -> String {
        GoQueryURL.url("/admin/users" + (request.uri.query.map { "?" + $0 } ?? ""), setting: [("page", String(page))])
    }

    /// GoTrue's `paginate`: `strconv.ParseUint`, so a sign or a letter is refused with Go's own words.
    private static func pagination(_ raw: String?, default value: Int) throws -> Int {
        guard let raw, !raw.isEmpty else { return value }
        guard let number = UInt64(raw) else {
            throw SupabaseError.validation("Bad Pagination Parameters: strconv.ParseUint: parsing \"\(raw)\": invalid syntax")
        }
        return Int(clamping: number)
    }

    /// GoTrue's `sort` for the admin list: `created_at` only, `asc` or `desc` (the default).
    /// Every value is checked, as GoTrue's loop does; the first decides the order.
    private static func newestFirst(_ values: [String]) throws -> Bool {
        let orders = try values.map { value in
            let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.first == "created_at" else { throw SupabaseError.validation("Bad Sort Parameters: bad field for sort '\(parts.first ?? "")'") }
            switch parts.count > 1 ? parts[1].uppercased() : "DESC" {
            case "ASC": return false
            case "DESC": return true
            default: throw SupabaseError.validation("Bad Sort Parameters: bad direction for sort '\(parts[1])', only 'asc' and 'desc' allowed")
            }
        }
        return orders.first ?? true
    }

    /// `POST /admin/users`.
    func create(_ call: Call) async throws -> JSON {
        let (origin, tenant) = (call.origin, call.tenant)
        let body = try call.body()
        let project = try adminProject(call)
        let rawEmail = try body.string("email") ?? "", rawPhone = try body.string("phone") ?? ""
        guard !rawEmail.isEmpty || !rawPhone.isEmpty else {
            throw SupabaseError.validation("Cannot create a user without either an email or phone")
        }
        let email = rawEmail.isEmpty ? nil : try Validation.email(rawEmail)
        let phone = rawPhone.isEmpty ? nil : try Validation.phone(rawPhone)
        var id: String?
        if let raw = try body.string("id"), !raw.isEmpty {
            guard let parsed = Validation.uuid(raw) else { throw SupabaseError.validation("ID must conform to the uuid v4 format") }
            guard parsed != "00000000-0000-0000-0000-000000000000" else { throw SupabaseError.validation("ID cannot be a nil uuid") }
            id = parsed
        }
        var password = try body.string("password")
        let passwordHash = try body.string("password_hash").flatMap { $0.isEmpty ? nil : $0 }
        if passwordHash != nil, password != nil { throw SupabaseError.validation("Only a password or a password hash should be provided") }
        // GoTrue's adminUserCreate checks no strength (an administrator may set "123"), only bcrypt's 72 bytes, and
        // gives a user created without a password a random one nobody knows.
        if let password, password.utf8.count > 72 { throw AuthError.invalidInput(field: "Password", reason: "cannot be longer than 72 characters") }
        if (password ?? "").isEmpty, passwordHash == nil { password = emulator.generator.lowerAlphanumeric(64) }
        if let passwordHash {
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
        var new = NewUser(
            id: id, email: email, phone: phone, password: password, passwordHash: passwordHash,
            emailVerified: confirmEmail, phoneVerified: body.fields["phone_confirm"]?.boolValue ?? false,
            userMetadata: userMetadata, appMetadata: try body.object("app_metadata") ?? [:],
            identityData: ["email_verified": .bool(confirmEmail), "phone_verified": false])
        // GoTrue's `role`: the token's role claim, for row-level security with roles of the app's own (`SetRole` trims it).
        new.role = try body.string("role").map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        var user = try emulator.createUser(in: tenant, new, origin: origin)
        if let ban = try banChange(body) { user = try emulator.updateUser(in: tenant, id: user.id, UserChanges(bannedUntil: ban), origin: origin) }
        return GoTrueJSON.user(user, config: project.config)
    }

    /// `GET /admin/users/{id}`.
    func get(_ call: Call) throws -> JSON {
        let project = try adminProject(call)
        let user = try findUser(call)
        return GoTrueJSON.user(user, config: project.config, factors: try emulator.factors(in: call.tenant, userId: user.id))
    }

    /// `PUT /admin/users/{id}`: a password set here ends all the user's sessions and retires the codes sent before it.
    func update(_ call: Call) async throws -> JSON {
        let (origin, tenant) = (call.origin, call.tenant)
        let body = try call.body()
        let project = try adminProject(call)
        let id = try findUser(call).id
        let password = try body.string("password")
        if let password { try project.config.passwordPolicy.check(password) }
        let email = try body.string("email").flatMap { $0.isEmpty ? nil : $0 }.map(Validation.email)
        // GoTrue confirms only on `email_confirm`/`phone_confirm` true; a new address alone keeps the confirmation.
        let confirmsEmail = body.fields["email_confirm"]?.boolValue == true, confirmsPhone = body.fields["phone_confirm"]?.boolValue == true
        let phone = try body.string("phone").flatMap { $0.isEmpty ? nil : $0 }.map(Validation.phone)
        // GoTrue's Confirm also records `email_verified` in the metadata.
        var userMetadata = try body.object("user_metadata")
        if confirmsEmail { userMetadata = (userMetadata ?? [:]).merging(["email_verified": true]) { $1 } }
        var changes = UserChanges(
            email: email, phone: phone, password: password,
            emailVerified: confirmsEmail ? true : nil, phoneVerified: confirmsPhone ? true : nil,
            userMetadata: userMetadata, appMetadata: try body.object("app_metadata"), bannedUntil: try banChange(body))
        changes.passwordRetiresCodes = true
        changes.keepsConfirmation = true
        changes.role = try body.string("role").map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        // An address confirmed here ends an anonymous user's anonymity (admin.go), as a confirmation link would.
        if (email != nil && confirmsEmail) || (phone != nil && confirmsPhone) { changes.isAnonymous = false }
        var user = try emulator.updateUser(in: tenant, id: id, changes, origin: origin)
        // The email identity takes the new address and whether this call confirmed it (GoTrue's UpdateIdentityData).
        if let email, let identity = user.identities.first(where: { $0.provider == "email" }) {
            var data = identity.data
            data["email"] = .string(email)
            data["email_verified"] = .bool(confirmsEmail)
            user = try emulator.linkIdentity(in: tenant, userId: id, NewIdentity(provider: "email", subject: identity.subject, email: email, data: data),
                                             origin: origin)
        }
        // The phone identity likewise, made with the number when the user had none.
        if let phone, let identity = user.identities.first(where: { $0.provider == "phone" }) {
            var data = identity.data
            data["phone"] = .string(GoTrueJSON.phone(phone))
            data["phone_verified"] = .bool(confirmsPhone)
            user = try emulator.linkIdentity(in: tenant, userId: id, NewIdentity(provider: "phone", subject: identity.subject, data: data), origin: origin)
        }
        if password != nil { try emulator.revokeSessions(in: tenant, userId: id, .all, reason: "password_changed_by_admin", origin: origin) }
        return GoTrueJSON.user(user, config: project.config, factors: try emulator.factors(in: tenant, userId: id))
    }

    /// `DELETE /admin/users/{id}`: removes the user, or with `should_soft_delete` keeps it obfuscated (`SoftDelete`). The
    /// body is read only when there is one, as GoTrue reads it.
    func delete(_ call: Call) throws -> JSON {
        _ = try adminProject(call)
        let user = try findUser(call)
        if try call.body(emptyAllowed: true).bool("should_soft_delete") == true {
            try SoftDelete.apply(to: user, emulator: emulator, origin: call.origin)
        } else {
            try emulator.deleteUser(in: call.tenant, id: user.id, origin: call.origin)
        }
        return [:]
    }

    /// The user the path names, after the caller is shown to be an admin (GoTrue's `loadUser` runs
    /// after `requireAdmin`). Ids compare as UUIDs: upper-case hex, as Foundation's `UUID` prints it,
    /// finds the user too; a seeded id in upper case still matches as written.
    private func findUser(_ call: Call) throws -> User {
        let id = try call.userParameter("id")
        guard let user = try emulator.user(in: call.tenant, id: id) ?? emulator.user(in: call.tenant, id: try call.parameter("id")) else {
            throw AuthError.userNotFound
        }
        return user
    }

    /// `ban_duration`: a Go duration from now, or `none` (or a zero duration) to lift a ban; nil when absent. GoTrue's
    /// refusal quotes Go's own error.
    private func banChange(_ body: JSONBody) throws -> Date?? {
        guard let raw = try body.string("ban_duration"), !raw.isEmpty else { return nil }
        if raw == "none" { return .some(nil) }
        switch GoDuration.parse(raw) {
        case .failure(let refusal): throw SupabaseError.validation("invalid format for ban duration: \(refusal.message)")
        case .success(let seconds): return .some(seconds == 0 ? nil : emulator.clock.now.addingTimeInterval(seconds))
        }
    }
}
