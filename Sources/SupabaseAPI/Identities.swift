import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// `/user/identities` (`internal/api/identity.go`): manual linking and unlinking, both behind
/// `GOTRUE_SECURITY_MANUAL_LINKING_ENABLED`, checked after the caller's token as GoTrue's middleware
/// order does.
enum Identities {
    /// `GET /user/identities/authorize`: the provider URL with the caller as the linking target, as a
    /// 302 or, with `skip_http_redirect=true` (what supabase-py and supabase-js send), as `{"url"}`.
    static func authorize(_ call: Call) throws -> Response {
        let (project, caller) = try linkingCaller(call)
        let url = try External.providerURL(call, project: project, linkingTarget: caller.user.id)
        if call.request.uri.queryParameters.get("skip_http_redirect") == "true" { return .json(["url": .string(url)]) }
        return Response(status: .found, headers: [.location: url])
    }

    /// `DELETE /user/identities/{identity_id}`: 200 `{}`; the last identity stays.
    static func unlink(_ call: Call) throws -> Response {
        let (_, caller) = try linkingCaller(call)
        let id = try call.uuidParameter("id", as: "identity_id")
        do {
            try call.emulator.unlinkIdentity(in: call.tenant, userId: caller.user.id, identityId: id, origin: call.origin)
        } catch AuthError.emailTaken {
            throw SupabaseError(status: .unprocessableContent, code: .emailConflictIdentityNotDeletable,
                                message: "Unable to unlink identity due to email conflict")
        }
        return .json([:])
    }

    private static func linkingCaller(_ call: Call) throws -> (SupabaseProject, Authentication.Caller) {
        let project = try call.project()
        let caller = try Authentication(emulator: call.emulator).require(call.request, project: project)
        guard project.config.manualLinkingEnabled else {
            throw SupabaseError(status: .notFound, code: .manualLinkingDisabled, message: "Manual linking is disabled")
        }
        return (project, caller)
    }
}
