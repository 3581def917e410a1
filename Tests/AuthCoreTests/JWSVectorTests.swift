import Foundation
import Testing
@testable import AuthCore

/// Our JWS/JWK code against the worked examples published in the RFCs: RFC 7515 (JWS) appendices A.1,
/// A.2, A.3 and A.5, RFC 7517 (JWK) appendix A.1 and RFC 7638 (JWK thumbprint) §3.1. Every key, token
/// and signature below is copied from the RFC text (values the RFC wraps over lines are joined).
@Suite("JWS and JWK against the RFC examples")
struct JWSVectorTests {
    // MARK: RFC 7515 appendix A

    /// The payload shared by appendices A.1 to A.3 and A.5, with its CRLF line breaks.
    static let payload = Array("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)

    /// A.1: the HMAC key, header and resulting compact JWS.
    static let a1JWK = #"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#
    static let a1Header = Array("{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}".utf8)
    static let a1Token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    /// A.2: the RSA key (all private members as the RFC gives them), header and resulting compact JWS.
    static let a2JWK = #"{"kty":"RSA","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ","e":"AQAB","d":"Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ","p":"4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc","q":"uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc","dp":"BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0","dq":"h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU","qi":"IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U"}"#
    static let a2Header = Array(#"{"alg":"RS256"}"#.utf8)
    static let a2Token = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    /// A.3: the P-256 key and the RFC's (randomised) ES256 signature over `{"alg":"ES256"}`.
    static let a3JWK = #"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}"#
    static let a3Header = Array(#"{"alg":"ES256"}"#.utf8)
    static let a3Token = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    /// A.5: the unsecured JWS (`{"alg":"none"}`, empty signature).
    static let a5Token = "eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."

    // MARK: RFC 7517 appendix A.1 and RFC 7638 §3.1

    /// RFC 7517 A.1 "Example Public Keys": an EC P-256 key and an RSA key. The RSA key is also the
    /// RFC 7638 §3.1 example key.
    static let rfc7517PublicKeys = #"""
    {"keys":[
      {"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","use":"enc","kid":"1"},
      {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}
    ]}
    """#
    static let rfc7638Key = #"{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}"#
    static let rfc7638Thumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"

    static func jwk(_ json: String) throws -> JWK {
        try JSONDecoder().decode(JWK.self, from: Data(json.utf8))
    }

    /// The public half of an RSA or EC JWK, as a verifier would be given it.
    static func publicHalf(of key: JWK) -> JWK {
        JWK(kty: key.kty, kid: key.kid, n: key.n, e: key.e, crv: key.crv, x: key.x, y: key.y)
    }

    /// `token` with the first character of its signature changed, so the signature bytes differ.
    static func tamperedSignature(_ token: String) throws -> String {
        let dot = try #require(token.lastIndex(of: "."))
        let start = token.index(after: dot)
        var tampered = token
        let replacement: String = token[start] == "A" ? "B" : "A"
        tampered.replaceSubrange(start...start, with: replacement)
        return tampered
    }

    /// The claims of the RFC payload, as every verified example must return them.
    static func expectRFCClaims(_ claims: [String: JSON]) {
        #expect(claims["iss"] == .string("joe"))
        #expect(claims["exp"]?.intValue == 1300819380)
        #expect(claims["http://example.com/is_root"] == .bool(true))
    }

    // MARK: Tests

    @Test func hs256MatchesRFC7515AppendixA1() throws {
        let key = try Self.jwk(Self.a1JWK)
        let token = try JWS.sign(header: Self.a1Header, payload: Self.payload, with: try key.signingKey())
        #expect(token == Self.a1Token)

        let verifier = try key.verificationKey()
        let verified = try JWS.verify(Self.a1Token, keys: [verifier])
        #expect(verified.header["alg"] == .string("HS256"))
        #expect(verified.header["typ"] == .string("JWT"))
        Self.expectRFCClaims(verified.claims)

        let tampered = try Self.tamperedSignature(Self.a1Token)
        #expect(tampered != Self.a1Token)
        #expect(throws: JWSError.badSignature) { try JWS.verify(tampered, keys: [verifier]) }
    }

    @Test func rs256MatchesRFC7515AppendixA2() throws {
        let key = try Self.jwk(Self.a2JWK)
        // RSASSA-PKCS1-v1_5 is deterministic, so our signature must be the RFC's byte for byte.
        let signingKey = try key.signingKey()
        let token = try JWS.sign(header: Self.a2Header, payload: Self.payload, with: signingKey)
        #expect(token == Self.a2Token)
        // Whichever library signed above, BoringSSL's own signature is the RFC's too.
        let input = Array(Self.a2Token.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        #expect(try Base64URL.encode(signingKey.boringSSLSignature(input) ?? []) == String(Self.a2Token.split(separator: ".")[2]))

        let verifier = try Self.publicHalf(of: key).verificationKey()
        #expect(verifier.algorithm == .RS256)
        let verified = try JWS.verify(Self.a2Token, keys: [verifier])
        #expect(verified.header["alg"] == .string("RS256"))
        Self.expectRFCClaims(verified.claims)

        let tampered = try Self.tamperedSignature(Self.a2Token)
        #expect(throws: JWSError.badSignature) { try JWS.verify(tampered, keys: [verifier]) }
    }

    @Test func es256VerifiesRFC7515AppendixA3AndRoundTrips() throws {
        let key = try Self.jwk(Self.a3JWK)
        let verifier = try Self.publicHalf(of: key).verificationKey()
        #expect(verifier.algorithm == .ES256)

        // ECDSA signatures are randomised: the RFC's token can only be verified, not reproduced.
        let verified = try JWS.verify(Self.a3Token, keys: [verifier])
        #expect(verified.header["alg"] == .string("ES256"))
        Self.expectRFCClaims(verified.claims)
        let tampered = try Self.tamperedSignature(Self.a3Token)
        #expect(throws: JWSError.badSignature) { try JWS.verify(tampered, keys: [verifier]) }

        // The private scalar d belongs to (x, y): what we sign with it verifies under the RFC's public key,
        // and the signature is the raw 64-byte r || s JWS wants, not DER.
        let signer = try key.signingKey()
        let sameInput = try JWS.sign(header: Self.a3Header, payload: Self.payload, with: signer)
        let signature = try #require(sameInput.split(separator: ".").last.flatMap { Base64URL.decode($0) })
        #expect(signature.count == 64)
        Self.expectRFCClaims(try JWS.verify(sameInput, keys: [verifier]).claims)

        let own = try JWS.sign(["sub": "joe", "n": 7], with: signer)
        let ownVerified = try JWS.verify(own, keys: [verifier])
        #expect(ownVerified.claims["sub"] == .string("joe"))
        #expect(ownVerified.claims["n"]?.intValue == 7)
        #expect(ownVerified.header["alg"] == .string("ES256"))
    }

    @Test func unsecuredRFC7515AppendixA5IsRefusedUnlessAllowed() throws {
        let hmac = try Self.jwk(Self.a1JWK).verificationKey()
        #expect(throws: JWSError.unsupportedAlgorithm) { try JWS.verify(Self.a5Token, keys: []) }
        #expect(throws: JWSError.unsupportedAlgorithm) { try JWS.verify(Self.a5Token, keys: [hmac]) }

        let verified = try JWS.verify(Self.a5Token, keys: [], allowNone: true)
        #expect(verified.header["alg"] == .string("none"))
        Self.expectRFCClaims(verified.claims)

        // `none` with a signature attached is not an unsecured JWS, even where `none` is allowed.
        #expect(throws: JWSError.unsupportedAlgorithm) {
            try JWS.verify(Self.a5Token + "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", keys: [], allowNone: true)
        }
    }

    @Test func thumbprintMatchesRFC7638Section3_1() throws {
        let key = try Self.jwk(Self.rfc7638Key)
        #expect(try key.thumbprint() == Self.rfc7638Thumbprint)
        // Optional members (alg, kid, use) are not part of the digest, so the re-exported public JWK agrees.
        let exported = try #require(try key.verificationKey().publicJWK)
        #expect(try exported.thumbprint() == Self.rfc7638Thumbprint)
        #expect(try Self.publicHalf(of: key).thumbprint() == Self.rfc7638Thumbprint)
    }

    @Test func hs256TokenKeyedWithRSAPublicKeyBytesIsRefused() throws {
        // The classic algorithm-confusion forgery: use the (public) RSA key material as an HMAC secret and
        // claim HS256. The RSA verification key must never check it as an HMAC.
        let rsaPublic = Self.publicHalf(of: try Self.jwk(Self.a2JWK))
        var verifier = try rsaPublic.verificationKey()
        verifier.kid = "rsa-1"
        let modulus = try #require(rsaPublic.n.flatMap { Base64URL.decode($0) })
        let secrets: [[UInt8]] = [
            modulus,
            Array(try JSONEncoder().encode(rsaPublic)),
            Array(try #require(try verifier.publicJWK?.thumbprint()).utf8),
        ]
        let headers = [#"{"alg":"HS256"}"#, #"{"alg":"HS256","typ":"JWT","kid":"rsa-1"}"#]
        for secret in secrets {
            let forger = try JWK(kty: "oct", k: Base64URL.encode(secret)).signingKey()
            for header in headers {
                let forged = try JWS.sign(header: Array(header.utf8), payload: Self.payload, with: forger)
                #expect(throws: JWSError.self) { try JWS.verify(forged, keys: [verifier]) }
            }
        }
        // The genuine RS256 token still verifies against the same key.
        Self.expectRFCClaims(try JWS.verify(Self.a2Token, keys: [try rsaPublic.verificationKey()]).claims)
    }

    @Test func rfc7517AppendixA1PublicKeysDecodeAndReExport() throws {
        let set = try JSONDecoder().decode(JWKS.self, from: Data(Self.rfc7517PublicKeys.utf8))
        try #require(set.keys.count == 2)
        let (ec, rsa) = (set.keys[0], set.keys[1])

        #expect(ec.kty == "EC")
        #expect(ec.crv == "P-256")
        #expect(ec.use == "enc")
        #expect(ec.kid == "1")
        let ecKey = try ec.verificationKey()
        #expect(ecKey.algorithm == .ES256)
        #expect(ecKey.kid == "1")
        let ecExport = try #require(ecKey.publicJWK)
        #expect(ecExport.x == ec.x)
        #expect(ecExport.y == ec.y)
        #expect(ecExport.crv == "P-256")

        #expect(rsa.kty == "RSA")
        #expect(rsa.alg == "RS256")
        #expect(rsa.kid == "2011-04-29")
        let rsaKey = try rsa.verificationKey()
        #expect(rsaKey.algorithm == .RS256)
        let rsaExport = try #require(rsaKey.publicJWK)
        #expect(rsaExport.kty == "RSA")
        #expect(rsaExport.n == rsa.n)
        #expect(rsaExport.e == "AQAB")
        #expect(rsaExport.kid == "2011-04-29")
        #expect(try rsaExport.thumbprint() == Self.rfc7638Thumbprint)

        // The same keys published as a set come back out unchanged in their key material.
        let republished = JWKS(publishing: [ecKey, rsaKey])
        #expect(republished.keys.map(\.kty) == ["EC", "RSA"])
        #expect(republished.keys.last?.n == rsa.n)
    }
}
