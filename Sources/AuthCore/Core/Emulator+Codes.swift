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
        try db.transaction { c in
            // The same match as verification (any case), which codes_target serves; a binary match scanned the tenant's codes.
            try c.run("""
                UPDATE codes SET used_at = ? WHERE tenant = ? AND purpose = ? AND target = ? COLLATE NOCASE AND used_at IS NULL
                    AND (? IS NULL OR user_id IS NULL OR user_id = ?)
                """, [SQLValue(now), .text(tenant), .text(request.purpose.rawValue), .text(request.target), SQLValue(request.userId),
                      SQLValue(request.userId)])
            try c.run("""
                INSERT INTO codes (tenant, id, user_id, purpose, channel, target, value_hash, link_token, created_at, expires_at)
                VALUES (?,?,?,?,?,?,?,?,?,?)
                """, [.text(tenant), .text(issued.id), SQLValue(request.userId), .text(request.purpose.rawValue),
                      .text(request.channel.rawValue), .text(request.target), .text(Self.codeHash(code)),
                      SQLValue(issued.linkToken), SQLValue(now), SQLValue(issued.expiresAt)])
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
    /// When the last code of one of `purposes` was issued to a user: what per-user send cooldowns read.
    func lastCodeIssued(in tenant: String, userId: String, purposes: [MessagePurpose]) throws -> Date? {
        let placeholders = purposes.map { _ in "?" }.joined(separator: ",")
        return try db.withConnection { c in
            try c.first("SELECT MAX(created_at) AS last FROM codes WHERE tenant = ? AND user_id = ? AND purpose IN (\(placeholders))",
                        [.text(tenant), .text(userId)] + purposes.map { .text($0.rawValue) })?.date("last")
        }
    }
}

extension Emulator {
    /// The targets of a user's codes of `purpose` that are still usable at the emulator's now.
    public func liveCodeTargets(in tenant: String, userId: String, purpose: MessagePurpose) throws -> [String] {
        try db.withConnection { c in
            try c.query("SELECT target FROM codes WHERE tenant = ? AND user_id = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?",
                        [.text(tenant), .text(userId), .text(purpose.rawValue), SQLValue(clock.now)]).compactMap { $0.string("target") }
        }
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

    init?(row: Row) {
        guard let purpose = row.string("purpose").flatMap(MessagePurpose.init(rawValue:)),
              let channel = row.string("channel").flatMap(Channel.init(rawValue:)) else { return nil }
        id = row.string("id") ?? ""
        userId = row.string("user_id")
        self.purpose = purpose
        self.channel = channel
        target = row.string("target") ?? ""
        linkToken = row.string("link_token")
        createdAt = row.date("created_at") ?? .distantPast
        expiresAt = row.date("expires_at") ?? .distantPast
        usedAt = row.date("used_at")
        valueHash = row.string("value_hash") ?? ""
    }

    /// Whether `code` is this record's code (constant time).
    public func isCode(_ code: String) -> Bool {
        constantTimeEquals(Array(Emulator.codeHash(code).utf8), Array(valueHash.utf8))
    }
}

extension Emulator {
    /// The code issued with this link token or handle, used or not; nil when there is none.
    public func code(in tenant: String, linkToken: String, purposes: [MessagePurpose]) throws -> CodeRecord? {
        let placeholders = purposes.map { _ in "?" }.joined(separator: ",")
        return try db.withConnection { c in
            try c.first("SELECT * FROM codes WHERE tenant = ? AND link_token = ? AND purpose IN (\(placeholders)) ORDER BY created_at DESC LIMIT 1",
                        [.text(tenant), .text(linkToken)] + purposes.map { .text($0.rawValue) }).flatMap(CodeRecord.init(row:))
        }
    }

    /// Codes of `purposes` still usable at the emulator's now, oldest first.
    public func liveCodes(in tenant: String, purposes: [MessagePurpose]) throws -> [CodeRecord] {
        let placeholders = purposes.map { _ in "?" }.joined(separator: ",")
        return try db.withConnection { c in
            try c.query("""
                SELECT * FROM codes WHERE tenant = ? AND purpose IN (\(placeholders)) AND used_at IS NULL AND expires_at > ? ORDER BY created_at, rowid
                """, [.text(tenant)] + purposes.map { .text($0.rawValue) } + [SQLValue(clock.now)]).compactMap(CodeRecord.init(row:))
        }
    }
}
