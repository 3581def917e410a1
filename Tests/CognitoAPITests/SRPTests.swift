import AuthCore
import CSystemCrypto
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Testing
@testable import CognitoAPI

/// Cognito's SRP against a vector computed with pycognito's client (`aws_srp.py`, the same math as
/// Amplify's), and end to end through `InitiateAuth`/`RespondToAuthChallenge` with a client written
/// here from the protocol description, independent of the server's code.
@Suite struct SRPTests {
    // The vector: pool us-east-1_fauxth001, user id …c0a11ce0, password "password123", salt below,
    // server secret b = 0x1f…1f (32 bytes), client secret a = 0x2e…2e, timestamp and secret block below.
    static let poolId = "us-east-1_fauxth001"
    static let userId = "00000000-0000-4000-8000-0000c0a11ce0"
    static let salt = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
    static let b = SRPNumber(hex: String(repeating: "1f", count: 32))!
    static let a = SRPNumber(hex: String(repeating: "2e", count: 32))!
    static let timestamp = "Sun Nov 22 01:02:03 UTC 2026"
    static let secretBlock = Array("fauxth secret block".utf8)
    /// What pycognito 2024.5.1 computes for the values above.
    static let pycognitoK = "538282c4354742d7cbbde2359fcf67f9f5b3a6b08791e5011b43b8a5b66d9ee6"
    static let pycognitoVerifierPrefix = "fdccb831c6cd984fdda5c8a6e77a0365121da005a28777887689ac68079425878040c5dbb5f3dac58d7ffd52cbfbb35715e96ea37df2ee35bf"
    static let pycognitoSignature = "IXFGTDYI/i9LGpAqyg5EKrDx4YhmAvJfrOAomcpRD1I="

    @Test func theMultiplierAndVerifierMatchPycognito() {
        #expect(CognitoSRP.k.hex == Self.pycognitoK)
        let v = CognitoSRP.verifier(poolId: Self.poolId, userId: Self.userId, password: "password123", saltHex: Self.salt)
        #expect(v.hex.hasPrefix(Self.pycognitoVerifierPrefix))
        #expect(v.hex.count == 768)
    }

    @Test func theExpectedSignatureIsPycognitos() throws {
        let v = CognitoSRP.verifier(poolId: Self.poolId, userId: Self.userId, password: "password123", saltHex: Self.salt)
        let B = CognitoSRP.publicKey(b: Self.b, verifier: v)
        let A = CognitoSRP.g.power(Self.a, modulus: CognitoSRP.n)
        let key = try #require(CognitoSRP.sessionKey(A: A, B: B, b: Self.b, verifier: v))
        let signature = CognitoSRP.claimSignature(key: key, poolId: Self.poolId, userId: Self.userId, secretBlock: Self.secretBlock,
                                                  timestamp: Self.timestamp)
        #expect(Data(signature).base64EncodedString() == Self.pycognitoSignature)

        // Another password gives another verifier, and the client's signature no longer matches.
        let wrong = CognitoSRP.verifier(poolId: Self.poolId, userId: Self.userId, password: "password124", saltHex: Self.salt)
        let other = try #require(CognitoSRP.sessionKey(A: A, B: B, b: Self.b, verifier: wrong)).map { $0 }
        #expect(Data(CognitoSRP.claimSignature(key: other, poolId: Self.poolId, userId: Self.userId, secretBlock: Self.secretBlock,
                                               timestamp: Self.timestamp)).base64EncodedString() != Self.pycognitoSignature)
        // An A of 0 (or N) would force S = 0: no key.
        #expect(CognitoSRP.sessionKey(A: SRPNumber(0), B: B, b: Self.b, verifier: v) == nil)
        #expect(CognitoSRP.sessionKey(A: CognitoSRP.n, B: B, b: Self.b, verifier: v) == nil)
    }

    @Test func arithmeticAgreesWithWhatSmallNumbersGive() throws {
        let p = SRPNumber(1_000_003)
        var expected: UInt64 = 1
        for _ in 0..<200 { expected = expected * 3 % 1_000_003 }
        #expect(SRPNumber(3).power(SRPNumber(200), modulus: p) == SRPNumber(expected))
        #expect(SRPNumber(999_999).times(SRPNumber(999_998), modulus: p) == SRPNumber(999_999 * 999_998 % 1_000_003))
        #expect(SRPNumber(1_000_000).plus(SRPNumber(10), modulus: p) == SRPNumber(7))
        #expect(SRPNumber(5).minus(SRPNumber(10), modulus: p) == SRPNumber(999_998))
        // Near the top of the 3072-bit group: (N − 1)² ≡ 1 and (N − 1) + 2 ≡ 1.
        let minusOne = CognitoSRP.n.minus(SRPNumber(1), modulus: CognitoSRP.n)
        #expect(minusOne.times(minusOne, modulus: CognitoSRP.n) == SRPNumber(1))
        #expect(minusOne.plus(SRPNumber(2), modulus: CognitoSRP.n) == SRPNumber(1))
        #expect(try #require(SRPNumber(hex: "00" + CognitoSRP.nHex)).hex == CognitoSRP.nHex.lowercased())
        #expect(SRPNumber(hex: "12g4") == nil)
        #expect(SRPNumber(hex: "1" + String(repeating: "0", count: 768)) == nil, "more than 3072 bits")
        #expect(SRPNumber(bytes: [0x01, 0x02, 0x03]).hex == "10203")
    }

    /// The system's OpenSSL and the portable C agree on exponentiations in the 3072-bit group, for full-width
    /// exponents and for SRP's 256-bit secrets; OpenSSL is expected on the Linux machines Fauxth is tested on.
    /// Elsewhere (macOS has no libcrypto.so.3) both sides are the portable C, which the other tests check.
    @Test func systemAndPortableExponentiationAgree() {
        let one = SRPNumber(1)
        #if os(Linux)
        var result = [UInt64](repeating: 0, count: SRPNumber.limbs)
        #expect(fauxth_mod_exp(&result, one.words, one.words, CognitoSRP.n.words, SRPNumber.limbs) == 1,
                "libcrypto.so.3 (OpenSSL 3) could not be loaded")
        #endif
        let generator = Generator(seed: 7)
        for width in [32, 32, 384, 384, 1] {
            // 383 bytes: below the 3072-bit modulus, as every base SRP raises.
            let base = SRPNumber(bytes: generator.bytes(383))
            let exponent = SRPNumber(bytes: generator.bytes(width))
            #expect(base.power(exponent, modulus: CognitoSRP.n) == base.portablePower(exponent, modulus: CognitoSRP.n))
        }
        #expect(CognitoSRP.g.power(SRPNumber(0), modulus: CognitoSRP.n) == one)
        #expect(CognitoSRP.g.portablePower(SRPNumber(0), modulus: CognitoSRP.n) == one)
    }

    @Test func paddingFollowsTheClientsSignSafeHex() {
        #expect(CognitoSRP.padHex(SRPNumber(0x7f)) == "7f")
        #expect(CognitoSRP.padHex(SRPNumber(0x80)) == "0080")
        #expect(CognitoSRP.padHex(SRPNumber(0xabc)) == "0abc")
        #expect(CognitoSRP.padHex("F") == "0f")
        #expect(CognitoSRP.padHex("1234") == "1234")
    }

    @Test func timestampsMustBeInTheClientsExactFormat() {
        #expect(CognitoSRP.isValidTimestamp("Sun Nov 22 01:02:03 UTC 2026"))
        #expect(CognitoSRP.isValidTimestamp("Mon Nov 2 01:02:03 UTC 2026"))
        #expect(!CognitoSRP.isValidTimestamp("Mon Nov 02 01:02:03 UTC 2026"), "a zero-padded day")
        #expect(!CognitoSRP.isValidTimestamp("Mon Nov 22 01:02:03 UTC 2026"), "the wrong weekday")
        #expect(!CognitoSRP.isValidTimestamp("2026-11-22T01:02:03Z"))
    }

    // MARK: End to end

    /// The client side of SRP, from the protocol: what Amplify and pycognito compute. Its arithmetic is
    /// `SRPNumber`'s (checked against pycognito above); the protocol steps are written out here.
    struct Client {
        let a: SRPNumber
        var A: SRPNumber { CognitoSRP.g.power(a, modulus: CognitoSRP.n) }

        static func hash(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }
        static func pad(_ value: SRPNumber) -> [UInt8] {
            var hex = value.hex
            if hex.count % 2 == 1 { hex = "0" + hex } else if "89abcdef".contains(hex.first!) { hex = "00" + hex }
            return stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
        }

        /// `x` as the clients compute it. amazon-cognito-identity-js (`getPasswordAuthenticationKey`) and
        /// Amplify v6 read `SALT` as a number (`new BigInteger(SALT, 16)`) and sign-pad that (`padHex`), so
        /// leading zero digits of the text go; pycognito (`process_challenge`) sign-pads the text as sent.
        static func x(poolId: String, userId: String, password: String, saltHex: String, saltAsText: Bool = false) -> SRPNumber {
            let poolName = String(poolId.split(separator: "_")[1])
            let inner = hash(Array("\(poolName)\(userId):\(password)".utf8))
            return SRPNumber(bytes: hash((saltAsText ? padText(saltHex) : pad(SRPNumber(hex: saltHex)!)) + inner))
        }

        /// pycognito's `pad_hex` of a string: a `0` for an odd length, else `00` before a first digit of 8 or more.
        static func padText(_ text: String) -> [UInt8] {
            var hex = text
            if hex.count % 2 == 1 { hex = "0" + hex } else if "89abcdefABCDEF".contains(hex.first!) { hex = "00" + hex }
            return stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
        }

        func signature(poolId: String, userId: String, password: String, saltHex: String, B: SRPNumber, secretBlock: [UInt8], timestamp: String,
                       saltAsText: Bool = false) -> String {
            let N = CognitoSRP.n, g = CognitoSRP.g
            let k = SRPNumber(bytes: Self.hash(Self.pad(N) + Self.pad(g)))
            let poolName = String(poolId.split(separator: "_")[1])
            let x = Self.x(poolId: poolId, userId: userId, password: password, saltHex: saltHex, saltAsText: saltAsText)
            let u = SRPNumber(bytes: Self.hash(Self.pad(A) + Self.pad(B)))
            // S = (B − k·g^x)^(a + u·x) = base^a · (base^x)^u, all mod N.
            let base = B.minus(k.times(g.power(x, modulus: N), modulus: N), modulus: N)
            let S = base.power(a, modulus: N).times(base.power(x, modulus: N).power(u, modulus: N), modulus: N)
            let prk = HMAC<SHA256>.authenticationCode(for: Self.pad(S), using: SymmetricKey(data: Self.pad(u)))
            let key = Array(HMAC<SHA256>.authenticationCode(for: Array("Caldera Derived Key".utf8) + [1], using: SymmetricKey(data: Data(prk))).prefix(16))
            let message = Array(poolName.utf8) + Array(userId.utf8) + secretBlock + Array(timestamp.utf8)
            return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))).base64EncodedString()
        }
    }

    static func call(_ client: FauxthTesting.Client, _ operation: String, _ body: JSON) async throws -> Reply {
        try await client.send(.post, "/", raw: body.serialized(), headers: [
            .init("X-Amz-Target")!: "AWSCognitoIdentityProviderService.\(operation)", .contentType: "application/x-amz-json-1.1",
        ])
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM d HH:mm:ss 'UTC' yyyy"
        return formatter.string(from: date)
    }

    /// Starts USER_SRP_AUTH for alice and answers the challenge with `password`.
    static func signIn(_ client: FauxthTesting.Client, harness: Harness, password: String, replay: Bool = false, saltAsText: Bool = false,
                       between: () throws -> Void = {}) async throws -> [Reply] {
        let srp = Client(a: SRPNumber(bytes: harness.emulator.generator.bytes(32)))
        let started = try await call(client, "InitiateAuth", ["ClientId": "fauxthlocalclient000000001", "AuthFlow": "USER_SRP_AUTH",
                                                             "AuthParameters": ["USERNAME": "alice@example.com", "SRP_A": .string(srp.A.hex)]])
        #expect(started.json["ChallengeName"] == "PASSWORD_VERIFIER")
        let parameters = try #require(started.json["ChallengeParameters"])
        let userId = try #require(parameters["USER_ID_FOR_SRP"]?.stringValue)
        let block = try #require(parameters["SECRET_BLOCK"]?.stringValue)
        let stamp = timestamp(harness.emulator.clock.now)
        let signature = srp.signature(poolId: "us-east-1_fauxth001", userId: userId, password: password,
                                      saltHex: try #require(parameters["SALT"]?.stringValue),
                                      B: try #require(parameters["SRP_B"]?.stringValue.flatMap { SRPNumber(hex: $0) }),
                                      secretBlock: Array(try #require(Data(base64Encoded: block))), timestamp: stamp, saltAsText: saltAsText)
        let answer: JSON = ["ClientId": "fauxthlocalclient000000001", "ChallengeName": "PASSWORD_VERIFIER", "ChallengeResponses": [
            "USERNAME": .string(userId), "PASSWORD_CLAIM_SECRET_BLOCK": .string(block), "PASSWORD_CLAIM_SIGNATURE": .string(signature),
            "TIMESTAMP": .string(stamp),
        ]]
        try between()
        var replies = [try await call(client, "RespondToAuthChallenge", answer)]
        if replay { replies.append(try await call(client, "RespondToAuthChallenge", answer)) }
        return replies
    }

    @Test func theRightPasswordSignsInOnceAndAWrongOneIsRefused() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let replies = try await Self.signIn(client, harness: harness, password: "password123", replay: true)
            #expect(replies[0].status == .ok)
            let access = try #require(replies[0].json["AuthenticationResult"]?["AccessToken"]?.stringValue)
            #expect(JWS.unverifiedClaims(access)?["sub"] == "00000000-0000-4000-8000-0000c0a11ce0")
            #expect(replies[1].status == .badRequest)
            #expect(replies[1].json["__type"] == "NotAuthorizedException")

            let wrong = try await Self.signIn(client, harness: harness, password: "password124")
            #expect(wrong[0].json == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
        }
    }

    /// The answer's key is derived at the challenge; a password set in between makes it stale.
    @Test func aPasswordChangedBetweenChallengeAndAnswerRefusesTheAnswer() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let alice = try #require(try harness.emulator.user(in: "us-east-1_fauxth001", .email("alice@example.com")))
            let replies = try await Self.signIn(client, harness: harness, password: "password123") {
                try harness.emulator.updateUser(in: "us-east-1_fauxth001", id: alice.id, UserChanges(password: "another456"))
            }
            #expect(replies[0].json["__type"] == "NotAuthorizedException")
        }
    }

    @Test func aChangedPasswordChangesTheVerifier() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let alice = try #require(try harness.emulator.user(in: "us-east-1_fauxth001", .email("alice@example.com")))
            try harness.emulator.updateUser(in: "us-east-1_fauxth001", id: alice.id, UserChanges(password: "another456"))
            #expect(try await Self.signIn(client, harness: harness, password: "password123")[0].json["__type"] == "NotAuthorizedException")
            #expect(try await Self.signIn(client, harness: harness, password: "another456")[0].status == .ok)
        }
    }

    @Test func aLateAnswerFindsTheChallengeExpired() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let srp = Client(a: SRPNumber(12345))
            let started = try await Self.call(client, "InitiateAuth", ["ClientId": "fauxthlocalclient000000001", "AuthFlow": "USER_SRP_AUTH",
                                                                      "AuthParameters": ["USERNAME": "alice@example.com", "SRP_A": .string(srp.A.hex)]])
            let block = try #require(started.json["ChallengeParameters"]?["SECRET_BLOCK"]?.stringValue)
            harness.emulator.clock.advance(by: 181)
            let late = try await Self.call(client, "RespondToAuthChallenge", ["ClientId": "fauxthlocalclient000000001", "ChallengeName": "PASSWORD_VERIFIER",
                                                                             "ChallengeResponses": ["USERNAME": "x", "PASSWORD_CLAIM_SECRET_BLOCK": .string(block),
                                                                                                    "PASSWORD_CLAIM_SIGNATURE": "AAAA", "TIMESTAMP": "x"]])
            #expect(late.json["__type"] == "NotAuthorizedException")
            #expect(late.json["message"] == "Invalid session for the user, session is expired.")
            // An A that is 0 mod N would let a client force the shared secret.
            let zero = try await Self.call(client, "InitiateAuth", ["ClientId": "fauxthlocalclient000000001", "AuthFlow": "USER_SRP_AUTH",
                                                                   "AuthParameters": ["USERNAME": "alice@example.com", "SRP_A": .string(CognitoSRP.nHex)]])
            #expect(zero.json["__type"] == "InvalidParameterException")
        }
    }
}
