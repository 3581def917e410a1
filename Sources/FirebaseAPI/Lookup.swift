import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:lookup`, `accounts:delete`, `accounts:createAuthUri`, and the project-level `GET /v1/projects`
/// and `GET /v1/recaptchaParams`.
enum Lookup {
    static func lookup(_ call: FirebaseCall) async throws -> Response {
        let body = call.body
        var users: [User] = []
        let scope: FirebaseScope
        if call.isOwner, try body.string("idToken") == nil {
            scope = try call.scope()
            // The emulator answers 501; a 4xx says the same without looking like a server failure.
            if try body.string("initialEmail") != nil {
                throw FirebaseError(.invalidArgument, "initialEmail is not supported: Fauxth does not keep the email an account was created with")
            }
            users = try ownerLookup(call, scope: scope)
        } else {
            let caller = try call.caller(idToken: try body.string("idToken"))
            scope = caller.scope
            users = [caller.user]
        }
        var seen = Set<String>()
        let unique = users.filter { seen.insert($0.id).inserted }
        var answer: [String: JSON] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        if !unique.isEmpty { answer["users"] = .array(try unique.map { try info(call.emulator, $0, scope: scope) }) }
        return .json(.object(answer))
    }

    private static func ownerLookup(_ call: FirebaseCall, scope: FirebaseScope) throws -> [User] {
        let body = call.body, emulator = call.emulator, tenant = scope.coreTenant
        var users: [User] = []
        for id in try body.strings("localId") { users += try emulator.user(in: tenant, id: id).map { [$0] } ?? [] }
        for email in try body.strings("email") { users += try emulator.user(in: tenant, .email(email)).map { [$0] } ?? [] }
        for phone in try body.strings("phoneNumber") { users += try emulator.user(in: tenant, .phone(phone)).map { [$0] } ?? [] }
        for item in try body.array("federatedUserId") {
            guard let provider = item["providerId"]?.stringValue, let raw = item["rawId"]?.stringValue else { continue }
            // The emulator indexes the password and phone providers by address (their rawId is the email or number).
            let found: User? = switch provider {
            case "password": try emulator.user(in: tenant, .email(raw.lowercased())).flatMap { $0.hasPassword ? $0 : nil }
            case "phone": try emulator.user(in: tenant, .phone(raw))
            default: try emulator.user(in: tenant, provider: provider, subject: raw)
            }
            users += found.map { [$0] } ?? []
        }
        return users
    }

    /// A user as `UserInfo`, with its factors, its passkeys and the last refresh of any of its sessions.
    static func info(_ emulator: Emulator, _ user: User, scope: FirebaseScope) throws -> JSON {
        try infos(emulator, [user], scope: scope)[0]
    }

    /// Users as `UserInfo`, their factors and sessions read for all of them at once (a list's page).
    static func infos(_ emulator: Emulator, _ users: [User], scope: FirebaseScope) throws -> [JSON] {
        let activity = try emulator.activity(in: scope.coreTenant, of: users)
        return users.map { user in
            FirebaseUserJSON.user(user, factors: activity[user.id]?.factors ?? [], passkeys: activity[user.id]?.passkeys ?? [],
                                  lastRefreshAt: activity[user.id]?.lastRefreshAt,
                                  tenantId: scope.tenantId)
        }
    }

    static func delete(_ call: FirebaseCall) async throws -> Response {
        if call.isOwner, try call.body.string("idToken") == nil, try call.body.string("localId") == nil { throw FirebaseError(.missingLocalID) }
        let (scope, user) = try call.subject()
        try call.requireRecentSignIn()
        try call.emulator.deleteUser(in: scope.coreTenant, id: user.id, origin: call.origin)
        return .json(["kind": "identitytoolkit#DeleteAccountResponse"])
    }

    /// Which sign-in methods an email has (`fetchSignInMethodsForEmail`); with email enumeration protection
    /// on, nothing about the address is said.
    static func createAuthUri(_ call: FirebaseCall) async throws -> Response {
        if let providerId = try call.body.string("providerId"), !providerId.isEmpty { return try ProviderWidget.authUri(call, providerId: providerId.lowercased()) }
        let scope = try call.scope()
        // The emulator's order: the identifier, the continue URI, the identifier's form, then the URI's.
        guard let identifier = try call.body.string("identifier"), !identifier.isEmpty else { throw FirebaseError(.missingIdentifier) }
        guard let continueUri = try call.body.string("continueUri"), !continueUri.isEmpty else { throw FirebaseError(.missingContinueURI) }
        guard identifier.contains("@") else { throw FirebaseError(.invalidIdentifier) }
        guard URLComponents(string: continueUri)?.scheme?.isEmpty == false else { throw FirebaseError(.invalidContinueURI) }
        let sessionId = try call.body.string("sessionId").flatMap { $0.isEmpty ? nil : $0 }
            ?? call.emulator.generator.string(27, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var answer: [String: JSON] = ["kind": "identitytoolkit#CreateAuthUriResponse", "sessionId": .string(sessionId)]
        if scope.settings.improvedEmailPrivacy { return .json(.object(answer)) }
        // The account with the address, else (one account per email) one whose provider has it, as the emulator finds them.
        var user = try call.emulator.user(in: scope.coreTenant, .email(identifier))
        if user == nil, !scope.settings.allowDuplicateEmails { user = try call.emulator.user(in: scope.coreTenant, providerEmail: identifier) }
        var methods: [String] = []
        if let user {
            // In the order the methods were added, as the emulator walks `providerUserInfo`; with duplicate emails
            // allowed it reports the password methods only ("No IDP.").
            var own: [String] = []
            if user.hasPassword { own.append("password") }
            if FirebaseUserJSON.emailLinkUser(user) { own.append("emailLink") }
            var placed = false
            for provider in user.identities.map(\.provider) where !["phone", "anonymous"].contains(provider) {
                if provider == "email" {
                    if !placed { methods += own; placed = true }
                } else if !scope.settings.allowDuplicateEmails {
                    methods.append(provider)
                }
            }
            if !placed { methods += own }
        }
        answer["registered"] = .bool(user != nil)
        answer["allProviders"] = .array(methods.map { $0 == "emailLink" ? "password" : $0 }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.map(JSON.string))
        answer["signinMethods"] = .array(methods.map(JSON.string))
        return .json(.object(answer))
    }

    /// The project number stands in as the emulator's fixed one; the authorized domains are the project's.
    static func projects(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.scope()
        if scope.tenantId != nil { throw FirebaseError(.unsupportedTenantOperation) }
        let domains = scope.settings.authorizedDomains + ["\(scope.projectId).firebaseapp.com", "\(scope.projectId).web.app"]
        return .json(["projectId": "12345", "authorizedDomains": .array(domains.map(JSON.string))])
    }

    /// `GET /v2/recaptchaConfig`, which the JS SDK asks before email and phone flows: reCAPTCHA Enterprise off for
    /// every provider, as for a project that never turned it on, so the SDK goes on without it (and the phone flow
    /// with the app's own verifier, which `recaptchaParams` fakes out). The SDK refuses an answer without a key
    /// (`RecaptchaConfig`), so one in Google's form stands in; with enforcement off nothing loads it.
    static func recaptchaConfig(_ call: FirebaseCall) async throws -> Response {
        let project = try call.projectId()
        let providers = ["EMAIL_PASSWORD_PROVIDER", "PHONE_PROVIDER"]
        return .json(["recaptchaKey": .string("projects/\(project)/keys/fauxth-recaptcha-off"),
                      "recaptchaEnforcementState": .array(providers.map { ["provider": .string($0), "enforcementState": "OFF"] })])
    }

    static func recaptchaParams(_ call: FirebaseCall) async throws -> Response {
        .json(["kind": "identitytoolkit#GetRecaptchaParamResponse",
               "recaptchaStoken": "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-reCAPTCHA",
               "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_"])
    }
}
