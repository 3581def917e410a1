import Crypto
import Foundation

/// Enveloped XML signatures (XML-DSig 1.1) as SAML uses them: the `ds:Signature` sits inside the
/// element it signs, its one `Reference` points at that element's `ID`, and the only transforms are
/// enveloped-signature and exclusive C14N.
///
/// The verifier is deliberately narrow. It checks the element it is given (never one found by looking
/// an ID up), refuses every transform beyond those two, and trusts only the certificates the caller
/// passes: a certificate inside `KeyInfo` is at most a hint about which of them to try first.
public enum XMLSignature {
    /// What a successful verification established.
    public struct Verification: Sendable, Equatable {
        /// The `ID` the signature's reference names (the verified element's own).
        public var referenceID: String
        /// The trusted certificate (DER) whose key verified the signature.
        public var certificateDER: [UInt8]
        public var signatureAlgorithm: String
        public var digestAlgorithm: String
    }

    /// `element` with an enveloped signature: its `ID` attribute set to `id`, a SHA-256 digest of its
    /// exclusive canonical form (enveloped-signature, then exc-c14n), SignedInfo signed with RSA-SHA256
    /// (or ECDSA-SHA256 for a P-256 key), and `KeyInfo/X509Data/X509Certificate` holding
    /// `certificateDER`. Signatures already on the element are replaced.
    ///
    /// - Parameters:
    ///   - inScope: the declarations of the element's ancestors in the document it will be written in
    ///     (they matter only through InclusiveNamespaces, which this signer does not use, but keep the
    ///     digest right should that change).
    ///   - insertAfter: the child element after which `ds:Signature` goes; SAML wants it right after
    ///     `saml:Issuer`. When that child is absent the signature goes first; when nil, last.
    public static func sign(_ element: XMLElement, inScope: [XMLNamespaceDeclaration] = [], id: String, key: SigningKey,
                            certificateDER: [UInt8], insertAfter: (localName: String, namespace: String)? = nil) throws(XMLSignatureError) -> XMLElement {
        let algorithm: String
        switch key.material {
        case .rsa: algorithm = rsaSHA256
        case .ecdsa: algorithm = ecdsaSHA256
        case .hmac, .none: throw XMLSignatureError(.signingFailed, "an \(key.algorithm.rawValue) key cannot sign XML for SAML: use an RSA key")
        }
        var signed = element
        signed.setAttribute("ID", id)
        signed.children.removeAll { if case .element(let e) = $0 { e.isNamed("Signature", namespace: namespace) } else { false } }

        let digest = SHA256.hash(data: ExclusiveC14N.canonicalize(signed, inScope: inScope))
        let signedInfo = dsElement("SignedInfo", children: [
            dsElement("CanonicalizationMethod", ["Algorithm": ExclusiveC14N.algorithm]),
            dsElement("SignatureMethod", ["Algorithm": algorithm]),
            dsElement("Reference", ["URI": "#" + id], children: [
                dsElement("Transforms", children: [
                    dsElement("Transform", ["Algorithm": envelopedSignature]),
                    dsElement("Transform", ["Algorithm": ExclusiveC14N.algorithm]),
                ]),
                dsElement("DigestMethod", ["Algorithm": sha256]),
                dsElement("DigestValue", text: Data(digest).base64EncodedString()),
            ]),
        ])
        let declaration = XMLNamespaceDeclaration(prefix: "ds", uri: namespace)
        let context = XMLElement.merging(signed.namespacesInScope(from: inScope), [declaration])
        let signatureValue: [UInt8]
        do {
            signatureValue = try key.sign(ExclusiveC14N.canonicalize(signedInfo, inScope: context))
        } catch {
            throw XMLSignatureError(.signingFailed, "signing the SignedInfo failed: \(error)")
        }
        let signature = XMLElement(prefix: "ds", localName: "Signature", namespaceURI: namespace, namespaceDeclarations: [declaration], children: [
            .element(signedInfo),
            .element(dsElement("SignatureValue", text: Data(signatureValue).base64EncodedString())),
            .element(dsElement("KeyInfo", children: [
                dsElement("X509Data", children: [dsElement("X509Certificate", text: Data(certificateDER).base64EncodedString())]),
            ])),
        ])
        if let insertAfter {
            let anchor = signed.children.firstIndex { node in
                if case .element(let e) = node { e.isNamed(insertAfter.localName, namespace: insertAfter.namespace) } else { false }
            }
            signed.children.insert(.element(signature), at: anchor.map { $0 + 1 } ?? 0)
        } else {
            signed.children.append(.element(signature))
        }
        return signed
    }

    /// A `ds:` element; attributes are few and unprefixed, so a dictionary keeps the calls short.
    private static func dsElement(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], children: [XMLElement] = [],
                                  text: String? = nil) -> XMLElement {
        XMLElement(prefix: "ds", localName: name, namespaceURI: namespace,
                   attributes: attributes.map { XMLAttribute(localName: $0.key, value: $0.value) },
                   children: text.map { [.text($0)] } ?? children.map { .element($0) })
    }
}
