import Crypto
import _CryptoExtras
import Foundation

/// The COSE algorithms (RFC 9053, IANA "COSE Algorithms") Fauxth verifies: the two every WebAuthn
/// relying party is asked to support (WebAuthn L3 §5.8.3 recommends ES256 and RS256).
public enum COSEAlgorithm: Int64, Sendable, CaseIterable {
    /// ECDSA with SHA-256 on P-256.
    case es256 = -7
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257

    public var name: String {
        switch self {
        case .es256: "ES256"
        case .rs256: "RS256"
        }
    }
}

/// A credential public key as COSE_Key (RFC 9052 §7) carries it in attested credential data, parsed into
/// swift-crypto's types. The raw COSE bytes are what a relying party stores.
public struct COSEKey: Sendable {
    public enum Material: Sendable {
        case p256(P256.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    public let algorithm: COSEAlgorithm
    public let material: Material
    /// The key's CBOR encoding, exactly as received.
    public let encoded: [UInt8]

    // COSE labels (RFC 9052 §7.1, RFC 9053 §7.1.1 and RFC 8230 §4).
    private static let kty: Int64 = 1, alg: Int64 = 3
    private static let crv: Int64 = -1, x: Int64 = -2, y: Int64 = -3
    private static let n: Int64 = -1, e: Int64 = -2
    private static let ec2: Int64 = 2, rsaType: Int64 = 3, p256Curve: Int64 = 1

    /// Parses a COSE_Key; `CBORError` names what is missing or unsupported.
    public init(cbor: CBOR, encoded: [UInt8]) throws(CBORError) {
        guard let algValue = cbor[int: Self.alg]?.intValue else { throw CBORError(reason: "COSE key without alg") }
        guard let algorithm = COSEAlgorithm(rawValue: algValue) else { throw CBORError(reason: "COSE algorithm \(algValue) is not supported") }
        let keyType = cbor[int: Self.kty]?.intValue
        switch algorithm {
        case .es256:
            guard keyType == Self.ec2, cbor[int: Self.crv]?.intValue == Self.p256Curve,
                  let x = cbor[int: Self.x]?.bytesValue, let y = cbor[int: Self.y]?.bytesValue, x.count == 32, y.count == 32,
                  let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y) else {
                throw CBORError(reason: "ES256 key is not an EC2 P-256 point")
            }
            material = .p256(key)
        case .rs256:
            guard keyType == Self.rsaType, let n = cbor[int: Self.n]?.bytesValue, let e = cbor[int: Self.e]?.bytesValue,
                  let key = try? _RSA.Signing.PublicKey(n: n, e: e) else {
                throw CBORError(reason: "RS256 key is not an RSA modulus and exponent")
            }
            material = .rsa(key)
        }
        self.algorithm = algorithm
        self.encoded = encoded
    }

    /// Parses a stored key's bytes.
    public init(encoded: [UInt8]) throws(CBORError) {
        try self.init(cbor: try CBOR.decode(encoded), encoded: encoded)
    }

    /// The COSE_Key of a P-256 public key, in CTAP2's canonical key order (1, 3, -1, -2, -3).
    public init(p256 key: P256.Signing.PublicKey) {
        let point = Array(key.x963Representation.dropFirst())
        let cbor = CBOR.map([(.int(Self.kty), .int(Self.ec2)), (.int(Self.alg), .int(COSEAlgorithm.es256.rawValue)),
                             (.int(Self.crv), .int(Self.p256Curve)), (.int(Self.x), .bytes(Array(point.prefix(32)))),
                             (.int(Self.y), .bytes(Array(point.suffix(32))))])
        algorithm = .es256
        material = .p256(key)
        encoded = cbor.encoded
    }

    /// The COSE_Key of an RSA public key (1, 3, -1, -2).
    public init(rsa key: _RSA.Signing.PublicKey) throws {
        let primitives = try key.getKeyPrimitives()
        let cbor = CBOR.map([(.int(Self.kty), .int(Self.rsaType)), (.int(Self.alg), .int(COSEAlgorithm.rs256.rawValue)),
                             (.int(Self.n), .bytes(Array(primitives.modulus))), (.int(Self.e), .bytes(Array(primitives.publicExponent)))])
        algorithm = .rs256
        material = .rsa(key)
        encoded = cbor.encoded
    }

    /// Whether `signature` is this key's over `data`. WebAuthn ES256 signatures are ASN.1 DER
    /// (WebAuthn §6.5.5), not the raw r‖s of JOSE; RS256 ones are PKCS #1 v1.5.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch material {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }
}
