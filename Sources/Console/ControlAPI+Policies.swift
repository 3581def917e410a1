import AuthCore
import Foundation
import Hummingbird

extension ControlAPI {
    /// `/tenants/{tenant}/policies` (lockouts and rate limits) and `/tenants/{tenant}/lockouts` (who is
    /// locked out or has failures counting).
    func addPolicyRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get(":tenant/policies") { _, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant"))
            return ControlJSON.response(policiesAnswer(tenant, try emulator.policies(for: tenant)))
        }
        group.put(":tenant/policies") { request, context in
            let id = try context.parameters.decoded("tenant")
            let body = try await ControlRequest(request: request).body()
            let policies = try emulator.setPolicies(in: id, .object(body))
            return ControlJSON.response(policiesAnswer(try emulator.requireTenant(id), policies))
        }
        group.get(":tenant/lockouts") { _, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant")).id
            return ControlJSON.response(["lockouts": .array(try emulator.lockoutRecords(in: tenant).map(ControlJSON.lockout))])
        }
        group.delete(":tenant/lockouts") { request, context in
            let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant")).id
            let control = ControlRequest(request: request)
            let kinds = try control.enumQuery("kind", as: LockoutKind.self).map { Set([$0]) } ?? Set(LockoutKind.allCases)
            let lifted = emulator.clearLockouts(in: tenant, kinds: kinds, userId: control.query("user"), subject: control.query("subject"),
                                                reason: "control_api")
            return ControlJSON.response(["lifted": .int(lifted)])
        }
    }

    /// The effective policies, and the `policies` setting they come from.
    private func policiesAnswer(_ tenant: Tenant, _ policies: TenantPolicies) -> JSON {
        ["tenant": .string(tenant.id), "dialect": .string(tenant.dialect.rawValue), "effective": policies.json,
         "setting": tenant.settings["policies"] ?? .object([:])]
    }
}

extension ControlJSON {
    static func lockout(_ r: LockoutRecord) -> JSON {
        ["kind": .string(r.kind.rawValue), "subject": .string(r.subject), "user_id": JSON(r.userId), "failures": .int(r.failures),
         "level": .int(r.level), "locked": .bool(r.lockedUntil != nil), "locked_until": time(r.lockedUntil)]
    }
}
