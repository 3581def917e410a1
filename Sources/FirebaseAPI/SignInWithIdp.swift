import AuthCore
import Crypto
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:signInWithIdp` (`verifyAssertion`): a provider's credential, as the Firebase emulator takes it
/// (an ID token, or else an access token, as plain JSON or a JWT whose signature is not checked, in
/// `postBody` or the `requestUri`), matched to an account by the emulator's linking rules. A SAML provider
/// (`saml.…`) sends its assertion beside the ID token as the emulator's fake `SAMLResponse`: JSON, not XML,
/// `{"assertion": {"subject": {"nameId": …}, "attributeStatements": …}}`.
enum SignInWithIdp {
    /// What the provider said about the account.
    struct Assertion {
        var provider: String
        var subject: String
        var email: String?
        var emailVerified: Bool
        var claims: [String: JSON]
        /// The credential's tokens as sent, echoed back as `oauthIdToken` and `oauthAccessToken`.
        var idToken: String?
        var accessToken: String?
        /// A `SAMLResponse`'s `attributeStatements`: a SAML provider's `rawUserInfo`, and `firebase.sign_in_attributes`.
        var samlAttributes: JSON?

        var isSAML: Bool { provider.hasPrefix("saml.") }

        var identity: NewIdentity {
            var data = claims
            data["sub"] = .string(subject)
            return NewIdentity(provider: provider, subject: subject, email: email?.lowercased(), data: data)
        }
    }

    /// `POST /v2/accounts:revokeToken` (the JS SDK's `revokeAccessToken`, which apps call when a user deletes an account
    /// that signed in with Apple): Identity Platform hands the token back to the provider to revoke. The fake providers
    /// keep no grant to revoke, so this checks what Fauxth can (a signed-in caller, a token to revoke) and answers `{}`.
    static func revokeToken(_ call: FirebaseCall) async throws -> Response {
        _ = try call.caller(idToken: try call.body.string("idToken"))
        guard let token = try call.body.string("token"), !token.isEmpty else { throw FirebaseError(.invalidArgument, "token is required") }
        guard try call.body.string("providerId")?.isEmpty == false else { throw FirebaseError(.invalidProviderID) }
        return .json([:])
    }

    static func handle(_ call: FirebaseCall) async throws -> Response {
        let assertion = try parse(call)
        let linking = try call.body.string("idToken").flatMap { $0.isEmpty ? nil : $0 }
        let caller = try linking.map { try call.caller(idToken: $0) }
        let scope = try caller?.scope ?? call.scope()
        try ProviderConfigs.requireEnabled(assertion.provider, in: scope, emulator: call.emulator)
        var answer: [String: JSON]
        let returnsCredential = try call.body.bool("returnIdpCredential") == true
        if let caller {
            do {
                answer = try await link(call, scope: scope, assertion: assertion, to: caller.user)
            } catch let refusal as FirebaseError where refusal.status == .badRequest && returnsCredential {
                // With `returnIdpCredential` (what the JS SDK's linking always sends) a refused link is a 200 whose
                // `errorMessage` says why beside the provider's answer, as the emulator's signInWithIdp has it, so the
                // SDK's error carries the email and a credential (`credentialFromError`).
                answer = ["errorMessage": .string(refusal.message)]
            }
        } else {
            answer = try await signIn(call, scope: scope, assertion: assertion)
        }
        answer["kind"] = "identitytoolkit#VerifyAssertionResponse"
        answer["providerId"] = .string(assertion.provider)
        answer["federatedId"] = .string(FirebaseUserJSON.federatedId(provider: assertion.provider, subject: assertion.subject))
        answer["oauthIdToken"] = assertion.idToken.map(JSON.string)
        // The emulator always answers an access token, the one sent or a fake one (the JS SDK builds most
        // providers' credentials from it).
        answer["oauthAccessToken"] = .string(assertion.accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(assertion.provider)")
        answer["rawUserInfo"] = rawUserInfo(assertion).map(JSON.string)
        answer["email"] = answer["email"] ?? assertion.email.map(JSON.string)
        answer["emailVerified"] = .bool(assertion.emailVerified)
        for (field, claim) in [("displayName", "name"), ("fullName", "name"), ("firstName", "given_name"), ("lastName", "family_name"),
                               ("photoUrl", "picture"), ("screenName", "screen_name")] {
            if let value = assertion.claims[claim]?.stringValue { answer[field] = .string(value) }
        }
        answer["tenantId"] = scope.tenantId.map(JSON.string)
        return .json(.object(answer))
    }

    /// Reads `providerId` and the credential from `postBody` and the `requestUri`'s query and fragment.
    static func parse(_ call: FirebaseCall) throws -> Assertion {
        guard let requestUri = try call.body.string("requestUri"), !requestUri.isEmpty else { throw FirebaseError(.missingRequestURI) }
        guard let components = URLComponents(string: requestUri), components.scheme != nil else { throw FirebaseError(.invalidRequestURI) }
        // The query read as a form, as the emulator's `URLSearchParams` reads it: a `+` is a space (the SDKs' own
        // answers encode spaces as `%20`, but a hand-built `requestUri` may not).
        var params: [String: String] = [:]
        for (key, value) in FirebaseBody.form(components.percentEncodedQuery ?? "") { params[key] = value.stringValue }
        for (key, value) in FirebaseBody.form(components.fragment ?? "") { params[key] = value.stringValue }
        let posted = FirebaseBody.form(try call.body.string("postBody") ?? "")
        for (key, value) in posted { params[key] = value.stringValue }
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
        let idToken = params["id_token"].flatMap { $0.isEmpty ? nil : $0 }
        let accessToken = params["access_token"].flatMap { $0.isEmpty ? nil : $0 }
        // The emulator's `parseClaims(id_token) || parseClaims(access_token)`: what `GithubAuthProvider.credential(token)`
        // and `FacebookAuthProvider.credential(token)` send carries only an access token.
        guard let claims = try claims(in: idToken) ?? claims(in: accessToken), case .string(let subject)? = claims["sub"] else {
            throw unreadable(provider: provider, idToken: idToken, accessToken: accessToken, requestUri: requestUri)
        }
        if posted["id_token"] != nil { try checkNonce(of: claims, raw: posted["nonce"]?.stringValue) }
        var verified = claims["email_verified"]?.boolValue ?? (claims["email_verified"]?.stringValue == "true")
        var email = claims["email"]?.stringValue
        let saml = try params["SAMLResponse"].flatMap { $0.isEmpty ? nil : try samlAssertion($0) }
        if provider.hasPrefix("saml.") {
            // The assertion's subject is the address when it is one; a SAML provider's address counts as verified.
            if let nameId = saml?["subject"]?["nameId"]?.stringValue, (try? Identifiers.email(nameId)) != nil { email = nameId }
            verified = true
        }
        return Assertion(provider: provider, subject: subject, email: email, emailVerified: verified, claims: claims,
                         idToken: idToken, accessToken: accessToken, samlAttributes: saml?["attributeStatements"].flatMap { $0.isNull ? nil : $0 })
    }

    /// A credential's ID token that carries a `nonce` (Sign in with Apple's, an OIDC provider's) needs the raw nonce
    /// beside it, whose SHA-256 (hex) the token's must be, in production's words (firebase-ios-sdk #10462, firebase-js-sdk
    /// #7957). The emulator checks neither, which lets an app that forgets the raw nonce pass until production.
    static func checkNonce(of claims: [String: JSON], raw: String?) throws {
        guard let nonce = claims["nonce"]?.stringValue, !nonce.isEmpty else { return }
        guard let raw, !raw.isEmpty else { throw FirebaseError(.missingOrInvalidNonce, "Nonce is missing in the request.") }
        guard constantTimeEquals(SHA256.hash(data: Array(raw.utf8)).hex, nonce) else {
            throw FirebaseError(.missingOrInvalidNonce, "The nonce in ID Token \"\(nonce)\" does not match the SHA256 hash of the raw nonce \"\(raw)\" in the request.")
        }
    }

    /// The fake `SAMLResponse`'s assertion, checked as the emulator checks it (which answers JSON it cannot parse with
    /// a 500; Fauxth with its 400).
    static func samlAssertion(_ text: String) throws -> JSON {
        guard case .object(let response)? = try? JSON.parse(text: text) else {
            throw FirebaseError(.invalidIDPResponse, "((SAMLResponse is not a JSON object: the Auth Emulator reads no SAML XML.))")
        }
        guard let assertion = response["assertion"], assertion.objectValue != nil else {
            throw FirebaseError(.invalidIDPResponse, "((Missing assertion in SAMLResponse.))")
        }
        guard let subject = assertion["subject"], subject.objectValue != nil else {
            throw FirebaseError(.invalidIDPResponse, "((Missing assertion.subject in SAMLResponse.))")
        }
        guard let nameId = subject["nameId"], !nameId.isNull, nameId != false, nameId != "" else {
            throw FirebaseError(.invalidIDPResponse, "((Missing assertion.subject.nameId in SAMLResponse.))")
        }
        return assertion
    }

    /// A token's claims as the emulator reads a fake one: strict JSON when it starts with `{`, else a JWT's
    /// payload, unverified (nil when it is no JWT); either way with a non-empty string `sub`.
    static func claims(in token: String?) throws -> [String: JSON]? {
        guard let token else { return nil }
        let claims: [String: JSON]
        if token.hasPrefix("{") {
            guard case .object(let parsed)? = try? JSON.parse(text: token) else {
                throw FirebaseError(.invalidIDPResponse, "Unable to parse id_token: \(token) ((Auth Emulator failed to parse fake id_token as strict JSON.))")
            }
            claims = parsed
        } else {
            guard let parsed = JWS.unverifiedClaims(token) else { return nil }
            claims = parsed
        }
        switch claims["sub"] {
        case .string(let sub)? where !sub.isEmpty:
            return claims
        case nil, .null?, .bool(false)?, .string?, .int(0)?, .double(0)?:
            // A missing or falsy `sub`, as the emulator's JavaScript tells them apart.
            throw FirebaseError(.invalidIDPResponse, "Invalid Idp Response: id_token missing required fields. "
                                + "((Missing \"sub\" field. This field is required and must be a unique identifier.))")
        default:
            throw FirebaseError(.invalidIDPResponse, "((The \"sub\" field must be a string.))")
        }
    }

    /// Why no claims came out of the credential, in the emulator's words (its "only support", sic). It
    /// answers the access-token cases 501 `NOT_IMPLEMENTED`; Fauxth answers no request that is merely
    /// unsupported with a 5xx, and the SDKs read only the message.
    private static func unreadable(provider: String, idToken: String?, accessToken: String?, requestUri: String) -> FirebaseError {
        if let idToken {
            return FirebaseError(.invalidIDPResponse, "Unable to parse id_token: \(idToken) ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
        }
        guard accessToken != nil else { return FirebaseError(.invalidCredentialOrProviderID, "Invalid IdP response/credential: \(requestUri)") }
        return FirebaseError(.invalidCredentialOrProviderID).withMessage(["google.com", "apple.com"].contains(provider)
            ? "The Auth Emulator only support sign-in with \(provider) using id_token, not access_token. Please update your code to use id_token."
            : "The Auth Emulator does not support \(provider) sign-in with credentials.")
    }

    /// The emulator's matching, in order: the provider account's user; else, one account per email, the
    /// user with that (verified) email; else a new user.
    private static func signIn(_ call: FirebaseCall, scope: FirebaseScope, assertion: Assertion) async throws -> [String: JSON] {
        let emulator = call.emulator, tenant = scope.coreTenant
        let blocking = blockingMethod(assertion)
        if let user = try emulator.user(in: tenant, provider: assertion.provider, subject: assertion.subject) {
            try emulator.linkIdentity(in: tenant, userId: user.id, assertion.identity, origin: call.origin)
            return try await call.signIn(try emulator.requireUser(in: tenant, id: user.id), scope: scope, provider: assertion.provider, isNewUser: false,
                                         blocking: blocking)
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
                user = try emulator.clearUnprovenSignUp(in: tenant, userId: user.id, keeping: { [assertion.provider, "email"].contains($0.provider) },
                                                        origin: call.origin)
                user = try emulator.updateUser(in: tenant, id: user.id, UserChanges(emailVerified: true), origin: call.origin)
                try emulator.revokeTokens(in: tenant, userId: user.id, reason: "account_recovered_by_provider", origin: call.origin)
            }
            // The emulator's handleIdpSigninEmailRequired takes the provider's profile either way, "discarding any old
            // data": a claim the provider lacks clears the field.
            var replaced = profile(assertion)
            for field in ["displayName", "photoUrl"] where replaced[field] == nil { replaced[field] = .null }
            user = try emulator.updateUser(in: tenant, id: user.id, UserChanges(userMetadata: replaced), origin: call.origin)
            return try await call.signIn(try emulator.requireUser(in: tenant, id: user.id), scope: scope, provider: assertion.provider, isNewUser: false,
                                         blocking: blocking)
        }
        // With duplicate emails allowed a provider's address stays on its identity, not on the account.
        let email = scope.settings.allowDuplicateEmails ? nil : assertion.email?.lowercased()
        let new = try await call.beforeCreate(NewUser(
            id: SignUp.newLocalId(emulator), email: email, emailVerified: assertion.emailVerified, userMetadata: profile(assertion),
            addressIdentities: false, identities: [assertion.identity]), scope: scope, blocking)
        let user = try SignUp.create(call, scope: scope, new: new)
        return try await call.signIn(user, scope: scope, provider: assertion.provider, isNewUser: true, blocking: blocking)
    }

    /// Linking (an `idToken` came along): the provider account may not belong to anyone else, and its
    /// email may not be someone else's.
    private static func link(_ call: FirebaseCall, scope: FirebaseScope, assertion: Assertion, to target: User) async throws -> [String: JSON] {
        let emulator = call.emulator, tenant = scope.coreTenant
        if let owner = try emulator.user(in: tenant, provider: assertion.provider, subject: assertion.subject), owner.id != target.id {
            throw FirebaseError(.federatedUserIDAlreadyLinked)
        }
        var changes = UserChanges(isAnonymous: false)
        if let email = assertion.email?.lowercased(), !scope.settings.allowDuplicateEmails {
            if let owner = try emulator.user(in: tenant, .email(email)), owner.id != target.id { throw FirebaseError(.emailExists) }
            if target.email == nil {
                changes.email = email
                changes.emailVerified = assertion.emailVerified
            } else if target.email?.lowercased() == email, assertion.emailVerified {
                // A provider that vouches for the account's own address verifies it (the emulator's handleLinkIdp).
                changes.emailVerified = true
            }
        }
        try emulator.linkIdentity(in: tenant, userId: target.id, assertion.identity, origin: call.origin)
        let user = try emulator.updateUser(in: tenant, id: target.id, changes, origin: call.origin)
        return try await call.signIn(user, scope: scope, provider: assertion.provider, isNewUser: false, allowMFA: false,
                                     blocking: blockingMethod(assertion))
    }

    /// The sign-in as a blocking function's event describes it: the provider, its profile and its tokens.
    private static func blockingMethod(_ assertion: Assertion) -> BlockingFunctions.SignInMethod {
        var method = BlockingFunctions.SignInMethod(assertion.provider, rawUserInfo: rawUserInfo(assertion), oauthIdToken: assertion.idToken,
                                                    oauthAccessToken: assertion.accessToken)
        method.signInAttributes = assertion.samlAttributes
        return method
    }

    private static func profile(_ assertion: Assertion) -> [String: JSON] {
        var metadata: [String: JSON] = [:]
        metadata["displayName"] = assertion.claims["name"]
        metadata["photoUrl"] = assertion.claims["picture"]
        return metadata
    }

    /// `rawUserInfo` (`getAdditionalUserInfo().profile` in the SDKs): for Google, the userinfo v2 fields Google's userinfo
    /// endpoint answers and the emulator builds (`verified_email`, `locale`, the granted scopes), not the token's claims;
    /// a SAML provider's attribute statements (none without a `SAMLResponse` that has them); other providers' claims.
    private static func rawUserInfo(_ assertion: Assertion) -> String? {
        if assertion.isSAML { return assertion.samlAttributes?.serialized() }
        guard assertion.provider == "google.com" else { return JSON.object(assertion.claims).serialized() }
        let email = assertion.email?.lowercased()
        var info: [String: JSON] = [
            "granted_scopes": .string("openid https://www.googleapis.com/auth/userinfo.profile" + (email == nil ? "" : " https://www.googleapis.com/auth/userinfo.email")),
            "id": .string(assertion.subject), "verified_email": .bool(assertion.emailVerified), "locale": "en",
        ]
        info["name"] = assertion.claims["name"]
        info["given_name"] = assertion.claims["given_name"]
        info["family_name"] = assertion.claims["family_name"]
        info["email"] = email.map(JSON.string)
        info["picture"] = assertion.claims["picture"]
        return JSON.object(info).serialized()
    }
}
