import Crypto
import Foundation
import Testing
import AuthCore

@Suite("SAML toolkit: enveloped XML signatures")
struct SAMLSignatureTests {
    typealias F = SAMLFixtures
    static let saml = "urn:oasis:names:tc:SAML:2.0:assertion"

    /// A Response whose namespaces are declared on the Response only, around an Assertion to sign.
    static let document = #"<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r"><saml:Issuer>idp</saml:Issuer><saml:Assertion ID="_a"><saml:Issuer>idp</saml:Issuer><saml:Subject><saml:NameID>ada</saml:NameID></saml:Subject><saml:Attr v="1">x &amp; y</saml:Attr></saml:Assertion></samlp:Response>"#

    /// The document's text with its Assertion signed in place, as an SP receives it.
    static func signedText(key: SigningKey = F.idpKey, certificate: [UInt8] = F.idpCertificate) throws -> String {
        var root = try XMLDocumentParser.parse(document)
        let assertion = try #require(root.element(withID: "_a"))
        let signed = try XMLSignature.sign(assertion.element, inScope: assertion.inScope, id: "_a", key: key, certificateDER: certificate,
                                           insertAfter: (localName: "Issuer", namespace: saml))
        root.children[assertion.path[0]] = .element(signed)
        return root.serialized()
    }

    /// Verifies the Assertion of `text` in its place.
    @discardableResult
    static func verifyAssertion(_ text: String, trusting certificates: [[UInt8]] = [F.idpCertificate]) throws -> XMLSignature.Verification {
        let root = try XMLDocumentParser.parse(text)
        let assertion = try #require(root.element(withID: "_a"))
        return try XMLSignature.verify(assertion.element, inScope: assertion.inScope, trusting: certificates)
    }

    static func expectFailure(_ kind: XMLSignatureError.Kind, _ text: String, trusting: [[UInt8]] = [F.idpCertificate],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) { try verifyAssertion(text, trusting: trusting) } throws: { error in
            (error as? XMLSignatureError)?.kind == kind
        }
    }

    @Test func signThenVerify() throws {
        let text = try Self.signedText()
        let verification = try Self.verifyAssertion(text, trusting: [F.otherCertificate, F.idpCertificate])
        #expect(verification.referenceID == "_a")
        #expect(verification.certificateDER == F.idpCertificate)
        #expect(verification.signatureAlgorithm == XMLSignature.rsaSHA256 && verification.digestAlgorithm == XMLSignature.sha256)
        // SAML's schema wants the Signature right after the Issuer.
        let assertion = try #require(XMLDocumentParser.parse(text).element(withID: "_a")?.element)
        #expect(assertion.childElements.map(\.localName) == ["Issuer", "Signature", "Subject", "Attr"])
        #expect(text.contains(#"<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#">"#))
    }

    @Test func ecdsaSignaturesVerifyToo() throws {
        let text = try Self.signedText(key: F.ecKey, certificate: F.ecCertificate)
        #expect(try Self.verifyAssertion(text, trusting: [F.ecCertificate]).signatureAlgorithm == XMLSignature.ecdsaSHA256)
        Self.expectFailure(.untrustedKey, text)
    }

    @Test func signingIsDeterministic() throws {
        #expect(try Self.signedText() == Self.signedText())
    }

    @Test func alteredTextOrAttributeIsRefused() throws {
        let text = try Self.signedText()
        Self.expectFailure(.digestMismatch, text.replacingOccurrences(of: "<saml:NameID>ada<", with: "<saml:NameID>eve<"))
        Self.expectFailure(.digestMismatch, text.replacingOccurrences(of: #"v="1""#, with: #"v="2""#))
        Self.expectFailure(.digestMismatch, text.replacingOccurrences(of: "x &amp; y", with: "x &amp;  y"))
        // An element added inside the signed one.
        Self.expectFailure(.digestMismatch, text.replacingOccurrences(of: "</saml:Subject>", with: "<saml:NameID>eve</saml:NameID></saml:Subject>"))
        // The digest itself replaced: SignedInfo changed, so the signature no longer holds.
        let message = try #require(text.firstMatch(of: /<ds:DigestValue>([^<]*)</)).1
        let root = try XMLDocumentParser.parse(text.replacingOccurrences(of: "ada", with: "eve"))
        var copy = try #require(root.element(withID: "_a")?.element)
        copy.children.removeAll { if case .element(let e) = $0 { e.localName == "Signature" } else { false } }
        let forgedDigest = Data(SHA256.hash(data: ExclusiveC14N.canonicalize(copy, inScope: root.namespaceDeclarations))).base64EncodedString()
        let forged = text.replacingOccurrences(of: "ada", with: "eve").replacingOccurrences(of: String(message), with: forgedDigest)
        Self.expectFailure(.invalidSignature, forged)
    }

    @Test func signatureByAnUntrustedKeyIsRefused() throws {
        // Someone else's key with their own certificate in KeyInfo.
        Self.expectFailure(.untrustedKey, try Self.signedText(key: F.otherKey, certificate: F.otherCertificate))
        // Someone else's key claiming the IdP's certificate.
        Self.expectFailure(.invalidSignature, try Self.signedText(key: F.otherKey, certificate: F.idpCertificate))
        // Nothing trusted at all.
        Self.expectFailure(.untrustedKey, try Self.signedText(), trusting: [])
    }

    @Test func missingOrDoubledSignatureIsRefused() throws {
        Self.expectFailure(.missing, Self.document)
        let text = try Self.signedText()
        let signature = try #require(text.firstMatch(of: /<ds:Signature .*<\/ds:Signature>/)).0
        Self.expectFailure(.missing, text.replacingOccurrences(of: String(signature), with: ""))
        Self.expectFailure(.malformed, text.replacingOccurrences(of: String(signature), with: String(signature) + String(signature)))
    }

    /// The Reference must name the very element that holds the signature.
    @Test func referencesToAnythingElseAreRefused() throws {
        let text = try Self.signedText()
        // The signed element's ID changed: the reference now points elsewhere.
        let renamed = text.replacingOccurrences(of: #"<saml:Assertion ID="_a">"#, with: #"<saml:Assertion ID="_b">"#)
        let root = try XMLDocumentParser.parse(renamed)
        let assertion = try #require(root.element(withID: "_b"))
        #expect { try XMLSignature.verify(assertion.element, inScope: assertion.inScope, trusting: [F.idpCertificate]) } throws: { error in
            (error as? XMLSignatureError)?.kind == .reference
        }
        Self.expectFailure(.reference, text.replacingOccurrences(of: ##"URI="#_a""##, with: #"URI="""#))
        Self.expectFailure(.reference, text.replacingOccurrences(of: ##"URI="#_a""##, with: ##"URI="#_r""##))
        let reference = try #require(text.firstMatch(of: /<ds:Reference .*<\/ds:Reference>/)).0
        Self.expectFailure(.reference, text.replacingOccurrences(of: String(reference), with: String(reference) + String(reference)))
    }

    @Test func unsupportedAlgorithmsAreRefusedByName() throws {
        let text = try Self.signedText()
        let cases = [
            (XMLSignature.envelopedSignature, "http://www.w3.org/TR/1999/REC-xpath-19991116"),
            (XMLSignature.rsaSHA256, "http://www.w3.org/2001/04/xmldsig-more#hmac-sha256"),
            (#"<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#">"#,
             #"<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315">"#),
        ]
        for (original, replacement) in cases {
            Self.expectFailure(.unsupportedAlgorithm, text.replacingOccurrences(of: original, with: replacement))
        }
        #expect { try Self.verifyAssertion(text.replacingOccurrences(of: XMLSignature.sha256, with: "urn:md5")) } throws: { error in
            (error as? XMLSignatureError)?.message.contains("digest algorithm urn:md5 is not supported") == true
        }
    }

    /// An enveloping Response signature covers the Assertion's own signature: the enveloped-signature
    /// transform removes only the signature that holds it.
    @Test func nestedSignaturesEachCoverTheirElement() throws {
        let text = try Self.signedText()
        let root = try XMLDocumentParser.parse(text)
        let signed = try XMLSignature.sign(root, id: "_r", key: F.idpKey, certificateDER: F.idpCertificate,
                                           insertAfter: (localName: "Issuer", namespace: Self.saml))
        let both = signed.serialized()
        let reparsed = try XMLDocumentParser.parse(both)
        #expect(try XMLSignature.verify(reparsed, trusting: [F.idpCertificate]).referenceID == "_r")
        try Self.verifyAssertion(both)
        // Re-signing the Assertion with another key keeps the Assertion valid for that key, but breaks the Response's digest.
        let assertionSignature = try #require(text.firstMatch(of: /<ds:SignatureValue>([^<]*)</)).1
        let tampered = try XMLDocumentParser.parse(both.replacingOccurrences(of: String(assertionSignature), with: "AAAA"))
        #expect { try XMLSignature.verify(tampered, trusting: [F.idpCertificate]) } throws: { error in
            (error as? XMLSignatureError)?.kind == .digestMismatch
        }
    }

    // MARK: Documents signed elsewhere

    @Test func acceptsAnAssertionSignedBySignxml() throws {
        let root = try XMLDocumentParser.parse(F.signxmlAssertion)
        let verification = try XMLSignature.verify(root, trusting: [F.idpCertificate, F.signxmlCertificate])
        #expect(verification.referenceID == "_signxml-assertion-1" && verification.certificateDER == F.signxmlCertificate)
        let tampered = try XMLDocumentParser.parse(F.signxmlAssertion.replacingOccurrences(of: "r&amp;d", with: "r&amp;x"))
        #expect { try XMLSignature.verify(tampered, trusting: [F.signxmlCertificate]) } throws: { error in
            (error as? XMLSignatureError)?.kind == .digestMismatch
        }
        #expect { try XMLSignature.verify(root, trusting: [F.idpCertificate]) } throws: { error in
            (error as? XMLSignatureError)?.kind == .untrustedKey
        }
    }

    @Test func acceptsAResponseSignedWithLibxml2Canonicalization() throws {
        let root = try XMLDocumentParser.parse(F.handmadeResponse)
        let verification = try XMLSignature.verify(root, trusting: [F.signxmlCertificate])
        #expect(verification.signatureAlgorithm == XMLSignature.rsaSHA512 && verification.digestAlgorithm == XMLSignature.sha1)
        // The comment is outside the digest; the whitespace is not.
        let commentless = try XMLDocumentParser.parse(F.handmadeResponse.replacingOccurrences(of: "<!-- comments are not signed -->", with: ""))
        #expect(throws: Never.self) { try XMLSignature.verify(commentless, trusting: [F.signxmlCertificate]) }
        let respaced = try XMLDocumentParser.parse(F.handmadeResponse.replacingOccurrences(of: "\n    <saml:Subject>", with: "<saml:Subject>"))
        #expect { try XMLSignature.verify(respaced, trusting: [F.signxmlCertificate]) } throws: { error in
            (error as? XMLSignatureError)?.kind == .digestMismatch
        }
    }

    // MARK: Certificates

    @Test func certificatesDecodeFromPEMAndBase64() throws {
        let pem = Certificate.pem(der: F.idpCertificate)
        #expect(Certificate.decodeCertificate(pem) == F.idpCertificate)
        #expect(Certificate.decodeCertificates("junk\n" + pem + "between\n" + Certificate.pem(der: F.otherCertificate)) == [F.idpCertificate, F.otherCertificate])
        let wrapped = Data(F.idpCertificate).base64EncodedString(options: .lineLength64Characters)
        #expect(Certificate.decodeCertificate("\n    " + wrapped.replacingOccurrences(of: "\r\n", with: "\n      ") + "\n") == F.idpCertificate)
        #expect(Certificate.decodeCertificate("not base64!") == nil)
        #expect(Certificate.decodeCertificate("AAAA") == nil)  // base64, but not DER
        #expect(Certificate.subjectPublicKeyInfo(der: F.idpCertificate) != nil)
        #expect(Certificate.subjectPublicKeyInfo(der: Array(F.idpCertificate.dropLast())) == nil)
        #expect(Certificate.der(for: SigningKey.hmac(secret: Array("s".utf8), kid: nil), commonName: "x", notBefore: F.issued, notAfter: F.issued) == nil)
    }

    /// Validity ends after 2049, so `Certificate.der` writes it as GeneralizedTime (RFC 5280 §4.1.2.5).
    @Test func certificatesPast2049UseGeneralizedTime() {
        let generalized: [UInt8] = [0x18, 0x0F] + Array("20600101000000Z".utf8)
        let utc: [UInt8] = [0x17, 0x0D] + Array("200101000000Z".utf8)
        #expect(F.idpCertificate.indices.contains { F.idpCertificate[$0...].starts(with: generalized) })
        #expect(F.idpCertificate.indices.contains { F.idpCertificate[$0...].starts(with: utc) })
    }
}
