import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Identity Platform's blocking functions: the app's Cloud Functions called before a user is created
/// (`beforeCreate`), before a sign-in gets its tokens (`beforeSignIn`), and before an email or a text is
/// sent (`beforeSendEmail`, `beforeSendSms`). They are kept where the real config keeps them, the project
/// config's `blockingFunctions` (`triggers.<event>.functionUri`, `forwardInboundCredentials`), and an
/// Identity Platform tenant uses its project's, as in production and the Firebase emulator (the v2 Tenant
/// resource has no `blockingFunctions`).
///
/// A function gets `{"data": {"jwt": …}}`, the event in the token's claims, and answers
/// `{"userRecord": {"updateMask": "displayName,…", …}}` (firebase-functions' `generateResponsePayload`), or
/// an error status, which refuses the operation.
enum BlockingFunctions {
    enum Event: String, CaseIterable, Sendable {
        case beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms
    }

    /// Identity Platform gives a function 7 seconds, then fails the client's operation; the Firebase
    /// emulator waits 60 (a TODO in its `fetchBlockingFunction`). Fauxth keeps production's limit so a
    /// function too slow for production fails here too, instead of only after deployment.
    static let timeout: Duration = .seconds(7)

    /// A project's `blockingFunctions` config.
    struct Config: Sendable, Equatable {
        var triggers: [Event: String] = [:]
        /// `forwardInboundCredentials`: which of the provider's tokens go into the event.
        var forwardIdToken = false
        var forwardAccessToken = false
        var forwardRefreshToken = false

        init(_ json: JSON?) {
            for event in Event.allCases {
                if let uri = json?["triggers"]?[event.rawValue]?["functionUri"]?.stringValue, !uri.isEmpty { triggers[event] = uri }
            }
            let forward = json?["forwardInboundCredentials"]
            forwardIdToken = forward?["idToken"]?.boolValue ?? false
            forwardAccessToken = forward?["accessToken"]?.boolValue ?? false
            forwardRefreshToken = forward?["refreshToken"]?.boolValue ?? false
        }

        /// What Identity Toolkit refuses in a config (`operations.ts` `updateConfig`): an event it has no
        /// trigger for, or a function URI that is not absolute. Nil when the config is fine.
        static func problem(in json: JSON) -> String? {
            guard case .object(let triggers)? = json["triggers"] else { return nil }
            for (event, trigger) in triggers.sorted(by: { $0.key < $1.key }) {
                guard Event(rawValue: event) != nil else { return "((Event type is invalid.))" }
                guard let uri = trigger["functionUri"]?.stringValue, RedirectURL.isWeb(uri) else {
                    return "((Expected an absolute URI with valid scheme and host.))"
                }
            }
            return nil
        }
    }

    /// How the user is signing in, as the event tells the function.
    struct SignInMethod: Sendable {
        /// `password`, `emailLink`, `phone`, or the provider's id (`google.com`).
        var method: String
        /// The second factor just verified (`phone`, `totp`) on an MFA sign-in.
        var secondFactor: String?
        /// The provider's profile, as the `rawUserInfo` the SDK gets.
        var rawUserInfo: String?
        /// The provider's tokens; only those `forwardInboundCredentials` names are sent.
        var oauthIdToken: String?
        var oauthAccessToken: String?
        /// A SAML provider's `attributeStatements`, which also go into the session's ID tokens
        /// (`firebase.sign_in_attributes`).
        var signInAttributes: JSON?

        init(_ method: String, secondFactor: String? = nil, rawUserInfo: String? = nil, oauthIdToken: String? = nil, oauthAccessToken: String? = nil) {
            self.method = method; self.secondFactor = secondFactor; self.rawUserInfo = rawUserInfo
            self.oauthIdToken = oauthIdToken; self.oauthAccessToken = oauthAccessToken
        }
    }

    /// What a function's answer changes: the user-record fields its `updateMask` names. `sessionClaims` go
    /// only into this sign-in's ID token, and only from `beforeSignIn`, as Identity Platform documents.
    struct Updates: Sendable {
        var displayName: JSON?
        var photoUrl: JSON?
        var disabled: Bool?
        var emailVerified: Bool?
        var customClaims: [String: JSON]?
        var sessionClaims: [String: JSON] = [:]

        /// The changes to a user that exists.
        func changes() -> UserChanges? {
            var profile: [String: JSON] = [:]
            profile["displayName"] = displayName
            profile["photoUrl"] = photoUrl
            var changes = UserChanges(emailVerified: emailVerified, userMetadata: profile.isEmpty ? nil : profile, disabled: disabled)
            if let customClaims {
                changes.appMetadata = customClaims
                changes.replacesAppMetadata = true
            }
            let unchanged = changes.emailVerified == nil && changes.userMetadata == nil && changes.disabled == nil && changes.appMetadata == nil
            return unchanged ? nil : changes
        }

        /// The same laid on an account about to be created.
        func apply(to new: inout NewUser) {
            for (key, value) in [("displayName", displayName), ("photoUrl", photoUrl)] {
                guard let value else { continue }
                new.userMetadata[key] = value == .null ? nil : value
            }
            if let disabled { new.disabled = disabled }
            if let emailVerified { new.emailVerified = emailVerified }
            if let customClaims { new.appMetadata = customClaims }
        }
    }
}

// MARK: - The calls

extension FirebaseCall {
    /// Calls the project's `beforeCreate` function (if any) about an account not yet stored, and lays its
    /// answer on it.
    func beforeCreate(_ new: NewUser, scope: FirebaseScope, _ method: BlockingFunctions.SignInMethod) async throws -> NewUser {
        guard let url = scope.settings.blockingFunctions.triggers[.beforeCreate] else { return new }
        var claims = eventClaims(.beforeCreate, url: url, scope: scope, method: method)
        claims["user_record"] = .object(BlockingRecord.record(of: new, tenantId: scope.tenantId, now: emulator.clock.now))
        claims["sub"] = new.id.map(JSON.string)
        let answer = try await callBlocking(.beforeCreate, url: url, claims: claims, scope: scope, identifier: new.email ?? new.phone ?? new.id, userId: nil)
        var updated = new
        try BlockingFunctions.updates(in: answer, for: .beforeCreate).apply(to: &updated)
        return updated
    }

    /// Calls the project's `beforeSignIn` function (if any) about `user`, stores what it changed (a user it
    /// disables stays disabled, then the sign-in is `USER_DISABLED`), and answers the user and the claims
    /// for this sign-in's ID token.
    func beforeSignIn(_ user: User, scope: FirebaseScope, _ method: BlockingFunctions.SignInMethod) async throws -> (User, [String: JSON]) {
        guard let url = scope.settings.blockingFunctions.triggers[.beforeSignIn] else { return (user, [:]) }
        var claims = eventClaims(.beforeSignIn, url: url, scope: scope, method: method)
        let factors = try emulator.factors(in: scope.coreTenant, userId: user.id).filter(\.verified)
        claims["user_record"] = .object(BlockingRecord.record(of: user, factors: factors, tenantId: scope.tenantId))
        claims["sub"] = .string(user.id)
        let answer = try await callBlocking(.beforeSignIn, url: url, claims: claims, scope: scope, identifier: user.email ?? user.phone ?? user.id,
                                            userId: user.id)
        let updates = try BlockingFunctions.updates(in: answer, for: .beforeSignIn)
        var updated = user
        if let changes = updates.changes() {
            updated = try emulator.updateUser(in: scope.coreTenant, id: user.id, changes, origin: origin)
        }
        if updated.disabled { throw FirebaseError(.userDisabled) }
        return (updated, updates.sessionClaims)
    }

    /// Calls `beforeSendEmail` before a sign-in link or a password reset is emailed; a refusal sends nothing.
    /// The answer's `recaptchaActionOverride` only matters to reCAPTCHA Enterprise, which Fauxth has not.
    func beforeSendEmail(to email: String, type: String, scope: FirebaseScope) async throws {
        guard let url = scope.settings.blockingFunctions.triggers[.beforeSendEmail] else { return }
        var claims = eventClaims(.beforeSendEmail, url: url, scope: scope, method: nil)
        claims["email"] = .string(email)
        claims["email_type"] = .string(type)
        _ = try await callBlocking(.beforeSendEmail, url: url, claims: claims, scope: scope, identifier: email, userId: nil)
    }

    /// Calls `beforeSendSms` before a code is texted; a refusal sends nothing. `type` is
    /// `SIGN_IN_OR_SIGN_UP`, `MULTI_FACTOR_SIGN_IN` or `MULTI_FACTOR_ENROLLMENT`.
    func beforeSendSms(to phone: String, type: String, scope: FirebaseScope, userId: String?) async throws {
        guard let url = scope.settings.blockingFunctions.triggers[.beforeSendSms] else { return }
        var claims = eventClaims(.beforeSendSms, url: url, scope: scope, method: nil)
        claims["phone_number"] = .string(phone)
        claims["sms_type"] = .string(type)
        _ = try await callBlocking(.beforeSendSms, url: url, claims: claims, scope: scope, identifier: phone, userId: userId)
    }

    /// The claims every event has (`operations.ts` `generateBlockingFunctionJwt`): the project's issuer, the
    /// function as audience, the caller's address, agent and language, and how the user signs in. Times are
    /// the emulator clock's; the token lives ten minutes, as the emulator's (its `timeoutMs / 100`).
    private func eventClaims(_ event: BlockingFunctions.Event, url: String, scope: FirebaseScope,
                             method: BlockingFunctions.SignInMethod?) -> [String: JSON] {
        let iat = Int(emulator.clock.now.timeIntervalSince1970)
        var claims: [String: JSON] = [
            "iss": .string("https://securetoken.google.com/\(scope.projectId)"), "aud": .string(url), "iat": .int(iat), "exp": .int(iat + 600),
            // firebase-functions reads the short name (`event_type === "beforeCreate"`) and maps it to
            // `providers/cloud.auth/eventTypes/user.beforeCreate` itself.
            "event_id": .string(emulator.generator.string(22, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")),
            "event_type": .string(event.rawValue),
            "ip_address": .string(origin.ip ?? "127.0.0.1"),
            "user_agent": .string(origin.userAgent ?? ""),
            "locale": .string(request.headers[.firebaseLocale] ?? "en"),
        ]
        claims["tenant_id"] = scope.tenantId.map(JSON.string)
        if let method {
            claims["sign_in_method"] = .string(method.method)
            claims["sign_in_second_factor"] = method.secondFactor.map(JSON.string)
            claims["raw_user_info"] = method.rawUserInfo.map(JSON.string)
            claims["sign_in_attributes"] = method.signInAttributes.map { .string($0.serialized()) }
            let forward = scope.settings.blockingFunctions
            if forward.forwardIdToken { claims["oauth_id_token"] = method.oauthIdToken.map(JSON.string) }
            if forward.forwardAccessToken { claims["oauth_access_token"] = method.oauthAccessToken.map(JSON.string) }
        }
        return claims
    }

    /// Sends the event, signed as the project signs ID tokens (unsigned by default, which firebase-functions
    /// takes in emulator mode; RS256 with the published key otherwise, as production signs), and answers
    /// the function's JSON, or the error Identity Toolkit makes of a refusal or a failure.
    private func callBlocking(_ event: BlockingFunctions.Event, url: String, claims: [String: JSON], scope: FirebaseScope,
                              identifier: String?, userId: String?) async throws -> JSON {
        let jwt = try FirebaseTokens.sign(claims, scope: scope, emulator: emulator)
        let hook = HookRequest(dialect: .firebase, tenant: scope.coreTenant, point: event.rawValue, url: url, json: ["data": ["jwt": .string(jwt)]],
                               timeout: BlockingFunctions.timeout, identifier: identifier)
        return try BlockingFunctions.answer(await emulator.callHook(hook, origin: origin, userId: userId), url: url)
    }
}

extension BlockingFunctions {
    /// The function's JSON answer, or the error the client gets instead. A refusal (an error status, or an
    /// `error` body) is production's `BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function returned an
    /// error: <body>` (what apps parse the function's message out of); a function that cannot be reached,
    /// takes too long or answers garbage gets the Firebase emulator's words, which name the failure.
    static func answer(_ outcome: HookOutcome, url: String) throws -> JSON {
        switch outcome {
        case .timedOut:
            throw FirebaseError.blockingFunction(.internalServerError, "((Deadline exceeded making request to \(url).))")
        case .unreachable:
            throw FirebaseError.blockingFunction(.internalServerError, "((Failed to make request to \(url).))")
        case .answered(let status, _, let body):
            let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard (200..<300).contains(status) else {
                throw FirebaseError.blockingFunction(.badRequest, "HTTP Cloud Function returned an error: \(text)")
            }
            if text.isEmpty { return [:] }
            guard case .object(let answer)? = outcome.json else {
                throw FirebaseError.blockingFunction(.internalServerError, "((Response body is not valid JSON.))")
            }
            if answer["error"] != nil, answer["error"] != .null {
                throw FirebaseError.blockingFunction(.badRequest, "HTTP Cloud Function returned an error: \(text)")
            }
            return .object(answer)
        }
    }

    /// The fields of `userRecord` its `updateMask` names (`operations.ts` `processBlockingFunctionResponse`).
    /// firebase-functions names the photo `photoURL`, the emulator reads `photoUrl`: both count.
    static func updates(in answer: JSON, for event: Event) throws -> Updates {
        var updates = Updates()
        guard let record = answer["userRecord"], record != .null else { return updates }
        guard let mask = record["updateMask"]?.stringValue else {
            throw FirebaseError.blockingFunction(.badRequest, "((Response UserRecord is missing updateMask.))")
        }
        for field in mask.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let value = record[field] ?? .null
            switch field {
            case "displayName": updates.displayName = text(value)
            case "photoURL", "photoUrl": updates.photoUrl = text(value)
            case "disabled": updates.disabled = truthy(value)
            case "emailVerified": updates.emailVerified = truthy(value)
            case "customClaims":
                updates.customClaims = try Update.customClaims(value == .null ? "{}" : value.serialized())
            case "sessionClaims" where event == .beforeSignIn:
                guard case .object(let claims) = value else {
                    throw FirebaseError.blockingFunction(.badRequest, "((Response has malformed session claims.))")
                }
                updates.sessionClaims = claims
            default: break
            }
        }
        return updates
    }

    /// A string field as the emulator coerces one (`coercePrimitiveToString`); null clears it.
    private static func text(_ value: JSON) -> JSON {
        switch value {
        case .string: value
        case .int(let n): .string(String(n))
        case .double(let d): .string(String(d))
        case .bool(let b): .string(String(b))
        default: .null
        }
    }

    /// JavaScript's `!!value`.
    private static func truthy(_ value: JSON) -> Bool {
        switch value {
        case .bool(let b): b
        case .int(let n): n != 0
        case .double(let d): d != 0 && !d.isNaN
        case .string(let s): !s.isEmpty
        case .null: false
        default: true
        }
    }
}
