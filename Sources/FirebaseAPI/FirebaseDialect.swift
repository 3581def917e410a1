import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders
import Logging

/// The Firebase dialect: Identity Toolkit, Secure Token, the Auth emulator's own endpoints and the
/// legacy v3 API, at the paths the Firebase emulator serves them, so `connectAuthEmulator` and
/// `FIREBASE_AUTH_EMULATOR_HOST` work unchanged.
public struct FirebaseDialect: Sendable {
    let emulator: Emulator
    let projects: FirebaseProjects
    let pages: ActionPages
    let identityProviders: FakeIdentityProviders?

    /// - Parameters:
    ///   - defaultProject: the project API keys that no project lists belong to.
    ///   - page: the text of a file under `web/` (the action page's and sign-in widget's templates).
    ///   - identityProviders: the fake providers the sign-in widget and `createAuthUri` send people to.
    public init(emulator: Emulator, defaultProject: String, page: @escaping @Sendable (String) -> String?,
                identityProviders: FakeIdentityProviders? = nil) {
        self.emulator = emulator
        self.projects = FirebaseProjects(emulator: emulator, defaultProject: defaultProject)
        self.pages = ActionPages(page: page)
        self.identityProviders = identityProviders
    }

    /// The first path segments the dialect owns.
    public static let prefixes = ["identitytoolkit.googleapis.com", "securetoken.googleapis.com", "emulator", "www.googleapis.com"]

    /// Mounts every Firebase path; one dispatcher resolves them (`FirebaseRoute`), so Google's colon
    /// paths and the project and tenant prefixes are parsed in one place.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        for prefix in Self.prefixes {
            let group = router.group(RouterPath(prefix))
            group.add(middleware: FirebaseErrorMiddleware<Context>())
            for method in [HTTPRequest.Method.get, .post, .patch, .delete, .put] {
                group.on("**", method: method) { request, context in try await dispatch(request, context: context) }
            }
        }
    }

    /// The Firebase emulator's health answer, for `GET /` from a client that is not a browser.
    public static func health() -> Response {
        .json(["authEmulator": ["ready": true, "docs": "https://firebase.google.com/docs/emulator-suite", "apiSpec": "/emulator/openapi.json"]])
    }

    /// Resolves the route, reads the body once, asks the fault rules about the operation, then serves it.
    /// Errors are rendered here, so a fault that delays, truncates or slows an answer does so to Identity
    /// Toolkit's error answer too; the group's middleware renders whatever escapes that.
    func dispatch<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        guard let route = FirebaseRoute.resolve(request.method, request.uri.path) else { throw FirebaseError.notFound }
        let body: Result<FirebaseBody, any Error>
        do { body = .success(request.method == .get ? .empty : try await FirebaseBody.read(request)) } catch { body = .failure(error) }
        return try await FaultRunner(emulator: emulator).respond(
            to: request, context: context, target: { faultTarget(route, body: try? body.get(), request: request) },
            renderError: { Self.faultResponse($0, message: $1, retryAfter: $2) }
        ) {
            do { return try await serve(route, body: body, request: request, origin: request.origin(context)) } catch {
                return FirebaseErrorMiddleware<Context>.render(error, logger: context.logger)
            }
        }
    }

    /// The operation's answer: the caller checked, the body (a body the emulator cannot read is refused
    /// after the caller's credentials, as before), the per-IP policies counted, then its handler.
    private func serve(_ route: FirebaseRoute, body: Result<FirebaseBody, any Error>, request: Request, origin: RequestOrigin) async throws -> Response {
        let (isOwner, apiKey) = try FirebaseCaller.identify(request)
        if Self.needsKey(route.operation), !isOwner, apiKey == nil { throw FirebaseError.missingAPIKey }
        var call = FirebaseCall(request: request, route: route, body: Self.enumsNamed(try body.get()), origin: origin, emulator: emulator,
                                projects: projects, pages: pages, identityProviders: identityProviders, isOwner: isOwner, apiKey: apiKey)
        if let scope = try? call.scope() {
            let limits = try Self.requestLimits(route.operation, body: call.body)
            for limit in limits {
                try emulator.checkRequestLimit(limit, in: try emulator.requireTenant(scope.coreTenant), client: origin.ip)
            }
            // The sign-ins and code checks, which are limited, read no settings they change: their handler takes the
            // scope read here instead of reading it again.
            if !limits.isEmpty { call.namedScope = scope }
        }
        return try await Self.handler(for: route.operation)(call)
    }

    /// The per-IP policies an operation counts against: sign-ins and token refreshes, the operations
    /// that check a code and those that send one, and an anonymous sign-up (a `signUp` naming no email,
    /// which makes an anonymous user) against `anonymous_per_ip` as well.
    static func requestLimits(_ operation: FirebaseOperation, body: FirebaseBody) throws -> [PolicyLimit] {
        switch operation {
        case .signUp:
            let anonymous = try (body.string("email") ?? "").isEmpty && (body.string("idToken") ?? "").isEmpty
            return anonymous ? [.tokenPerIP, .anonymousPerIP] : [.tokenPerIP]
        case .signInWithPassword, .signInWithCustomToken, .signInWithIdp, .passkeySignInFinalize, .refresh: return [.tokenPerIP]
        case .signInWithPhoneNumber, .signInWithEmailLink, .resetPassword, .mfaEnrollmentFinalize, .mfaSignInFinalize: return [.verifyPerIP]
        case .sendOobCode, .sendVerificationCode, .mfaEnrollmentStart, .mfaSignInStart: return [.otpPerIP]
        default: return []
        }
    }

    /// Emulator-only endpoints, the action page and Google's public keys need no API key.
    static func needsKey(_ operation: FirebaseOperation) -> Bool {
        switch operation {
        case .emulatorDeleteAccounts, .emulatorGetConfig, .emulatorUpdateConfig, .emulatorOobCodes, .emulatorVerificationCodes,
             .action, .authHandler, .authIframe, .publicKeysX509, .publicKeysJWKS:
            false
        default:
            true
        }
    }

    /// Integer enum values as their names (the Android SDK sends `requestType: 6`).
    static func enumsNamed(_ body: FirebaseBody) -> FirebaseBody {
        var body = body
        let requestTypes = [1: "PASSWORD_RESET", 4: "VERIFY_EMAIL", 5: "RECOVER_EMAIL", 6: "EMAIL_SIGNIN", 7: "VERIFY_AND_CHANGE_EMAIL"]
        if let n = body.fields["requestType"]?.intValue, let name = requestTypes[n] { body.fields["requestType"] = .string(name) }
        return body
    }

    /// Checks a Firebase tenant's settings; throws what Fauxth cannot use.
    public static func validate(_ tenant: Tenant) throws {
        let project = FirebaseScope.projectId(of: tenant.id)
        _ = try FirebaseSettings(project: tenant.id == project ? tenant.settings : [:],
                                 tenantConfig: tenant.id == project ? nil : tenant.settings["tenant_config"]?.objectValue ?? [:])
    }

    /// What a developer sets to point an app at a project, or at an Identity Platform tenant (its
    /// project's key and its tenant id), and notes for what cannot be set: an API key is named only when
    /// it reaches that project, since client calls find their project by key alone.
    public func connectionHints(for tenant: Tenant, host: String) -> (hints: [String: String], notes: [String]) {
        let parts = tenant.id.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let project = parts[0]
        var hints = ["FIREBASE_AUTH_EMULATOR_HOST": host, "GCLOUD_PROJECT": project]
        if parts.count == 2 { hints["FIREBASE_TENANT_ID"] = parts[1] }
        guard let key = try? projects.apiKey(reaching: project) else {
            return (hints, ["no API key reaches project \(project): give it \"api_keys\" in the seed, or start with --firebase-project \(project) "
                            + "(firebase-admin needs no key)"])
        }
        hints["FIREBASE_API_KEY"] = key
        return (hints, [])
    }
}

/// Renders every error under the Firebase paths as Identity Toolkit does, so the SDKs raise their own
/// typed errors.
struct FirebaseErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    @concurrent func handle(_ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.render(error, logger: context.logger)
        }
    }

    static func render(_ error: any Error, logger: Logger) -> Response {
        let failure: FirebaseError
        switch error {
        case let e as FirebaseError: failure = e
        case let e as AuthError: failure = FirebaseError(core: e)
        case let e as HTTPError where e.status == .notFound:
            failure = .notFound
        default:
            logger.error("unexpected error in Firebase dialect: \(error)")
            failure = .internalError("Internal error: \(error)")
        }
        return response(for: failure)
    }

    static func response(for failure: FirebaseError) -> Response {
        var headers = HTTPFields()
        if let retry = failure.retryAfter { headers[.retryAfter] = String(retry) }
        return .json(body(for: failure), status: failure.status, headers: headers)
    }

    /// `{"error":{"code","message","errors":[{"message","reason","domain"}],"status"?}}`.
    static func body(for failure: FirebaseError) -> JSON {
        let reason = switch failure.status.code {
        case 401: "authError"
        case 403: "forbidden"
        case 404: "notFound"
        case 501: "unimplemented"
        default: "invalid"
        }
        var detail: [String: JSON] = ["message": .string(failure.message), "reason": .string(reason), "domain": "global"]
        if failure.status == .unauthorized { detail.merge(["location": "Authorization", "locationType": "header"]) { $1 } }
        var error: [String: JSON] = ["code": .int(Int(failure.status.code)), "message": .string(failure.message), "errors": [.object(detail)]]
        error["status"] = failure.googleStatus.map(JSON.string)
        return ["error": .object(error)]
    }
}
