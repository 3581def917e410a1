import Foundation

extension SAMLMetadata {
    /// Reads an IdP's metadata: an EntityDescriptor, or an EntitiesDescriptor holding exactly one entity
    /// with an IDPSSODescriptor (federations publish many). Refusals use GoTrue's words, as its admin
    /// API answers them.
    public static func parseIdentityProvider(_ xml: [UInt8]) throws(SAMLError) -> SAMLIdentityProviderMetadata {
        let root: XMLElement
        do throws(XMLError) {
            root = try XMLDocumentParser.parse(xml)
        } catch {
            throw SAMLError(.metadata, "SAML Metadata is not valid XML: \(error.message)")
        }
        let (entity, outerValidUntil) = try identityProviderEntity(in: root)
        guard let entityID = entity.attribute("entityID"), !entityID.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw SAMLError(.metadata, "SAML Metadata does not contain an EntityID")
        }
        let descriptors = entity.children(named: "IDPSSODescriptor", namespace: SAMLNamespace.metadata)
        guard let descriptor = descriptors.first else { throw SAMLError(.metadata, "SAML Metadata does not contain any IDPSSODescriptor") }
        guard descriptors.count == 1 else { throw SAMLError(.metadata, "SAML Metadata contains multiple IDPSSODescriptors") }

        var redirect: String?, post: String?
        for service in descriptor.children(named: "SingleSignOnService", namespace: SAMLNamespace.metadata) {
            switch service.attribute("Binding") {
            case SAMLBinding.httpRedirect: redirect = redirect ?? service.attribute("Location")
            case SAMLBinding.httpPOST: post = post ?? service.attribute("Location")
            default: break
            }
        }
        let certificates = descriptor.children(named: "KeyDescriptor", namespace: SAMLNamespace.metadata)
            .filter { ($0.attribute("use") ?? "signing") == "signing" }
            .flatMap { $0.descendants(named: "X509Certificate", namespace: XMLSignature.namespace) }
            .compactMap { Certificate.decodeCertificate($0.text) }
        let formats = descriptor.children(named: "NameIDFormat", namespace: SAMLNamespace.metadata)
            .map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
        let validUntil = try entity.attribute("validUntil").map { (text: String) throws(SAMLError) -> Date in
            guard let date = SAMLTime.date(from: text) else { throw SAMLError(.metadata, "SAML Metadata has an unreadable validUntil: \(text)") }
            return date
        }
        return SAMLIdentityProviderMetadata(entityID: entityID, ssoRedirectURL: redirect, ssoPostURL: post, signingCertificates: certificates,
                                            validUntil: validUntil ?? outerValidUntil, nameIDFormats: formats)
    }

    /// The EntityDescriptor to read, and the validUntil of an EntitiesDescriptor around it.
    private static func identityProviderEntity(in root: XMLElement) throws(SAMLError) -> (XMLElement, Date?) {
        if root.isNamed("EntityDescriptor", namespace: SAMLNamespace.metadata) { return (root, nil) }
        guard root.isNamed("EntitiesDescriptor", namespace: SAMLNamespace.metadata) else {
            throw SAMLError(.metadata, "SAML Metadata must be an md:EntityDescriptor or md:EntitiesDescriptor, not <\(root.qualifiedName)>")
        }
        let providers = root.descendants(named: "EntityDescriptor", namespace: SAMLNamespace.metadata)
            .filter { $0.firstChild(named: "IDPSSODescriptor", namespace: SAMLNamespace.metadata) != nil }
        guard let provider = providers.first else { throw SAMLError(.metadata, "SAML Metadata does not contain any IDPSSODescriptor") }
        guard providers.count == 1 else {
            throw SAMLError(.metadata, "SAML Metadata contains multiple IDPSSODescriptors (\(providers.count) identity providers in one EntitiesDescriptor)")
        }
        return (provider, root.attribute("validUntil").flatMap(SAMLTime.date(from:)))
    }
}
