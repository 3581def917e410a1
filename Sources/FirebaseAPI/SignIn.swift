import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:signInWithPassword`, `accounts:signInWithCustomToken` and `accounts:signInWithEmailLink`.
enum SignIn {
    /// Email and password. With email enumeration protection on, an unknown email and a wrong password
    /// are the same `INVALID_LOGIN_CREDENTIALS`; off, they are `EMAIL_NOT_FOUND` and `INVALID_PASSWORD`.
    static func password(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.scope()
        // The emulator's order (`signInWithPassword`), which a disabled account's sign-in follows too: USER_DISABLED
        // before the password is looked at, so whatever password is typed (auth/user-disabled).
        guard scope.settings.allowPasswordSignup else { throw FirebaseError(.passwordLoginDisabled) }
        guard let email = try call.body.string("email") else { throw FirebaseError(.missingEmail) }
        guard (try? Identifiers.email(email)) != nil else { throw FirebaseError(.invalidEmail) }
        guard let password = try call.body.string("password"), !password.isEmpty else { throw FirebaseError(.missingPassword) }
        let user: User
        do {
            user = try call.emulator.authenticate(in: scope.coreTenant, PasswordSignIn(identifier: .email(email), password: password, requireVerified: false,
                                                                                       refusesStateFirst: true), origin: call.origin)
        } catch AuthError.invalidCredentials where !scope.settings.improvedEmailPrivacy {
            let known = try call.emulator.user(in: scope.coreTenant, .email(email)) != nil
            throw FirebaseError(known ? .invalidPassword : .emailNotFound)
        }
        let signedIn = try await call.signedIn(user, scope: scope, provider: "password", blocking: .init("password"))
        var answer = signedIn.answer
        answer["kind"] = "identitytoolkit#VerifyPasswordResponse"
        answer["registered"] = true
        // The profile as a beforeSignIn function left it.
        answer["email"] = signedIn.user.email.map(JSON.string)
        answer["displayName"] = .string(signedIn.user.userMetadata["displayName"]?.stringValue ?? "")
        return .json(.object(answer))
    }

    /// A custom token from firebase-admin: an unsigned or signed JWT whose audience is Identity Toolkit, or
    /// the emulator's plain JSON. Its `claims` ride along in every ID token of the session.
    static func customToken(_ call: FirebaseCall) async throws -> Response {
        guard let token = try call.body.string("token"), !token.isEmpty else { throw FirebaseError(.missingCustomToken) }
        let claims: [String: JSON]
        if token.hasPrefix("{") {
            guard case .object(let parsed)? = try? JSON.parse(text: token) else {
                throw FirebaseError(.invalidCustomToken, "((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
            }
            claims = parsed
        } else {
            guard let parsed = JWS.unverifiedClaims(token) else { throw FirebaseError(.invalidCustomToken, "Invalid assertion format") }
            let audience = parsed["aud"]?.stringValue ?? ""
            guard audience == FirebaseTokens.customTokenAudience else {
                throw FirebaseError(.invalidCustomToken, "((Invalid aud (audience): \(audience) Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))")
            }
            claims = parsed
        }
        guard let uid = claims["uid"]?.stringValue ?? claims["user_id"]?.stringValue, !uid.isEmpty else { throw FirebaseError(.missingIdentifier) }
        let extra = try developerClaims(claims["claims"])
        // A signed custom token names the tenant it was made for (firebase-admin's tenant-aware createCustomToken): one
        // made for the project is refused in a tenant, as the emulator refuses it. The emulator's JSON tokens are exempt.
        if !token.hasPrefix("{"), claims["tenant_id"]?.stringValue?.isEmpty != false, (try call.body.string("tenantId"))?.isEmpty == false {
            throw FirebaseError(.tenantIDMismatch)
        }
        // A token's tenant is checked against the tenant the request names; a request naming none signs in to the
        // project whatever the token says, as the emulator's project state does (the JS SDK then refuses the answer
        // as another tenant's, where Fauxth made the user in the token's tenant).
        let namesTenant = (try call.body.string("tenantId"))?.isEmpty == false || call.route.tenant?.isEmpty == false
        let scope = try namesTenant ? call.scope(tokenTenant: claims["tenant_id"]?.stringValue) : call.scope()
        var user = try call.emulator.user(in: scope.coreTenant, id: uid)
        let isNewUser = user == nil
        if user == nil {
            user = try call.emulator.createUser(in: scope.coreTenant, NewUser(id: uid), origin: call.origin, event: .userSignedUp)
        }
        guard let user else { throw FirebaseError(.userNotFound) }
        try call.emulator.checkCanSignIn(user, origin: call.origin)
        let issued = try call.emulator.startSession(for: user, method: "custom", origin: call.origin, claims: extra,
                                                    refreshToken: FirebaseTokens.newRefreshToken)
        var answer = try call.tokens(for: issued.session, refreshToken: issued.refreshToken, scope: scope, user: issued.user).fields
        answer["kind"] = "identitytoolkit#VerifyCustomTokenResponse"
        answer["isNewUser"] = .bool(isNewUser)
        return .json(.object(answer))
    }

    /// A custom token's `claims`: an object, at most 1000 characters, without reserved names.
    static func developerClaims(_ value: JSON?) throws -> [String: JSON] {
        guard let value, value != .null else { return [:] }
        guard case .object(let claims) = value else { throw FirebaseError(.invalidClaims) }
        if let reserved = claims.keys.sorted().first(where: FirebaseTokens.reservedClaims.contains) { throw FirebaseError(.forbiddenClaim, reserved) }
        guard value.serialized().count <= 1000 else { throw FirebaseError(.claimsTooLarge) }
        return claims
    }

    /// Completes an email-link sign-in: the code must be an `EMAIL_SIGNIN` code sent to this email. The
    /// user is created when new; either way the email is now verified.
    static func emailLink(_ call: FirebaseCall) async throws -> Response {
        guard let email = try call.body.string("email")?.lowercased(), !email.isEmpty else { throw FirebaseError(.missingEmail) }
        guard let oobCode = try call.body.string("oobCode"), !oobCode.isEmpty else { throw FirebaseError(.missingOOBCode) }
        let linking = try call.body.string("idToken").flatMap { $0.isEmpty ? nil : $0 }
        let caller = try linking.map { try call.caller(idToken: $0) }
        let scope = try caller?.scope ?? call.scope()
        guard scope.settings.enableEmailLinkSignin else { throw FirebaseError(.operationNotAllowed) }
        guard let record = try call.emulator.code(in: scope.coreTenant, linkToken: oobCode, purposes: [.magicLink]), record.usedAt == nil else {
            throw FirebaseError(.invalidOOBCode)
        }
        guard record.target.lowercased() == email else {
            throw FirebaseError(.invalidEmail, "The email provided does not match the sign-in email address.")
        }
        _ = try call.emulator.consumeCode(in: scope.coreTenant, purposes: [.magicLink], .linkToken(oobCode), origin: call.origin)
        let (user, isNewUser) = try await emailLinkUser(call, scope: scope, email: email, linkingTo: caller?.user)
        var answer = try await call.signIn(user, scope: scope, provider: "password", isNewUser: isNewUser, blocking: .init("emailLink"))
        answer["kind"] = "identitytoolkit#EmailLinkSigninResponse"
        answer["email"] = .string(email)
        return .json(.object(answer))
    }

    private static func emailLinkUser(_ call: FirebaseCall, scope: FirebaseScope, email: String, linkingTo target: User?) async throws -> (User, Bool) {
        let emulator = call.emulator, tenant = scope.coreTenant
        if let target {
            // The link proves the address: the core's confirmation, which also ends an anonymous user's anonymity.
            let user = try emulator.confirmAddressChange(in: tenant, userId: target.id, channel: .email, address: email, origin: call.origin)
            return (try markEmailLink(emulator, user), false)
        }
        if let existing = try emulator.user(in: tenant, .email(email)) {
            try emulator.checkCanSignIn(existing, origin: call.origin)
            let user = try emulator.updateUser(in: tenant, id: existing.id, UserChanges(emailVerified: true), origin: call.origin)
            return (try markEmailLink(emulator, user), false)
        }
        let new = try await call.beforeCreate(NewUser(id: SignUp.newLocalId(emulator), email: email, emailVerified: true,
                                                      identityData: ["emailLinkSignin": true]), scope: scope, .init("emailLink"))
        let created = try emulator.createUser(in: tenant, new, origin: call.origin, event: .userSignedUp)
        return (created, true)
    }

    /// Records on the email identity that the user signs in by link (Identity Toolkit's `emailLinkSignin`).
    private static func markEmailLink(_ emulator: Emulator, _ user: User) throws -> User {
        guard let identity = user.identities.first(where: { $0.provider == "email" }), identity.data["emailLinkSignin"] == nil else { return user }
        var data = identity.data
        data["emailLinkSignin"] = true
        return try emulator.linkIdentity(in: user.tenant, userId: user.id,
                                         NewIdentity(provider: "email", subject: identity.subject, email: identity.email, data: data))
    }
}
