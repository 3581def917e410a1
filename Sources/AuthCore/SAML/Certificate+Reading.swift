import Crypto
import _CryptoExtras
import Foundation

extension Certificate {
    /// The DER certificates in `text`: every `-----BEGIN CERTIFICATE-----` block, or else the whole text
    /// as bare base64 (as metadata's `X509Certificate` holds it), whitespace anywhere ignored. Anything
    /// that does not decode to a DER SEQUENCE is left out.
    public static func decodeCertificates(_ text: String) -> [[UInt8]] {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        var bodies: [Substring] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            bodies.append(rest[start.upperBound..<stop.lowerBound])
            rest = rest[stop.upperBound...]
        }
        if bodies.isEmpty && !text.contains("-----") { bodies = [Substring(text)] }
        return bodies.compactMap { body -> [UInt8]? in
            guard let der = base64Decode(body) else { return nil }
            var reader = DERReader(der[...])
            guard let item = reader.read(tag: 0x30), reader.atEnd, !item.content.isEmpty else { return nil }
            return der
        }
    }

    /// The DER certificate in `text` (PEM or bare base64); nil when there is none.
    public static func decodeCertificate(_ text: String) -> [UInt8]? {
        decodeCertificates(text).first
    }

    /// The certificate's SubjectPublicKeyInfo, DER-encoded (RFC 5280 §4.1); nil when `der` is not a
    /// certificate.
    public static func subjectPublicKeyInfo(der: [UInt8]) -> [UInt8]? {
        var outer = DERReader(der[...])
        guard let certificate = outer.read(tag: 0x30), outer.atEnd else { return nil }
        var fields = DERReader(certificate.content)
        guard let tbs = fields.read(tag: 0x30) else { return nil }
        var reader = DERReader(tbs.content)
        _ = reader.read(tag: 0xA0)  // version, absent for v1
        guard reader.read(tag: 0x02) != nil,  // serialNumber
              reader.read(tag: 0x30) != nil,  // signature algorithm
              reader.read(tag: 0x30) != nil,  // issuer
              reader.read(tag: 0x30) != nil,  // validity
              reader.read(tag: 0x30) != nil,  // subject
              let spki = reader.read(tag: 0x30) else { return nil }
        return Array(spki.encoded)
    }

    /// Base64 with whitespace (line breaks, indentation) anywhere; nil for anything else.
    static func base64Decode(_ text: some StringProtocol) -> [UInt8]? {
        var compact = String.UnicodeScalarView()
        compact.append(contentsOf: text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        return Data(base64Encoded: String(compact)).map { Array($0) }
    }
}

/// The public key of a trusted certificate, as XML signatures use it.
enum CertificateKey {
    case rsa(_RSA.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)

    /// The key in `der`'s SubjectPublicKeyInfo: RSA (from 1024 bits up: IdPs still publish such
    /// certificates, and trusting one is the user's decision) or EC P-256.
    init?(certificate der: [UInt8]) {
        guard let spki = Certificate.subjectPublicKeyInfo(der: der) else { return nil }
        if let key = try? _RSA.Signing.PublicKey(unsafeDERRepresentation: spki) {
            self = .rsa(key)
        } else if let key = try? P256.Signing.PublicKey(derRepresentation: spki) {
            self = .p256(key)
        } else {
            return nil
        }
    }
}
