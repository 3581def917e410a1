import AuthCore
import Crypto
import Foundation
import Synchronization

/// The state of a sign-in between its steps (Cognito's `Session` and SRP's `SECRET_BLOCK`): which
/// pool, client and user, which challenge is due, and for SRP the server's secret. It travels with the
/// client encrypted (AES-GCM under a key only the emulator holds), so it can be neither read nor
/// forged; a step that succeeds uses it up.
struct ChallengeSession: Sendable {
    var poolId: String
    var clientId: String
    var userId: String
    var challenge: String
    /// How the user proved who they are so far (`password`, `srp`, `otp`), for the session's `amr`.
    var firstFactor: String
    var data: [String: JSON]
    var expiresAt: Date
    var id: String

    /// Cognito's default `AuthSessionValidity`: three minutes.
    static let defaultLifetime: TimeInterval = 180

    init(poolId: String, clientId: String, userId: String, challenge: String, firstFactor: String, data: [String: JSON] = [:],
         lifetime: TimeInterval = defaultLifetime, emulator: Emulator) {
        self.poolId = poolId; self.clientId = clientId; self.userId = userId; self.challenge = challenge
        self.firstFactor = firstFactor; self.data = data
        expiresAt = emulator.clock.now.addingTimeInterval(lifetime)
        id = emulator.generator.uuid()
    }

    /// The next step of the same sign-in, with a fresh id and deadline. This step's SRP secrets do not carry
    /// over; the ones given for the next step (`extra`: `PASSWORD_SRP` chosen at `SELECT_CHALLENGE`) do.
    func next(_ challenge: String, data extra: [String: JSON] = [:], lifetime: TimeInterval = defaultLifetime,
              emulator: Emulator) -> ChallengeSession {
        var carried = data
        for secret in ["srp_key", "srp_credential"] { carried.removeValue(forKey: secret) }
        carried.merge(extra) { $1 }
        return ChallengeSession(poolId: poolId, clientId: clientId, userId: userId, challenge: challenge, firstFactor: firstFactor,
                                data: carried, lifetime: lifetime, emulator: emulator)
    }

    /// The opaque string the client carries: standard base64, as the SDKs decode `SECRET_BLOCK`.
    func sealed(_ emulator: Emulator) throws -> String {
        let payload: JSON = ["pool": .string(poolId), "client": .string(clientId), "sub": .string(userId), "challenge": .string(challenge),
                             "first": .string(firstFactor), "data": .object(data), "exp": .int(Int(expiresAt.timeIntervalSince1970)),
                             "id": .string(id)]
        let box = try AES.GCM.seal(Array(payload.serialized().utf8), using: Self.key(emulator))
        return (box.combined ?? Data()).base64EncodedString()
    }

    /// Opens a session string. With `clientId`, it must be that client's. A forged, expired or used one
    /// is `NotAuthorizedException`, as Cognito answers a stale session.
    static func open(_ sealed: String?, clientId: String?, emulator: Emulator, replays: SessionReplays) throws -> ChallengeSession {
        guard let sealed, let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let plain = try? AES.GCM.open(box, using: key(emulator)), case .object(let o)? = try? JSON.parse(plain),
              let pool = o["pool"]?.stringValue, let client = o["client"]?.stringValue, let sub = o["sub"]?.stringValue,
              let challenge = o["challenge"]?.stringValue, let id = o["id"]?.stringValue, let exp = o["exp"]?.intValue else {
            throw CognitoError(.notAuthorized, "Invalid session for the user.")
        }
        if let clientId, client != clientId { throw CognitoError(.notAuthorized, "Invalid session for the user.") }
        let expiresAt = Date(timeIntervalSince1970: TimeInterval(exp))
        guard expiresAt > emulator.clock.now else { throw CognitoError(.notAuthorized, "Invalid session for the user, session is expired.") }
        guard replays.isUsable(id) else { throw CognitoError(.notAuthorized, "Invalid session for the user, session can only be used once.") }
        var session = ChallengeSession(poolId: pool, clientId: client, userId: sub, challenge: challenge, firstFactor: o["first"]?.stringValue ?? "password",
                                       data: o["data"]?.objectValue ?? [:], emulator: emulator)
        session.expiresAt = expiresAt
        session.id = id
        return session
    }

    private static func key(_ emulator: Emulator) -> SymmetricKey { emulator.keyring.symmetricKey("cognito-session", generator: emulator.generator) }
}

/// Which sessions are spent. A session is used up by the step that succeeds with it, or by three wrong
/// answers (Cognito lets a user retype a code a few times with the same session, not for ever).
final class SessionReplays: Sendable {
    private struct Entry {
        var expiry: Date
        var failures = 0
        var spent = false
    }

    private let entries = Mutex<[String: Entry]>([:])
    static let maxFailures = 3

    func isUsable(_ id: String) -> Bool { entries.withLock { !($0[id]?.spent ?? false) } }

    /// Spends a session; false if it was spent already (two answers raced, or a replay).
    func spend(_ session: ChallengeSession, now: Date) -> Bool {
        entries.withLock { entries in
            entries = entries.filter { $0.value.expiry > now }
            if entries[session.id]?.spent == true { return false }
            entries[session.id, default: Entry(expiry: session.expiresAt)].spent = true
            return true
        }
    }

    /// Makes a spent session usable again: its answer was right but named a device the user no longer has, and AWS
    /// takes the same answer again without the device (Amplify's `retryOnResourceNotFoundException`).
    func refund(_ session: ChallengeSession) {
        entries.withLock { entries in entries[session.id]?.spent = false }
    }

    /// Counts a wrong answer; the third spends the session.
    func fail(_ session: ChallengeSession, now: Date) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.expiry > now }
            var entry = entries[session.id] ?? Entry(expiry: session.expiresAt)
            entry.failures += 1
            entry.spent = entry.spent || entry.failures >= Self.maxFailures
            entries[session.id] = entry
        }
    }
}
