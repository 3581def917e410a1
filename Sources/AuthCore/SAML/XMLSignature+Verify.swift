import Foundation

extension XMLSignature {
    /// Checks the enveloped signature of `element`, which must be the very element the caller goes on
    /// to use, with `inScope` holding its ancestors' namespace declarations (an Assertion's are on the
    /// Response around it).
    ///
    /// Accepted: one direct `ds:Signature` child; SignedInfo canonicalized with exc-c14n; exactly one
    /// `Reference`, whose URI is `#` + this element's `ID`; transforms enveloped-signature then exc-c14n
    /// (optionally with an InclusiveNamespaces PrefixList); digests SHA-1/256/384/512; signatures
    /// RSA PKCS #1 v1.5 with SHA-1/256/384/512, or ECDSA P-256 with SHA-256. The signature must verify
    /// with the key of one of `certificates` (DER); the certificate in `KeyInfo` is not trusted by
    /// itself.
    @discardableResult
    public static func verify(_ element: XMLElement, inScope: [XMLNamespaceDeclaration] = [],
                              trusting certificates: [[UInt8]]) throws(XMLSignatureError) -> Verification {
        let name = "<\(element.qualifiedName)>"
        let signatures = element.children.enumerated().compactMap { index, node -> (Int, XMLElement)? in
            if case .element(let e) = node, e.isNamed("Signature", namespace: namespace) { (index, e) } else { nil }
        }
        guard let (signatureIndex, signature) = signatures.first else {
            throw XMLSignatureError(.missing, "\(name) carries no ds:Signature")
        }
        guard signatures.count == 1 else { throw XMLSignatureError(.malformed, "\(name) carries \(signatures.count) ds:Signature elements; one is accepted") }
        guard let id = element.attribute("ID"), !id.isEmpty else {
            throw XMLSignatureError(.reference, "\(name) has no ID attribute, so its signature cannot refer to it")
        }

        let signedInfo = try one("SignedInfo", in: signature)
        let canonicalization = try one("CanonicalizationMethod", in: signedInfo)
        let signedInfoC14N = try c14nOptions(canonicalization, for: "SignedInfo")
        let signatureAlgorithm = try algorithm(of: try one("SignatureMethod", in: signedInfo))
        guard signatureAlgorithms.contains(signatureAlgorithm) else {
            throw XMLSignatureError(.unsupportedAlgorithm, "signature algorithm \(signatureAlgorithm) is not supported (RSA with SHA-1/256/384/512, or ECDSA P-256 with SHA-256)")
        }
        let references = signedInfo.children(named: "Reference", namespace: namespace)
        guard references.count == 1 else {
            throw XMLSignatureError(.reference, "the signature of \(name) has \(references.count) References; exactly one, pointing at the element itself, is accepted")
        }
        let reference = references[0]
        let uri = reference.attribute("URI") ?? ""
        guard uri == "#" + id else {
            let target = uri.isEmpty ? "the whole document (empty Reference URI)" : uri
            throw XMLSignatureError(.reference, "the signature inside \(name) ID=\"\(id)\" covers \(target), not the element that holds it")
        }
        let referenceC14N = try referenceTransforms(reference)
        let digestAlgorithm = try algorithm(of: try one("DigestMethod", in: reference))
        let expectedDigest = try base64(try one("DigestValue", in: reference).text, "DigestValue")

        // The enveloped-signature transform: this very signature leaves, everything else stays.
        var unsigned = element
        unsigned.children.remove(at: signatureIndex)
        let canonical = ExclusiveC14N.canonicalize(unsigned, inScope: inScope, inclusivePrefixes: referenceC14N.prefixes)
        guard let digest = digest(digestAlgorithm, canonical) else {
            throw XMLSignatureError(.unsupportedAlgorithm, "digest algorithm \(digestAlgorithm) is not supported (SHA-1, SHA-256, SHA-384, SHA-512)")
        }
        guard constantTimeEquals(digest, expectedDigest) else {
            throw XMLSignatureError(.digestMismatch, "the digest of the signed element \(name) ID=\"\(id)\" does not match its DigestValue: it was changed after signing")
        }

        let signatureContext = XMLElement.merging(element.namespacesInScope(from: inScope), signature.namespaceDeclarations)
        let signedBytes = ExclusiveC14N.canonicalize(signedInfo, inScope: signatureContext, inclusivePrefixes: signedInfoC14N.prefixes,
                                                     withComments: signedInfoC14N.comments)
        let signatureValue = try base64(try one("SignatureValue", in: signature).text, "SignatureValue")
        let certificate = try trustedSigner(of: signedBytes, signatureValue, signatureAlgorithm, signature: signature, trusting: certificates)
        return Verification(referenceID: id, certificateDER: certificate, signatureAlgorithm: signatureAlgorithm, digestAlgorithm: digestAlgorithm)
    }

    /// The trusted certificate whose key made `signatureValue`; the ones `KeyInfo` names are tried first.
    private static func trustedSigner(of signedBytes: [UInt8], _ signatureValue: [UInt8], _ algorithm: String, signature: XMLElement,
                                      trusting certificates: [[UInt8]]) throws(XMLSignatureError) -> [UInt8] {
        guard !certificates.isEmpty else { throw XMLSignatureError(.untrustedKey, "no trusted certificate was given to check the signature with") }
        let offered = signature.firstChild(named: "KeyInfo", namespace: namespace)?
            .descendants(named: "X509Certificate", namespace: namespace).compactMap { Certificate.base64Decode($0.text) } ?? []
        let named = certificates.filter { offered.contains($0) }
        for certificate in named + certificates.filter({ !offered.contains($0) }) {
            guard let key = CertificateKey(certificate: certificate) else { continue }
            if isValid(signature: signatureValue, over: signedBytes, algorithm: algorithm, key: key) { return certificate }
        }
        if !offered.isEmpty && named.isEmpty {
            throw XMLSignatureError(.untrustedKey, "the signature was made with a certificate that is not trusted: the one in KeyInfo is none of the \(certificates.count) trusted certificate(s), and no trusted key verifies it")
        }
        throw XMLSignatureError(.invalidSignature, "the SignatureValue does not verify with any of the \(certificates.count) trusted certificate(s)")
    }

    /// The exc-c14n options of a `CanonicalizationMethod` or `Transform`.
    private static func c14nOptions(_ method: XMLElement, for what: String) throws(XMLSignatureError) -> (prefixes: [String], comments: Bool) {
        let algorithm = try algorithm(of: method)
        switch algorithm {
        case ExclusiveC14N.algorithm, ExclusiveC14N.algorithmWithComments:
            let list = method.firstChild(named: "InclusiveNamespaces", namespace: ExclusiveC14N.namespace)?.attribute("PrefixList") ?? ""
            return (list.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init), algorithm == ExclusiveC14N.algorithmWithComments)
        case inclusiveC14N, inclusiveC14N + "#WithComments", "http://www.w3.org/2006/12/xml-c14n11", "http://www.w3.org/2006/12/xml-c14n11#WithComments":
            throw XMLSignatureError(.unsupportedAlgorithm, "\(what) is canonicalized with inclusive C14N (\(algorithm)), which is not supported: have the IdP use exclusive C14N (\(ExclusiveC14N.algorithm))")
        default:
            throw XMLSignatureError(.unsupportedAlgorithm, "canonicalization \(algorithm) for \(what) is not supported (only \(ExclusiveC14N.algorithm))")
        }
    }

    /// The Reference's transforms: enveloped-signature, then exc-c14n, and nothing else.
    private static func referenceTransforms(_ reference: XMLElement) throws(XMLSignatureError) -> (prefixes: [String], comments: Bool) {
        let transforms = reference.firstChild(named: "Transforms", namespace: namespace)?.children(named: "Transform", namespace: namespace) ?? []
        var enveloped = false
        var c14n: (prefixes: [String], comments: Bool)?
        for transform in transforms {
            guard c14n == nil else {
                throw XMLSignatureError(.unsupportedAlgorithm, "a transform follows the canonicalization; only enveloped-signature then exc-c14n is supported")
            }
            if try algorithm(of: transform) == envelopedSignature {
                guard !enveloped else { throw XMLSignatureError(.malformed, "the enveloped-signature transform appears twice") }
                enveloped = true
            } else {
                // A bare-name reference (`#id`) drops comments even under …#WithComments (XML-DSig §4.4.3.3).
                c14n = (try c14nOptions(transform, for: "the signed element").prefixes, false)
            }
        }
        guard enveloped else {
            throw XMLSignatureError(.unsupportedAlgorithm, "the Reference lacks the enveloped-signature transform, so its digest cannot cover the element that holds the signature")
        }
        guard let c14n else {
            throw XMLSignatureError(.unsupportedAlgorithm, "the Reference has no exc-c14n transform (the default would be inclusive C14N 1.0, which is not supported)")
        }
        return c14n
    }

    private static func one(_ localName: String, in parent: XMLElement) throws(XMLSignatureError) -> XMLElement {
        let found = parent.children(named: localName, namespace: namespace)
        guard found.count == 1 else {
            throw XMLSignatureError(.malformed, "ds:\(parent.localName) must hold exactly one ds:\(localName); it holds \(found.count)")
        }
        return found[0]
    }

    private static func algorithm(of element: XMLElement) throws(XMLSignatureError) -> String {
        guard let algorithm = element.attribute("Algorithm"), !algorithm.isEmpty else {
            throw XMLSignatureError(.malformed, "ds:\(element.localName) has no Algorithm")
        }
        return algorithm
    }

    private static func base64(_ text: String, _ what: String) throws(XMLSignatureError) -> [UInt8] {
        guard let bytes = Certificate.base64Decode(text), !bytes.isEmpty else { throw XMLSignatureError(.malformed, "ds:\(what) is not base64") }
        return bytes
    }
}
