import AuthCore
import Crypto
import Foundation

/// Cognito's SRP-6a (`USER_SRP_AUTH`), as Amplify and pycognito compute the client side: the RFC 5054
/// 3072-bit group, SHA-256 over the bytes of padded hex strings, and the "Caldera Derived Key" HKDF.
/// The server never sees the password; it keeps `v = g^x mod N` (derived when the password is set).
enum CognitoSRP {
    static let nHex = """
        FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437\
        4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05\
        98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B\
        E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33\
        A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864\
        D87602733EC86A64521F2B18177B200CBBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
        """
    static let n = SRPNumber(hex: nHex)!
    static let g = SRPNumber(2)
    /// `k = H(PAD(N) ‖ PAD(g))`.
    static let k = hexHash("00" + nHex + "02")

    /// Lowercase hex, with a leading `0` for an odd length and `00` when the first digit is 8 or more
    /// (the sign-safe padding the clients apply before hashing).
    static func padHex(_ value: SRPNumber) -> String { padHex(value.hex) }

    static func padHex(_ hex: String) -> String {
        var hex = hex.lowercased()
        if hex.count % 2 == 1 { hex = "0" + hex } else if let first = hex.first, "89abcdef".contains(first) { hex = "00" + hex }
        return hex
    }

    /// SHA-256 over the bytes a hex string spells, as a number.
    static func hexHash(_ hex: String) -> SRPNumber { SRPNumber(bytes: Array(SHA256.hash(data: bytes(hex: hex)))) }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    /// The pool name SRP mixes in: the part of the pool id after the underscore.
    static func poolName(_ poolId: String) -> String { poolId.split(separator: "_", maxSplits: 1).last.map(String.init) ?? poolId }

    /// `x = H(PAD(salt) ‖ H(poolName ‖ userId ‖ ":" ‖ password))`, PAD of the salt read as a number, as
    /// amazon-cognito-identity-js (`getPasswordAuthenticationKey`: `padHex(new BigInteger(SALT, 16))`) and
    /// Amplify v6 compute it: digits before the number's first one are not hashed.
    static func privateKey(poolId: String, userId: String, password: String, saltHex: String) -> SRPNumber {
        let inner = SHA256.hash(data: Array("\(poolName(poolId))\(userId):\(password)".utf8)).hex
        return hexHash(padHex(SRPNumber(hex: saltHex) ?? SRPNumber(0)) + inner)
    }

    /// `v = g^x mod N`.
    static func verifier(poolId: String, userId: String, password: String, saltHex: String) -> SRPNumber {
        g.power(privateKey(poolId: poolId, userId: userId, password: password, saltHex: saltHex), modulus: n)
    }

    /// A new salt, 16 random bytes written as the number they make: lowercase digits without leading zeros,
    /// as Cognito sends `SALT` (Java's `BigInteger.toString(16)`: moto#3512, warrant#165). Clients that hash
    /// the text they are sent (pycognito's `pad_hex` of the string) and clients that hash the number then
    /// agree; with the leading zeros of a salt below 2^119 kept, as the emulator once wrote them, they did not.
    static func newSalt(_ generator: Generator) -> String { SRPNumber(bytes: generator.bytes(16)).hex }

    /// The stored credential: `salt$verifier`, both hex. Credentials stored before salts lost their leading
    /// zeros keep the salt text they were made with, which `SALT` repeats: see `SignInFlow.startSRP`.
    static func credential(poolId: String, userId: String, password: String, generator: Generator) -> String {
        let salt = newSalt(generator)
        return salt + "$" + verifier(poolId: poolId, userId: userId, password: password, saltHex: salt).hex
    }

    /// The server's ephemeral pair: a secret `b` and `B = (k·v + g^b) mod N`, never 0.
    static func serverKey(verifier v: SRPNumber, generator: Generator) -> (b: SRPNumber, B: SRPNumber) {
        while true {
            let b = SRPNumber(bytes: generator.bytes(32))
            let B = publicKey(b: b, verifier: v)
            if !B.isZero { return (b, B) }
        }
    }

    /// `B = (k·v + g^b) mod N`.
    static func publicKey(b: SRPNumber, verifier v: SRPNumber) -> SRPNumber {
        k.times(v, modulus: n).plus(g.power(b, modulus: n), modulus: n)
    }

    /// The key a client that knows the password derives: the "Caldera Derived Key" HKDF of
    /// `S = (A·v^u)^b mod N` with `u = H(A ‖ B)`. Nil for a `u` of 0, or an `A` of 0 or outside the group,
    /// with which a client could force `S`.
    static func sessionKey(A: SRPNumber, B: SRPNumber, b: SRPNumber, verifier v: SRPNumber) -> [UInt8]? {
        let u = hexHash(padHex(A) + padHex(B))
        guard !u.isZero, A < n, !A.isZero else { return nil }
        let S = A.times(v.power(u, modulus: n), modulus: n).power(b, modulus: n)
        let prk = HMAC<SHA256>.authenticationCode(for: bytes(hex: padHex(S)), using: SymmetricKey(data: bytes(hex: padHex(u))))
        return Array(Array(HMAC<SHA256>.authenticationCode(for: Array("Caldera Derived Key".utf8) + [1], using: SymmetricKey(data: Data(prk)))).prefix(16))
    }

    /// The `PASSWORD_CLAIM_SIGNATURE` a client holding `key` sends: `HMAC(key, poolName ‖ userId ‖ secretBlock ‖ timestamp)`.
    static func claimSignature(key: [UInt8], poolId: String, userId: String, secretBlock: [UInt8], timestamp: String) -> [UInt8] {
        claimSignature(key: key, realm: poolName(poolId), userId: userId, secretBlock: secretBlock, timestamp: timestamp)
    }

    /// The same over any realm: the pool name for a user, the device group key for a device (whose "user id"
    /// is its device key), as amazon-cognito-identity-js and pycognito sign `DEVICE_PASSWORD_VERIFIER`.
    static func claimSignature(key: [UInt8], realm: String, userId: String, secretBlock: [UInt8], timestamp: String) -> [UInt8] {
        let message = Array(realm.utf8) + Array(userId.utf8) + secretBlock + Array(timestamp.utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    /// What a challenge keeps of the stored credential (`salt$verifier`), to tell at the answer whether the
    /// password changed since the challenge's key was derived from it.
    static func fingerprint(_ credential: String) -> String { SHA256.hash(data: Array(credential.utf8)).hex }

    /// Whether `timestamp` is in the clients' exact format (`Sun Nov 2 01:58:35 UTC 2026`: English names,
    /// no leading zero on the day, the weekday right for the date), which Cognito checks.
    static func isValidTimestamp(_ timestamp: String) -> Bool {
        let formatter = DateFormatter.posixUTC("EEE MMM d HH:mm:ss 'UTC' yyyy")
        guard let date = formatter.date(from: timestamp) else { return false }
        return formatter.string(from: date) == timestamp
    }
}
