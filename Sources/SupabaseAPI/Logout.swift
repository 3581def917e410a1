import AuthCore
import Foundation
import Hummingbird

/// `POST /logout?scope=global|local|others` (`internal/api/logout.go`): 204 with no body.
struct Logout {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) throws -> Response {
        let (request, origin, tenant) = (call.request, call.origin, call.tenant)
        let project = try call.project()
        let caller = try Authentication(emulator: emulator).require(request, project: project)
        let scope: Emulator.RevocationScope
        let requested = request.uri.queryParameters.get("scope") ?? ""
        switch requested {
        case "", "global": scope = .all
        case "local": scope = .only(caller.session.id)
        case "others": scope = .allExcept(caller.session.id)
        default: throw SupabaseError.validation("Unsupported logout scope \(GoText.quote(String(requested)))")
        }
        try emulator.revokeSessions(in: tenant, userId: caller.user.id, scope, reason: "logout", origin: origin)
        return Response(status: .noContent)
    }
}

/// `GET /user`: the signed-in user.
struct CurrentUser {
    let emulator: Emulator
    let projects: SupabaseProjects

    func handle(_ call: Call) throws -> JSON {
        let (request, tenant) = (call.request, call.tenant)
        let project = try call.project()
        let caller = try Authentication(emulator: emulator).require(request, project: project)
        return GoTrueJSON.user(caller.user, config: project.config, factors: try emulator.factors(in: tenant, userId: caller.user.id))
    }
}
