import Foundation

/// Checks a `samlp:Response` posted to a service provider's ACS URL (Web Browser SSO profile, SAML
/// profiles §4.1.4.3) and returns the Assertion's facts, or the first reason to refuse it.
///
/// Signature wrapping defence: only the Response's direct `saml:Assertion` child is ever read, there
/// must be exactly one, no two elements may share an ID, and each signature is checked on the very
/// element whose content is then used (see `XMLSignature.verify`).
public enum SAMLResponseValidator {
    /// The Assertion of the Response `xml` (the decoded `SAMLResponse`), checked against `expectation`;
    /// the first failed check throws, with its own `SAMLError.Kind`. Replay (an Assertion ID seen
    /// before) is the caller's check: keep `SAMLAssertion.id` until its `notOnOrAfter`.
    public static func validate(xml: [UInt8], expectation: SAMLExpectation) throws(SAMLError) -> SAMLAssertion {
        let response = try parseResponse(xml)
        let check = ResponseCheck(expectation: expectation)
        try check.responseHeader(response)
        let (index, assertion) = try check.onlyAssertion(of: response)
        try check.signatures(response: response, assertionIndex: index)
        return try check.assertion(assertion, in: response)
    }

    /// Who sent a Response, before it is checked: the Response's Issuer, else its Assertion's. An SP that
    /// accepts IdP-initiated answers finds the provider (and so the certificates to check with) by it.
    public static func issuer(of xml: [UInt8]) throws(SAMLError) -> String {
        let response = try parseResponse(xml)
        let issuer = response.firstChild(named: "Issuer", namespace: SAMLNamespace.assertion)
            ?? response.firstChild(named: "Assertion", namespace: SAMLNamespace.assertion)?.firstChild(named: "Issuer", namespace: SAMLNamespace.assertion)
        guard let name = issuer?.text.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else {
            throw SAMLError(.issuer, "the Response names no Issuer")
        }
        return name
    }

    /// The XML of an HTTP-POST `SAMLResponse` form field (base64, line breaks allowed).
    public static func xml(fromPostParameter value: String) throws(SAMLError) -> [UInt8] {
        guard let xml = Certificate.base64Decode(value), !xml.isEmpty else { throw SAMLError(.malformed, "SAMLResponse is not base64") }
        return xml
    }

    static func parseResponse(_ xml: [UInt8]) throws(SAMLError) -> XMLElement {
        let root: XMLElement
        do throws(XMLError) {
            root = try XMLDocumentParser.parse(xml)
        } catch {
            throw SAMLError(.malformed, "the SAML Response is not well-formed XML: \(error.message)")
        }
        guard root.isNamed("Response", namespace: SAMLNamespace.protocol) else {
            throw SAMLError(.malformed, "expected a samlp:Response, got <\(root.qualifiedName)> in namespace \(root.namespaceURI ?? "none")")
        }
        guard root.attribute("Version") == "2.0" else { throw SAMLError(.malformed, "the Response's Version is not 2.0") }
        guard let id = root.attribute("ID"), !id.isEmpty else { throw SAMLError(.malformed, "the Response has no ID") }
        var seen: Set<String> = []
        var duplicate: String?
        root.walkLocated { located in
            if let id = located.element.identifier, !seen.insert(id).inserted { duplicate = id }
        }
        if let duplicate {
            throw SAMLError(.malformed, "two elements of the Response share the ID \"\(duplicate)\" (a signature wrapping attempt, or a broken IdP)")
        }
        return root
    }
}

/// The checks, in the order a developer would want to hear about failures.
private struct ResponseCheck {
    let expectation: SAMLExpectation

    var earliest: Date { expectation.now.addingTimeInterval(-expectation.clockSkew) }
    var latest: Date { expectation.now.addingTimeInterval(expectation.clockSkew) }

    /// Issuer, Destination, Status and InResponseTo of the Response itself.
    func responseHeader(_ response: XMLElement) throws(SAMLError) {
        if let issuer = response.firstChild(named: "Issuer", namespace: SAMLNamespace.assertion) {
            try checkIssuer(issuer, of: "Response")
        }
        if let destination = response.attribute("Destination"), destination != expectation.acsURL {
            throw SAMLError(.destination, "the Response's Destination is \(destination), not this SP's ACS URL \(expectation.acsURL)")
        }
        guard let status = response.firstChild(named: "Status", namespace: SAMLNamespace.protocol),
              let code = status.firstChild(named: "StatusCode", namespace: SAMLNamespace.protocol),
              let value = code.attribute("Value") else {
            throw SAMLError(.malformed, "the Response has no Status/StatusCode")
        }
        if value != SAMLStatusCode.success {
            let detail = code.firstChild(named: "StatusCode", namespace: SAMLNamespace.protocol)?.attribute("Value")
            let message = status.firstChild(named: "StatusMessage", namespace: SAMLNamespace.protocol)?.text
            throw SAMLError(.status(code: detail ?? value, message: message),
                            "the IdP answered with status \(value)\(detail.map { " / \($0)" } ?? "")" + (message.map { ": \($0)" } ?? " and no message"))
        }
        if let answered = response.attribute("InResponseTo") {
            try checkInResponseTo(answered, of: "Response")
        }
    }

    /// The Response's single `saml:Assertion` child and its index among the children.
    func onlyAssertion(of response: XMLElement) throws(SAMLError) -> (Int, XMLElement) {
        if response.firstChild(named: "EncryptedAssertion", namespace: SAMLNamespace.assertion) != nil {
            throw SAMLError(.encrypted, "the Response carries an EncryptedAssertion; encrypted assertions are not supported, so turn assertion encryption off for this SP at the IdP")
        }
        let assertions = response.children.enumerated().compactMap { index, node -> (Int, XMLElement)? in
            if case .element(let e) = node, e.isNamed("Assertion", namespace: SAMLNamespace.assertion) { (index, e) } else { nil }
        }
        guard let first = assertions.first else { throw SAMLError(.malformed, "the Response carries no Assertion") }
        guard assertions.count == 1 else { throw SAMLError(.malformed, "the Response carries \(assertions.count) Assertions; exactly one is accepted") }
        return first
    }

    /// Every signature present must verify; one at least when required.
    func signatures(response: XMLElement, assertionIndex: Int) throws(SAMLError) {
        var signed = false
        if response.firstChild(named: "Signature", namespace: XMLSignature.namespace) != nil {
            try verify(response, inScope: [], what: "Response")
            signed = true
        }
        // The Assertion is read from `response`, the element just verified, so a signed Response covers it.
        guard case .element(let assertion) = response.children[assertionIndex] else { return }
        if assertion.firstChild(named: "Signature", namespace: XMLSignature.namespace) != nil {
            try verify(assertion, inScope: response.namespacesInScope(from: []), what: "Assertion")
            signed = true
        }
        if expectation.requireSignedAssertion && !signed {
            throw SAMLError(.signature, "neither the Response nor its Assertion is signed; a signature by the IdP's certificate is required")
        }
    }

    private func verify(_ element: XMLElement, inScope: [XMLNamespaceDeclaration], what: String) throws(SAMLError) {
        do throws(XMLSignatureError) {
            try XMLSignature.verify(element, inScope: inScope, trusting: expectation.trustedCertificates)
        } catch {
            throw SAMLError(.signature, "the \(what)'s signature does not hold: \(error.message)")
        }
    }

    /// Issuer, Subject and its bearer confirmation, Conditions, AuthnStatement and attributes.
    func assertion(_ assertion: XMLElement, in response: XMLElement) throws(SAMLError) -> SAMLAssertion {
        guard assertion.attribute("Version") == "2.0" else { throw SAMLError(.malformed, "the Assertion's Version is not 2.0") }
        guard let id = assertion.attribute("ID"), !id.isEmpty else { throw SAMLError(.malformed, "the Assertion has no ID") }
        guard let issuer = assertion.firstChild(named: "Issuer", namespace: SAMLNamespace.assertion) else {
            throw SAMLError(.malformed, "the Assertion has no Issuer")
        }
        try checkIssuer(issuer, of: "Assertion")
        if let maxAge = expectation.maxAge {
            guard let issued = try time(assertion, "IssueInstant") else { throw SAMLError(.malformed, "the Assertion has no IssueInstant") }
            guard issued.addingTimeInterval(maxAge) > earliest else {
                throw SAMLError(.expired, "the Assertion was issued at \(SAMLTime.string(from: issued)), more than \(Int(maxAge)) s before now (\(SAMLTime.string(from: expectation.now)), \(Int(expectation.clockSkew)) s skew allowed)")
            }
        }
        guard let subject = assertion.firstChild(named: "Subject", namespace: SAMLNamespace.assertion) else {
            throw SAMLError(.malformed, "the Assertion has no Subject")
        }
        if subject.firstChild(named: "EncryptedID", namespace: SAMLNamespace.assertion) != nil {
            throw SAMLError(.encrypted, "the Subject's NameID is encrypted (EncryptedID), which is not supported")
        }
        guard let nameID = subject.firstChild(named: "NameID", namespace: SAMLNamespace.assertion) else {
            throw SAMLError(.malformed, "the Subject has no NameID")
        }
        let confirmed = try bearerConfirmation(subject)
        let window = try conditions(assertion)
        guard let statement = assertion.firstChild(named: "AuthnStatement", namespace: SAMLNamespace.assertion) else {
            throw SAMLError(.malformed, "the Assertion has no AuthnStatement")
        }
        return SAMLAssertion(
            id: id, responseID: response.attribute("ID") ?? "", issuer: expectation.idpEntityID, nameID: trimmed(nameID.text),
            nameIDFormat: nameID.attribute("Format"), attributes: attributes(of: assertion), sessionIndex: statement.attribute("SessionIndex"),
            authnInstant: try time(statement, "AuthnInstant"), notBefore: window.notBefore, notOnOrAfter: window.notOnOrAfter,
            sessionNotOnOrAfter: try time(statement, "SessionNotOnOrAfter"), inResponseTo: confirmed ?? response.attribute("InResponseTo"))
    }

    /// The first bearer SubjectConfirmation that passes, and the request it answers; else the first
    /// one's failure.
    private func bearerConfirmation(_ subject: XMLElement) throws(SAMLError) -> String? {
        let bearers = subject.children(named: "SubjectConfirmation", namespace: SAMLNamespace.assertion)
            .filter { $0.attribute("Method") == SAMLURI.bearer }
        guard !bearers.isEmpty else {
            throw SAMLError(.recipient, "the Subject has no bearer SubjectConfirmation (Method \(SAMLURI.bearer))")
        }
        var firstFailure: SAMLError?
        for bearer in bearers {
            do throws(SAMLError) {
                return try confirm(bearer)
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        throw firstFailure ?? SAMLError(.recipient, "no bearer SubjectConfirmation passed")
    }

    private func confirm(_ confirmation: XMLElement) throws(SAMLError) -> String? {
        guard let data = confirmation.firstChild(named: "SubjectConfirmationData", namespace: SAMLNamespace.assertion) else {
            throw SAMLError(.recipient, "the bearer SubjectConfirmation has no SubjectConfirmationData")
        }
        let recipient = data.attribute("Recipient") ?? ""
        guard recipient == expectation.acsURL else {
            throw SAMLError(.recipient, recipient.isEmpty ? "the bearer SubjectConfirmationData has no Recipient"
                : "the bearer SubjectConfirmationData's Recipient is \(recipient), not this SP's ACS URL \(expectation.acsURL)")
        }
        guard let notOnOrAfter = try time(data, "NotOnOrAfter") else {
            throw SAMLError(.malformed, "the bearer SubjectConfirmationData has no NotOnOrAfter")
        }
        guard notOnOrAfter > earliest else {
            throw SAMLError(.expired, "the bearer SubjectConfirmationData expired at \(SAMLTime.string(from: notOnOrAfter)) (now \(SAMLTime.string(from: expectation.now)), \(Int(expectation.clockSkew)) s skew allowed)")
        }
        if let notBefore = try time(data, "NotBefore"), notBefore > latest {
            throw SAMLError(.notYetValid, "the bearer SubjectConfirmationData is not valid before \(SAMLTime.string(from: notBefore)) (now \(SAMLTime.string(from: expectation.now)))")
        }
        guard let answered = data.attribute("InResponseTo") else {
            guard expectation.allowUnsolicited else {
                throw SAMLError(.unsolicited, "the Assertion answers no request (no InResponseTo), and IdP-initiated sign-in is not allowed here")
            }
            return nil
        }
        try checkInResponseTo(answered, of: "SubjectConfirmationData")
        return answered
    }

    /// The Conditions' validity window and AudienceRestriction.
    private func conditions(_ assertion: XMLElement) throws(SAMLError) -> (notBefore: Date?, notOnOrAfter: Date?) {
        guard let conditions = assertion.firstChild(named: "Conditions", namespace: SAMLNamespace.assertion) else {
            throw SAMLError(.audience, "the Assertion has no Conditions, so no AudienceRestriction names this SP (\(expectation.spEntityID))")
        }
        let notBefore = try time(conditions, "NotBefore")
        let notOnOrAfter = try time(conditions, "NotOnOrAfter")
        if let notBefore, notBefore > latest {
            throw SAMLError(.notYetValid, "the Assertion is not valid before \(SAMLTime.string(from: notBefore)) (now \(SAMLTime.string(from: expectation.now)), \(Int(expectation.clockSkew)) s skew allowed)")
        }
        if let notOnOrAfter, notOnOrAfter <= earliest {
            throw SAMLError(.expired, "the Assertion expired at \(SAMLTime.string(from: notOnOrAfter)) (now \(SAMLTime.string(from: expectation.now)), \(Int(expectation.clockSkew)) s skew allowed)")
        }
        let restrictions = conditions.children(named: "AudienceRestriction", namespace: SAMLNamespace.assertion)
        guard !restrictions.isEmpty else {
            throw SAMLError(.audience, "the Assertion has no AudienceRestriction; the profile requires one naming this SP (\(expectation.spEntityID))")
        }
        // Each restriction is a condition of its own: all must hold (SAML core §2.5.1.4).
        for restriction in restrictions {
            let audiences = restriction.children(named: "Audience", namespace: SAMLNamespace.assertion).map { trimmed($0.text) }
            guard audiences.contains(expectation.spEntityID) else {
                throw SAMLError(.audience, "the Assertion is meant for \(audiences.joined(separator: ", ")), not this SP (\(expectation.spEntityID))")
            }
        }
        return (notBefore, notOnOrAfter)
    }

    private func attributes(of assertion: XMLElement) -> [String: [String]] {
        var attributes: [String: [String]] = [:]
        for statement in assertion.children(named: "AttributeStatement", namespace: SAMLNamespace.assertion) {
            for attribute in statement.children(named: "Attribute", namespace: SAMLNamespace.assertion) {
                guard let name = attribute.attribute("Name") else { continue }
                let values = attribute.children(named: "AttributeValue", namespace: SAMLNamespace.assertion)
                    .filter { $0.attribute("nil", namespace: XMLNamespace.xsi) != "true" }
                    .map { trimmed($0.text) }
                attributes[name, default: []] += values
                if let friendly = attribute.attribute("FriendlyName"), friendly != name {
                    attributes[friendly, default: []] += values
                }
            }
        }
        return attributes
    }

    private func checkIssuer(_ issuer: XMLElement, of what: String) throws(SAMLError) {
        let value = trimmed(issuer.text)
        guard value == expectation.idpEntityID else {
            throw SAMLError(.issuer, "the \(what)'s Issuer is \(value.isEmpty ? "empty" : value), not the IdP \(expectation.idpEntityID)")
        }
    }

    private func checkInResponseTo(_ answered: String, of what: String) throws(SAMLError) {
        guard expectation.inResponseTo.contains(answered) else {
            throw SAMLError(.inResponseTo, "the \(what)'s InResponseTo is \(answered), which is not a request this SP is waiting for (expired, already used, or from another session)")
        }
    }

    private func time(_ element: XMLElement, _ attribute: String) throws(SAMLError) -> Date? {
        guard let text = element.attribute(attribute) else { return nil }
        guard let date = SAMLTime.date(from: text) else {
            throw SAMLError(.malformed, "\(element.localName)'s \(attribute) is not an xs:dateTime: \(text)")
        }
        return date
    }

    private func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}
