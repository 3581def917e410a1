import Foundation
import Testing
@testable import AuthCore

@Suite struct PasswordHasherTests {
    let hasher = PasswordHasher(rounds: 10)

    @Test func theRightPasswordVerifiesAndAWrongOneDoesNot() {
        let hash = hasher.hash("correct horse", generator: Generator(seed: 1))
        #expect(hash.hasPrefix("pbkdf2-sha256$10$"))
        #expect(!hash.contains("correct horse"))
        #expect(hasher.verify("correct horse", against: hash))
        #expect(!hasher.verify("correct horsE", against: hash))
    }

    @Test func eachHashGetsItsOwnSalt() {
        let generator = Generator(seed: 1)
        #expect(hasher.hash("same", generator: generator) != hasher.hash("same", generator: generator))
    }

    @Test(arguments: ["", "plain", "pbkdf2-sha256$x$y$z", "pbkdf2-sha256$0$AA$AA", "bcrypt$10$a$b"])
    func malformedHashesNeverMatch(_ encoded: String) {
        #expect(!hasher.verify("anything", against: encoded))
    }

    @Test func constantTimeEqualsComparesWholeValues() {
        #expect(constantTimeEquals("abc", "abc"))
        #expect(!constantTimeEquals("abc", "abd"))
        #expect(!constantTimeEquals("abc", "abcd"))
    }
}

@Suite struct SHA224Tests {
    /// FIPS 180-4 example values, plus the two-block message.
    @Test(arguments: [
        ("", "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"),
        ("abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525"),
    ])
    func digestMatchesPublishedVectors(_ input: String, _ expected: String) {
        #expect(SHA224.hash(Array(input.utf8)).hex == expected)
    }

    @Test func millionAsMatchesThePublishedVector() {
        #expect(SHA224.hash([UInt8](repeating: 0x61, count: 1_000_000)).hex == "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67")
    }
}

@Suite struct KeyGenerationTests {
    @Test(arguments: [JWSAlgorithm.HS256, .ES256, .RS256])
    func generatedKeysSignAndVerify(_ algorithm: JWSAlgorithm) throws {
        let key = try SigningKey.generate(algorithm, generator: Generator(seed: 11))
        let token = try JWS.sign(["sub": "u1", "exp": 1_767_229_200], with: key)
        let verified = try JWS.verify(token, keys: [key.verificationKey])
        #expect(verified.claims["sub"] == "u1")
        #expect(verified.header["typ"] == "JWT")
        if algorithm != .HS256 { #expect(verified.header["kid"]?.stringValue == key.kid) }
    }

    @Test func rsaKeysSignThroughTheSystemOpenSSLWithBoringSSLsBytes() async throws {
        #if os(Linux)
        // Debian's Swift toolchain pulls in libssl3; without it signing silently falls back to BoringSSL,
        // which is correct but half the speed, so a machine that lost it should say so here.
        #expect(SystemRSAKey.isAvailable, "libcrypto.so.3 (OpenSSL 3) could not be loaded")
        #endif
        let key = try SigningKey.generate(.RS256, generator: Generator(seed: 3))
        #expect(key.signsWithSystemCrypto == SystemRSAKey.isAvailable)
        let generator = Generator(seed: 4)
        let inputs = (0..<8).map { generator.bytes($0 * 97) }
        // Several tasks share one key, as the event loops do.
        let signatures = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, input) in inputs.enumerated() { group.addTask { (index, try key.sign(input)) } }
            return try await group.reduce(into: [Int: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        for (index, input) in inputs.enumerated() {
            #expect(signatures[index]?.count == 256)
            #expect(try signatures[index] == key.boringSSLSignature(input))
        }
    }

    @Test func aKeyringMakesOneRSAKeyPerScopeForConcurrentFirstCallers() async throws {
        let keyring = Keyring()
        // Eight first requests at once, as a client's connection pool sends them.
        let kids = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { try keyring.rsaKey("pool-a").kid } }
            return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(kids.count == 1)
        #expect(kids.first != nil)
        #expect(try keyring.rsaKey("pool-a").kid == kids.first ?? nil)
        #expect(try keyring.rsaKey("pool-b").kid != kids.first ?? nil)
    }

    @Test func deterministicECKeysRepeat() throws {
        let a = try SigningKey.generate(.ES256, generator: Generator(seed: 5))
        let b = try SigningKey.generate(.ES256, generator: Generator(seed: 5))
        #expect(a.kid == b.kid)
        #expect(a.verificationKey.publicJWK == b.verificationKey.publicJWK)
    }

    @Test func publishedSetLeavesSecretsOut() throws {
        let hmac = try SigningKey.generate(.HS256, generator: Generator(seed: 1))
        let ec = try SigningKey.generate(.ES256, generator: Generator(seed: 1))
        let set = JWKS(publishing: [hmac.verificationKey, ec.verificationKey])
        #expect(set.keys.count == 1)
        #expect(set.keys.first?.kty == "EC")
        #expect(set.keys.first?.d == nil)
    }

    @Test func tokenSignedByAnotherSecretIsRefused() throws {
        let a = SigningKey.hmac(secret: Array("secret-a".utf8), kid: nil)
        let b = SigningKey.hmac(secret: Array("secret-b".utf8), kid: nil)
        let token = try JWS.sign(["sub": "x"], with: a)
        #expect(throws: JWSError.badSignature) { try JWS.verify(token, keys: [b.verificationKey]) }
        #expect(throws: JWSError.malformed) { try JWS.verify("not.a-token", keys: [a.verificationKey]) }
    }
}

@Suite struct TOTPTests {
    /// RFC 6238 Appendix B, SHA-1 rows (8 digits, the ASCII secret "12345678901234567890").
    @Test(arguments: [(59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
                      (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130")])
    func codesMatchRFC6238(_ time: Int, _ expected: String) {
        let totp = TOTP(secret: Array("12345678901234567890".utf8), digits: 8)
        #expect(totp.code(at: Date(timeIntervalSince1970: TimeInterval(time))) == expected)
    }

    @Test func verificationAllowsOneStepOfDriftEitherWay() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        let now = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(totp.verify(totp.code(at: now.addingTimeInterval(-30)), at: now))
        #expect(totp.verify(totp.code(at: now.addingTimeInterval(30)), at: now))
        #expect(!totp.verify(totp.code(at: now.addingTimeInterval(-60)), at: now))
        #expect(!totp.verify("12345", at: now))
    }

    @Test func base32RoundTripsAndMatchesRFC4648() {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.encode(Array("f".utf8)) == "MY")
        #expect(Base32.decode("mzxw6ytboi======") == Array("foobar".utf8))
        #expect(Base32.decode("not base32!") == nil)
    }

    @Test func uriNamesIssuerAndAccount() {
        let totp = TOTP(secret: Array("12345678901234567890".utf8))
        #expect(totp.uri(issuer: "My App", account: "a@b.co")
                == "otpauth://totp/My%20App:a@b.co?algorithm=SHA1&digits=6&issuer=My%20App&period=30&secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
    }
}

@Suite struct QRCodeTests {
    @Test func aURIFitsTheSmallestVersionWithFinderPatternsInThreeCorners() throws {
        let code = try QRCode("otpauth://totp/Fauxth:alice@example.com?algorithm=SHA1&digits=6&issuer=Fauxth&period=30&secret=JBSWY3DPEHPK3PXP")
        let size = code.modules.count
        #expect(size == 17 + 4 * code.version)
        #expect(code.version == 7)
        // A finder pattern's 7×7 ring is dark, with a light ring inside it.
        for (row, column) in [(0, 0), (0, size - 7), (size - 7, 0)] {
            #expect(code.modules[row][column] && code.modules[row + 6][column + 6])
            #expect(!code.modules[row + 1][column + 1] && code.modules[row + 3][column + 3])
        }
        let svg = code.svg()
        #expect(svg.hasPrefix("<svg") && svg.contains("viewBox=\"0 0 \(size + 8) \(size + 8)\""))
    }

    @Test func tooMuchTextIsRefused() {
        #expect(throws: QRCodeError.self) { try QRCode(String(repeating: "x", count: 3000), correction: .low) }
    }
}
