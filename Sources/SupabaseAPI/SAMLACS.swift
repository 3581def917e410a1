import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `POST /sso/saml/acs` (`internal/api/samlacs.go`): the identity provider's answer, posted by the browser
/// (HTTP-POST binding). The relay state names the request `/sso` sent (SP-initiated), or is empty or a URL
/// (IdP-initiated: the answer's issuer names the provider). The core checks the answer (signature by the
/// provider's metadata certificate, audience, recipient, time window, `InResponseTo`, replay); the
/// assertion's subject becomes an `sso:<provider id>` identity on its own account (`is_sso_user`, which may
/// share its email with an ordinary account). Every failure goes back to the site URL as GoTrue sends it:
/// `error`, `error_code` and `error_description` in the query.
enum SAMLACS {
    /// `SAMLSubjectIDAttributeName`: the SAML subject-id attribute GoTrue prefers to the NameID.
    static let subjectIDAttribute = "urn:oasis:names:tc:SAML:attribute:subject-id"
    static let transientFormat = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"
    static let emailFormat = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
    /// GoTrue's `Email()` guesses, in its order.
    static let emailAttributes = ["urn:oid:0.9.2342.19200300.100.1.3", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
                                  "http://schemas.xmlsoap.org/claims/EmailAddress", "mail", "Mail", "email"]
    /// `provider.Claims`' own fields: a mapped claim with one of these names is the identity's; any other goes to `custom_claims`.
    static let standardClaims: Set = ["iss", "sub", "aud", "iat", "exp", "name", "family_name", "given_name", "middle_name", "nickname",
                                      "preferred_username", "profile", "picture", "website", "gender", "birthdate", "zoneinfo", "locale",
                                      "updated_at", "email", "email_verified", "phone", "phone_verified", "full_name", "avatar_url", "slug",
                                      "provider_id", "user_name"]

    static func handle(_ call: Call) async throws -> Response {
        let project = try SSO.project(call)
        do {
            do { return try await consume(call, project: project) } catch let error as AuthError { throw SupabaseError(error) }
        } catch let error as SupabaseError {
            // GoTrue's `getErrorQueryString`, shared with the OAuth callback: a refused sign-up is access_denied.
            let kind = External.oauthError(error)
            call.emulator.record(.signInFailed, tenant: project.storeTenant, origin: call.origin, detail: [
                "method": "sso/saml", "reason": .string(error.message),
            ])
            let site = project.config.siteURL
            let query = FormBody.encode([("error", kind), ("error_code", error.code.rawValue), ("error_description", error.message)])
            return Response(status: .seeOther, headers: [.location: site + (site.contains("?") ? "&" : "?") + query])
        }
    }

    private static func consume(_ call: Call, project: SupabaseProject) async throws -> Response {
        let form = FormBody.decode(String(buffer: try call.received.raw()))
        let relayState = form["RelayState"] ?? ""
        let emulator = call.emulator
        var provider: SSOProvider?
        var requestIds: [String] = []
        var data: [String: JSON] = [:]
        let idpInitiated: Bool
        if let relayId = Validation.uuid(relayState) {
            guard let request = try emulator.takeSAMLRequest(in: project.storeTenant, id: relayId) else {
                throw SupabaseError(status: .notFound, code: .samlRelayStateNotFound, message: "SAML RelayState does not exist, try logging in again?")
            }
            guard request.expiresAt > emulator.clock.now else {
                throw SupabaseError(status: .unprocessableContent, code: .samlRelayStateExpired, message: "SAML RelayState has expired. Try logging in again?")
            }
            guard let found = try emulator.ssoProvider(in: project.storeTenant, .id(request.providerId)) else {
                throw SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: "Unable to find SSO Provider from SAML RelayState")
            }
            guard found.isEnabled else {
                throw SupabaseError(status: .notFound, code: .ssoProviderDisabled, message: "SSO Provider assigned for this domain is currently disabled")
            }
            provider = found
            requestIds = [request.requestId]
            data = request.data
            idpInitiated = false
        } else if relayState.isEmpty || URLComponents(string: relayState)?.scheme != nil {
            if !(form["SAMLart"] ?? "").isEmpty {
                throw SupabaseError.validation("SAML Artifact response can only be used with SP initiated flow")
            }
            data["redirect_to"] = .string(relayState)
            idpInitiated = true
        } else {
            throw SupabaseError.validation("SAML RelayState is not a valid UUID or URL")
        }
        guard let encoded = form["SAMLResponse"], !encoded.isEmpty else { throw SupabaseError.validation("SAMLResponse is missing") }
        guard let xml = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters).map(Array.init) else {
            throw SupabaseError.validation("SAMLResponse is not a valid Base64 string")
        }
        let issuer: String
        do {
            issuer = try SAMLResponseValidator.issuer(of: xml)
        } catch {
            throw SupabaseError.validation("SAMLResponse is not a valid XML SAML assertion")
        }
        // An IdP-initiated answer names its provider by its issuer; an SP-initiated one must come from the
        // provider the request went to, which the entity id lookup finds again.
        let entityID = provider?.entityID ?? issuer
        guard let connected = try emulator.ssoProvider(in: project.storeTenant, .entityID(entityID)) else {
            throw SupabaseError(status: .notFound, code: .samlIdPNotFound, message: "A SAML connection has not been established with this Identity Provider")
        }
        guard connected.isEnabled else {
            throw SupabaseError(status: .notFound, code: .ssoProviderDisabled, message: "SSO Provider assigned for this domain is currently disabled")
        }
        let metadata: SAMLIdentityProviderMetadata
        do throws(SAMLError) {
            metadata = try SAMLMetadata.parseIdentityProvider(Array(connected.metadataXML.utf8))
        } catch {
            throw SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: error.reason)
        }
        let sp = try SSO.ServiceProvider(call, project: project)
        let assertion: SAMLAssertion
        do {
            assertion = try emulator.acceptSAMLResponse(in: project.storeTenant, xml: xml, expecting: SAMLExpectation(
                idpEntityID: connected.entityID, trustedCertificates: metadata.signingCertificates, spEntityID: sp.entityID, acsURL: sp.acsURL,
                inResponseTo: requestIds, allowUnsolicited: idpInitiated, now: emulator.clock.now))
        } catch let error as SAMLError {
            throw SupabaseError.validation("SAML Assertion is not valid: \(error.reason)")
        }
        let user = try await signIn(assertion, provider: connected, project: project, call: call)
        return try await finish(call, user: user, data: data, project: project)
    }

    /// GoTrue's `UserID`: the subject-id attribute, else a NameID that is not transient (an email NameID lowercased).
    static func userID(_ assertion: SAMLAssertion) -> String {
        if let subject = assertion.values(of: subjectIDAttribute).first { return subject }
        guard !assertion.nameID.isEmpty, assertion.nameIDFormat != transientFormat else { return "" }
        if assertion.nameIDFormat == emailFormat { return assertion.nameID.trimmingCharacters(in: .whitespaces).lowercased() }
        return assertion.nameID
    }

    /// GoTrue's `Process`: each mapped key from the first of its attribute names that has a value (every value
    /// with `array`), else its `default`.
    static func claims(_ assertion: SAMLAssertion, mapping: JSON) -> [String: JSON] {
        var claims: [String: JSON] = [:]
        for (key, mapper) in mapping["keys"]?.objectValue ?? [:] {
            let names = [mapper["name"]?.stringValue].compactMap { $0 }.filter { !$0.isEmpty } + (mapper["names"]?.arrayValue ?? []).compactMap(\.stringValue)
            let array = mapper["array"]?.boolValue ?? false
            for name in names {
                let values = assertion.values(of: name).filter { !$0.isEmpty }
                guard let first = values.first else { continue }
                claims[key] = array ? .array(values.map(JSON.string)) : .string(first)
                break
            }
            if claims[key] == nil, let fallback = mapper["default"], !fallback.isNull { claims[key] = fallback }
        }
        return claims
    }

    /// The account the assertion signs in: the one with this provider's identity for the subject, its data
    /// refreshed; else a new SSO account (GoTrue's linking domain for `sso:` providers is the provider itself,
    /// so an ordinary account with the same email is never linked).
    static func signIn(_ assertion: SAMLAssertion, provider: SSOProvider, project: SupabaseProject, call: Call) async throws -> User {
        let subject = userID(assertion)
        guard !subject.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .samlAssertionNoUserID, message: """
                SAML Assertion did not contain a persistent Subject Identifier attribute or Subject NameID uniquely identifying this user
                """)
        }
        var claims = claims(assertion, mapping: provider.attributeMapping)
        var email = claims["email"]?.stringValue ?? ""
        if email.isEmpty {
            email = emailAttributes.lazy.compactMap { assertion.values(of: $0).first { !$0.isEmpty } }.first
                ?? (assertion.nameIDFormat == emailFormat ? assertion.nameID : "")
        }
        guard !email.isEmpty else {
            throw SupabaseError(status: .badRequest, code: .samlAssertionNoEmail, message: "SAML Assertion does not contain an email address")
        }
        claims["email"] = .string(email)
        var data = claims.filter { standardClaims.contains($0.key) }
        let custom = claims.filter { !standardClaims.contains($0.key) }
        data.merge(["sub": .string(subject), "iss": .string(provider.entityID), "email": .string(email), "email_verified": true,
                    "phone_verified": false]) { $1 }
        // Always there, `{}` when nothing was mapped: GoTrue's Process answers an empty map, not nil, and structs.Map
        // keeps it; a later sign-in replaces stale claims with it.
        data["custom_claims"] = .object(custom)
        let providerType = "sso:\(provider.id)"
        let tenant = project.storeTenant
        let emulator = call.emulator
        let identity = NewIdentity(provider: providerType, subject: subject, email: email.lowercased(), data: data)
        if let existing = try emulator.user(in: tenant, provider: providerType, subject: subject) {
            try emulator.checkCanSignIn(existing, origin: call.origin)
            _ = try emulator.linkIdentity(in: tenant, userId: existing.id, identity, origin: call.origin)
            return try emulator.updateUser(in: tenant, id: existing.id, UserChanges(userMetadata: data), origin: call.origin)
        }
        guard !project.config.disableSignup else {
            throw SupabaseError(status: .unprocessableContent, code: .signupDisabled, message: "Signups not allowed for this instance")
        }
        var new = NewUser(email: email.lowercased(), emailVerified: true, userMetadata: data, addressIdentities: false, identities: [identity])
        new.isSSOUser = true
        return try await AuthHooks(emulator: emulator, project: project).createUser(new, provider: providerType, origin: call.origin)
    }

    /// Back to the app: `?code=` for a PKCE flow (`/sso` was given a challenge), else the session in the
    /// fragment, as GoTrue's `AsRedirectURL` writes it. A `redirect_to` the project does not allow becomes
    /// the site URL.
    private static func finish(_ call: Call, user: User, data: [String: JSON], project: SupabaseProject) async throws -> Response {
        var target = data["redirect_to"]?.stringValue ?? ""
        if target.isEmpty || !Redirects.isAllowed(target, config: project.config) { target = project.config.siteURL }
        let location: String
        if let challenge = data["code_challenge"]?.stringValue,
           let method = (data["code_challenge_method"]?.stringValue).flatMap({ PKCEChallenge.Method(rawValue: $0) }) {
            try call.emulator.startFlow(in: project.storeTenant, userId: user.id, challenge: PKCEChallenge(challenge: challenge, method: method),
                                        authenticationMethod: "sso/saml")
            let code = try call.emulator.issueAuthCode(in: project.storeTenant, userId: user.id, authenticationMethod: "sso/saml") ?? ""
            location = target + (target.contains("?") ? "&" : "?") + FormBody.encode([("code", code)])
        } else {
            let session = try await call.emulator.goTrueSession(for: user, method: "sso/saml", project: project, origin: call.origin)
            // AsRedirectURL: url.Values, so sorted by key, with the `sb` marker supabase-js looks for.
            location = target + "#" + FormBody.encode((session.fragment + [("sb", "")]).sorted { $0.0 < $1.0 })
        }
        try call.emulator.captureIfAppLink(location, tenant: project.storeTenant, source: "sso", userId: user.id)
        return Response(status: .found, headers: [.location: location])
    }
}
