import Crypto
import _CryptoExtras
import Foundation

extension XMLSignature {
    /// `http://www.w3.org/2000/09/xmldsig#`, written with the `ds` prefix.
    public static let namespace = "http://www.w3.org/2000/09/xmldsig#"
    public static let envelopedSignature = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
    /// Inclusive C14N 1.0: recognized only to be refused by name.
    public static let inclusiveC14N = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"

    public static let sha1 = "http://www.w3.org/2000/09/xmldsig#sha1"
    public static let sha256 = "http://www.w3.org/2001/04/xmlenc#sha256"
    public static let sha384 = "http://www.w3.org/2001/04/xmldsig-more#sha384"
    public static let sha512 = "http://www.w3.org/2001/04/xmlenc#sha512"

    public static let rsaSHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
    public static let rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
    public static let rsaSHA384 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384"
    public static let rsaSHA512 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512"
    public static let ecdsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"

    /// The digest of `bytes` under a `DigestMethod`; nil for an algorithm not supported. SHA-1 stays
    /// because IdPs (ADFS, older Shibboleth) still send it.
    static func digest(_ algorithm: String, _ bytes: [UInt8]) -> [UInt8]? {
        switch algorithm {
        case sha1: Array(Insecure.SHA1.hash(data: bytes))
        case sha256: Array(SHA256.hash(data: bytes))
        case sha384: Array(SHA384.hash(data: bytes))
        case sha512: Array(SHA512.hash(data: bytes))
        default: nil
        }
    }

    static let signatureAlgorithms: Set<String> = [rsaSHA1, rsaSHA256, rsaSHA384, rsaSHA512, ecdsaSHA256]

    /// Whether `signature` (a `SignatureValue`) signs `data` under `algorithm` with `key`. RSA is
    /// PKCS #1 v1.5, as `rsa-sha*` means; ECDSA signatures are `r ‖ s` (RFC 4050).
    static func isValid(signature: [UInt8], over data: [UInt8], algorithm: String, key: CertificateKey) -> Bool {
        switch key {
        case .rsa(let key):
            let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
            switch algorithm {
            case rsaSHA1: return key.isValidSignature(rsaSignature, for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
            case rsaSHA256: return key.isValidSignature(rsaSignature, for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
            case rsaSHA384: return key.isValidSignature(rsaSignature, for: SHA384.hash(data: data), padding: .insecurePKCS1v1_5)
            case rsaSHA512: return key.isValidSignature(rsaSignature, for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
            default: return false
            }
        case .p256(let key):
            guard algorithm == ecdsaSHA256, let ecdsaSignature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsaSignature, for: SHA256.hash(data: data))
        }
    }
}
