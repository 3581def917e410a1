import AuthCore
import Foundation
import Synchronization

/// The device a sign-in's tokens are issued with: a new one (`NewDeviceMetadata`, for the app to register
/// with `ConfirmDevice`) or the registered one that proved itself. Its session remembers it, so the access
/// token carries `device_key` and a refresh needs the same device.
struct DeviceBinding: Sendable {
    var key: String
    var groupKey: String
    var isNew: Bool

    init(key: String, groupKey: String, isNew: Bool) {
        self.key = key; self.groupKey = groupKey; self.isNew = isNew
    }

    init(proven device: Device) { self.init(key: device.key, groupKey: device.groupKey, isNew: false) }

    /// What the session keeps of it.
    var claims: [String: JSON] { ["device_key": .string(key), "device_group_key": .string(groupKey)] }

    /// `NewDeviceMetadataType`.
    var metadata: JSON { ["DeviceKey": .string(key), "DeviceGroupKey": .string(groupKey)] }
}

/// Device tracking's part of a sign-in (Cognito's remembered devices): a sign-in that names a device the
/// user registered (`DEVICE_KEY`) ends with device SRP (`DEVICE_SRP_AUTH`, then `DEVICE_PASSWORD_VERIFIER`)
/// instead of tokens, the device standing in for MFA when it is remembered and the pool lets it; any
/// other sign-in in a pool that tracks devices is given a new device key.
extension SignInFlow {
    /// The device `DEVICE_KEY` names in a pool that tracks devices; nil when none is named. A key the user has no
    /// device under (unknown, another user's, forgotten) is refused, as AWS refuses it once the password is through:
    /// amazon-cognito-identity-js and Amplify then drop the key and sign in again.
    func trackedDevice(of user: User) throws -> Device? {
        guard pool.tracksDevices, let deviceKey, !deviceKey.isEmpty else { return nil }
        guard let device = try emulator.device(in: pool.id, key: deviceKey, userId: user.id) else { throw CognitoError.deviceDoesNotExist }
        return device
    }

    /// Whether the device stands in for MFA: a remembered one, in a pool whose `ChallengeRequiredOnNewDevice`
    /// says so (AWS: "a remembered device can sign in with device authentication instead of SMS and TOTP").
    func deviceStandsInForMFA(_ user: User) throws -> Bool {
        guard pool.rememberedDevicesSkipMFA else { return false }
        return try trackedDevice(of: user)?.remembered == true
    }

    /// A new device for a sign-in in a pool that tracks devices (nil otherwise): the key Cognito forms,
    /// `<region>_<uuid>`, and the user's group key (their devices share one), or a new one shaped like
    /// Cognito's (`-wt2ha1Zd`).
    func newDevice(for user: User) throws -> DeviceBinding? {
        guard pool.tracksDevices else { return nil }
        let groupKey = try emulator.devices(in: pool.id, userId: user.id).first?.groupKey
            ?? "-" + emulator.generator.string(8, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return DeviceBinding(key: "\(pool.region)_\(emulator.generator.uuid())", groupKey: groupKey, isNew: true)
    }

    /// The user is through but for their device: `DEVICE_SRP_AUTH`, whose session remembers how the user
    /// signed in so far. It is also kept for an answer that comes without the session.
    func deviceChallenge(_ user: User, device: Device, firstFactor: String, mfa: String?) -> SignInStep {
        var data: [String: JSON] = ["device_key": .string(device.key)]
        data["mfa"] = mfa.map(JSON.string)
        let session = newSession(userId: user.id, challenge: "DEVICE_SRP_AUTH", firstFactor: firstFactor, data: data)
        pools.pendingDevices.keep(session, deviceKey: device.key, now: now)
        return .challenge("DEVICE_SRP_AUTH", parameters: ["USERNAME": CognitoUsers.username(user, pool: pool), "DEVICE_KEY": device.key],
                          session: session)
    }

    /// The answer to `DEVICE_SRP_AUTH` (`SRP_A`): `DEVICE_PASSWORD_VERIFIER` with the salt `ConfirmDevice` was
    /// given, the server's `B` for the device's verifier, and the secret block. The key the device's secret
    /// will derive is worked out now, as for a user's SRP.
    func startDeviceSRP(_ session: ChallengeSession, responses: [String: String]) throws -> SignInStep {
        try expect("DEVICE_SRP_AUTH", session)
        guard let srpA = responses["SRP_A"], !srpA.isEmpty else { throw CognitoError.invalid("Missing required parameter SRP_A") }
        guard let A = SRPNumber(hex: srpA), A < CognitoSRP.n, !A.isZero else { throw CognitoError.invalid("SRP_A is not valid.") }
        let device = try device(of: session, responses: responses)
        guard let user = try emulator.user(in: pool.id, id: session.userId) else { throw CognitoError.userDoesNotExist }
        guard let secret = DeviceSecret(stored: device.verifier) else { throw CognitoError.incorrectCredentials }
        guard pools.replays.spend(session, now: now) else { throw CognitoError.staleSession }
        let (b, B) = CognitoSRP.serverKey(verifier: secret.verifier, generator: emulator.generator)
        let data: [String: JSON] = ["srp_key": CognitoSRP.sessionKey(A: A, B: B, b: b, verifier: secret.verifier).map { .string($0.hex) } ?? .null,
                                    "srp_credential": .string(CognitoSRP.fingerprint(device.verifier))]
        let next = session.next("DEVICE_PASSWORD_VERIFIER", data: data, lifetime: sessionLifetime, emulator: emulator)
        return .challenge("DEVICE_PASSWORD_VERIFIER", parameters: [
            "SALT": secret.salt.hex, "SRP_B": B.hex, "SECRET_BLOCK": try next.sealed(emulator), "USERNAME": CognitoUsers.username(user, pool: pool),
            "DEVICE_KEY": device.key,
        ], session: next)
    }

    /// The answer to `DEVICE_PASSWORD_VERIFIER`: the device's HMAC over its group key, its device key, the
    /// secret block and the timestamp, with the key only the device's secret yields (checked in constant
    /// time). A device registered again since the challenge gets no answer from the old secret. One answer
    /// per block; the device is stamped as authenticated from the caller's address.
    func verifyDeviceSRP(_ session: ChallengeSession, responses: [String: String]) throws -> (User, Device) {
        try expect("DEVICE_PASSWORD_VERIFIER", session)
        guard pools.replays.spend(session, now: now) else { throw CognitoError.staleSession }
        let device = try device(of: session, responses: responses)
        guard let user = try emulator.user(in: pool.id, id: session.userId) else { throw CognitoError.userDoesNotExist }
        guard session.data["srp_credential"]?.stringValue == CognitoSRP.fingerprint(device.verifier),
              let key = session.data["srp_key"]?.stringValue.map({ CognitoSRP.bytes(hex: $0) }),
              let timestamp = responses["TIMESTAMP"], CognitoSRP.isValidTimestamp(timestamp),
              let signature = responses["PASSWORD_CLAIM_SIGNATURE"].flatMap({ Data(base64Encoded: $0) }),
              let block = responses["PASSWORD_CLAIM_SECRET_BLOCK"].flatMap({ Data(base64Encoded: $0) }),
              constantTimeEquals(CognitoSRP.claimSignature(key: key, realm: device.groupKey, userId: device.key, secretBlock: Array(block),
                                                           timestamp: timestamp), Array(signature)) else {
            emulator.record(.signInFailed, tenant: pool.id, userId: user.id, origin: origin,
                            detail: ["reason": "wrong_device_secret", "method": "device_srp"])
            throw CognitoError.incorrectCredentials
        }
        try emulator.checkCanSignIn(user, stage: .challenge, origin: origin)
        try emulator.markDeviceAuthenticated(in: pool.id, key: device.key, ip: origin.ip)
        return (user, device)
    }

    private func expect(_ challenge: String, _ session: ChallengeSession) throws {
        guard session.challenge == challenge else {
            throw CognitoError.invalid("The challenge \(challenge) does not match the session, which is for \(session.challenge).")
        }
    }

    /// The device an answer names (`DEVICE_KEY`): the one its session was challenged for, still the user's.
    private func device(of session: ChallengeSession, responses: [String: String]) throws -> Device {
        guard let key = responses["DEVICE_KEY"], !key.isEmpty else { throw CognitoError.invalid("Missing required parameter DEVICE_KEY") }
        guard key == session.data["device_key"]?.stringValue, let device = try emulator.device(in: pool.id, key: key, userId: session.userId) else {
            throw CognitoError.deviceDoesNotExist
        }
        return device
    }
}

/// A device's secret as `ConfirmDevice` registers it (`DeviceSecretVerifierConfig`): the salt and the verifier
/// `g^x mod N`, each base64 of its big-endian bytes, as the clients send them. Stored as `salt$verifier`
/// in hex, like a user's SRP credential.
struct DeviceSecret: Sendable {
    let salt: SRPNumber
    let verifier: SRPNumber

    var stored: String { salt.hex + "$" + verifier.hex }

    init?(stored: String) {
        let parts = stored.split(separator: "$")
        guard parts.count == 2, let salt = SRPNumber(hex: String(parts[0])), let verifier = SRPNumber(hex: String(parts[1])) else { return nil }
        self.salt = salt
        self.verifier = verifier
    }

    /// Reads the config, refusing what no secret could have made: a verifier of 0 or outside the group, a
    /// salt or verifier that is not base64 or longer than the group's numbers.
    init(_ config: JSON?) throws {
        guard case .object(let members)? = config else {
            guard config == nil || config == .null else { throw CognitoError(.serialization, "Structure expected for DeviceSecretVerifierConfig") }
            throw CognitoError.invalid("Missing required parameter DeviceSecretVerifierConfig")
        }
        func number(_ key: String) throws -> SRPNumber {
            guard let member = members[key], member != .null else { throw CognitoError.invalid("Missing required parameter \(key)") }
            guard let text = member.stringValue else { throw CognitoError(.serialization, "STRING_VALUE can not be converted to a String for \(key)") }
            // The clients sign-pad the hex before taking its bytes, so a 3072-bit verifier may come with a zero byte in front.
            guard let bytes = Data(base64Encoded: text)?.drop(while: { $0 == 0 }), bytes.count <= SRPNumber.limbs * 8 else {
                throw CognitoError.invalid("Invalid \(key) given in DeviceSecretVerifierConfig.")
            }
            return SRPNumber(bytes: bytes)
        }
        salt = try number("Salt")
        verifier = try number("PasswordVerifier")
        guard !salt.isZero, !verifier.isZero, verifier < CognitoSRP.n else {
            throw CognitoError.invalid("Invalid DeviceSecretVerifierConfig given.")
        }
    }
}

/// The device sign-ins waiting for their `DEVICE_SRP_AUTH` answer, by pool, client and device key, for the
/// clients that answer it without the `Session` (pycognito's `authenticate_user`, AWS's own Java SRP example):
/// such an answer continues the sign-in its device was just challenged in, and none other, so the device
/// still never signs in without the user's password step. Memory only, like the spent sessions.
final class PendingDeviceSignIns: Sendable {
    private let entries = Mutex<[String: ChallengeSession]>([:])

    func keep(_ session: ChallengeSession, deviceKey: String, now: Date) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.expiresAt > now }
            entries[Self.key(session.poolId, session.clientId, deviceKey)] = session
        }
    }

    /// The latest sign-in of `deviceKey` through this client still waiting, if any.
    func waiting(poolId: String, clientId: String, deviceKey: String, now: Date) -> ChallengeSession? {
        entries.withLock { entries in entries[Self.key(poolId, clientId, deviceKey)].flatMap { $0.expiresAt > now ? $0 : nil } }
    }

    private static func key(_ pool: String, _ client: String, _ device: String) -> String { "\(pool)\n\(client)\n\(device)" }
}

extension CognitoError {
    /// AWS's answer for a device key the user has no device under.
    static let deviceDoesNotExist = CognitoError(.resourceNotFound, "Device does not exist.")
}
