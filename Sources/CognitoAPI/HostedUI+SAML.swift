import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders

/// SAML federation through the hosted UI: `/oauth2/authorize?identity_provider=<a SAML provider>` sends the
/// browser to the IdP's HTTP-Redirect endpoint with an AuthnRequest from `urn:amazon:cognito:sp:<pool id>`;
/// the IdP posts its Response to `/saml2/idpresponse`. The core checks it (signature by a certificate of the
/// provider's metadata, audience, recipient, time window, `InResponseTo`, replay), and the assertion's NameID
/// becomes a user named as Cognito names them (`<ProviderName>_<NameID>`), its attributes mapped by the
/// provider's `AttributeMapping` (pool attribute → SAML attribute name). A provider with `IDPInit` "true" also
/// signs people in from the IdP's side (IdP-initiated): the answer comes unasked, with the authorization request's
/// parameters as its `RelayState`.
extension HostedUI {
    /// The service provider Cognito presents to every SAML IdP of a pool.
    static func samlAudience(_ pool: CognitoPool) -> String { "urn:amazon:cognito:sp:\(pool.id)" }

    static func samlACS(_ baseURL: String) -> String { baseURL + "/saml2/idpresponse" }

    /// The provider's metadata: its `MetadataFile`, or its `MetadataURL` when that is one of Fauxth's fake
    /// SAML providers (nothing else can be fetched offline).
    func samlMetadata(_ idp: [String: JSON]) throws -> SAMLIdentityProviderMetadata {
        let details = idp["ProviderDetails"]?.objectValue ?? [:]
        var text = details["MetadataFile"]?.stringValue
        if text == nil, let url = details["MetadataURL"]?.stringValue {
            text = try dialect.identityProviders?.samlMetadata(at: url)
        }
        guard let text else {
            throw CognitoError.invalid("Fauxth can read the metadata of \(idp["ProviderName"]?.stringValue ?? "this provider") only from a MetadataFile or from one of its fake SAML identity providers.")
        }
        return try SAMLMetadata.parseIdentityProvider(Array(text.utf8))
    }

    func startSAML(_ a: Authorization, idp: [String: JSON]) throws -> Response {
        let name = idp["ProviderName"]?.stringValue ?? ""
        func refuse(_ description: String) -> Refusal { Self.failure(a, "invalid_request", description) }
        let metadata: SAMLIdentityProviderMetadata
        do { metadata = try samlMetadata(idp) } catch let error as SAMLError {
            throw refuse("The metadata of \(name) cannot be read: \(error.reason)")
        } catch let error as CognitoError {
            throw refuse(error.message)
        }
        guard let destination = metadata.ssoRedirectURL else { throw refuse("\(name) has no HTTP-Redirect SingleSignOnService.") }
        let request = SAMLAuthnRequest(id: "_" + emulator.generator.string(32, alphabet: "0123456789abcdef"), issueInstant: emulator.clock.now,
                                       destination: destination, assertionConsumerServiceURL: Self.samlACS(a.baseURL),
                                       issuer: Self.samlAudience(a.pool), nameIDFormat: nil)
        let relayState = try emulator.beginSAMLRequest(in: a.pool.id, providerId: name, requestId: request.id,
                                                       data: ["query": .string(a.request.query)], lifetime: Self.federationLifetime)
        let location = destination + (destination.contains("?") ? "&" : "?") + request.redirectQuery(relayState: relayState)
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// How long after it was issued Cognito takes an IdP-initiated answer.
    static let idpInitiatedMaxAge: TimeInterval = 360

    /// `POST /saml2/idpresponse`: the IdP's answer to a request the hosted UI sent, which its `RelayState` names, or
    /// an IdP-initiated sign-in, whose `RelayState` carries what `/oauth2/authorize` would have been given. A request
    /// that is unknown, expired or already answered is a page for the person; anything wrong with the answer goes
    /// back to the app as an OAuth error.
    func samlResponse(_ call: HostedUICall) async throws -> Response {
        let form = try call.form()
        let relay = form["RelayState"] ?? ""
        // The authorization request behind the answer, and the request it answers (none: IdP-initiated).
        let query: String, pending: SAMLPendingRequest?
        if !relay.isEmpty, let found = try emulator.takeSAMLRequest(id: relay) {
            guard found.expiresAt > emulator.clock.now else { return pages.error(Self.spentSAMLRequest) }
            (query, pending) = (found.data["query"]?.stringValue ?? "", found)
        } else {
            // An IdP-initiated sign-in names its client, callback and provider as an authorization request does (AWS:
            // "A RelayState parameter is required"). A bare token is a request spent or never made.
            guard AuthorizeRequest(FormBody.decode(relay))["client_id"] != nil else {
                return pages.error(relay.isEmpty || relay.contains("=") ? Self.invalidSAMLAnswer : Self.spentSAMLRequest)
            }
            (query, pending) = (relay, nil)
        }
        let a: Authorization
        do {
            a = try validate(AuthorizeRequest(FormBody.decode(query)), baseURL: call.request.baseURL)
        } catch let refusal as Refusal {
            return render(refusal)
        }
        if let pending {
            guard a.pool.id == pending.tenant else { return render(Self.failure(a, "invalid_request", Self.noSuchProvider(pending.providerId))) }
            return try await signIn(form, a, provider: pending.providerId, answering: pending.requestId, call)
        }
        guard let provider = a.identityProvider else { return render(Self.failure(a, "invalid_request", Self.invalidSAMLAnswer)) }
        return try await signIn(form, a, provider: provider, answering: nil, call)
    }

    static let spentSAMLRequest = "This sign-in has expired or was already used. Start it again from the app."
    /// What people saw when an IdP posted an answer Cognito could not place (an Okta tile without IdP-initiated
    /// sign-in turned on, 2024 reports).
    static let invalidSAMLAnswer = "Invalid samlResponse or relayState from identity provider"
    static func noSuchProvider(_ name: String) -> String { "The identity provider \(name) does not exist in the user pool." }

    /// The answer checked (for the request `answering`, or IdP-initiated when nil) and its NameID signed in.
    private func signIn(_ form: [String: String], _ a: Authorization, provider providerName: String, answering requestId: String?,
                        _ call: HostedUICall) async throws -> Response {
        func fail(_ error: String, _ description: String) -> Response { render(Self.failure(a, error, description)) }
        guard let idp = identityProvider(named: providerName, pool: a.pool), idp["ProviderType"]?.stringValue == "SAML" else {
            return fail("invalid_request", Self.noSuchProvider(providerName))
        }
        // IdP-initiated answers only for a provider that allows them (`IDPInit`).
        guard requestId != nil || PoolResources.allowsIdPInitiated(idp) else {
            return fail("invalid_request", Self.invalidSAMLAnswer)
        }
        guard let encoded = form["SAMLResponse"], let xml = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters).map(Array.init) else {
            return fail("invalid_request", Self.invalidSAMLAnswer)
        }
        let assertion: SAMLAssertion
        do {
            let metadata = try samlMetadata(idp)
            // An IdP-initiated answer must answer no request (no InResponseTo) and be at most six minutes old.
            assertion = try emulator.acceptSAMLResponse(in: a.pool.id, xml: xml, expecting: SAMLExpectation(
                idpEntityID: metadata.entityID, trustedCertificates: metadata.signingCertificates, spEntityID: Self.samlAudience(a.pool),
                acsURL: Self.samlACS(call.request.baseURL), inResponseTo: requestId.map { [$0] } ?? [], allowUnsolicited: requestId == nil,
                maxAge: requestId == nil ? Self.idpInitiatedMaxAge : nil, now: emulator.clock.now))
        } catch let error as SAMLError {
            emulator.record(.signInFailed, tenant: a.pool.id, origin: call.origin, detail: [
                "method": "saml", "provider": .string(providerName), "reason": .string(error.reason),
            ])
            return fail("invalid_request", "Invalid SAML response received: \(error.reason)")
        } catch let error as CognitoError {
            return fail("invalid_request", error.message)
        }
        // Cognito reads the NameID as the subject and each attribute by its Name; a multi-valued attribute
        // arrives as its values joined with commas.
        var claims: [String: JSON] = ["sub": .string(assertion.nameID)]
        for (name, values) in assertion.attributes where !values.isEmpty { claims[name] = .string(values.joined(separator: ",")) }
        do {
            let user = try await federatedUser(claims, idp: idp, pool: a.pool, client: a.client, origin: call.origin)
            guard (try? emulator.checkCanSignIn(user, origin: call.origin)) != nil else { return fail("invalid_request", "User is disabled.") }
            return try await complete(user, firstFactor: "federated", mfa: nil, a, origin: call.origin)
        } catch let error as CognitoError {
            return fail("invalid_request", error.message)
        }
    }
}
