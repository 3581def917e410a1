import Foundation

/// What an IdP's metadata says that a service provider needs.
public struct SAMLIdentityProviderMetadata: Sendable, Equatable {
    public var entityID: String
    /// The SingleSignOnService location for the HTTP-Redirect binding.
    public var ssoRedirectURL: String?
    /// The SingleSignOnService location for the HTTP-POST binding.
    public var ssoPostURL: String?
    /// Certificates (DER) of KeyDescriptors with `use="signing"` or no `use`, in document order.
    public var signingCertificates: [[UInt8]]
    /// The entity's (or its EntitiesDescriptor's) validUntil.
    public var validUntil: Date?
    public var nameIDFormats: [String]

    public init(entityID: String, ssoRedirectURL: String?, ssoPostURL: String?, signingCertificates: [[UInt8]], validUntil: Date?,
                nameIDFormats: [String]) {
        self.entityID = entityID
        self.ssoRedirectURL = ssoRedirectURL
        self.ssoPostURL = ssoPostURL
        self.signingCertificates = signingCertificates
        self.validUntil = validUntil
        self.nameIDFormats = nameIDFormats
    }
}

/// SAML 2.0 metadata (saml-metadata-2.0-os): written for the fake IdP and the emulator's SPs, read from
/// whatever IdP a user points an SP at. Metadata signatures are not checked: the user vouches for the
/// metadata by configuring it, as GoTrue's admin API does.
public enum SAMLMetadata {
    /// An EntityDescriptor with an IDPSSODescriptor: unsigned requests welcome, one signing key, the four
    /// common NameID formats, and SSO over HTTP-Redirect and HTTP-POST, both at `ssoURL`.
    public static func identityProvider(entityID: String, ssoURL: String, certificateDER: [UInt8]) -> String {
        let formats = [SAMLNameIDFormat.emailAddress, SAMLNameIDFormat.persistent, SAMLNameIDFormat.transient, SAMLNameIDFormat.unspecified]
        var children = [keyDescriptor(certificateDER)]
        children += formats.map { md("NameIDFormat", text: $0) }
        children += [SAMLBinding.httpRedirect, SAMLBinding.httpPOST].map {
            md("SingleSignOnService", [("Binding", $0), ("Location", ssoURL)])
        }
        let descriptor = md("IDPSSODescriptor", [("WantAuthnRequestsSigned", "false"), ("protocolSupportEnumeration", SAMLNamespace.protocol)],
                            children: children)
        return entity(entityID, descriptor)
    }

    /// An EntityDescriptor with an SPSSODescriptor: assertions wanted signed, an optional signing key,
    /// the NameID formats asked for, and the ACS over HTTP-POST (index 0).
    public static func serviceProvider(entityID: String, acsURL: String, certificateDER: [UInt8]?, nameIDFormats: [String]) -> String {
        var children = certificateDER.map { [keyDescriptor($0)] } ?? []
        children += nameIDFormats.map { md("NameIDFormat", text: $0) }
        children.append(md("AssertionConsumerService", [("Binding", SAMLBinding.httpPOST), ("Location", acsURL), ("index", "0"), ("isDefault", "true")]))
        let descriptor = md("SPSSODescriptor", [("AuthnRequestsSigned", "false"), ("WantAssertionsSigned", "true"),
                                                ("protocolSupportEnumeration", SAMLNamespace.protocol)], children: children)
        return entity(entityID, descriptor)
    }

    private static func entity(_ entityID: String, _ descriptor: XMLElement) -> String {
        XMLElement("md:EntityDescriptor", namespaceURI: SAMLNamespace.metadata, attributes: [("entityID", entityID)],
                   namespaces: [.init(prefix: "md", uri: SAMLNamespace.metadata), .init(prefix: "ds", uri: XMLSignature.namespace)],
                   children: [.element(descriptor)]).serialized(declaration: true)
    }

    private static func keyDescriptor(_ certificateDER: [UInt8]) -> XMLElement {
        let certificate = XMLElement("ds:X509Certificate", namespaceURI: XMLSignature.namespace, text: Data(certificateDER).base64EncodedString())
        let data = XMLElement("ds:X509Data", namespaceURI: XMLSignature.namespace, children: [.element(certificate)])
        let keyInfo = XMLElement("ds:KeyInfo", namespaceURI: XMLSignature.namespace, children: [.element(data)])
        return md("KeyDescriptor", [("use", "signing")], children: [keyInfo])
    }

    private static func md(_ name: String, _ attributes: [(String, String)] = [], children: [XMLElement] = [], text: String? = nil) -> XMLElement {
        XMLElement("md:" + name, namespaceURI: SAMLNamespace.metadata, attributes: attributes,
                   children: text.map { [.text($0)] } ?? children.map { .element($0) })
    }
}
