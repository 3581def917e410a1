import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

extension ControlAPI {
    /// `/tenants` and their users, across dialects.
    func addTenantRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { _, _ in
            let tenants = try emulator.tenants().map { ControlJSON.tenant($0, userCount: try emulator.userCount(in: $0.id)) }
            return ControlJSON.response(["tenants": .array(tenants)])
        }
        group.post { request, _ in
            var body = try await ControlRequest(request: request).body()
            guard let dialect = Dialect(rawValue: try body.string("dialect", required: true) ?? "") else {
                throw ControlError.badRequest("dialect: one of \(Dialect.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            // Without an id, a fresh one from the emulator's generator (reproducible under --deterministic): what a
            // test helper asks for when each test wants a tenant of its own.
            let id = try body.string("id") ?? newTenantID(dialect) ?? "t-" + emulator.generator.string(12, alphabet: "0123456789abcdef")
            let name = try body.string("name")
            for key in ["id", "dialect", "name", "users"] { body.removeValue(forKey: key) }
            do {
                try checkTenant(Tenant(id: id, dialect: dialect, name: name ?? id, settings: body, createdAt: emulator.clock.now))
            } catch {
                throw ControlError.badRequest("\(error)")
            }
            let tenant = try emulator.createTenant(id: id, dialect: dialect, name: name, settings: body)
            return ControlJSON.response(ControlJSON.tenant(tenant, userCount: 0), status: .created)
        }
        group.get(":tenant") { _, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant"))
            return ControlJSON.response(ControlJSON.tenant(tenant, userCount: try emulator.userCount(in: tenant.id)))
        }
        group.delete(":tenant") { _, context in
            try emulator.deleteTenant(try context.parameters.decoded("tenant"))
            return Response(status: .noContent)
        }
        addPolicyRoutes(to: group)
        addHookRoutes(to: group)
        group.get(":tenant/sessions") { request, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant")).id
            let limit = try ControlRequest(request: request).listFilter().limit
            let sessions = try emulator.activeSessions(in: tenant, limit: limit)
            var people: [String: User] = [:]
            for id in Set(sessions.map(\.userId)) { people[id] = try emulator.user(in: tenant, id: id) }
            return ControlJSON.response(["sessions": .array(sessions.map { session in
                guard case .object(var o) = ControlJSON.session(session) else { return .null }
                let user = people[session.userId]
                o["user"] = ["id": .string(session.userId), "email": JSON(user?.email), "phone": JSON(user?.phone), "username": JSON(user?.username)]
                return .object(o)
            })])
        }
        group.delete(":tenant/sessions") { request, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant")).id
            return ControlJSON.response(["revoked": .int(try emulator.revokeAllSessions(in: tenant, reason: "control_api", origin: request.origin(context)))])
        }
        addUserRoutes(to: group.group(":tenant/users"))
    }

    /// A user with their second factors (no secrets), as the console's user page shows them.
    private func userDetail(in tenant: String, id: String) throws -> JSON {
        guard case .object(var o) = ControlJSON.user(try emulator.requireUser(in: tenant, id: id)) else { return .null }
        o["factors"] = .array(try emulator.factors(in: tenant, userId: id).map { f in
            ["id": .string(f.id), "kind": .string(f.kind), "status": .string(f.verified ? "verified" : "unverified"),
             "friendly_name": JSON(f.friendlyName), "phone": JSON(f.phone), "created_at": ControlJSON.time(f.createdAt)]
        })
        return .object(o)
    }

    /// `GET /users`: users of every tenant (or of `tenant`), each naming its tenant, as the console's "all tenants" lists them.
    func addAllUsersRoute<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get("users") { request, _ in
            let control = ControlRequest(request: request)
            let filter = try control.listFilter()
            let tenant = try filter.tenant.map { try emulator.requireTenant($0).id }
            let search = control.query("q").map(UserSearch.names)
            let users = try emulator.users(in: tenant, search: search, limit: filter.limit)
            return ControlJSON.response(["users": .array(users.map(ControlJSON.user)), "total": .int(try emulator.userCount(in: tenant, search: search))])
        }
    }

    private func addUserRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { request, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant")).id
            let control = ControlRequest(request: request)
            let users: [User]
            // An address may be several users' (a Cognito pool that does not sign in with it): all of them.
            if let email = control.query("email") {
                users = try emulator.users(in: tenant, having: .email(email))
            } else if let phone = control.query("phone") {
                users = try emulator.users(in: tenant, having: .phone(phone))
            } else {
                users = try emulator.users(in: tenant, search: control.query("q").map(UserSearch.names), limit: try control.listFilter().limit)
            }
            return ControlJSON.response(["users": .array(users.map(ControlJSON.user))])
        }
        group.post { request, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant")).id
            let body = try await ControlRequest(request: request).body()
            let user = try emulator.createUser(in: tenant, NewUser(
                id: try body.string("id"), email: try body.string("email"), phone: try body.string("phone"),
                username: try body.string("username"), password: try body.string("password"),
                emailVerified: try body.bool("email_verified"), phoneVerified: try body.bool("phone_verified"),
                disabled: try body.bool("disabled"), userMetadata: try body.object("user_metadata"),
                appMetadata: try body.object("app_metadata")), origin: request.origin(context))
            return ControlJSON.response(ControlJSON.user(user), status: .created)
        }
        group.get(":user") { _, context in
            let tenant = try context.parameters.decoded("tenant")
            _ = try emulator.requireTenant(tenant)
            return ControlJSON.response(try userDetail(in: tenant, id: try context.parameters.decoded("user")))
        }
        group.patch(":user") { request, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant")).id
            let id = try context.parameters.decoded("user")
            let body = try await ControlRequest(request: request).body()
            let known: Set<String> = ["email_verified", "phone_verified", "disabled", "password", "user_metadata", "app_metadata"]
            if let unknown = body.keys.sorted().first(where: { !known.contains($0) }) {
                throw ControlError.badRequest("\(unknown): not a field this route changes (\(known.sorted().joined(separator: ", ")))")
            }
            // A tester's password skips the tenant's policy on purpose: the console sets what a test needs.
            if let password = try body.string("password"), password.isEmpty { throw ControlError.badRequest("password: must not be empty") }
            try emulator.updateUser(in: tenant, id: id, UserChanges(
                password: try body.string("password"), emailVerified: try body.change("email_verified"), phoneVerified: try body.change("phone_verified"),
                userMetadata: try body.changedObject("user_metadata"), appMetadata: try body.changedObject("app_metadata"),
                disabled: try body.change("disabled")),
                origin: request.origin(context))
            return ControlJSON.response(try userDetail(in: tenant, id: id))
        }
        group.delete(":user/sessions") { request, context in
            let tenant = try context.parameters.decoded("tenant"), userId = try context.parameters.decoded("user")
            _ = try emulator.requireUser(in: tenant, id: userId)
            let revoked = try emulator.revokeSessions(in: tenant, userId: userId, .all, reason: "control_api", origin: request.origin(context))
            return ControlJSON.response(["revoked": .int(revoked)])
        }
        group.get(":user/sessions") { _, context in
            let tenant = try context.parameters.decoded("tenant"), userId = try context.parameters.decoded("user")
            _ = try emulator.requireUser(in: tenant, id: userId)
            return ControlJSON.response(["sessions": .array(try emulator.sessions(in: tenant, userId: userId).map(ControlJSON.session))])
        }
        group.delete(":user/sessions/:session") { request, context in
            let tenant = try context.parameters.decoded("tenant"), userId = try context.parameters.decoded("user")
            let revoked = try emulator.revokeSessions(in: tenant, userId: userId, .only(try context.parameters.decoded("session")),
                                                      reason: "control_api", origin: request.origin(context))
            guard revoked > 0 else { throw AuthError.sessionNotFound }
            return Response(status: .noContent)
        }
        group.delete(":user") { request, context in
            try emulator.deleteUser(in: try context.parameters.decoded("tenant"), id: try context.parameters.decoded("user"),
                                    origin: request.origin(context))
            return Response(status: .noContent)
        }
    }
}
