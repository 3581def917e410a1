import Foundation
import Testing
import AuthCore

@Suite("SAML toolkit: AuthnRequests and metadata")
struct SAMLMessageTests {
    typealias F = SAMLFixtures

    static let request = SAMLAuthnRequest(id: "_a1b2c3", issueInstant: F.issued, destination: "https://idp.example.org/sso",
                                          assertionConsumerServiceURL: F.acsURL, issuer: F.spEntityID, nameIDFormat: SAMLNameIDFormat.emailAddress)

    @Test func authnRequestXML() throws {
        #expect(Self.request.xml() == #"<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_a1b2c3" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="https://idp.example.org/sso" AssertionConsumerServiceURL="https://sp.example.org/acs" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"><saml:Issuer>https://sp.example.org/metadata</saml:Issuer><samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" AllowCreate="true"></samlp:NameIDPolicy></samlp:AuthnRequest>"#)
        #expect(try SAMLAuthnRequest.parse(Array(Self.request.xml().utf8)) == Self.request)
    }

    @Test func redirectBindingRoundTrips() throws {
        var request = Self.request
        request.forceAuthn = true
        let query = request.redirectQuery(relayState: "/after login?x=1&y=2")
        let items = try #require(URLComponents(string: "https://idp.example.org/sso?" + query)?.queryItems)
        #expect(items.map(\.name) == ["SAMLRequest", "RelayState"])
        #expect(items[1].value == "/after login?x=1&y=2")
        // Values are percent-encoded down to RFC 3986's unreserved characters.
        for pair in query.split(separator: "&") {
            let value = pair.split(separator: "=", maxSplits: 1)[1]
            #expect(value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~%".contains($0)) })
        }
        let value = try #require(items[0].value)
        #expect(try SAMLAuthnRequest.decode(redirectParameter: value) == request)
        // Form decoding that turned `+` into a space is forgiven.
        #expect(try SAMLAuthnRequest.decode(redirectParameter: value.replacingOccurrences(of: "+", with: " ")) == request)
        #expect(request.redirectQuery(relayState: nil).hasPrefix("SAMLRequest=") && !request.redirectQuery(relayState: nil).contains("&"))
    }

    /// The value a real SP's zlib produced (SAMLDeflateTests' dynamic-Huffman vector) decodes.
    @Test func decodesAZlibDeflatedRequest() throws {
        let request = try SAMLAuthnRequest.decode(redirectParameter: SAMLDeflateTests.zlibVectors[1].compressed)
        #expect(request.id == "_a1b2c3" && request.issuer == F.spEntityID && request.assertionConsumerServiceURL == F.acsURL)
        #expect(request.destination == "https://idp.example.org/sso" && request.nameIDFormat == SAMLNameIDFormat.emailAddress)
        #expect(request.issueInstant == F.issued && !request.forceAuthn && !request.isPassive)
    }

    @Test func postBindingAndRefusals() throws {
        let posted = Data(Self.request.xml().utf8).base64EncodedString(options: .lineLength76Characters)
        #expect(try SAMLAuthnRequest.decode(postParameter: posted) == Self.request)
        #expect(throws: SAMLError.self) { try SAMLAuthnRequest.decode(redirectParameter: "not base64!") }
        #expect(throws: SAMLError.self) { try SAMLAuthnRequest.decode(redirectParameter: "AAAA") }
        #expect(throws: SAMLError.self) { try SAMLAuthnRequest.decode(postParameter: Data("<samlp:Response xmlns:samlp=\"urn:oasis:names:tc:SAML:2.0:protocol\"/>".utf8).base64EncodedString()) }
        // A minimal request from another SP: no Destination, ACS URL or NameIDPolicy.
        let minimal = #"<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_m" Version="2.0" IssueInstant="2026-01-01T00:00:00.5Z" IsPassive="true"><saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"> sp </saml:Issuer></samlp:AuthnRequest>"#
        let parsed = try SAMLAuthnRequest.parse(Array(minimal.utf8))
        #expect(parsed.destination.isEmpty && parsed.assertionConsumerServiceURL.isEmpty && parsed.nameIDFormat == nil)
        #expect(parsed.issuer == "sp" && parsed.isPassive && parsed.issueInstant == F.issued.addingTimeInterval(0.5))
    }

    // MARK: Metadata

    @Test func identityProviderMetadataRoundTrips() throws {
        let xml = SAMLMetadata.identityProvider(entityID: F.idpEntityID, ssoURL: "https://idp.example.org/sso", certificateDER: F.idpCertificate)
        #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(xml.contains(#"<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>"#))
        let parsed = try SAMLMetadata.parseIdentityProvider(Array(xml.utf8))
        #expect(parsed == SAMLIdentityProviderMetadata(
            entityID: F.idpEntityID, ssoRedirectURL: "https://idp.example.org/sso", ssoPostURL: "https://idp.example.org/sso",
            signingCertificates: [F.idpCertificate], validUntil: nil,
            nameIDFormats: [SAMLNameIDFormat.emailAddress, SAMLNameIDFormat.persistent, SAMLNameIDFormat.transient, SAMLNameIDFormat.unspecified]))
    }

    @Test func serviceProviderMetadata() throws {
        let xml = SAMLMetadata.serviceProvider(entityID: F.spEntityID, acsURL: F.acsURL, certificateDER: nil, nameIDFormats: [SAMLNameIDFormat.persistent])
        let root = try XMLDocumentParser.parse(xml)
        #expect(root.attribute("entityID") == F.spEntityID)
        let descriptor = try #require(root.firstChild(named: "SPSSODescriptor", namespace: SAMLNamespace.metadata))
        #expect(descriptor.attribute("AuthnRequestsSigned") == "false" && descriptor.attribute("WantAssertionsSigned") == "true")
        #expect(descriptor.childElements.map(\.localName) == ["NameIDFormat", "AssertionConsumerService"])
        let acs = try #require(descriptor.firstChild(named: "AssertionConsumerService", namespace: SAMLNamespace.metadata))
        #expect(acs.attribute("Binding") == SAMLBinding.httpPOST && acs.attribute("Location") == F.acsURL && acs.attribute("index") == "0")
        let signed = SAMLMetadata.serviceProvider(entityID: F.spEntityID, acsURL: F.acsURL, certificateDER: F.idpCertificate, nameIDFormats: [])
        #expect(try XMLDocumentParser.parse(signed).descendants(named: "KeyDescriptor", namespace: SAMLNamespace.metadata).count == 1)
    }

    /// Metadata as real IdPs publish it: default namespace, federation wrapper, keys for encryption.
    @Test func readsForeignMetadata() throws {
        let certificate = Data(F.idpCertificate).base64EncodedString(options: .lineLength64Characters)
        let other = Data(F.otherCertificate).base64EncodedString()
        let xml = """
        <?xml version="1.0"?>
        <EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" validUntil="2030-01-01T00:00:00Z">
          <EntityDescriptor entityID="https://sp.example.org"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></EntityDescriptor>
          <EntityDescriptor entityID="https://keycloak.example.org/realms/demo">
            <IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
              <KeyDescriptor use="encryption"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>\(other)</X509Certificate></X509Data></KeyInfo></KeyDescriptor>
              <KeyDescriptor><dsig:KeyInfo xmlns:dsig="http://www.w3.org/2000/09/xmldsig#"><dsig:X509Data><dsig:X509Certificate>
                \(certificate)
              </dsig:X509Certificate></dsig:X509Data></dsig:KeyInfo></KeyDescriptor>
              <NameIDFormat> urn:oasis:names:tc:SAML:2.0:nameid-format:persistent </NameIDFormat>
              <SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://keycloak.example.org/post"/>
            </IDPSSODescriptor>
          </EntityDescriptor>
        </EntitiesDescriptor>
        """
        let parsed = try SAMLMetadata.parseIdentityProvider(Array(xml.utf8))
        #expect(parsed.entityID == "https://keycloak.example.org/realms/demo")
        #expect(parsed.ssoRedirectURL == nil && parsed.ssoPostURL == "https://keycloak.example.org/post")
        #expect(parsed.signingCertificates == [F.idpCertificate])
        #expect(parsed.nameIDFormats == [SAMLNameIDFormat.persistent])
        #expect(parsed.validUntil == SAMLTime.date(from: "2030-01-01T00:00:00Z"))
    }

    @Test(arguments: [
        (#"<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"><md:IDPSSODescriptor/></md:EntityDescriptor>"#,
         "SAML Metadata does not contain an EntityID"),
        (#"<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="e"><md:SPSSODescriptor/></md:EntityDescriptor>"#,
         "SAML Metadata does not contain any IDPSSODescriptor"),
        (#"<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="e"><md:IDPSSODescriptor/><md:IDPSSODescriptor/></md:EntityDescriptor>"#,
         "SAML Metadata contains multiple IDPSSODescriptors"),
        (#"<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"><md:EntityDescriptor entityID="a"><md:IDPSSODescriptor/></md:EntityDescriptor><md:EntityDescriptor entityID="b"><md:IDPSSODescriptor/></md:EntityDescriptor></md:EntitiesDescriptor>"#,
         "SAML Metadata contains multiple IDPSSODescriptors"),
        ("<EntityDescriptor entityID=\"e\"/>", "must be an md:EntityDescriptor"),
        ("not xml", "SAML Metadata is not valid XML"),
    ])
    func refusesUnusableMetadata(_ xml: String, _ reason: String) {
        #expect { try SAMLMetadata.parseIdentityProvider(Array(xml.utf8)) } throws: { error in
            guard let error = error as? SAMLError else { return false }
            return error.kind == .metadata && error.reason.contains(reason)
        }
    }
}
