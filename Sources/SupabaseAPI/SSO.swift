import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `POST /sso` and `GET /sso/saml/metadata` (`internal/api/sso.go`, `saml.go`): GoTrue as a SAML service
/// provider. `/sso` finds the project's identity provider by id or email domain, remembers an AuthnRequest
/// under a relay state and sends the browser to the IdP with it (HTTP-Redirect binding); the IdP answers at
/// `/sso/saml/acs` (`SAMLACS`). Behind `GOTRUE_SAML_ENABLED`, as GoTrue's `requireSAMLEnabled`.
enum SSO {
    /// GoTrue's `requireSAMLEnabled`.
    static func project(_ call: Call) throws -> SupabaseProject {
        let project = try call.project()
        guard project.config.saml.enabled else {
            throw SupabaseError(status: .notFound, code: .samlProviderDisabled, message: "SAML 2.0 is disabled")
        }
        return project
    }

    /// The service provider GoTrue presents to identity providers: `<external URL>/sso/`, whose metadata URL
    /// is its entity id (crewjam/saml's default), its ACS beside it, and the project's own signing key.
    struct ServiceProvider {
        let entityID: String
        let acsURL: String
        let key: SigningKey

        init(_ call: Call, project: SupabaseProject) throws {
            var base = project.config.saml.externalURL ?? call.mailer(project).externalURL
            if base.hasSuffix("/") { base.removeLast() }
            entityID = base + "/sso/saml/metadata"
            acsURL = base + "/sso/saml/acs"
            key = try call.emulator.keyring.rsaKey("saml-sp:\(project.storeTenant)")
        }

        /// A certificate for the key, stable across restarts of the same key: validity from 2020 for 30 years.
        var certificate: [UInt8] {
            Certificate.der(for: key, commonName: "Fauxth SAML service provider", notBefore: Date(timeIntervalSince1970: 1_577_836_800),
                            notAfter: Date(timeIntervalSince1970: 2_524_608_000)) ?? []
        }
    }

    /// `POST /sso`: `{provider_id | domain, redirect_to, skip_http_redirect, code_challenge, code_challenge_method}`.
    /// Answers 303 to the IdP, or `{"url"}` with `skip_http_redirect` (what supabase-js and supabase-py send).
    static func start(_ call: Call) throws -> Response {
        let project = try project(call)
        let body = try call.body()
        let providerId = try body.string("provider_id") ?? ""
        let domain = try body.string("domain") ?? ""
        if !providerId.isEmpty, let refusal = GoText.uuidRefusal(providerId) {
            throw SupabaseError(status: .badRequest, code: .badJSON, message: "Could not parse request body as JSON: " + refusal)
        }
        switch (providerId.isEmpty, domain.isEmpty) {
        case (false, false): throw SupabaseError.validation("Only one of provider_id or domain supported")
        case (true, true): throw SupabaseError.validation("A provider_id or domain needs to be provided")
        default: break
        }
        let provider: SSOProvider
        if !providerId.isEmpty {
            guard let found = try call.emulator.ssoProvider(in: project.storeTenant, .id(providerId)) else {
                throw SupabaseError(status: .notFound, code: .ssoProviderNotFound, message: "No such SSO provider")
            }
            provider = found
        } else {
            guard let found = try call.emulator.ssoProvider(in: project.storeTenant, .domain(domain)) else {
                throw SupabaseError(status: .notFound, code: .ssoProviderNotFound, message: "No SSO provider assigned for this domain")
            }
            provider = found
        }
        guard provider.isEnabled else {
            throw SupabaseError(status: .notFound, code: .ssoProviderDisabled, message: "SSO Provider is currently disabled")
        }
        let challenge = try PKCE.challenge(in: body)
        let metadata: SAMLIdentityProviderMetadata
        do {
            metadata = try SAMLMetadata.parseIdentityProvider(Array(provider.metadataXML.utf8))
        } catch {
            throw SupabaseError(status: .internalServerError, code: .unexpectedFailure, message: "Error parsing SAML Metadata for SAML provider")
        }
        guard let destination = metadata.ssoRedirectURL else {
            throw SupabaseError(status: .internalServerError, code: .unexpectedFailure,
                                message: "Error creating SAML Authentication Request: the IdP has no HTTP-Redirect SingleSignOnService")
        }
        let sp = try ServiceProvider(call, project: project)
        // crewjam/saml's request ids: `id-` and 20 random bytes in hex.
        let request = SAMLAuthnRequest(id: "id-" + call.emulator.generator.bytes(20).map { String(format: "%02x", $0) }.joined(),
                                       issueInstant: call.emulator.clock.now, destination: destination, assertionConsumerServiceURL: sp.acsURL,
                                       issuer: sp.entityID,
                                       nameIDFormat: provider.nameIDFormat ?? "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent")
        var data: [String: JSON] = ["redirect_to": .string(try body.string("redirect_to") ?? "")]
        data["code_challenge"] = challenge.map { .string($0.challenge) }
        data["code_challenge_method"] = challenge.map { .string($0.method.rawValue) }
        let relayState = try call.emulator.beginSAMLRequest(in: project.storeTenant, providerId: provider.id, requestId: request.id, data: data,
                                                            lifetime: project.config.saml.relayStateValidity)
        let url = destination + (destination.contains("?") ? "&" : "?") + request.redirectQuery(relayState: relayState)
        if try body.bool("skip_http_redirect") == true { return .json(["url": .string(url)]) }
        return Response(status: .seeOther, headers: [.location: url])
    }

    /// `GET /sso/saml/metadata`: the service provider's metadata, for the IdP's side of the connection
    /// (`?download=true` adds GoTrue's five-year `validUntil` and an attachment name).
    static func metadata(_ call: Call) throws -> Response {
        let project = try project(call)
        let sp = try ServiceProvider(call, project: project)
        let download = call.request.uri.queryParameters.get("download") == "true"
        let xml = SAMLMetadata.serviceProvider(entityID: sp.entityID, acsURL: sp.acsURL, certificateDER: sp.certificate,
                                               nameIDFormats: ["urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
                                                               "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"])
        var headers: HTTPFields = [.contentType: "application/xml", .cacheControl: "public, max-age=600"]
        if download { headers[.contentDisposition] = "attachment; filename=\"metadata.xml\"" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: xml)))
    }
}
