import AuthCore
import CognitoAPI
import FirebaseAPI
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Applies the fault rules: names each dialect request in auth terms (the dialect's canonical
/// operation, tenant, identifier, client), asks the engine whether a rule fires, and does what the
/// rule says, in the dialect's own error format. Every firing answers with `x-fauxth-fault: <rule id>`
/// (when it answers at all) and is recorded as a `fault.fired` event and in the journal.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = FauxthContext

    /// What a request is, and how its dialect renders a fault's error.
    struct Classified {
        var target: FaultTarget
        var render: @Sendable (_ error: FaultErrorKind, _ message: String?, _ retryAfter: Int?) -> Response
    }

    /// The parts of a request the dialects classify by.
    struct Parts {
        var method: HTTPRequest.Method
        var path: String
        var query: [String: String]
        var headers: [String: String]
        var json: JSON?
        var form: [String: String]
    }

    let emulator: Emulator
    let classify: @Sendable (Parts) -> Classified?

    /// Bodies larger than this are not read for identifiers (the dialects refuse them anyway).
    static let bodyLimit = 8 << 20

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The control API, the console and the fake providers are never faulted: leave their bodies unread.
        guard emulator.faults.isArmed, !request.uri.path.hasPrefix("/_emu/") else { return try await next(request, context) }
        var request = request
        var parts = Parts(method: request.method, path: request.uri.path, query: request.queryFields, headers: [:], json: nil, form: [:])
        for field in request.headers { parts.headers[field.name.canonicalName] = field.value }
        if request.method != .get, request.method != .head, let buffer = try? await request.collectBody(upTo: Self.bodyLimit), buffer.readableBytes > 0 {
            if (request.headers[.contentType] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded") {
                parts.form = FormBody.decode(String(buffer: buffer))
                parts.json = .object(parts.form.mapValues(JSON.string))
            } else {
                parts.json = try? JSON.parse(buffer.readableBytesView)
            }
        }
        guard let classified = classify(parts) else { return try await next(request, context) }
        return try await FaultRunner(emulator: emulator).respond(to: request, context: context, target: { classified.target },
                                                               renderError: classified.render, next: { try await next(request, context) })
    }
}

// MARK: Classifiers

extension FaultMiddleware {
    /// The main port: every dialect, each under its own paths.
    static func main(emulator: Emulator, cognito: CognitoDialect) -> FaultMiddleware {
        FaultMiddleware(emulator: emulator) { parts in
            // GoTrue's routes ask the fault rules themselves.
            if parts.path.hasPrefix("/auth/v1/") { return nil }
            // So do Firebase's.
            let first = parts.path.split(separator: "/").first.map(String.init) ?? ""
            if FirebaseDialect.prefixes.contains(first) { return nil }
            return cognitoTarget(parts, cognito: cognito, pool: nil)
        }
    }

    /// A Cognito pool's own hosted-UI port.
    static func cognitoPool(emulator: Emulator, cognito: CognitoDialect, pool: String) -> FaultMiddleware {
        FaultMiddleware(emulator: emulator) { parts in cognitoTarget(parts, cognito: cognito, pool: pool) }
    }

    private static func cognitoTarget(_ parts: Parts, cognito: CognitoDialect, pool: String?) -> Classified? {
        guard let target = cognito.faultTarget(method: parts.method, path: parts.path, query: parts.query, body: parts.json, form: parts.form,
                                               headers: parts.headers, pool: pool) else { return nil }
        let hostedUI = parts.path != "/"
        return Classified(target: target) { cognito.faultResponse($0, message: $1, retryAfter: $2, hostedUI: hostedUI) }
    }
}
