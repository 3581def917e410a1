import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing
@testable import CognitoAPI

/// The server's SRP values against the client's for every shape of salt, and SRP reached through
/// `USER_AUTH`'s choice of first factor. The client side is `SRPTests.Client`, written from
/// amazon-cognito-identity-js's `AuthenticationHelper` (pycognito and Amplify v6 compute the same).
@Suite struct SRPClientAgreementTests {
    static let poolId = "us-east-1_fauxth001"
    static let userId = "00000000-0000-4000-8000-0000c0a11ce0"

    /// The salt as 16 big-endian bytes, whatever the text's length.
    static func sixteenBytes(_ saltHex: String) -> [UInt8] {
        CognitoSRP.bytes(hex: String(repeating: "0", count: max(0, 32 - saltHex.count)) + saltHex)
    }

    /// Whether a salt starts with a zero byte and then one below 0x80 (about one in 512): the salts whose
    /// 32-digit text a client reading `SALT` as a number hashes without its leading zeros.
    static func losesLeadingZeros(_ salt: [UInt8]) -> Bool { salt.count > 1 && salt[0] == 0 && salt[1] < 0x80 }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// 4,096 random salts, every eighth forced into the leading-zero shape so that shape is well covered, and
    /// the extremes, given to the verifier as 32 digits: its `x` is the one a client reading the salt as a
    /// number (amazon-cognito-identity-js, Amplify) derives from the password.
    @Test func theVerifierIsTheClientsForThousandsOfSalts() throws {
        let generator = Generator(seed: 18)
        var salts: [[UInt8]] = [Array(repeating: 0, count: 16), [0, 0] + Array(repeating: 0xff, count: 14), [0, 0x7f] + Array(repeating: 0, count: 14),
                                [0, 0x80] + Array(repeating: 0, count: 14), [0x80] + Array(repeating: 0, count: 15)]
        for draw in 0..<4096 {
            var salt = generator.bytes(16)
            if draw % 8 == 0 { salt[0] = 0; salt[1] &= 0x7f }
            salts.append(salt)
        }
        #expect(salts.filter(Self.losesLeadingZeros).count > 500)
        var mismatches: [String] = []
        for salt in salts {
            let saltHex = Self.hex(salt)
            let client = CognitoSRP.g.power(SRPTests.Client.x(poolId: Self.poolId, userId: Self.userId, password: "password123", saltHex: saltHex),
                                            modulus: CognitoSRP.n)
            let server = CognitoSRP.verifier(poolId: Self.poolId, userId: Self.userId, password: "password123", saltHex: saltHex)
            if client != server { mismatches.append(saltHex) }
        }
        #expect(mismatches.count == 0, "salts the client reads otherwise, such as \(mismatches.prefix(3))")
    }

    /// The salts a password gets, as stored and sent in `SALT`: written as the number's digits (as Cognito's
    /// `BigInteger.toString(16)` writes them, no leading zeros), so a client hashing the text as sent
    /// (pycognito) and one hashing the number (Amplify) agree, and the verifier is theirs.
    @Test func storedSaltsReadTheSameAsTextAndAsNumber() throws {
        let generator = Generator(seed: 512)
        var shortSalts = 0
        for _ in 0..<2048 {
            let credential = CognitoSRP.credential(poolId: Self.poolId, userId: Self.userId, password: "password123", generator: generator)
            let parts = credential.split(separator: "$").map(String.init)
            try #require(parts.count == 2)
            let salt = parts[0]
            if Self.losesLeadingZeros(Self.sixteenBytes(salt)) { shortSalts += 1 }
            let asText = SRPTests.Client.x(poolId: Self.poolId, userId: Self.userId, password: "password123", saltHex: salt, saltAsText: true)
            let asNumber = SRPTests.Client.x(poolId: Self.poolId, userId: Self.userId, password: "password123", saltHex: salt)
            #expect(asText == asNumber, "salt \(salt) reads differently as text and as a number")
            #expect(CognitoSRP.g.power(asNumber, modulus: CognitoSRP.n).hex == parts[1], "salt \(salt)")
        }
        #expect(shortSalts > 0, "2,048 draws hold a salt with leading zero bytes")
    }

    /// End to end through `InitiateAuth`: a password is set again until its salt starts with a zero byte and
    /// a byte below 0x80, then the user signs in with SRP, computed both as Amplify and as pycognito do.
    @Test func aUserWhoseSaltStartsWithAZeroByteSignsInWithSRP() async throws {
        let harness = try Harness()
        let alice = try #require(try harness.emulator.user(in: Self.poolId, id: Self.userId))
        var tries = 0
        while true {
            let stored = try #require(try harness.emulator.credential(in: Self.poolId, userId: alice.id, kind: "srp"))
            if Self.losesLeadingZeros(Self.sixteenBytes(String(stored.prefix { $0 != "$" }))) { break }
            tries += 1
            try #require(tries < 20_000, "no salt of that shape in 20,000 draws")
            try harness.emulator.updateUser(in: Self.poolId, id: alice.id, UserChanges(password: "password123"))
        }
        try await harness.run { client in
            for saltAsText in [false, true] {
                let replies = try await SRPTests.signIn(client, harness: harness, password: "password123", saltAsText: saltAsText)
                #expect(replies[0].status == .ok, "salt read as \(saltAsText ? "text" : "a number"): \(replies[0].text)")
                #expect(replies[0].json["AuthenticationResult"]?["AccessToken"] != nil)
            }
        }
    }

    /// `USER_AUTH` without a preference, `SELECT_CHALLENGE` answered with `PASSWORD_SRP` and `SRP_A`, then
    /// `PASSWORD_VERIFIER` with the proof for `password`: the challenge must keep the SRP values it was just given.
    static func signInChoosingSRP(_ client: FauxthTesting.Client, harness: Harness, password: String) async throws -> Reply {
        let started = try await SRPTests.call(client, "InitiateAuth", ["ClientId": "fauxthlocalclient000000001", "AuthFlow": "USER_AUTH",
                                                                     "AuthParameters": ["USERNAME": "alice@example.com"]])
        #expect(started.json["ChallengeName"] == "SELECT_CHALLENGE")
        let srp = SRPTests.Client(a: SRPNumber(bytes: harness.emulator.generator.bytes(32)))
        let chosen = try await client.respond("SELECT_CHALLENGE", session: started.json["Session"],
                                              ["USERNAME": "alice@example.com", "ANSWER": "PASSWORD_SRP", "SRP_A": .string(srp.A.hex)])
        #expect(chosen.json["ChallengeName"] == "PASSWORD_VERIFIER", "\(chosen.text)")
        let parameters = try #require(chosen.json["ChallengeParameters"])
        let userId = try #require(parameters["USER_ID_FOR_SRP"]?.stringValue)
        let block = try #require(parameters["SECRET_BLOCK"]?.stringValue)
        let stamp = SRPTests.timestamp(harness.emulator.clock.now)
        let signature = srp.signature(poolId: poolId, userId: userId, password: password, saltHex: try #require(parameters["SALT"]?.stringValue),
                                      B: try #require(parameters["SRP_B"]?.stringValue.flatMap { SRPNumber(hex: $0) }),
                                      secretBlock: Array(try #require(Data(base64Encoded: block))), timestamp: stamp)
        return try await client.respond("PASSWORD_VERIFIER", session: chosen.json["Session"], [
            "USERNAME": .string(userId), "PASSWORD_CLAIM_SECRET_BLOCK": .string(block), "PASSWORD_CLAIM_SIGNATURE": .string(signature),
            "TIMESTAMP": .string(stamp),
        ])
    }

    @Test func choosingPasswordSRPAtSelectChallengeSignsIn() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let done = try await Self.signInChoosingSRP(client, harness: harness, password: "password123")
            #expect(done.status == .ok, "\(done.text)")
            #expect(try claims(done.json["AuthenticationResult"]?["AccessToken"])["sub"] == .string(Self.userId))
            let wrong = try await Self.signInChoosingSRP(client, harness: harness, password: "password124")
            #expect(wrong.json == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
        }
    }
}
