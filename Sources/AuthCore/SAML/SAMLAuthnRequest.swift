import Foundation

/// A SAML 2.0 `samlp:AuthnRequest`: what a service provider sends the IdP to start a sign-in, and what
/// the fake IdP reads back.
public struct SAMLAuthnRequest: Sendable, Equatable {
    /// The request ID: the SP keeps it to check the Response's InResponseTo. Must be an xs:ID (an
    /// NCName: not starting with a digit), e.g. `_` followed by hex.
    public var id: String
    public var issueInstant: Date
    /// The IdP's SSO URL the request is sent to; empty when a decoded request had none.
    public var destination: String
    /// Where the IdP should post the Response; empty when a decoded request had none (the IdP then
    /// uses the ACS URL it knows for the SP).
    public var assertionConsumerServiceURL: String
    /// The SP's entity ID; empty when a decoded request had no Issuer.
    public var issuer: String
    /// The `NameIDPolicy` Format the SP asks for.
    public var nameIDFormat: String?
    /// The SP wants the user to authenticate again even with a session at the IdP.
    public var forceAuthn: Bool
    /// The IdP must not interact with the user.
    public var isPassive: Bool

    public init(id: String, issueInstant: Date, destination: String, assertionConsumerServiceURL: String, issuer: String,
                nameIDFormat: String? = nil, forceAuthn: Bool = false, isPassive: Bool = false) {
        self.id = id
        self.issueInstant = issueInstant
        self.destination = destination
        self.assertionConsumerServiceURL = assertionConsumerServiceURL
        self.issuer = issuer
        self.nameIDFormat = nameIDFormat
        self.forceAuthn = forceAuthn
        self.isPassive = isPassive
    }

    /// The request as an element, asking for the Response over HTTP-POST.
    public var element: XMLElement {
        var attributes: [(String, String)] = [("ID", id), ("Version", "2.0"), ("IssueInstant", SAMLTime.string(from: issueInstant))]
        if !destination.isEmpty { attributes.append(("Destination", destination)) }
        if !assertionConsumerServiceURL.isEmpty { attributes.append(("AssertionConsumerServiceURL", assertionConsumerServiceURL)) }
        attributes.append(("ProtocolBinding", SAMLBinding.httpPOST))
        if forceAuthn { attributes.append(("ForceAuthn", "true")) }
        if isPassive { attributes.append(("IsPassive", "true")) }
        var children: [XMLNode] = [.element(XMLElement("saml:Issuer", namespaceURI: SAMLNamespace.assertion, text: issuer))]
        var policy: [(String, String)] = [("AllowCreate", "true")]
        if let nameIDFormat { policy.insert(("Format", nameIDFormat), at: 0) }
        children.append(.element(XMLElement("samlp:NameIDPolicy", namespaceURI: SAMLNamespace.protocol, attributes: policy)))
        return XMLElement("samlp:AuthnRequest", namespaceURI: SAMLNamespace.protocol, attributes: attributes,
                          namespaces: [.init(prefix: "samlp", uri: SAMLNamespace.protocol), .init(prefix: "saml", uri: SAMLNamespace.assertion)],
                          children: children)
    }

    /// The request as XML text (no XML declaration).
    public func xml() -> String {
        element.serialized()
    }

    /// The HTTP-Redirect binding's query (SAML bindings §3.4.4): `SAMLRequest=` the deflated, base64'd,
    /// percent-encoded request, then `&RelayState=…` when given. Unsigned: the metadata this toolkit
    /// writes says `WantAuthnRequestsSigned="false"`.
    public func redirectQuery(relayState: String?) -> String {
        let encoded = Data(Deflate.compress(Array(xml().utf8))).base64EncodedString()
        var query = "SAMLRequest=" + Self.percentEncoded(encoded)
        if let relayState { query += "&RelayState=" + Self.percentEncoded(relayState) }
        return query
    }

    /// Reads the `SAMLRequest` value of the HTTP-Redirect binding, already percent-decoded: base64, then
    /// raw DEFLATE (capped at 256 KiB inflated), then XML.
    public static func decode(redirectParameter: String) throws(SAMLError) -> SAMLAuthnRequest {
        // A `+` turned into a space by form decoding is put back.
        guard let deflated = Certificate.base64Decode(redirectParameter.replacingOccurrences(of: " ", with: "+")) else {
            throw SAMLError(.malformed, "SAMLRequest is not base64")
        }
        let inflated: [UInt8]
        do throws(DeflateError) {
            inflated = try Deflate.decompress(deflated, limit: 256 * 1024)
        } catch {
            throw SAMLError(.malformed, "SAMLRequest is not raw DEFLATE data, as the HTTP-Redirect binding sends it: \(error.message)")
        }
        return try parse(inflated)
    }

    /// Reads the `SAMLRequest` form field of the HTTP-POST binding: plain base64 of the XML.
    public static func decode(postParameter: String) throws(SAMLError) -> SAMLAuthnRequest {
        guard let xml = Certificate.base64Decode(postParameter) else { throw SAMLError(.malformed, "SAMLRequest is not base64") }
        return try parse(xml)
    }

    /// Reads an AuthnRequest document.
    public static func parse(_ xml: [UInt8]) throws(SAMLError) -> SAMLAuthnRequest {
        let root: XMLElement
        do throws(XMLError) {
            root = try XMLDocumentParser.parse(xml)
        } catch {
            throw SAMLError(.malformed, "the AuthnRequest is not well-formed XML: \(error.message)")
        }
        guard root.isNamed("AuthnRequest", namespace: SAMLNamespace.protocol) else {
            throw SAMLError(.malformed, "expected a samlp:AuthnRequest, got <\(root.qualifiedName)> in namespace \(root.namespaceURI ?? "none")")
        }
        guard root.attribute("Version") == "2.0" else { throw SAMLError(.malformed, "the AuthnRequest's Version is not 2.0") }
        guard let id = root.attribute("ID"), !id.isEmpty else { throw SAMLError(.malformed, "the AuthnRequest has no ID") }
        guard let instant = root.attribute("IssueInstant"), let issueInstant = SAMLTime.date(from: instant) else {
            throw SAMLError(.malformed, "the AuthnRequest has no readable IssueInstant")
        }
        return SAMLAuthnRequest(
            id: id, issueInstant: issueInstant, destination: root.attribute("Destination") ?? "",
            assertionConsumerServiceURL: root.attribute("AssertionConsumerServiceURL") ?? "",
            issuer: root.firstChild(named: "Issuer", namespace: SAMLNamespace.assertion)?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? "",
            nameIDFormat: root.firstChild(named: "NameIDPolicy", namespace: SAMLNamespace.protocol)?.attribute("Format"),
            forceAuthn: Self.isTrue(root.attribute("ForceAuthn")), isPassive: Self.isTrue(root.attribute("IsPassive")))
    }

    private static func isTrue(_ value: String?) -> Bool { value == "true" || value == "1" }

    /// RFC 3986 unreserved characters stay, everything else is %XX: safe in any query.
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
