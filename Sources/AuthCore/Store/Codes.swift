import Foundation

/// The `codes` table: one-time codes, stored as hashes, with where they went, what they are for, the link
/// token or handle they were issued with, and their expiry, attempts and use. The rules (one live code per
/// purpose, constant-time matching, attempt limits, lockouts) are `Emulator+Codes` and `Emulator+Verify`'s.
enum Codes {
    /// Retires the unused codes of `purpose` to `target` (any case, as verification matches it, which
    /// `codes_target` serves), except another user's where the address is shared: a new code replaces them.
    static func retire(_ c: borrowing Connection, tenant: String, purpose: MessagePurpose, target: String, userId: String?, at now: Date) throws {
        try c.run("""
            UPDATE codes SET used_at = ? WHERE tenant = ? AND purpose = ? AND target = ? COLLATE NOCASE AND used_at IS NULL
                AND (? IS NULL OR user_id IS NULL OR user_id = ?)
            """, [SQLValue(now), .text(tenant), .text(purpose.rawValue), .text(target), SQLValue(userId), SQLValue(userId)])
    }

    /// Retires every unused code issued to a user but those of `kept` (`codes_user` finds them).
    static func retire(_ c: borrowing Connection, tenant: String, userId: String, except kept: MessagePurpose, at now: Date) throws {
        try c.run("UPDATE codes SET used_at = ? WHERE tenant = ? AND user_id = ? AND purpose != ? AND used_at IS NULL",
                  [SQLValue(now), .text(tenant), .text(userId), .text(kept.rawValue)])
    }

    static func insert(_ c: borrowing Connection, _ record: CodeRecord, tenant: String) throws {
        try c.run("""
            INSERT INTO codes (tenant, id, user_id, purpose, channel, target, value_hash, link_token, created_at, expires_at)
            VALUES (?,?,?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(record.id), SQLValue(record.userId), .text(record.purpose.rawValue), .text(record.channel.rawValue),
                  .text(record.target), .text(record.valueHash), SQLValue(record.linkToken), SQLValue(record.createdAt), SQLValue(record.expiresAt)])
    }

    /// The unused codes of `purposes` sent to `target` (any case).
    static func unused(_ c: borrowing Connection, tenant: String, target: String, purposes: [MessagePurpose]) throws -> [CodeRecord] {
        try c.query("SELECT * FROM codes WHERE tenant = ? AND target = ? COLLATE NOCASE AND purpose IN \(list(purposes)) AND used_at IS NULL",
                    [.text(tenant), .text(target)] + purposes.map { .text($0.rawValue) }).compactMap(CodeRecord.init(row:))
    }

    /// The unused codes of `purposes` issued with a link token or handle.
    static func unused(_ c: borrowing Connection, tenant: String, linkToken: String, purposes: [MessagePurpose]) throws -> [CodeRecord] {
        try c.query("SELECT * FROM codes WHERE tenant = ? AND link_token = ? AND purpose IN \(list(purposes)) AND used_at IS NULL",
                    [.text(tenant), .text(linkToken)] + purposes.map { .text($0.rawValue) }).compactMap(CodeRecord.init(row:))
    }

    /// The newest code of `purposes` issued with a link token or handle, used or not.
    static func newest(_ c: borrowing Connection, tenant: String, linkToken: String, purposes: [MessagePurpose]) throws -> CodeRecord? {
        try c.first("SELECT * FROM codes WHERE tenant = ? AND link_token = ? AND purpose IN \(list(purposes)) ORDER BY created_at DESC LIMIT 1",
                    [.text(tenant), .text(linkToken)] + purposes.map { .text($0.rawValue) }).flatMap(CodeRecord.init(row:))
    }

    /// Where the code issued with a handle went, of any purpose.
    static func target(_ c: borrowing Connection, tenant: String, handle: String) throws -> String? {
        try c.first("SELECT target FROM codes WHERE tenant = ? AND link_token = ? LIMIT 1", [.text(tenant), .text(handle)])?.string("target")
    }

    /// The tenant whose newest code carries `linkToken`, for links that name no tenant.
    static func tenantOf(_ c: borrowing Connection, linkToken: String) throws -> String? {
        try c.first("SELECT tenant FROM codes WHERE link_token = ? ORDER BY created_at DESC LIMIT 1", [.text(linkToken)])?.string("tenant")
    }

    /// Codes of `purposes` still usable at `now`, oldest first.
    static func live(_ c: borrowing Connection, tenant: String, purposes: [MessagePurpose], at now: Date) throws -> [CodeRecord] {
        try c.query("""
            SELECT * FROM codes WHERE tenant = ? AND purpose IN \(list(purposes)) AND used_at IS NULL AND expires_at > ? ORDER BY created_at, rowid
            """, [.text(tenant)] + purposes.map { .text($0.rawValue) } + [SQLValue(now)]).compactMap(CodeRecord.init(row:))
    }

    /// The targets of a user's codes of `purpose` still usable at `now`.
    static func liveTargets(_ c: borrowing Connection, tenant: String, userId: String, purpose: MessagePurpose, at now: Date) throws -> [String] {
        try c.query("SELECT target FROM codes WHERE tenant = ? AND user_id = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?",
                    [.text(tenant), .text(userId), .text(purpose.rawValue), SQLValue(now)]).compactMap { $0.string("target") }
    }

    static func markUsed(_ c: borrowing Connection, tenant: String, id: String, at now: Date) throws {
        try c.run("UPDATE codes SET used_at = ? WHERE tenant = ? AND id = ?", [SQLValue(now), .text(tenant), .text(id)])
    }

    /// Records a wrong attempt at a code; `usedAt` retires it (its attempts ran out).
    static func setAttempts(_ c: borrowing Connection, tenant: String, id: String, attempts: Int, usedAt: Date?) throws {
        try c.run("UPDATE codes SET attempts = ?, used_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(attempts), SQLValue(usedAt), .text(tenant), .text(id)])
    }

    /// Drops codes that expired before `cutoff`, used or not.
    static func sweep(_ c: borrowing Connection, expiredBefore cutoff: Date) throws -> Int {
        try c.run("DELETE FROM codes WHERE expires_at < ?", [SQLValue(cutoff)])
    }

    /// `(?,?,…)` for `purposes`, bound after the statement's other arguments.
    private static func list(_ purposes: [MessagePurpose]) -> String {
        "(" + purposes.map { _ in "?" }.joined(separator: ",") + ")"
    }
}

extension CodeRecord {
    /// A code from a `codes` row; nil for a purpose or channel this build does not know.
    init?(row: Row) {
        guard let purpose = row.string("purpose").flatMap(MessagePurpose.init(rawValue:)),
              let channel = row.string("channel").flatMap(Channel.init(rawValue:)) else { return nil }
        self.init(id: row.string("id") ?? "", userId: row.string("user_id"), purpose: purpose, channel: channel, target: row.string("target") ?? "",
                  linkToken: row.string("link_token"), createdAt: row.date("created_at") ?? .distantPast,
                  expiresAt: row.date("expires_at") ?? .distantPast, usedAt: row.date("used_at"), valueHash: row.string("value_hash") ?? "",
                  attempts: row.int("attempts") ?? 0)
    }
}
