import Foundation
import Testing
import AuthCore

@Suite("SAML toolkit: Responses from the builder through the validator")
struct SAMLResponseTests {
    typealias F = SAMLFixtures

    static func builder(_ change: (inout SAMLResponseBuilder) -> Void = { _ in }) -> SAMLResponseBuilder {
        var builder = SAMLResponseBuilder(
            issuer: F.idpEntityID, destination: F.acsURL, inResponseTo: "_request-1", audience: F.spEntityID, recipient: F.acsURL,
            nameID: "ada@example.org", attributes: [("email", ["ada@example.org"]), ("urn:oid:2.5.4.42", ["Ada"]), ("groups", ["admins", "r&d <x>"])],
            sessionIndex: "_session-1", responseID: "_response-1", assertionID: "_assertion-1", issueInstant: F.issued,
            notBefore: F.issued.addingTimeInterval(-60), notOnOrAfter: F.issued.addingTimeInterval(300),
            sessionNotOnOrAfter: F.issued.addingTimeInterval(8 * 3600), key: F.idpKey, certificateDER: F.idpCertificate)
        change(&builder)
        return builder
    }

    /// An SP that sent `_request-1` and checks one minute after issue.
    static func expectation(_ change: (inout SAMLExpectation) -> Void = { _ in }) -> SAMLExpectation {
        var expectation = SAMLExpectation(idpEntityID: F.idpEntityID, trustedCertificates: [F.idpCertificate], spEntityID: F.spEntityID,
                                          acsURL: F.acsURL, inResponseTo: ["_request-0", "_request-1"], now: F.issued.addingTimeInterval(60))
        change(&expectation)
        return expectation
    }

    static func validate(_ xml: String, _ expectation: SAMLExpectation = expectation()) throws(SAMLError) -> SAMLAssertion {
        try SAMLResponseValidator.validate(xml: Array(xml.utf8), expectation: expectation)
    }

    /// Expects a refusal of `kind` whose reason mentions `fragment`.
    static func expectRefusal(_ kind: SAMLError.Kind, _ fragment: String = "", _ xml: String, _ expectation: SAMLExpectation = expectation(),
                              sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let assertion = try validate(xml, expectation)
            Issue.record("accepted: \(assertion)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, "\(error.reason)", sourceLocation: sourceLocation)
            #expect(fragment.isEmpty || error.reason.contains(fragment), "\(error.reason)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [SAMLResponseBuilder.Signing.assertion, .response, .both])
    func builtResponsesValidate(_ signing: SAMLResponseBuilder.Signing) throws {
        let xml = try Self.builder { $0.signing = signing }.build()
        let assertion = try Self.validate(xml)
        #expect(assertion.id == "_assertion-1" && assertion.responseID == "_response-1")
        #expect(assertion.issuer == F.idpEntityID)
        #expect(assertion.nameID == "ada@example.org" && assertion.nameIDFormat == SAMLNameIDFormat.emailAddress)
        #expect(assertion.attributes == ["email": ["ada@example.org"], "urn:oid:2.5.4.42": ["Ada"], "groups": ["admins", "r&d <x>"]])
        #expect(assertion.sessionIndex == "_session-1" && assertion.inResponseTo == "_request-1")
        #expect(assertion.authnInstant == F.issued)
        #expect(assertion.notBefore == F.issued.addingTimeInterval(-60) && assertion.notOnOrAfter == F.issued.addingTimeInterval(300))
        #expect(assertion.sessionNotOnOrAfter == F.issued.addingTimeInterval(8 * 3600))
    }

    @Test func builderWritesWhatSAMLExpects() throws {
        let xml = try Self.builder().build()
        #expect(xml.hasPrefix(#"<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_response-1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="https://sp.example.org/acs" InResponseTo="_request-1"><saml:Issuer>https://idp.example.org/metadata</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"></samlp:StatusCode></samlp:Status><saml:Assertion ID="_assertion-1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>https://idp.example.org/metadata</saml:Issuer><ds:Signature"#))
        #expect(xml.contains(#"<saml:Attribute Name="urn:oid:2.5.4.42" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri">"#))
        #expect(xml.contains(#"<saml:Attribute Name="email" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">"#))
        #expect(xml.contains(#"<saml:SubjectConfirmationData InResponseTo="_request-1" NotOnOrAfter="2026-01-01T00:05:00Z" Recipient="https://sp.example.org/acs">"#))
        #expect(try Self.builder().build() == xml)  // same inputs, same bytes
    }

    @Test func unsignedResponsesAreRefusedUnlessAllowed() throws {
        let xml = try Self.builder { $0.signing = .none }.build()
        Self.expectRefusal(.signature, "neither the Response nor its Assertion is signed", xml)
        #expect(try Self.validate(xml, Self.expectation { $0.requireSignedAssertion = false }).nameID == "ada@example.org")
        // A signature that is present is checked even when none is required.
        let untrusted = try Self.builder { $0.key = F.otherKey; $0.certificateDER = F.otherCertificate }.build()
        Self.expectRefusal(.signature, "not trusted", untrusted, Self.expectation { $0.requireSignedAssertion = false })
    }

    @Test func eachCheckHasItsOwnRefusal() throws {
        let valid = try Self.builder().build()
        Self.expectRefusal(.audience, "not this SP", valid, Self.expectation { $0.spEntityID = "https://other-sp.example.org" })
        Self.expectRefusal(.recipient, "Recipient is https://attacker.example.org/acs", try Self.builder { $0.recipient = "https://attacker.example.org/acs" }.build())
        Self.expectRefusal(.destination, "Destination", try Self.builder { $0.destination = "https://attacker.example.org/acs" }.build())
        Self.expectRefusal(.issuer, "Issuer", valid, Self.expectation { $0.idpEntityID = "https://other-idp.example.org" })
        Self.expectRefusal(.inResponseTo, "_request-1", valid, Self.expectation { $0.inResponseTo = ["_request-2"] })
        Self.expectRefusal(.signature, "not trusted", valid, Self.expectation { $0.trustedCertificates = [F.otherCertificate] })
        Self.expectRefusal(.malformed, "not well-formed", "<samlp:Response")
        Self.expectRefusal(.malformed, "expected a samlp:Response", #"<Response xmlns="urn:oasis:names:tc:SAML:2.0:assertion"/>"#)
        Self.expectRefusal(.malformed, "DTD", "<!DOCTYPE r [<!ENTITY e \"x\">]>" + valid)
    }

    /// Time checks at a frozen now: 180 s of skew either way, as crewjam/saml allows.
    @Test func validityWindowAllowsTheClockSkew() throws {
        let xml = try Self.builder().build()
        let end = F.issued.addingTimeInterval(300)
        #expect(throws: Never.self) { try Self.validate(xml, Self.expectation { $0.now = end.addingTimeInterval(179) }) }
        Self.expectRefusal(.expired, "expired at 2026-01-01T00:05:00Z", xml, Self.expectation { $0.now = end.addingTimeInterval(180) })
        Self.expectRefusal(.expired, "", xml, Self.expectation { $0.now = end.addingTimeInterval(3_600); $0.clockSkew = 0 })
        let start = F.issued.addingTimeInterval(-60)
        #expect(throws: Never.self) { try Self.validate(xml, Self.expectation { $0.now = start.addingTimeInterval(-180) }) }
        Self.expectRefusal(.notYetValid, "not valid before 2025-12-31T23:59:00Z", xml, Self.expectation { $0.now = start.addingTimeInterval(-181) })
    }

    @Test func unsolicitedResponsesNeedPermission() throws {
        let xml = try Self.builder { $0.inResponseTo = nil }.build()
        Self.expectRefusal(.unsolicited, "IdP-initiated", xml)
        let assertion = try Self.validate(xml, Self.expectation { $0.allowUnsolicited = true; $0.inResponseTo = [] })
        #expect(assertion.inResponseTo == nil)
        // Permission for unsolicited responses does not make an unknown InResponseTo acceptable.
        Self.expectRefusal(.inResponseTo, "", try Self.builder().build(), Self.expectation { $0.allowUnsolicited = true; $0.inResponseTo = [] })
    }

    /// A maximum age (Cognito's six minutes for IdP-initiated answers) counts from the Assertion's IssueInstant, with the
    /// clock skew allowed, however long the Assertion itself says it is good for.
    @Test func aMaximumAgeCountsFromIssueInstant() throws {
        let xml = try Self.builder { $0.inResponseTo = nil; $0.notOnOrAfter = F.issued.addingTimeInterval(3_600) }.build()
        func at(_ seconds: TimeInterval) -> SAMLExpectation {
            Self.expectation { $0.allowUnsolicited = true; $0.inResponseTo = []; $0.maxAge = 360; $0.clockSkew = 0; $0.now = F.issued.addingTimeInterval(seconds) }
        }
        #expect(throws: Never.self) { try Self.validate(xml, at(359)) }
        Self.expectRefusal(.expired, "issued at 2026-01-01T00:00:00Z, more than 360 s before now", xml, at(360))
        #expect(throws: Never.self) { try Self.validate(xml, Self.expectation { $0.allowUnsolicited = true; $0.inResponseTo = []; $0.now = F.issued.addingTimeInterval(3_000) }) }
    }

    @Test func failureStatusesCarryCodeAndMessage() throws {
        let xml = try Self.builder { $0.statusCode = SAMLStatusCode.authnFailed; $0.statusMessage = "wrong password" }.build()
        #expect(xml.contains(#"<samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder"><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:AuthnFailed">"#))
        #expect(!xml.contains("Assertion"))
        Self.expectRefusal(.status(code: SAMLStatusCode.authnFailed, message: "wrong password"), "wrong password", xml)
        let requester = try Self.builder { $0.statusCode = SAMLStatusCode.requester; $0.signing = .response }.build()
        Self.expectRefusal(.status(code: SAMLStatusCode.requester, message: nil), "no message", requester)
    }

    @Test func encryptedAndMissingPartsAreNamed() throws {
        let valid = try Self.builder { $0.signing = .none }.build()
        let encrypted = valid.replacing(#/<saml:Assertion .*</saml:Assertion>/#,
                                                   with: "<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc=\"http://www.w3.org/2001/04/xmlenc#\"/></saml:EncryptedAssertion>")
        Self.expectRefusal(.encrypted, "encrypted assertions are not supported", encrypted)
        let none = valid.replacing(#/<saml:Assertion .*</saml:Assertion>/#, with: "")
        Self.expectRefusal(.malformed, "no Assertion", none)
        let noAuthn = valid.replacing(#/<saml:AuthnStatement .*</saml:AuthnStatement>/#, with: "")
        Self.expectRefusal(.malformed, "AuthnStatement", noAuthn, Self.expectation { $0.requireSignedAssertion = false })
        let noAudience = valid.replacing(#/<saml:AudienceRestriction>.*</saml:AudienceRestriction>/#, with: "")
        Self.expectRefusal(.audience, "no AudienceRestriction", noAudience, Self.expectation { $0.requireSignedAssertion = false })
        let holderOfKey = valid.replacingOccurrences(of: SAMLURI.bearer, with: "urn:oasis:names:tc:SAML:2.0:cm:holder-of-key")
        Self.expectRefusal(.recipient, "no bearer", holderOfKey, Self.expectation { $0.requireSignedAssertion = false })
    }

    // MARK: Signature wrapping

    /// The classic XSW: a forged, unsigned Assertion placed before the signed one.
    @Test func forgedAssertionBeforeTheSignedOneIsRefused() throws {
        let xml = try Self.builder().build()
        let forged = #"<saml:Assertion ID="_forged" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>https://idp.example.org/metadata</saml:Issuer><saml:Subject><saml:NameID>admin@example.org</saml:NameID></saml:Subject></saml:Assertion>"#
        Self.expectRefusal(.malformed, "2 Assertions", xml.replacingOccurrences(of: "<saml:Assertion ", with: forged + "<saml:Assertion "))
    }

    /// The signed Assertion hidden inside the forged one (or elsewhere), the forged one a direct child.
    @Test func signedAssertionMovedOutOfPlaceIsRefused() throws {
        let xml = try Self.builder().build()
        let signed = try #require(xml.firstMatch(of: #/<saml:Assertion .*</saml:Assertion>/#)).0
        // Same ID as the signed one, so the reference seems to match: refused as an ambiguous ID.
        let sameID = String(signed).replacingOccurrences(of: "ada@example.org", with: "admin@example.org")
            .replacingOccurrences(of: "</saml:Issuer>", with: "</saml:Issuer><samlp:Extensions>" + signed + "</samlp:Extensions>")
        Self.expectRefusal(.malformed, "share the ID", xml.replacingOccurrences(of: String(signed), with: sameID))
        // Another ID: the forged Assertion carries the signature, whose Reference names the hidden one.
        var root = try XMLDocumentParser.parse(xml)
        let located = try #require(root.element(withID: "_assertion-1"))
        var forged = located.element
        forged.setAttribute("ID", "_forged")
        forged.children.append(.element(XMLElement("saml:Advice", namespaceURI: SAMLNamespace.assertion, children: [.element(located.element)])))
        root.children[located.path[0]] = .element(forged)
        Self.expectRefusal(.signature, "covers #_assertion-1", root.serialized())
        // The signed Assertion moved into the Status, an unsigned one in its place.
        let unsigned = try Self.builder { $0.signing = .none; $0.nameID = "admin@example.org"; $0.assertionID = "_forged" }.build()
        let unsignedAssertion = try #require(unsigned.firstMatch(of: #/<saml:Assertion .*</saml:Assertion>/#)).0
        let moved = xml.replacingOccurrences(of: String(signed), with: String(unsignedAssertion))
            .replacingOccurrences(of: "</samlp:Status>", with: "<samlp:StatusDetail>" + signed + "</samlp:StatusDetail></samlp:Status>")
        Self.expectRefusal(.signature, "neither the Response nor its Assertion is signed", moved)
    }

    /// With only the Response signed, any change to the Assertion inside it breaks the Response's digest.
    @Test func responseSignatureCoversTheAssertion() throws {
        let xml = try Self.builder { $0.signing = .response }.build()
        Self.expectRefusal(.signature, "changed after signing", xml.replacingOccurrences(of: ">ada@example.org<", with: ">admin@example.org<"))
    }

    // MARK: Independent signers

    /// signxml's Assertion (see SAMLFixtures) inside a Response that declares other namespaces.
    @Test func acceptsAnAssertionSignedBySignxml() throws {
        let xml = #"<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xs="http://www.w3.org/2001/XMLSchema" ID="_outer" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="https://sp.example.org/acs" InResponseTo="_request-1"><saml:Issuer>https://idp.example.org/metadata</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>"#
            + F.signxmlAssertion + "</samlp:Response>"
        let expectation = Self.expectation { $0.trustedCertificates = [F.signxmlCertificate] }
        let assertion = try Self.validate(xml, expectation)
        #expect(assertion.id == "_signxml-assertion-1" && assertion.nameID == "ada@example.org")
        #expect(assertion.attributes["mail"] == ["ada@example.org"] && assertion.attributes["urn:oid:0.9.2342.19200300.100.1.3"] == ["ada@example.org"])
        #expect(assertion.attributes["groups"] == ["admins", "r&d <team>"])
        Self.expectRefusal(.signature, "changed after signing", xml.replacingOccurrences(of: ">ada@example.org</saml:NameID>", with: ">eve@example.org</saml:NameID>"),
                           expectation)
    }

    @Test func acceptsAResponseSignedWithLibxml2Canonicalization() throws {
        let expectation = Self.expectation { $0.trustedCertificates = [F.signxmlCertificate] }
        let assertion = try Self.validate(F.handmadeResponse, expectation)
        #expect(assertion.nameID == "user-42" && assertion.nameIDFormat == SAMLNameIDFormat.persistent)
        #expect(assertion.attributes["note"] == ["tab\tand\rcr"])
        #expect(assertion.sessionIndex == "_session-9")
        Self.expectRefusal(.signature, "", F.handmadeResponse.replacingOccurrences(of: "https://sp.example.org/metadata", with: "https://sp.example.org/other"),
                           Self.expectation { $0.trustedCertificates = [F.signxmlCertificate]; $0.spEntityID = "https://sp.example.org/other" })
    }
}
