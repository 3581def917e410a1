import Foundation

/// Compact JWS (RFC 7515) signing and verification for JWTs.
public enum JWS {
    /// Signs `claims` as a JWT: header `{"alg","typ":"JWT"}` plus `kid` when the key has one.
    public static func sign(_ claims: [String: JSON], with key: SigningKey, extraHeader: [String: JSON] = [:]) throws -> String {
        try sign(payload: JSON.object(claims).serializedBytes(), with: key, extraHeader: extraHeader)
    }

    /// Signs claims already written as JSON text (`JSONObjectWriter`), under the key's own header unless `extraHeader`
    /// adds to it.
    public static func sign(payload: [UInt8], with key: SigningKey, extraHeader: [String: JSON] = [:]) throws -> String {
        guard !extraHeader.isEmpty else { return try sign(header: key.header, payload: payload, with: key) }
        var header = extraHeader
        header.merge(Self.header(algorithm: key.algorithm, kid: key.kid)) { $1 }
        return try sign(header: JSON.object(header).serializedBytes(), payload: payload, with: key)
    }

    /// The header a key signs under: its `alg`, its `kid` when it has one, `typ` JWT.
    static func header(algorithm: JWSAlgorithm, kid: String?) -> [String: JSON] {
        var header: [String: JSON] = ["alg": .string(algorithm.rawValue), "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        return header
    }

    /// Signs exact header and payload bytes; what the RFC examples need.
    public static func sign(header: [UInt8], payload: [UInt8], with key: SigningKey) throws -> String {
        // One buffer from the first part to the signature: every sign-in and refresh signs a token.
        var token: [UInt8] = []
        token.reserveCapacity((header.count + payload.count) * 4 / 3 + 360)
        Base64URL.encode(header, into: &token)
        token.append(UInt8(ascii: "."))
        Base64URL.encode(payload, into: &token)
        let signature = try key.sign(token)
        token.append(UInt8(ascii: "."))
        Base64URL.encode(signature, into: &token)
        return String(decoding: token, as: UTF8.self)
    }

    /// The claims of a compact JWS before its signature is checked: what picks the key to check it with,
    /// or all a caller gets from tokens it does not verify (the Firebase emulator's custom tokens).
    public static func unverifiedClaims(_ token: String) -> [String: JSON]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]), case .object(let claims)? = try? JSON.parse(payload) else { return nil }
        return claims
    }

    /// A verified token's parts.
    public struct Verified: Sendable {
        public let header: [String: JSON]
        public let claims: [String: JSON]
    }

    /// Checks the signature of `token` against `keys` and returns its header and claims.
    ///
    /// The key is picked by `kid` when the token has one, else by algorithm. The header's `alg` must be
    /// the key's own algorithm (no algorithm confusion), and `alg: none` passes only when `allowNone`.
    /// Time claims are the caller's business: it holds the emulator clock.
    public static func verify(_ token: String, keys: [VerificationKey], allowNone: Bool = false) throws -> Verified {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else { throw JWSError.malformed }
        guard case .object(let header)? = try? JSON.parse(headerBytes),
              case .object(let claims)? = try? JSON.parse(payloadBytes) else { throw JWSError.malformed }
        guard let alg = header["alg"]?.stringValue.flatMap(JWSAlgorithm.init(rawValue:)) else { throw JWSError.unsupportedAlgorithm }
        if alg == .none {
            guard allowNone, signature.isEmpty else { throw JWSError.unsupportedAlgorithm }
            return Verified(header: header, claims: claims)
        }
        let kid = header["kid"]?.stringValue
        let candidates = keys.filter { $0.algorithm == alg && (kid == nil || $0.kid == nil || $0.kid == kid) }
        guard !candidates.isEmpty else { throw JWSError.noMatchingKey }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        guard candidates.contains(where: { $0.isValid(signature: signature, for: input) }) else { throw JWSError.badSignature }
        return Verified(header: header, claims: claims)
    }
}

/// Why a token was refused.
public enum JWSError: Error, Equatable, CustomStringConvertible {
    case malformed, unsupportedAlgorithm, noMatchingKey, badSignature

    public var description: String {
        switch self {
        case .malformed: "token is not a compact JWS"
        case .unsupportedAlgorithm: "signing method is not allowed"
        case .noMatchingKey: "no key matches the token's kid and alg"
        case .badSignature: "signature is invalid"
        }
    }
}
