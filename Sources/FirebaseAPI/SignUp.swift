import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:signUp` (and admin `projects/{p}/accounts`): anonymous and email/password accounts,
/// upgrading an anonymous or phone user when an `idToken` comes along, and the admin's createUser.
enum SignUp {
    static func handle(_ call: FirebaseCall) async throws -> Response {
        let body = call.body
        if let idToken = try body.string("idToken"), !idToken.isEmpty { return try await link(call, idToken: idToken) }
        if try body.string("localId") != nil, !call.isOwner { throw FirebaseError(.unexpectedParameter, "User ID") }
        let scope = try call.scope()
        let email = try body.string("email"), password = try body.string("password")
        if email == nil, password == nil, !call.isOwner { return try anonymous(call, scope: scope) }
        if password != nil, email == nil, !call.isOwner { throw FirebaseError(.missingEmail) }
        if email != nil, password == nil, !call.isOwner { throw FirebaseError(.missingPassword) }
        if !call.isOwner, !scope.settings.allowPasswordSignup { throw FirebaseError(.operationNotAllowed) }
        var new = try newUser(call, scope: scope)
        // Blocking functions see the sign-ups of the app's users, not the accounts an admin creates.
        if !call.isOwner {
            if !scope.settings.allowDuplicateEmails, let email = new.email, try call.emulator.user(in: scope.coreTenant, .email(email)) != nil {
                throw FirebaseError(.emailExists)
            }
            new = try await call.beforeCreate(new, scope: scope, .init("password"))
        }
        var user = try create(call, scope: scope, new: new)
        // firebase-admin's createUser({multiFactor: {enrolledFactors}}) sends them here, as batchCreate does.
        let enrollments = call.isOwner ? try body.array("mfaInfo") : []
        if !enrollments.isEmpty { try MFAAdmin.replaceEnrollments(call, scope: scope, user: user, enrollments: enrollments) }
        var tokens: [String: JSON] = [:]
        if !call.isOwner {
            tokens = try await call.signIn(user, scope: scope, provider: "password", allowMFA: false, blocking: .init("password"))
            user = try call.emulator.user(in: scope.coreTenant, id: user.id) ?? user
        }
        var answer: [String: JSON] = ["kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(user.id)]
        answer["email"] = user.email.map(JSON.string)
        answer["displayName"] = user.userMetadata["displayName"]
        answer.merge(tokens) { $1 }
        return .json(.object(answer))
    }

    /// The account a sign-up body describes; admin-only fields are read only from owners.
    static func newUser(_ call: FirebaseCall, scope: FirebaseScope) throws -> NewUser {
        let body = call.body
        // An owner's taken id fails first, "matching production behavior" (the emulator's signUp).
        if call.isOwner, let id = try body.string("localId"), try call.emulator.user(in: scope.coreTenant, id: id) != nil {
            throw FirebaseError(.duplicateLocalID)
        }
        let email = try body.string("email").map { $0.lowercased() }
        if let email { guard !email.isEmpty, email.contains("@") else { throw FirebaseError(.invalidEmail) } }
        let password = try body.string("password")
        if let password { try checkPassword(password, scope: scope) }
        var metadata: [String: JSON] = [:]
        metadata["displayName"] = try body.string("displayName").map(JSON.string)
        var new = NewUser(email: email, password: password, emailVerified: false, userMetadata: metadata)
        if call.isOwner {
            // The phone must be E.164 as written, and so must the factors' numbers (the emulator's signUp).
            new.id = try body.string("localId")
            new.phone = try body.string("phoneNumber")
            if let phone = new.phone, !phone.hasPrefix("+") { throw FirebaseError(.invalidPhoneNumber, "Invalid format.") }
            for enrollment in try body.array("mfaInfo") where (enrollment["phoneInfo"]?.stringValue).flatMap({ try? Identifiers.phone($0) }) == nil {
                throw FirebaseError(.invalidMFAPhoneNumber, "Invalid format.")
            }
            new.emailVerified = try body.bool("emailVerified") ?? false
            new.phoneVerified = new.phone != nil
            new.disabled = try body.bool("disabled") ?? false
            new.userMetadata["photoUrl"] = try body.string("photoUrl").map(JSON.string)
        }
        if new.id == nil { new.id = newLocalId(call.emulator) }
        return new
    }

    /// Creates the account, in Identity Toolkit's words when it clashes.
    static func create(_ call: FirebaseCall, scope: FirebaseScope, new: NewUser, event: EventType = .userSignedUp) throws -> User {
        do {
            return try call.emulator.createUser(in: scope.coreTenant, new, origin: call.origin, event: call.isOwner ? .userCreated : event)
        } catch AuthError.invalidInput(field: "id", _) {
            throw FirebaseError(.duplicateLocalID)
        } catch AuthError.invalidPhone {
            throw FirebaseError(.invalidPhoneNumber, "Invalid format.")
        }
    }

    private static func anonymous(_ call: FirebaseCall, scope: FirebaseScope) throws -> Response {
        guard scope.settings.enableAnonymousUser else { throw FirebaseError(.adminOnlyOperation) }
        let user = try call.emulator.createUser(in: scope.coreTenant, NewUser(id: newLocalId(call.emulator), isAnonymous: true),
                                                origin: call.origin, event: .userSignedUp)
        var answer = try call.startSession(user, scope: scope, provider: "anonymous").fields
        answer["kind"] = "identitytoolkit#SignupNewUserResponse"
        return .json(.object(answer))
    }

    /// An anonymous (or phone) user adds an email and password and keeps its `localId`.
    private static func link(_ call: FirebaseCall, idToken: String) async throws -> Response {
        let caller = try call.caller(idToken: idToken)
        let body = call.body
        guard let email = try body.string("email")?.lowercased(), !email.isEmpty else { throw FirebaseError(.missingEmail) }
        guard email.contains("@") else { throw FirebaseError(.invalidEmail) }
        guard let password = try body.string("password") else { throw FirebaseError(.missingPassword) }
        // Linking a password is a password sign-up: refused where password sign-in is off (the emulator's signUp).
        guard caller.scope.settings.allowPasswordSignup else { throw FirebaseError(.operationNotAllowed) }
        try checkPassword(password, scope: caller.scope)
        var metadata: [String: JSON] = [:]
        metadata["displayName"] = try body.string("displayName").map(JSON.string)
        let user = try call.emulator.updateUser(in: caller.scope.coreTenant, id: caller.user.id,
                                                UserChanges(email: email, password: password, userMetadata: metadata, isAnonymous: false),
                                                origin: call.origin)
        var answer = try call.startSession(user, scope: caller.scope, provider: "password").fields
        answer["kind"] = "identitytoolkit#SignupNewUserResponse"
        answer["email"] = .string(email)
        return .json(.object(answer))
    }

    /// Identity Toolkit's only built-in rule: at least six characters (or the project's minimum).
    static func checkPassword(_ password: String, scope: FirebaseScope) throws {
        let rules = passwordRules(scope)
        guard rules.shortfalls(password).isEmpty else {
            throw FirebaseError(.weakPassword, "Password should be at least \(rules.minLength) characters")
        }
    }

    /// The emulator counts as JavaScript does (`password.length`): UTF-16 code units, so an emoji is two.
    static func passwordRules(_ scope: FirebaseScope) -> PasswordPolicy {
        PasswordPolicy(minLength: max(6, scope.settings.passwordMinLength), unit: .utf16)
    }

    /// `GET /v2/passwordPolicy` (the JS SDK's `validatePassword`): the rule `checkPassword` applies, as Identity
    /// Platform describes a project without a password policy of its own (enforcement `OFF`: the minimum is the
    /// built-in `WEAK_PASSWORD` rule, not a policy's `PASSWORD_DOES_NOT_MEET_REQUIREMENTS`). Schema 1 is the one the
    /// SDK reads. Google's emulator does not serve it (501), so the SDK's call failed there.
    static func passwordPolicy(_ call: FirebaseCall) async throws -> Response {
        let tenant = call.request.uri.queryParameters.get("tenantId").flatMap { $0.isEmpty ? nil : String($0) }
        let scope = try call.projects.scope(project: try call.projectId(), tenant: tenant)
        return .json(["customStrengthOptions": ["minPasswordLength": .int(passwordRules(scope).minLength)], "enforcementState": "OFF",
                      "forceUpgradeOnSignin": false, "schemaVersion": 1])
    }

    /// A `localId` as Identity Toolkit makes them: 28 letters and digits.
    static func newLocalId(_ emulator: Emulator) -> String {
        emulator.generator.string(28, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }
}
