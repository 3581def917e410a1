import Foundation

/// Writes the `samlp:Response` an identity provider posts to a service provider's ACS URL (Web Browser
/// SSO profile), shaped as mainstream IdPs shape it: one Assertion with a bearer SubjectConfirmation,
/// Conditions with an AudienceRestriction, an AuthnStatement and the attributes; signed as asked.
///
/// Every id and time is an input, so the same inputs give the same bytes.
public struct SAMLResponseBuilder: Sendable {
    /// Which elements carry an enveloped signature.
    public enum Signing: Sendable, Equatable {
        /// The Assertion only (the most common choice).
        case assertion
        /// The Response only, covering the Assertion inside it.
        case response
        /// The Assertion, then the Response around it.
        case both
        /// Nothing: for testing SPs that must refuse unsigned responses.
        case none
    }

    /// The IdP's entity ID, written as the Issuer of the Response and of the Assertion.
    public var issuer: String
    /// The Response's Destination: the SP's ACS URL.
    public var destination: String
    /// The AuthnRequest ID answered; nil for an IdP-initiated (unsolicited) response.
    public var inResponseTo: String?
    /// The SP's entity ID, as the AudienceRestriction's Audience.
    public var audience: String
    /// SubjectConfirmationData's Recipient: the SP's ACS URL.
    public var recipient: String
    public var nameID: String
    public var nameIDFormat: String
    /// Attribute names and values, in order. A name that looks like a URI (it has a `:`) is written with
    /// NameFormat `…:attrname-format:uri`, any other with `…:basic`.
    public var attributes: [(name: String, values: [String])]
    public var sessionIndex: String?
    /// IDs of the Response and the Assertion: xs:IDs (NCNames, e.g. `_` followed by hex), unique.
    public var responseID: String
    public var assertionID: String
    /// When the IdP issued the response and authenticated the user.
    public var issueInstant: Date
    /// The Conditions' validity window; `notOnOrAfter` is also the bearer confirmation's deadline.
    public var notBefore: Date
    public var notOnOrAfter: Date
    public var sessionNotOnOrAfter: Date?
    /// The top-level status, or a second-level one (`…:AuthnFailed`), which is then written inside
    /// `…:Responder`. Anything but Success produces a Response without an Assertion.
    public var statusCode: String
    public var statusMessage: String?
    public var authnContextClassRef: String
    public var signing: Signing
    /// The IdP's signing key (RSA) and its certificate, DER; not used when `signing` is `.none`.
    public var key: SigningKey?
    public var certificateDER: [UInt8]

    public init(issuer: String, destination: String, inResponseTo: String?, audience: String, recipient: String,
                nameID: String, nameIDFormat: String = SAMLNameIDFormat.emailAddress, attributes: [(name: String, values: [String])] = [],
                sessionIndex: String? = nil, responseID: String, assertionID: String, issueInstant: Date, notBefore: Date,
                notOnOrAfter: Date, sessionNotOnOrAfter: Date? = nil, statusCode: String = SAMLStatusCode.success,
                statusMessage: String? = nil, authnContextClassRef: String = SAMLURI.passwordProtectedTransport,
                signing: Signing = .assertion, key: SigningKey?, certificateDER: [UInt8]) {
        self.issuer = issuer
        self.destination = destination
        self.inResponseTo = inResponseTo
        self.audience = audience
        self.recipient = recipient
        self.nameID = nameID
        self.nameIDFormat = nameIDFormat
        self.attributes = attributes
        self.sessionIndex = sessionIndex
        self.responseID = responseID
        self.assertionID = assertionID
        self.issueInstant = issueInstant
        self.notBefore = notBefore
        self.notOnOrAfter = notOnOrAfter
        self.sessionNotOnOrAfter = sessionNotOnOrAfter
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        self.authnContextClassRef = authnContextClassRef
        self.signing = signing
        self.key = key
        self.certificateDER = certificateDER
    }

    /// The Response document (no XML declaration); callers base64 it into the `SAMLResponse` field.
    /// Throws only when signing is asked for without a key that can sign (`.signature`).
    public func build() throws(SAMLError) -> String {
        try element().serialized()
    }

    /// The Response as an element tree, signed as asked.
    public func element() throws(SAMLError) -> XMLElement {
        let namespaces = [XMLNamespaceDeclaration(prefix: "samlp", uri: SAMLNamespace.protocol),
                          XMLNamespaceDeclaration(prefix: "saml", uri: SAMLNamespace.assertion)]
        var attributes: [(String, String)] = [("ID", responseID), ("Version", "2.0"), ("IssueInstant", SAMLTime.string(from: issueInstant)),
                                              ("Destination", destination)]
        if let inResponseTo { attributes.append(("InResponseTo", inResponseTo)) }
        var response = XMLElement("samlp:Response", namespaceURI: SAMLNamespace.protocol, attributes: attributes, namespaces: namespaces,
                                  children: [.element(issuerElement()), .element(statusElement())])
        if statusCode == SAMLStatusCode.success {
            var assertion = assertionElement()
            if signing == .assertion || signing == .both {
                assertion = try sign(assertion, inScope: namespaces, id: assertionID)
            }
            response.children.append(.element(assertion))
        }
        if signing == .response || signing == .both {
            response = try sign(response, inScope: [], id: responseID)
        }
        return response
    }

    private func sign(_ element: XMLElement, inScope: [XMLNamespaceDeclaration], id: String) throws(SAMLError) -> XMLElement {
        guard let key else { throw SAMLError(.signature, "signing the SAML \(element.localName) was asked for, but no key was given") }
        do throws(XMLSignatureError) {
            return try XMLSignature.sign(element, inScope: inScope, id: id, key: key, certificateDER: certificateDER,
                                         insertAfter: (localName: "Issuer", namespace: SAMLNamespace.assertion))
        } catch {
            throw SAMLError(.signature, "could not sign the SAML \(element.localName): \(error.message)")
        }
    }

    private func issuerElement() -> XMLElement {
        XMLElement("saml:Issuer", namespaceURI: SAMLNamespace.assertion, text: issuer)
    }

    private func statusElement() -> XMLElement {
        let code: XMLElement
        if SAMLStatusCode.topLevel.contains(statusCode) {
            code = XMLElement("samlp:StatusCode", namespaceURI: SAMLNamespace.protocol, attributes: [("Value", statusCode)])
        } else {
            let inner = XMLElement("samlp:StatusCode", namespaceURI: SAMLNamespace.protocol, attributes: [("Value", statusCode)])
            code = XMLElement("samlp:StatusCode", namespaceURI: SAMLNamespace.protocol, attributes: [("Value", SAMLStatusCode.responder)],
                              children: [.element(inner)])
        }
        var children: [XMLNode] = [.element(code)]
        if let statusMessage { children.append(.element(XMLElement("samlp:StatusMessage", namespaceURI: SAMLNamespace.protocol, text: statusMessage))) }
        return XMLElement("samlp:Status", namespaceURI: SAMLNamespace.protocol, children: children)
    }

    private func assertionElement() -> XMLElement {
        var confirmationData: [(String, String)] = []
        if let inResponseTo { confirmationData.append(("InResponseTo", inResponseTo)) }
        confirmationData += [("NotOnOrAfter", SAMLTime.string(from: notOnOrAfter)), ("Recipient", recipient)]
        let subject = saml("Subject", children: [
            saml("NameID", [("Format", nameIDFormat)], text: nameID),
            saml("SubjectConfirmation", [("Method", SAMLURI.bearer)], children: [saml("SubjectConfirmationData", confirmationData)]),
        ])
        let conditions = saml("Conditions", [("NotBefore", SAMLTime.string(from: notBefore)), ("NotOnOrAfter", SAMLTime.string(from: notOnOrAfter))],
                              children: [saml("AudienceRestriction", children: [saml("Audience", text: audience)])])
        var authn: [(String, String)] = [("AuthnInstant", SAMLTime.string(from: issueInstant))]
        if let sessionIndex { authn.append(("SessionIndex", sessionIndex)) }
        if let sessionNotOnOrAfter { authn.append(("SessionNotOnOrAfter", SAMLTime.string(from: sessionNotOnOrAfter))) }
        let statement = saml("AuthnStatement", authn, children: [saml("AuthnContext", children: [saml("AuthnContextClassRef", text: authnContextClassRef)])])
        var children = [issuerElement(), subject, conditions, statement]
        if !attributes.isEmpty {
            children.append(saml("AttributeStatement", children: attributes.map { name, values in
                let format = name.contains(":") ? SAMLURI.attributeNameFormatURI : SAMLURI.attributeNameFormatBasic
                return saml("Attribute", [("Name", name), ("NameFormat", format)], children: values.map { saml("AttributeValue", text: $0) })
            }))
        }
        return XMLElement("saml:Assertion", namespaceURI: SAMLNamespace.assertion,
                          attributes: [("ID", assertionID), ("Version", "2.0"), ("IssueInstant", SAMLTime.string(from: issueInstant))],
                          children: children.map { .element($0) })
    }

    private func saml(_ name: String, _ attributes: [(String, String)] = [], children: [XMLElement] = [], text: String? = nil) -> XMLElement {
        XMLElement("saml:" + name, namespaceURI: SAMLNamespace.assertion, attributes: attributes,
                   children: text.map { [.text($0)] } ?? children.map { .element($0) })
    }
}
