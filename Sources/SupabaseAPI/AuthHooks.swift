import AuthCore
import Crypto
import Foundation
import HTTPTypes

/// GoTrue's Auth Hooks (`internal/hooks`): the project's own code called over HTTP at fixed points, with
/// GoTrue's payloads, Standard Webhooks signatures, timeout, retries and answers.
enum AuthHook: String, CaseIterable, Sendable {
    case customAccessToken = "custom_access_token"
    case sendEmail = "send_email"
    case sendSMS = "send_sms"
    case mfaVerificationAttempt = "mfa_verification_attempt"
    case passwordVerificationAttempt = "password_verification_attempt"
    case beforeUserCreated = "before_user_created"
    case afterUserCreated = "after_user_created"

    /// `GOTRUE_HOOK_<VARIABLE>_ENABLED|_URI|_SECRETS`.
    var variable: String { rawValue.uppercased() }

    /// `metadata.name` in the payload (`v0hooks.Name`).
    var metadataName: String {
        switch self {
        case .customAccessToken: "customize-access-token"
        case .sendEmail: "send-email"
        case .sendSMS: "send-sms"
        case .mfaVerificationAttempt: "mfa-verification"
        case .passwordVerificationAttempt: "password-verification"
        case .beforeUserCreated: "before-user-created"
        case .afterUserCreated: "after-user-created"
        }
    }

    /// One hook point's configuration, as GoTrue validates it at start (`ValidateExtensibilityPoint`).
    struct Binding: Sendable, Equatable {
        var uri: String
        /// `v1,whsec_…` (signed with) or `v1a,whpk_…:whsk_…` (accepted, but GoTrue cannot sign with them).
        var secrets: [String]
    }

    static var variables: [String] {
        allCases.flatMap { hook in ["_ENABLED", "_URI", "_SECRETS"].map { "GOTRUE_HOOK_\(hook.variable)\($0)" } }
    }

    /// The enabled hooks of a GoTrue environment; refuses what GoTrue refuses, and `pg-functions://`,
    /// which needs the project's Postgres.
    static func bindings(_ env: [String: String]) throws -> [AuthHook: Binding] {
        var bindings: [AuthHook: Binding] = [:]
        for hook in allCases {
            let prefix = "GOTRUE_HOOK_\(hook.variable)"
            guard try SupabaseConfig.bool(env, prefix + "_ENABLED", default: false) else { continue }
            let uri = env[prefix + "_URI"] ?? ""
            let secrets = (env[prefix + "_SECRETS"] ?? "").split(separator: "|").map(String.init).filter { !$0.isEmpty }
            let binding = Binding(uri: uri, secrets: secrets)
            if let problem = binding.problem { throw SupabaseConfigError(variable: prefix + "_URI", reason: problem) }
            if secrets.contains(where: { !Self.isValidSecret($0) }) {
                throw SupabaseConfigError(variable: prefix + "_SECRETS", reason: "invalid secret format: expected v1,whsec_<base64> (several separated by |)")
            }
            bindings[hook] = binding
        }
        return bindings
    }

    private static func isValidSecret(_ secret: String) -> Bool {
        secret.wholeMatch(of: #/v1,whsec_[A-Za-z0-9+\/=]{32,88}.*/#) != nil
            || secret.wholeMatch(of: #/v1a,whpk_[A-Za-z0-9+\/=]{44,}:whsk_[A-Za-z0-9+\/=]{44,}/#) != nil
    }
}

extension AuthHook.Binding {
    /// Why GoTrue would refuse this URI at start, if it would.
    var problem: String? {
        guard let url = URLComponents(string: uri), let scheme = url.scheme?.lowercased() else {
            return "is required when the hook is enabled (an http:// or https:// URL)"
        }
        switch scheme {
        case "pg-functions":
            return "names a Postgres function (\(uri)), which needs the project's database; Fauxth has none. Serve the same logic "
                + "over HTTP (an Edge Function under `supabase functions serve`, or any local web server) and set an http:// URI"
        case "http":
            // GoTrue allows plain HTTP only to the machine itself.
            guard ["localhost", "127.0.0.1", "::1", "[::1]", "host.docker.internal"].contains(url.host ?? "") else {
                return "only localhost, 127.0.0.1, and ::1 are supported with http"
            }
            return nil
        case "https": return nil
        default: return "only postgres hooks and HTTPS functions are supported at the moment"
        }
    }
}

/// Calls a project's hooks as GoTrue's dispatcher does (`hookshttp.Dispatcher`).
struct AuthHooks {
    let emulator: Emulator
    let project: SupabaseProject

    static let timeout: Duration = .seconds(5)
    static let attempts = 3
    static let backoff: Duration = .seconds(2)
    static let answerLimit = 200 * 1024

    func enabled(_ hook: AuthHook) -> Bool { project.config.hooks[hook] != nil }

    /// Calls `hook` with `input` (the payload without `metadata`) and returns its output, nil for a 204
    /// or when the hook is not enabled. Throws GoTrue's error for every failure, the hook's own error
    /// object included.
    @discardableResult
    func run(_ hook: AuthHook, _ input: [String: JSON], origin: RequestOrigin, userId: String?, identifier: String? = nil) async throws -> JSON? {
        guard let binding = project.config.hooks[hook] else { return nil }
        var payload = input
        payload["metadata"] = ["uuid": .string(emulator.generator.uuid()), "time": .string(RFC3339.string(from: emulator.clock.now, fractionalDigits: 6)),
                               "name": .string(hook.metadataName), "ip_address": JSON(origin.ip)]
        guard let sign = Self.signer(binding.secrets, generator: emulator.generator) else {
            throw SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: "Error generating signatures: invalid signature format")
        }
        let request = HookRequest(dialect: .supabase, tenant: project.tenant.id, point: hook.rawValue, url: binding.uri,
                                  json: .object(payload), timeout: Self.timeout, identifier: identifier,
                                  headers: [(name: "accept-encoding", value: "identity")], sign: sign)
        for attempt in 0..<Self.attempts {
            switch await emulator.callHook(request, origin: origin, userId: userId) {
            case .timedOut:
                throw SupabaseError(status: .unprocessableContent, code: .hookTimeout,
                                    message: "Failed to reach hook within maximum time of \(String(format: "%f", Double(Self.timeout.components.seconds))) seconds")
            case .unreachable:
                // GoTrue waits and tries again, three times in all, within its overall timeout.
                if attempt < Self.attempts - 1 { try? await Task.sleep(for: Self.backoff); continue }
                throw SupabaseError(status: .unprocessableContent, code: .hookTimeoutAfterRetry, message: "Failed to reach hook after maximum retries")
            case .answered(let status, let contentType, let body):
                switch status {
                case 204: return nil
                case 200, 202: return try Self.output(contentType: contentType, body: body)
                case 429, 503:
                    // GoTrue retries at once when the hook says when to; the transport keeps no Retry-After,
                    // so Fauxth retries as if it had (the usual answer of a busy function).
                    if attempt < Self.attempts - 1 { continue }
                    throw Self.internalError("Service currently unavailable due to hook")
                case 400: throw Self.internalError("Invalid payload sent to hook")
                case 401: throw Self.internalError("Hook requires authorization token")
                default: throw Self.internalError("Unexpected status code returned from hook: \(status)")
                }
            }
        }
        throw Self.internalError("Service currently unavailable due to hook")
    }

    /// A 200's output: JSON of at most 200 KiB, and not an error object (`hookserrors.Check`).
    private static func output(contentType: String?, body: [UInt8]) throws -> JSON {
        guard let contentType, !contentType.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .hookPayloadInvalidContentType, message: "Invalid Content-Type: Missing Content-Type header")
        }
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" else {
            throw SupabaseError(status: .badRequest, code: .hookPayloadInvalidContentType, message: "Invalid JSON response. Received content-type: \(contentType)")
        }
        guard body.count <= answerLimit else {
            throw SupabaseError(status: .unprocessableContent, code: .hookPayloadOverSizeLimit, message: "Payload size exceeded size limit of \(answerLimit) bytes")
        }
        guard let json = try? JSON.parse(body) else { throw internalError("Error unmarshaling JSON output.") }
        // `{"error": {"http_code": 4xx, "message": "…"}}` is the hook refusing; a message is required.
        if let error = json["error"]?.objectValue, let message = error["message"]?.stringValue, !message.isEmpty {
            let code = error["http_code"]?.intValue ?? 0
            let status = code == 0 ? 500 : code
            var refusal = SupabaseError(status: .init(code: status), code: status == 500 ? .unexpectedFailure : .unknown, message: message)
            refusal.codeInHeader = false
            throw refusal
        }
        return json
    }

    static func internalError(_ message: String) -> SupabaseError {
        SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: message)
    }

    /// Standard Webhooks signatures, one per `v1,whsec_` secret: `v1,` + base64(HMAC-SHA256(key,
    /// "<id>.<timestamp>.<body>")), comma-separated, with a fresh `webhook-id` per attempt. Nil when a
    /// secret cannot sign (GoTrue refuses asymmetric `v1a` secrets when it calls).
    static func signer(_ secrets: [String], generator: Generator) -> (@Sendable ([UInt8], Date) -> [(name: String, value: String)])? {
        var keys: [SymmetricKey] = []
        for secret in secrets {
            guard secret.hasPrefix("v1,") else { return nil }
            var encoded = secret.dropFirst(3)
            if encoded.hasPrefix("whsec_") { encoded = encoded.dropFirst(6) }
            guard let key = Data(base64Encoded: String(encoded)) else { return nil }
            keys.append(SymmetricKey(data: key))
        }
        let signingKeys = keys
        return { body, at in
            let id = generator.uuid()
            let timestamp = String(Int(at.timeIntervalSince1970))
            let signed = Array("\(id).\(timestamp).".utf8) + body
            let signatures = signingKeys.map { "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: $0)).base64EncodedString() }
            return [(name: "webhook-id", value: id), (name: "webhook-timestamp", value: timestamp),
                    (name: "webhook-signature", value: signatures.joined(separator: ", "))]
        }
    }
}

extension SupabaseDialect {
    /// A project's hooks as the control API shows and sets them, kept as GoTrue keeps them: the
    /// `GOTRUE_HOOK_<NAME>_*` variables of its `gotrue_env`.
    public static let hookSchema = HookSchema(
        points: AuthHook.allCases.map(\.rawValue),
        read: { tenant in
            let bindings = (try? AuthHook.bindings(SupabaseProject.environment(of: tenant))) ?? [:]
            return Dictionary(uniqueKeysWithValues: bindings.map { hook, binding in
                (hook.rawValue, JSON.object(["uri": .string(binding.uri), "secrets": .string(binding.secrets.joined(separator: "|"))]))
            })
        },
        write: { tenant, point, binding in
            guard let hook = AuthHook(rawValue: point) else { throw AuthError.invalidInput(field: "point", reason: "\(point) is not a Supabase hook") }
            var env = tenant.settings["gotrue_env"]?.objectValue ?? [:]
            let prefix = "GOTRUE_HOOK_\(hook.variable)"
            for suffix in ["_ENABLED", "_URI", "_SECRETS"] { env.removeValue(forKey: prefix + suffix) }
            if let binding {
                env[prefix + "_ENABLED"] = "true"
                env[prefix + "_URI"] = binding["uri"] ?? ""
                if let secrets = binding["secrets"]?.stringValue ?? binding["secrets"]?.arrayValue?.compactMap(\.stringValue).joined(separator: "|") {
                    env[prefix + "_SECRETS"] = .string(secrets)
                }
            }
            do { _ = try AuthHook.bindings(env.compactMapValues(\.stringValue)) } catch let error as SupabaseConfigError {
                throw AuthError.invalidInput(field: error.variable, reason: error.reason)
            }
            var settings = tenant.settings
            settings["gotrue_env"] = .object(env)
            return settings
        })
}

extension AuthHooks {
    /// The claims GoTrue's `MinimumViableTokenSchema` requires of a custom access token hook's output.
    static let requiredClaims = ["aud", "exp", "iat", "sub", "email", "phone", "role", "aal", "session_id", "is_anonymous"]

    /// The custom access token hook's claims in place of GoTrue's (`{"claims": {…}}`), checked as GoTrue
    /// checks them; the claims unchanged when the hook is off.
    func customizeClaims(_ claims: [String: JSON], userId: String, method: String, origin: RequestOrigin) async throws -> [String: JSON] {
        guard enabled(.customAccessToken) else { return claims }
        let output = try await run(.customAccessToken, ["user_id": .string(userId), "claims": .object(claims), "authentication_method": .string(method)],
                                   origin: origin, userId: userId)
        // A 204 (no output) and `"claims": null` both leave GoTrue with nil claims, which its schema check refuses;
        // only an output without the member is "missing".
        if output == nil || output?["claims"] == .null {
            throw Self.internalError("output claims do not conform to the expected schema: \n- (root): Invalid type. Expected: object, given: null\n")
        }
        guard let object = output?.objectValue, let field = object["claims"] else { throw Self.internalError("output claims field is missing") }
        guard let custom = field.objectValue else { throw Self.internalError("Error unmarshaling JSON output.") }
        var problems = Self.requiredClaims.filter { custom[$0] == nil }.map { "- (root): \($0) is required" }
        let types: [(String, [String])] = [("aud", ["string", "array"]), ("exp", ["integer"]), ("iat", ["integer"]), ("sub", ["string"]),
                                           ("email", ["string"]), ("phone", ["string"]), ("role", ["string"]), ("aal", ["string"]),
                                           ("session_id", ["string"]), ("iss", ["string"]), ("jti", ["string"]), ("nbf", ["integer"]),
                                           ("app_metadata", ["object"]), ("user_metadata", ["object"]), ("amr", ["array"]), ("client_id", ["string"])]
        for (name, allowed) in types {
            guard let value = custom[name] else { continue }
            let type = Self.schemaType(value)
            if !allowed.contains(type) {
                problems.append("- \(name): Invalid type. Expected: \(allowed.joined(separator: " or ")), given: \(type)")
            }
        }
        guard problems.isEmpty else {
            throw Self.internalError("output claims do not conform to the expected schema: \n" + problems.map { $0 + "\n" }.joined())
        }
        return custom
    }

    /// A value's JSON Schema type, as gojsonschema names it in its errors.
    private static func schemaType(_ value: JSON) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double(let d): d == d.rounded() ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension AuthHooks {
    /// The password verification attempt hook (`token.go`): told whether the password was right, it may
    /// reject the attempt (`invalid_credentials` with its message) and end the user's sessions.
    func passwordAttempt(userId: String, valid: Bool, origin: RequestOrigin) async throws {
        guard enabled(.passwordVerificationAttempt) else { return }
        let output = try await run(.passwordVerificationAttempt, ["user_id": .string(userId), "valid": .bool(valid)], origin: origin, userId: userId)
        guard output?["decision"]?.stringValue == "reject" else { return }
        if output?["should_logout_user"]?.boolValue == true {
            try emulator.revokeSessions(in: project.storeTenant, userId: userId, .all, reason: "password_verification_hook", origin: origin)
        }
        let message = output?["message"]?.stringValue ?? ""
        throw SupabaseError(status: .badRequest, code: .invalidCredentials,
                            message: message.isEmpty ? "Further password verification attempts will be rejected." : message)
    }

    /// The MFA verification attempt hook (`mfa.go`): told whether the code was right, it may reject the
    /// attempt, which signs the user out everywhere and answers 403 `mfa_verification_rejected`.
    func mfaAttempt(userId: String, factor: Factor, valid: Bool, origin: RequestOrigin) async throws {
        guard enabled(.mfaVerificationAttempt) else { return }
        let output = try await run(.mfaVerificationAttempt, ["user_id": .string(userId), "factor_id": .string(factor.id),
                                                             "factor_type": .string(factor.kind), "valid": .bool(valid)],
                                   origin: origin, userId: userId)
        guard output?["decision"]?.stringValue == "reject" else { return }
        try emulator.revokeSessions(in: project.storeTenant, userId: userId, .all, reason: "mfa_verification_hook", origin: origin)
        let message = output?["message"]?.stringValue ?? ""
        throw SupabaseError(status: .forbidden, code: .mfaVerificationRejected,
                            message: message.isEmpty ? "Further MFA verification attempts will be rejected." : message)
    }

    /// The before-user-created hook: sees the user about to be made (with the id it will have) and may
    /// refuse with its error object, which becomes the answer. Returns the sign-up with that id.
    func beforeUserCreated(_ new: NewUser, provider: String, origin: RequestOrigin) async throws -> NewUser {
        guard enabled(.beforeUserCreated) else { return new }
        var new = new
        new.id = new.id ?? emulator.generator.uuid()
        // GoTrue shows the user before it is saved, so its timestamps are Go's zero time (`models.NewUser` sets none).
        let now: JSON = "0001-01-01T00:00:00Z"
        let user: [String: JSON] = [
            "id": .string(new.id ?? ""), "aud": .string(project.config.jwtAudience), "role": "",
            "email": .string(new.email ?? ""), "phone": .string(GoTrueJSON.phone(new.phone)),
            "app_metadata": .object((["provider": .string(provider), "providers": [.string(provider)]] as [String: JSON]).merging(new.appMetadata) { $1 }),
            "user_metadata": .object(new.userMetadata), "identities": [], "created_at": now, "updated_at": now,
            "is_anonymous": .bool(new.isAnonymous),
        ]
        try await run(.beforeUserCreated, ["user": .object(user)], origin: origin, userId: nil, identifier: new.email ?? new.phone)
        return new
    }

    /// The after-user-created hook: told of the user just made. Its failure is the request's, though the
    /// user stays (GoTrue calls it once the user is committed).
    func afterUserCreated(_ user: User, origin: RequestOrigin) async throws {
        guard enabled(.afterUserCreated) else { return }
        try await run(.afterUserCreated, ["user": GoTrueJSON.user(user, config: project.config)], origin: origin, userId: user.id,
                      identifier: user.email ?? user.phone)
    }

    /// A user made by a sign-up path GoTrue guards with its user-created hooks (sign-up, anonymous,
    /// OTP, invite, external sign-in; not the admin API): before, then the user, then (unless the caller
    /// calls it later, as `/signup` does) after.
    func createUser(_ new: NewUser, provider: String, origin: RequestOrigin, event: EventType = .userSignedUp,
                    thenAfter: Bool = true) async throws -> User {
        let checked = try await beforeUserCreated(new, provider: provider, origin: origin)
        let user = try emulator.createUser(in: project.storeTenant, checked, origin: origin, event: event)
        if thenAfter { try await afterUserCreated(user, origin: origin) }
        return user
    }
}
