import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders

/// One Firebase request as a handler sees it: the route, the normalised body, who is calling and with
/// which API key.
struct FirebaseCall: Sendable {
    let request: Request
    let route: FirebaseRoute
    let body: FirebaseBody
    let origin: RequestOrigin
    let emulator: Emulator
    let projects: FirebaseProjects
    let pages: ActionPages
    /// The fake Google, Apple and OIDC providers the sign-in widget and `createAuthUri` send people to.
    let identityProviders: FakeIdentityProviders?
    /// `Authorization: Bearer owner` (or a Google OAuth token): an admin caller, as the emulator treats it.
    let isOwner: Bool
    let apiKey: String?
    /// The scope the path and body name, when the dispatcher has read it already (for the request limits): every
    /// sign-in asks again, and reading it is a project lookup and a tenant's settings.
    var namedScope: FirebaseScope? = nil

    /// The project: the path's, else `targetProjectId` (owners only), else the API key's.
    func projectId() throws -> String {
        if let project = route.project { return project }
        if let target = try body.string("targetProjectId"), !target.isEmpty {
            guard isOwner else {
                throw FirebaseError(.insufficientPermission, "Only authenticated requests can specify target_project_id.")
            }
            return target
        }
        return try projects.project(forAPIKey: apiKey ?? "")
    }

    /// The project and tenant: the path's tenant, the body's `tenantId` and `tokenTenant` (from an ID or
    /// refresh token) must agree (`TENANT_ID_MISMATCH`).
    func scope(tokenTenant: String? = nil) throws -> FirebaseScope {
        if let namedScope, tokenTenant?.isEmpty != false { return namedScope }
        let named = [route.tenant, try body.string("tenantId"), tokenTenant].compactMap { $0?.isEmpty == false ? $0 : nil }
        guard Set(named).count <= 1 else { throw FirebaseError(.tenantIDMismatch) }
        let scope = try projects.scope(project: try projectId(), tenant: named.first)
        if scope.settings.disableAuth { throw FirebaseError(.projectDisabled) }
        return scope
    }

    func requireOwner() throws {
        guard isOwner else { throw FirebaseError(.insufficientPermission) }
    }

    /// The base URL links in emails point at: this listener.
    var baseURL: String { request.baseURL }

    /// The API key that goes into action links: the caller's, or the emulator's stand-in.
    var linkAPIKey: String { apiKey ?? "fake-api-key" }
}

/// How the caller authenticated: the emulator takes any non-empty API key, and `Bearer owner` as the
/// project's owner.
enum FirebaseCaller {
    static func identify(_ request: Request) throws -> (isOwner: Bool, apiKey: String?) {
        let key = request.uri.queryParameters.get("key") ?? request.headers[.googAPIKey]
        var isOwner = false
        if let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") {
            let token = header.dropFirst(7).trimmingSpaces()
            guard token.lowercased() == "owner" || token.hasPrefix("ya29.") else {
                throw FirebaseError(.unauthenticated, status: .unauthorized, googleStatus: "UNAUTHENTICATED").withMessage(
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
            }
            isOwner = true
        }
        return (isOwner, key.flatMap { $0.isEmpty ? nil : $0 })
    }
}

extension HTTPField.Name {
    static let googAPIKey = Self("x-goog-api-key")!
    /// The language the SDKs send when the app sets `auth.languageCode`.
    static let firebaseLocale = Self("x-firebase-locale")!
}
