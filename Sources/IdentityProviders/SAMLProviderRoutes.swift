import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// The fake SAML identity providers' endpoints under `/_emu/idp/saml/{id}`:
/// - `GET metadata`: the IdP's metadata (entity id, signing certificate, SSO endpoints);
/// - `GET|POST sso`: an AuthnRequest by the HTTP-Redirect or HTTP-POST binding (`SAMLRequest`, `RelayState`),
///   or an IdP-initiated sign-in (`acs`, `audience`, optional `RelayState`), answered with the account picker;
/// - `POST sso/choose`: what the person picked, answered by posting a signed Response to the service
///   provider's ACS (HTTP-POST binding).
/// A choice queued through the control API (`/_emu/v1/idp/{id}/next`), or `fauxth_account`/`fauxth_error`
/// in the query, skips the page.
extension FakeIdentityProviders {
    func addSAMLRoutes<Context: RequestContext>(to router: Router<Context>) {
        let group = router.group("_emu/idp/saml/:provider")
        group.get("metadata") { request, context in
            try self.page {
                let provider = try self.samlProvider(try context.parameters.require("provider"))
                return Response(status: .ok, headers: [.contentType: "application/samlmetadata+xml", .cacheControl: "no-cache"],
                                body: .init(byteBuffer: ByteBuffer(string: try self.metadata(provider, serverURL: request.baseURL))))
            }
        }
        group.get("sso") { request, context in
            try self.page {
                try self.signIn(try self.samlProvider(try context.parameters.require("provider")), parameters: request.queryFields, redirectBinding: true,
                                serverURL: request.baseURL)
            }
        }
        group.post("sso") { request, context in
            let form = try await request.formFields()
            return try self.page {
                try self.signIn(try self.samlProvider(try context.parameters.require("provider")), parameters: form, redirectBinding: false,
                                serverURL: request.baseURL)
            }
        }
        group.post("sso/choose") { request, context in
            let form = try await request.formFields()
            return try self.page { try self.choose(try self.samlProvider(try context.parameters.require("provider")), form: form, serverURL: request.baseURL) }
        }
    }

    /// A declared provider of kind `saml`.
    func samlProvider(_ id: String) throws -> FakeSAMLProvider {
        let provider = try require(id)
        guard provider.kind == "saml" else { throw ProviderError.notFound("\(provider.name) is not a SAML identity provider") }
        return FakeSAMLProvider(provider: provider)
    }

    /// The metadata of the fake provider a URL names (`…/_emu/idp/saml/{id}/metadata`), written for the host
    /// the URL names; nil for any other URL. What the dialects read instead of fetching the URL.
    public func samlMetadata(at url: String) throws -> String? {
        guard let id = FakeSAMLMetadataURL.providerID(url), let server = FakeSAMLMetadataURL.server(url) else { return nil }
        return try metadata(samlProvider(id), serverURL: server)
    }

    /// The certificate of the provider's signing key, valid from 2020 for 30 years, so it never expires under
    /// a moved clock.
    func samlCertificate(_ provider: FakeSAMLProvider) throws -> [UInt8] {
        guard let certificate = Certificate.der(for: try key(provider.provider), commonName: "Fauxth fake IdP \(provider.id)",
                                                    notBefore: Date(timeIntervalSince1970: 1_577_836_800),
                                                    notAfter: Date(timeIntervalSince1970: 2_524_608_000)) else {
            throw ProviderError.invalidRequest("The provider's key cannot make a certificate")
        }
        return certificate
    }

    func metadata(_ provider: FakeSAMLProvider, serverURL: String) throws -> String {
        SAMLMetadata.identityProvider(entityID: provider.entityID, ssoURL: provider.ssoURL(serverURL), certificateDER: try samlCertificate(provider))
    }

    /// Who the answer goes to and what it answers.
    struct SAMLSignIn {
        var acsURL: String
        var audience: String
        /// The AuthnRequest's ID; nil for an IdP-initiated sign-in.
        var inResponseTo: String?
        var relayState: String?
        var requestedFormat: String?

        /// The fields the picker page carries from form to form.
        var hidden: [(String, String)] {
            var fields = [("acs", acsURL), ("audience", audience)]
            if let inResponseTo { fields.append(("in_response_to", inResponseTo)) }
            if let relayState { fields.append(("RelayState", relayState)) }
            if let requestedFormat { fields.append(("name_id_format", requestedFormat)) }
            return fields
        }

        init(acsURL: String, audience: String, inResponseTo: String?, relayState: String?, requestedFormat: String?) throws {
            guard RedirectURL.isWeb(acsURL) else {
                throw ProviderError.invalidRequest("The service provider's AssertionConsumerServiceURL must be an http(s) URL")
            }
            guard !audience.isEmpty else { throw ProviderError.invalidRequest("The request names no service provider (Issuer)") }
            self.acsURL = acsURL; self.audience = audience; self.inResponseTo = inResponseTo; self.relayState = relayState
            self.requestedFormat = requestedFormat
        }

        /// From the picker's hidden fields.
        init(form: [String: String]) throws {
            try self.init(acsURL: form["acs"] ?? "", audience: form["audience"] ?? "", inResponseTo: form["in_response_to"],
                          relayState: form["RelayState"], requestedFormat: form["name_id_format"])
        }
    }

    /// `GET|POST …/sso`: the request read, then a queued choice, `fauxth_account`/`fauxth_error`, or the page.
    func signIn(_ provider: FakeSAMLProvider, parameters: [String: String], redirectBinding: Bool, serverURL: String) throws -> Response {
        let signIn: SAMLSignIn
        if let encoded = parameters["SAMLRequest"], !encoded.isEmpty {
            let request: SAMLAuthnRequest
            do throws(SAMLError) {
                request = redirectBinding ? try SAMLAuthnRequest.decode(redirectParameter: encoded) : try SAMLAuthnRequest.decode(postParameter: encoded)
            } catch {
                throw ProviderError.invalidRequest("The SAMLRequest cannot be read: \(error.reason)")
            }
            if !request.destination.isEmpty, request.destination != provider.ssoURL(serverURL) {
                let destination = request.destination
                throw ProviderError.invalidRequest("The request is for \(destination), not this identity provider (\(provider.ssoURL(serverURL)))")
            }
            let acs = request.assertionConsumerServiceURL
            guard !acs.isEmpty else {
                throw ProviderError.invalidRequest("The request has no AssertionConsumerServiceURL (Fauxth's IdP knows no service provider's metadata)")
            }
            signIn = try SAMLSignIn(acsURL: acs, audience: request.issuer, inResponseTo: request.id, relayState: parameters["RelayState"],
                                    requestedFormat: request.nameIDFormat)
        } else {
            // IdP-initiated: the service provider is named in the query.
            signIn = try SAMLSignIn(acsURL: parameters["acs"] ?? "", audience: parameters["audience"] ?? "", inResponseTo: nil,
                                    relayState: parameters["RelayState"], requestedFormat: nil)
        }
        if let choice = choices.pop(provider.id) {
            switch choice {
            case .account(let key): return try answer(provider, signIn, account: account(provider.provider, named: key), serverURL: serverURL)
            case .error(let code): return try answer(provider, signIn, failure: failure(code), serverURL: serverURL)
            }
        }
        if let key = parameters["fauxth_account"] { return try answer(provider, signIn, account: account(provider.provider, named: key), serverURL: serverURL) }
        if let code = parameters["fauxth_error"] { return try answer(provider, signIn, failure: failure(code), serverURL: serverURL) }
        let accounts = try emulator.identityProviderAccounts(provider.id).map { account in
            AccountPicker.Choice(value: account.sub, name: account.claims["name"]?.stringValue ?? account.email ?? account.sub,
                                 detail: account.email ?? account.sub)
        }
        return AccountPicker(page: page).render(providerName: provider.provider.name, action: provider.base("") + "/sso/choose",
                                                hidden: signIn.hidden, accounts: accounts, audience: signIn.audience, privateRelay: false,
                                                failures: SAMLFailure.allCases.map { ($0.rawValue, $0.label) })
    }

    /// `POST …/sso/choose`: an account, a new account, or a failure button.
    func choose(_ provider: FakeSAMLProvider, form: [String: String], serverURL: String) throws -> Response {
        let signIn = try SAMLSignIn(form: form)
        if let code = form["error"], !code.isEmpty { return try answer(provider, signIn, failure: failure(code), serverURL: serverURL) }
        if let sub = form["account"], !sub.isEmpty {
            guard let account = try emulator.identityProviderAccount(provider.id, subOrEmail: sub) else {
                throw ProviderError.invalidRequest("No account \(sub) at \(provider.provider.name)")
            }
            return try answer(provider, signIn, account: account, serverURL: serverURL)
        }
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        guard email.contains("@") else { throw ProviderError.invalidRequest("An email address is needed for a new account") }
        let account = try createAccount(provider.id, claims: provider.provider.newAccountClaims(
            email: email, name: (form["name"] ?? "").trimmingCharacters(in: .whitespaces), emailVerified: true, privateEmail: false,
            generator: emulator.generator))
        return try answer(provider, signIn, account: account, serverURL: serverURL)
    }

    func failure(_ code: String) throws -> SAMLFailure {
        guard let failure = SAMLFailure(rawValue: code) else {
            throw ProviderError.invalidRequest("Unknown failure \(code): one of \(SAMLFailure.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return failure
    }

    /// The signed Response for `account` (or the failure asked for), posted to the service provider.
    func answer(_ provider: FakeSAMLProvider, _ signIn: SAMLSignIn, account: IdentityProviderAccount? = nil, failure: SAMLFailure? = nil,
                serverURL: String) throws -> Response {
        let now = emulator.clock.now
        let generator = emulator.generator
        let format = provider.nameIDFormat(requested: signIn.requestedFormat)
        var builder = SAMLResponseBuilder(
            issuer: provider.entityID, destination: signIn.acsURL, inResponseTo: signIn.inResponseTo,
            audience: failure == .wrongAudience ? "urn:fauxth:another-service-provider" : signIn.audience, recipient: signIn.acsURL,
            nameID: account.map { provider.nameID($0, format: format, generator: generator) } ?? "",
            nameIDFormat: format, attributes: account.map(provider.attributes) ?? [],
            sessionIndex: "_" + generator.string(32, alphabet: "0123456789abcdef"),
            responseID: "_" + generator.string(40, alphabet: "0123456789abcdef"), assertionID: "_" + generator.string(40, alphabet: "0123456789abcdef"),
            issueInstant: failure == .expired ? now.addingTimeInterval(-7200) : now,
            notBefore: (failure == .expired ? now.addingTimeInterval(-7200) : now).addingTimeInterval(-60),
            notOnOrAfter: failure == .expired ? now.addingTimeInterval(-3600) : now.addingTimeInterval(300),
            sessionNotOnOrAfter: now.addingTimeInterval(provider.sessionLifetime),
            signing: failure == .unsigned ? .none : provider.signing, key: try key(provider.provider), certificateDER: try samlCertificate(provider))
        switch failure {
        case .accessDenied?:
            builder.statusCode = "urn:oasis:names:tc:SAML:2.0:status:AuthnFailed"
            builder.statusMessage = "The user cancelled the sign-in."
        case .serverError?:
            builder.statusCode = "urn:oasis:names:tc:SAML:2.0:status:Responder"
            builder.statusMessage = "The identity provider had an internal error."
        default: break
        }
        var xml = try builder.build()
        if failure == .badSignature {
            // Changed after signing: the signature no longer covers what the assertion says.
            xml = xml.replacingOccurrences(of: ">\(builder.nameID)</", with: ">someone.else.\(builder.nameID)</")
        }
        var parameters = [("SAMLResponse", Data(xml.utf8).base64EncodedString())]
        if let relayState = signIn.relayState { parameters.append(("RelayState", relayState)) }
        emulator.record(failure == nil ? .signInSucceeded : .signInFailed, tenant: "idp:\(provider.id)", origin: RequestOrigin(), detail: [
            "method": "saml_identity_provider", "provider": .string(provider.id), "sub": account.map { .string($0.sub) } ?? .null,
            "audience": .string(signIn.audience), "failure": failure.map { .string($0.rawValue) } ?? .null,
        ])
        return AccountPicker(page: page).formPost(to: signIn.acsURL, parameters: parameters)
    }
}

extension FakeIdentityProviders {
    /// The failures a SAML provider's next sign-in can be told to end with (`/_emu/v1/idp/{id}/next`).
    public static var samlFailures: [String] { SAMLFailure.allCases.map(\.rawValue) }

    /// What a service provider is configured with for a fake SAML provider: its entity id, metadata URL and
    /// sign-in URL on `serverURL`; nil when the provider is not a SAML one.
    public func samlEndpoints(_ id: String, serverURL: String) throws -> (entityID: String, metadataURL: String, ssoURL: String)? {
        guard let provider = try provider(id), provider.kind == "saml" else { return nil }
        let saml = FakeSAMLProvider(provider: provider)
        return (saml.entityID, saml.metadataURL(serverURL), saml.ssoURL(serverURL))
    }
}
