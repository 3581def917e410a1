import Crypto
import Foundation

/// A one-time code to issue: what it is for, where it goes and how long it lives.
public struct CodeRequest: Sendable {
    public var userId: String?
    public var purpose: MessagePurpose
    public var channel: Channel
    /// The email or phone the code is sent to (and is checked against).
    public var target: String
    public var length: Int
    public var lifetime: TimeInterval
    /// Makes the token a link carries, from the code (GoTrue: hex SHA-224 of target + code). Nil
    /// when the code travels alone.
    public var linkToken: (@Sendable (String) -> String)?
    /// A fixed code instead of a generated one (GoTrue's `GOTRUE_SMS_TEST_OTP`).
    public var fixedCode: String?
    /// Other purposes whose live codes to the target this one replaces too (GoTrue keeps magic links and password
    /// resets in one `recovery_token`, so the newer of the two ends the older).
    public var replaces: [MessagePurpose] = []

    public init(userId: String?, purpose: MessagePurpose, channel: Channel, target: String, length: Int = 6,
                lifetime: TimeInterval, linkToken: (@Sendable (String) -> String)? = nil, fixedCode: String? = nil) {
        self.userId = userId; self.purpose = purpose; self.channel = channel; self.target = target
        self.length = length; self.lifetime = lifetime; self.linkToken = linkToken; self.fixedCode = fixedCode
    }
}

/// A code just issued: the plaintext (for the message) and the link token, if any.
public struct IssuedCode: Sendable {
    public var id: String
    public var code: String
    public var linkToken: String?
    public var expiresAt: Date
}

extension Emulator {
    /// Issues a code; earlier unused codes for the same user, purpose and target stop working, as the
    /// vendors keep one live code per purpose. Another user's code to the same address (where a tenant lets
    /// users share one) stays live.
    public func issueCode(in tenant: String, _ request: CodeRequest, origin: RequestOrigin = RequestOrigin()) throws -> IssuedCode {
        let now = clock.now
        let code = request.fixedCode ?? generator.digits(request.length)
        let issued = IssuedCode(id: newID(), code: code, linkToken: request.linkToken?(code), expiresAt: now.addingTimeInterval(request.lifetime))
        let stored = CodeRecord(id: issued.id, userId: request.userId, purpose: request.purpose, channel: request.channel, target: request.target,
                                linkToken: issued.linkToken, createdAt: now, expiresAt: issued.expiresAt, usedAt: nil, valueHash: Self.codeHash(code))
        try db.transaction { c in
            for purpose in [request.purpose] + request.replaces {
                try Codes.retire(c, tenant: tenant, purpose: purpose, target: request.target, userId: request.userId, at: now)
            }
            try Codes.insert(c, stored, tenant: tenant)
        }
        record(.codeIssued, tenant: tenant, userId: request.userId, origin: origin,
               detail: ["purpose": .string(request.purpose.rawValue), "channel": .string(request.channel.rawValue),
                        "target": .string(request.target), "code_id": .string(issued.id)])
        return issued
    }

    /// Codes are stored as SHA-256 so snapshots never hold a usable one.
    static func codeHash(_ code: String) -> String { SHA256.hash(data: Array(code.utf8)).hex }
}

extension Emulator {
    /// The targets of a user's codes of `purpose` that are still usable at the emulator's now.
    public func liveCodeTargets(in tenant: String, userId: String, purpose: MessagePurpose) throws -> [String] {
        try db.withConnection { c in try Codes.liveTargets(c, tenant: tenant, userId: userId, purpose: purpose, at: clock.now) }
    }

    /// Retires every code still unused that was issued to the user but their second factors': GoTrue clears a user's
    /// one-time tokens whenever one of them confirms something (`ClearAllOneTimeTokensForUser`), so no other link of
    /// theirs works after.
    public func retireCodes(in tenant: String, userId: String) throws {
        let now = clock.now
        try db.transaction { c in try Codes.retire(c, tenant: tenant, userId: userId, except: .mfa, at: now) }
    }
}

/// A code's record, read without using it.
public struct CodeRecord: Sendable, Equatable {
    public var id: String
    public var userId: String?
    public var purpose: MessagePurpose
    public var channel: Channel
    public var target: String
    /// The handle or link token the code was issued with.
    public var linkToken: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    /// The SHA-256 of the code, to match it against the outbox.
    public var valueHash: String

    /// Wrong codes tried against it so far.
    public var attempts: Int

    init(id: String, userId: String?, purpose: MessagePurpose, channel: Channel, target: String, linkToken: String?, createdAt: Date,
                expiresAt: Date, usedAt: Date?, valueHash: String, attempts: Int = 0) {
        self.id = id; self.userId = userId; self.purpose = purpose; self.channel = channel; self.target = target; self.linkToken = linkToken
        self.createdAt = createdAt; self.expiresAt = expiresAt; self.usedAt = usedAt; self.valueHash = valueHash; self.attempts = attempts
    }

    /// Whether `code` is this record's code (constant time).
    public func isCode(_ code: String) -> Bool {
        constantTimeEquals(Array(Emulator.codeHash(code).utf8), Array(valueHash.utf8))
    }
}

extension Emulator {
    /// The code issued with this link token or handle, used or not; nil when there is none.
    public func code(in tenant: String, linkToken: String, purposes: [MessagePurpose]) throws -> CodeRecord? {
        try db.withConnection { c in try Codes.newest(c, tenant: tenant, linkToken: linkToken, purposes: purposes) }
    }

    /// Codes of `purposes` still usable at the emulator's now, oldest first.
    public func liveCodes(in tenant: String, purposes: [MessagePurpose]) throws -> [CodeRecord] {
        try db.withConnection { c in try Codes.live(c, tenant: tenant, purposes: purposes, at: clock.now) }
    }
}
