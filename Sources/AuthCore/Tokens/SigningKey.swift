import Crypto
import _CryptoExtras
import Foundation

/// A JWS algorithm the emulator signs and verifies with.
public enum JWSAlgorithm: String, Sendable, Codable, CaseIterable {
    case HS256, RS256, ES256
    /// Unsigned tokens (RFC 7515 §A.5), as the Firebase emulator issues them. Only accepted where a
    /// caller explicitly allows it.
    case none
}

/// A private key (or HMAC secret) that signs tokens, with the identifier published in its JWK.
public struct SigningKey: Sendable {
    /// The key material.
    public enum Material: Sendable {
        case hmac(SymmetricKey)
        case rsa(_RSA.Signing.PrivateKey)
        case ecdsa(P256.Signing.PrivateKey)
        case none
    }

    public let material: Material
    /// The `kid` header value; nil means no `kid` header (GoTrue's bare `GOTRUE_JWT_SECRET`).
    public let kid: String?
    /// An RSA key's copy in the system's OpenSSL, which signs it faster; nil without libcrypto.so.3.
    private let systemRSA: SystemRSAKey?
    /// An HMAC key's state after its padded key blocks, copied for each signature: setting it up again hashed
    /// two blocks and was a quarter of signing a GoTrue access token.
    private let hmacStart: HMAC<SHA256>?
    /// The JWS header this key signs under when a token adds nothing to it (`alg`, `kid` when it has one, `typ`), as
    /// JSON text: the same for every token, so written once.
    let header: [UInt8]

    public init(_ material: Material, kid: String?) {
        self.material = material
        self.kid = kid
        header = JSON.object(JWS.header(algorithm: Self.algorithm(of: material), kid: kid)).serializedBytes()
        systemRSA = if case .rsa(let key) = material { SystemRSAKey(der: Array(key.derRepresentation)) } else { nil }
        hmacStart = if case .hmac(let secret) = material { HMAC<SHA256>(key: secret) } else { nil }
    }

    /// A key whose `kid` is its RFC 7638 thumbprint (HMAC keys keep no `kid`: their JWK is secret).
    public init(thumbprinted material: Material) {
        self.init(material, kid: VerificationKey(publicPartOf: material).publicJWK.flatMap { try? $0.thumbprint() })
    }

    /// The key of unsigned tokens (`alg: none`), made once: a key writes its header when it is made.
    public static let unsigned = SigningKey(.none, kid: nil)

    public var algorithm: JWSAlgorithm { Self.algorithm(of: material) }

    private static func algorithm(of material: Material) -> JWSAlgorithm {
        switch material {
        case .hmac: .HS256
        case .rsa: .RS256
        case .ecdsa: .ES256
        case .none: .none
        }
    }

    /// The key that checks this key's signatures.
    public var verificationKey: VerificationKey {
        var key = VerificationKey(publicPartOf: material)
        key.kid = kid
        return key
    }

    /// The signature over `input` (the ASCII `header.payload`), raw as JWS wants it.
    public func sign(_ input: [UInt8]) throws -> [UInt8] {
        switch material {
        case .hmac(let secret):
            var hmac = hmacStart ?? HMAC<SHA256>(key: secret)
            hmac.update(data: input)
            return Array(hmac.finalize())
        case .rsa:
            if let signature = systemRSA?.sign(input) { return signature }
            return try boringSSLSignature(input) ?? []
        case .ecdsa(let key):
            return Array(try key.signature(for: input).rawRepresentation)
        case .none:
            return []
        }
    }

    /// An RSA key's signature made by swift-crypto's BoringSSL, bypassing the system's OpenSSL (tests
    /// compare the two); nil for other keys.
    func boringSSLSignature(_ input: [UInt8]) throws -> [UInt8]? {
        guard case .rsa(let key) = material else { return nil }
        return Array(try key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation)
    }

    /// Whether this key signs through the system's OpenSSL.
    package var signsWithSystemCrypto: Bool { systemRSA != nil }

    /// The private JWK of an EC key (with `d`), as `GOTRUE_JWT_KEYS` takes it; nil for other keys.
    public var privateJWK: JWK? {
        guard case .ecdsa(let key) = material, var jwk = verificationKey.publicJWK else { return nil }
        jwk.d = Base64URL.encode(key.rawRepresentation)
        return jwk
    }

    /// A fresh key for `algorithm`. HMAC and P-256 keys come from `generator`, so they are reproducible
    /// in deterministic mode; RSA keys come from BoringSSL's own generator and are not.
    public static func generate(_ algorithm: JWSAlgorithm, generator: Generator) throws -> SigningKey {
        switch algorithm {
        case .HS256:
            return SigningKey(.hmac(SymmetricKey(data: generator.bytes(32))), kid: nil)
        case .RS256:
            return SigningKey(thumbprinted: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
        case .ES256:
            while true {
                // A random 32-byte string is a valid P-256 scalar except with negligible probability.
                if let key = try? P256.Signing.PrivateKey(rawRepresentation: generator.bytes(32)) {
                    return SigningKey(thumbprinted: .ecdsa(key))
                }
            }
        case .none:
            return .unsigned
        }
    }
}

/// A key that verifies signatures: an HMAC secret or a public key.
public struct VerificationKey: Sendable {
    public enum Material: Sendable {
        case hmac(SymmetricKey)
        case rsa(_RSA.Signing.PublicKey)
        case ecdsa(P256.Signing.PublicKey)
        case none
    }

    public let material: Material
    public var kid: String?

    public init(_ material: Material, kid: String?) {
        self.material = material
        self.kid = kid
    }

    init(publicPartOf material: SigningKey.Material) {
        switch material {
        case .hmac(let s): self.init(.hmac(s), kid: nil)
        case .rsa(let k): self.init(.rsa(k.publicKey), kid: nil)
        case .ecdsa(let k): self.init(.ecdsa(k.publicKey), kid: nil)
        case .none: self.init(.none, kid: nil)
        }
    }

    /// The key of unsigned tokens (`alg: none`), made once: a key writes its header when it is made.
    public static let unsigned = SigningKey(.none, kid: nil)

    public var algorithm: JWSAlgorithm { Self.algorithm(of: material) }

    private static func algorithm(of material: Material) -> JWSAlgorithm {
        switch material {
        case .hmac: .HS256
        case .rsa: .RS256
        case .ecdsa: .ES256
        case .none: .none
        }
    }

    /// Whether `signature` is valid for `input`.
    public func isValid(signature: [UInt8], for input: [UInt8]) -> Bool {
        switch material {
        case .hmac(let secret):
            return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: secret)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5)
        case .ecdsa(let key):
            guard let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: input)
        case .none:
            return signature.isEmpty
        }
    }

    /// The public JWK (RFC 7517), or nil for secrets and `none`, which are never published.
    public var publicJWK: JWK? {
        switch material {
        case .hmac, .none:
            return nil
        case .rsa(let key):
            guard let p = try? key.getKeyPrimitives() else { return nil }
            return JWK(kty: "RSA", kid: kid, use: "sig", alg: "RS256", n: Base64URL.encode(p.modulus), e: Base64URL.encode(p.publicExponent))
        case .ecdsa(let key):
            let point = Array(key.x963Representation.dropFirst())
            return JWK(kty: "EC", kid: kid, use: "sig", alg: "ES256", crv: "P-256",
                       x: Base64URL.encode(point.prefix(32)), y: Base64URL.encode(point.suffix(32)))
        }
    }
}

extension SigningKey {
    /// An HS256 key from a shared secret (GoTrue's `GOTRUE_JWT_SECRET`).
    public static func hmac(secret: some Sequence<UInt8>, kid: String?) -> SigningKey {
        SigningKey(.hmac(SymmetricKey(data: Array(secret))), kid: kid)
    }
}
