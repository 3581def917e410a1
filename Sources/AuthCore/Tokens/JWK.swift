import Crypto
import _CryptoExtras
import Foundation

/// A JSON Web Key (RFC 7517), with the members the emulator reads and writes.
public struct JWK: Codable, Sendable, Equatable {
    public var kty: String
    public var kid: String?
    public var use: String?
    public var alg: String?
    public var key_ops: [String]?
    public var n: String?
    public var e: String?
    public var d: String?
    public var p: String?
    public var q: String?
    public var dp: String?
    public var dq: String?
    public var qi: String?
    public var crv: String?
    public var x: String?
    public var y: String?
    public var k: String?

    public init(kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, key_ops: [String]? = nil,
                n: String? = nil, e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil, k: String? = nil) {
        self.kty = kty; self.kid = kid; self.use = use; self.alg = alg; self.key_ops = key_ops
        self.n = n; self.e = e; self.crv = crv; self.x = x; self.y = y; self.k = k
    }

    /// The RFC 7638 thumbprint: base64url(SHA-256) of the required members in lexical order.
    public func thumbprint() throws -> String {
        let canonical: String
        switch kty {
        case "RSA":
            guard let e, let n else { throw JWKError.missingMember("n/e") }
            canonical = #"{"e":"\#(e)","kty":"RSA","n":"\#(n)"}"#
        case "EC":
            guard let crv, let x, let y else { throw JWKError.missingMember("crv/x/y") }
            canonical = #"{"crv":"\#(crv)","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        case "oct":
            guard let k else { throw JWKError.missingMember("k") }
            canonical = #"{"k":"\#(k)","kty":"oct"}"#
        default:
            throw JWKError.unsupported(kty)
        }
        return Base64URL.encode(SHA256.hash(data: Array(canonical.utf8)))
    }

    /// The signing key this JWK holds (it must carry the private members). The `kid` is the JWK's own,
    /// else its thumbprint for asymmetric keys.
    public func signingKey() throws -> SigningKey {
        switch kty {
        case "oct":
            guard let k = k.flatMap(Base64URL.decode) else { throw JWKError.missingMember("k") }
            return SigningKey(.hmac(SymmetricKey(data: k)), kid: kid)
        case "RSA":
            guard let n = bytes(n), let e = bytes(e), let d = bytes(d), let p = bytes(p), let q = bytes(q) else {
                throw JWKError.missingMember("n/e/d/p/q")
            }
            let key = try _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: p, q: q)
            return kid.map { SigningKey(.rsa(key), kid: $0) } ?? SigningKey(thumbprinted: .rsa(key))
        case "EC":
            guard crv == "P-256", let d = bytes(d) else { throw JWKError.unsupported("EC key without P-256 d") }
            let key = try P256.Signing.PrivateKey(rawRepresentation: d)
            return kid.map { SigningKey(.ecdsa(key), kid: $0) } ?? SigningKey(thumbprinted: .ecdsa(key))
        default:
            throw JWKError.unsupported(kty)
        }
    }

    /// The verification key this JWK holds (public members suffice).
    public func verificationKey() throws -> VerificationKey {
        switch kty {
        case "oct":
            return try signingKey().verificationKey
        case "RSA":
            guard let n = bytes(n), let e = bytes(e) else { throw JWKError.missingMember("n/e") }
            return VerificationKey(.rsa(try _RSA.Signing.PublicKey(n: n, e: e)), kid: kid)
        case "EC":
            guard crv == "P-256", let x = bytes(x), let y = bytes(y) else { throw JWKError.unsupported("EC key without P-256 x/y") }
            return VerificationKey(.ecdsa(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y)), kid: kid)
        default:
            throw JWKError.unsupported(kty)
        }
    }

    private func bytes(_ member: String?) -> [UInt8]? { member.flatMap(Base64URL.decode) }
}

/// A JWK Set (RFC 7517 §5).
public struct JWKS: Codable, Sendable, Equatable {
    public var keys: [JWK]
    public init(keys: [JWK]) { self.keys = keys }

    /// The published set for `keys`: public keys only, HMAC secrets left out.
    public init(publishing keys: [VerificationKey]) {
        self.keys = keys.compactMap(\.publicJWK)
    }
}

/// Why a JWK could not be used.
public enum JWKError: Error, Equatable, CustomStringConvertible {
    case missingMember(String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .missingMember(let m): "JWK is missing \(m)"
        case .unsupported(let what): "unsupported JWK: \(what)"
        }
    }
}
