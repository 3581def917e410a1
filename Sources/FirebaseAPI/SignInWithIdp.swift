import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:signInWithIdp` (`verifyAssertion`): a provider's ID token, as the Firebase emulator takes it
/// (plain JSON or a JWT whose signature is not checked, in `postBody` or the `requestUri`), matched to an
/// account by the emulator's linking rules.
enum SignInWithIdp {
    /// What the provider said about the account.
    struct Assertion {
        var provider: String
        var subject: String
        var email: String?
        var emailVerified: Bool
        var claims: [String: JSON]
        var idToken: String

        var identity: NewIdentity {
            var data = claims
            data["sub"] = .string(subject)
            return NewIdentity(provider: provider, subject: subject, email: email?.lowercased(), data: data)
        }
    }

    static func handle(_ call: FirebaseCall) async throws -> Response {
        let assertion = try parse(call)
        let linking = try call.body.string("idToken").flatMap { $0.isEmpty ? nil : $0 }
        let caller = try linking.map { try call.caller(idToken: $0) }
        let scope = try caller?.scope ?? call.scope()
        var answer: [String: JSON]
        if let caller {
            answer = try link(call, scope: scope, assertion: assertion, to: caller.user)
        } else {
            answer = try signIn(call, scope: scope, assertion: assertion)
        }
        answer["kind"] = "identitytoolkit#VerifyAssertionResponse"
        answer["providerId"] = .string(assertion.provider)
        answer["federatedId"] = .string(FirebaseUserJSON.federatedId(provider: assertion.provider, subject: assertion.subject))
        answer["oauthIdToken"] = .string(assertion.idToken)
        answer["oauthAccessToken"] = .string("FirebaseAuthEmulatorFakeAccessToken_\(assertion.provider)")
        answer["rawUserInfo"] = .string(JSON.object(rawUserInfo(assertion)).serialized())
        answer["email"] = answer["email"] ?? assertion.email.map(JSON.string)
        answer["emailVerified"] = .bool(assertion.emailVerified)
        for (field, claim) in [("displayName", "name"), ("fullName", "name"), ("firstName", "given_name"), ("lastName", "family_name"),
                               ("photoUrl", "picture"), ("screenName", "screen_name")] {
            if let value = assertion.claims[claim]?.stringValue { answer[field] = .string(value) }
        }
        answer["tenantId"] = scope.tenantId.map(JSON.string)
        return .json(.object(answer))
    }

    /// Reads `providerId` and `id_token` from `postBody` and the `requestUri`'s query and fragment.
    static func parse(_ call: FirebaseCall) throws -> Assertion {
        guard let requestUri = try call.body.string("requestUri"), !requestUri.isEmpty else { throw FirebaseError(.missingRequestURI) }
        guard let components = URLComponents(string: requestUri), components.scheme != nil else { throw FirebaseError(.invalidRequestURI) }
        var params: [String: String] = [:]
        for item in components.queryItems ?? [] { params[item.name] = item.value ?? "" }
        for (key, value) in FirebaseBody.form(components.fragment ?? "") { params[key] = value.stringValue }
        for (key, value) in FirebaseBody.form(try call.body.string("postBody") ?? "") { params[key] = value.stringValue }
        let sessionId = try call.body.string("sessionId") ?? ""
        if params["providerId"] == nil, let session = ProviderWidget.session(call, sessionId) { params["providerId"] = session["providerId"]?.stringValue }
        guard let provider = params["providerId"]?.lowercased(), !provider.isEmpty else {
            throw FirebaseError(.invalidCredentialOrProviderID, "Invalid IdP response/credential: \(requestUri)")
        }
        // A code the provider sent to createAuthUri's continueUri: exchanged here, as Identity Toolkit does.
        if params["id_token"] == nil, let code = params["code"], !code.isEmpty,
           let exchanged = try ProviderWidget.idToken(call, code: code, sessionId: sessionId, providerId: provider) {
            params["id_token"] = exchanged
        }
        guard let idToken = params["id_token"], !idToken.isEmpty else {
            if params["access_token"] != nil {
                // The emulator's message, as a 4xx: an access token cannot be checked without the real provider.
                throw FirebaseError(.invalidCredentialOrProviderID).withMessage(
                    "The Auth Emulator only supports sign-in with \(provider) using id_token, not access_token. Please update your code to use id_token.")
            }
            throw FirebaseError(.invalidCredentialOrProviderID, "Invalid IdP response/credential: \(requestUri)")
        }
        let claims: [String: JSON]
        if idToken.hasPrefix("{") {
            guard case .object(let parsed)? = try? JSON.parse(Array(idToken.utf8)) else { throw FirebaseError(.invalidIDPResponse, "((Unparsable id_token.))") }
            claims = parsed
        } else {
            guard let parsed = JWS.unverifiedClaims(idToken) else { throw FirebaseError(.invalidIDPResponse, "((Unparsable id_token.))") }
            claims = parsed
        }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw FirebaseError(.invalidIDPResponse, "((Missing sub in id_token.))") }
        let verified = claims["email_verified"]?.boolValue ?? (claims["email_verified"]?.stringValue == "true")
        return Assertion(provider: provider, subject: subject, email: claims["email"]?.stringValue, emailVerified: verified, claims: claims,
                         idToken: idToken)
    }

    /// The emulator's matching, in order: the provider account's user; else, one account per email, the
    /// user with that (verified) email; else a new user.
    private static func signIn(_ call: FirebaseCall, scope: FirebaseScope, assertion: Assertion) throws -> [String: JSON] {
        let emulator = call.emulator, tenant = scope.coreTenant
        if let user = try emulator.user(in: tenant, provider: assertion.provider, subject: assertion.subject) {
            try emulator.linkIdentity(in: tenant, userId: user.id, assertion.identity, origin: call.origin)
            return try call.signIn(try emulator.requireUser(in: tenant, id: user.id), scope: scope, provider: assertion.provider, isNewUser: false)
        }
        if !scope.settings.allowDuplicateEmails, let email = assertion.email, let owner = try emulator.user(in: tenant, .email(email)) {
            guard assertion.emailVerified else {
                // An unverified provider email may not take over an account: the app must ask the user to confirm.
                var answer: [String: JSON] = ["needConfirmation": true, "localId": .string(owner.id), "email": .string(email)]
                answer["verifiedProvider"] = .array(FirebaseUserJSON.providers(of: owner).compactMap { $0["providerId"] }
                    .filter { !["password", "phone"].contains($0.stringValue ?? "") })
                return answer
            }
            var user = try emulator.linkIdentity(in: tenant, userId: owner.id, assertion.identity, origin: call.origin)
            if owner.emailVerifiedAt == nil {
                // Unverified owner: its password and other methods may belong to an attacker, so they go.
                for identity in user.identities where identity.provider != assertion.provider && identity.provider != "email" {
                    user = try emulator.removeIdentities(in: tenant, userId: user.id, provider: identity.provider)
                }
                if user.hasPassword { try emulator.removePassword(in: tenant, userId: user.id) }
                user = try emulator.updateUser(in: tenant, id: user.id, UserChanges(emailVerified: true, userMetadata: profile(assertion)), origin: call.origin)
                try emulator.revokeTokens(in: tenant, userId: user.id, reason: "account_recovered_by_provider", origin: call.origin)
            }
            return try call.signIn(try emulator.requireUser(in: tenant, id: user.id), scope: scope, provider: assertion.provider, isNewUser: false)
        }
        // With duplicate emails allowed a provider's address stays on its identity, not on the account.
        let email = scope.settings.allowDuplicateEmails ? nil : assertion.email?.lowercased()
        let user = try SignUp.create(call, scope: scope, new: NewUser(
            id: SignUp.newLocalId(emulator), email: email, emailVerified: assertion.emailVerified, userMetadata: profile(assertion),
            addressIdentities: false, identities: [assertion.identity]))
        return try call.signIn(user, scope: scope, provider: assertion.provider, isNewUser: true)
    }

    /// Linking (an `idToken` came along): the provider account may not belong to anyone else, and its
    /// email may not be someone else's.
    private static func link(_ call: FirebaseCall, scope: FirebaseScope, assertion: Assertion, to target: User) throws -> [String: JSON] {
        let emulator = call.emulator, tenant = scope.coreTenant
        if let owner = try emulator.user(in: tenant, provider: assertion.provider, subject: assertion.subject), owner.id != target.id {
            if try call.body.bool("returnIdpCredential") == true { return ["errorMessage": "FEDERATED_USER_ID_ALREADY_LINKED"] }
            throw FirebaseError(.federatedUserIDAlreadyLinked)
        }
        var changes = UserChanges(isAnonymous: false)
        if let email = assertion.email?.lowercased(), !scope.settings.allowDuplicateEmails {
            if let owner = try emulator.user(in: tenant, .email(email)), owner.id != target.id { throw FirebaseError(.emailExists) }
            if target.email == nil {
                changes.email = email
                changes.emailVerified = assertion.emailVerified
            }
        }
        try emulator.linkIdentity(in: tenant, userId: target.id, assertion.identity, origin: call.origin)
        let user = try emulator.updateUser(in: tenant, id: target.id, changes, origin: call.origin)
        return try call.signIn(user, scope: scope, provider: assertion.provider, isNewUser: false, allowMFA: false)
    }

    private static func profile(_ assertion: Assertion) -> [String: JSON] {
        var metadata: [String: JSON] = [:]
        metadata["displayName"] = assertion.claims["name"]
        metadata["photoUrl"] = assertion.claims["picture"]
        return metadata
    }

    /// `rawUserInfo`: the claims, and for Google its userinfo fields (`id`, `granted_scopes`).
    private static func rawUserInfo(_ assertion: Assertion) -> [String: JSON] {
        var info = assertion.claims
        if assertion.provider == "google.com" {
            info["id"] = .string(assertion.subject)
            info["granted_scopes"] = "openid https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile"
        }
        return info
    }
}
