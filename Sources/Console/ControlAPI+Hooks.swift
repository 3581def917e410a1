import AuthCore
import Foundation
import Hummingbird

extension ControlAPI {
    /// `/tenants/{tenant}/hooks`: a tenant's hooks (Supabase Auth Hooks, Firebase blocking functions, Cognito
    /// Lambda triggers), read and set one point at a time in the vendor's own settings, so a reset brings
    /// back the seed's and a snapshot keeps them.
    func addHookRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get(":tenant/hooks") { _, context in
            let (tenant, schema) = try hookTenant(context)
            return ControlJSON.response(hooksAnswer(tenant, schema))
        }
        group.put(":tenant/hooks/:point") { request, context in
            let (tenant, schema) = try hookTenant(context)
            let point = try hookPoint(context, schema)
            let body = try await ControlRequest(request: request).body()
            guard body["uri"]?.stringValue?.isEmpty == false else { throw ControlError.badRequest("uri: required") }
            return ControlJSON.response(hooksAnswer(try setHook(tenant, schema, point, .object(body)), schema))
        }
        group.delete(":tenant/hooks/:point") { _, context in
            let (tenant, schema) = try hookTenant(context)
            let point = try hookPoint(context, schema)
            return ControlJSON.response(hooksAnswer(try setHook(tenant, schema, point, nil), schema))
        }
    }

    /// `POST /events/{id}/replay`: sends a recorded hook call again, signed afresh, and answers with the new
    /// call's event.
    func addHookReplayRoute<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.post(":id/replay") { _, context in
            let id = try context.parameters.decoded("id")
            guard let (_, event) = await emulator.replayHook(event: id) else {
                throw ControlError(.notFound, "not_found", "no hook call \(id) to replay (the last \(emulator.hooks.replayable) calls are kept)")
            }
            return ControlJSON.response(["event": event.map(ControlJSON.event) ?? .null])
        }
    }

    /// Sets or clears one point on the settings as they are when the store is held, so a change made meanwhile (another
    /// hook, the vendor's own configuration API) is kept rather than written over with what `tenant` read.
    private func setHook(_ tenant: Tenant, _ schema: HookSchema, _ point: String, _ hook: JSON?) throws -> Tenant {
        try emulator.changeTenantSettings(tenant.id) { settings in
            var current = tenant
            current.settings = settings
            settings = try schema.write(current, point, hook)
        }
        return try emulator.requireTenant(tenant.id)
    }

    private func hookTenant(_ context: some RequestContext) throws -> (Tenant, HookSchema) {
        let tenant = try emulator.requireTenant(try context.parameters.decoded("tenant"))
        guard let schema = emulator.hooks[tenant.dialect] else {
            throw ControlError(.notFound, "not_found", "\(tenant.dialect.rawValue) tenants have no hooks in this build")
        }
        return (tenant, schema)
    }

    private func hookPoint(_ context: some RequestContext, _ schema: HookSchema) throws -> String {
        let point = try context.parameters.decoded("point")
        guard schema.points.contains(point) else {
            throw ControlError(.notFound, "not_found", "\(point) is not a hook point\(Suggestion.hint(for: point, in: schema.points)); "
                               + "the points are \(schema.points.joined(separator: ", "))")
        }
        return point
    }

    private func hooksAnswer(_ tenant: Tenant, _ schema: HookSchema) -> JSON {
        ["tenant": .string(tenant.id), "dialect": .string(tenant.dialect.rawValue), "points": .array(schema.points.map(JSON.string)),
         "hooks": .object(schema.read(tenant))]
    }
}
