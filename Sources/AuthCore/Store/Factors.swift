import Foundation

/// The `factors` table and the MFA `challenges` opened on them: enrolment, lookups, challenge and proof, the
/// TOTP step last spent. The rules (factor limits and names, expiry, the IP check, lockouts, which proof fits
/// which factor) are `Emulator+MFA` and `Emulator+TOTP`'s.
enum Factors {
    static func insert(_ c: borrowing Connection, tenant: String, id: String, userId: String, kind: String, secret: String?, phone: String?,
                       friendlyName: String?, at now: Date) throws {
        try c.run("""
            INSERT INTO factors (tenant, id, user_id, kind, secret, phone, status, friendly_name, created_at, updated_at)
            VALUES (?,?,?,?,?,?,'unverified',?,?,?)
            """, [.text(tenant), .text(id), .text(userId), .text(kind), SQLValue(secret), SQLValue(phone), SQLValue(friendlyName),
                  SQLValue(now), SQLValue(now)])
    }

    /// A user's factors, oldest first.
    static func of(_ c: borrowing Connection, tenant: String, userId: String) throws -> [Factor] {
        try c.query("SELECT * FROM factors WHERE tenant = ? AND user_id = ? ORDER BY created_at, rowid", [.text(tenant), .text(userId)])
            .map(Factor.init(row:))
    }

    /// The factors of each of `userIds`, oldest first: one query.
    static func of(_ c: borrowing Connection, tenant: String, userIds: [String]) throws -> [String: [Factor]] {
        let ids = JSON.array(userIds.map { JSON($0) }).serialized()
        return Dictionary(grouping: try c.query("""
            SELECT * FROM factors WHERE tenant = ? AND user_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, rowid
            """, [.text(tenant), .text(ids)]).map(Factor.init(row:)), by: \.userId)
    }

    static func find(_ c: borrowing Connection, tenant: String, userId: String, id: String) throws -> Factor? {
        try c.first("SELECT * FROM factors WHERE tenant = ? AND user_id = ? AND id = ?", [.text(tenant), .text(userId), .text(id)])
            .map(Factor.init(row:))
    }

    /// Drops a user's unverified factors never challenged and made before `cutoff` (abandoned enrolments).
    static func dropAbandoned(_ c: borrowing Connection, tenant: String, userId: String, madeBefore cutoff: Date) throws {
        try c.run("DELETE FROM factors WHERE tenant = ? AND user_id = ? AND status = 'unverified' AND last_challenged_at IS NULL AND created_at < ?",
                  [.text(tenant), .text(userId), SQLValue(cutoff)])
    }

    /// Deletes a factor with its challenges and its WebAuthn credential, if any.
    static func delete(_ c: borrowing Connection, tenant: String, id: String) throws {
        try c.run("DELETE FROM challenges WHERE tenant = ? AND factor_id = ?", [.text(tenant), .text(id)])
        try c.run("DELETE FROM webauthn_credentials WHERE tenant = ? AND kind = 'factor' AND factor_id = ?", [.text(tenant), .text(id)])
        try c.run("DELETE FROM factors WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
    }

    /// Marks a factor verified, naming it when `friendlyName` is given.
    static func markVerified(_ c: borrowing Connection, tenant: String, id: String, friendlyName: String? = nil, at now: Date) throws {
        try c.run("UPDATE factors SET status = 'verified', friendly_name = COALESCE(?, friendly_name), updated_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(friendlyName), SQLValue(now), .text(tenant), .text(id)])
    }

    /// Drops a user's other unverified factors of `kind`, with their challenges.
    static func dropOtherUnverified(_ c: borrowing Connection, tenant: String, userId: String, kind: String, keeping id: String) throws {
        try c.run("""
            DELETE FROM challenges WHERE tenant = ? AND factor_id IN
              (SELECT id FROM factors WHERE tenant = ? AND user_id = ? AND kind = ? AND status = 'unverified' AND id <> ?)
            """, [.text(tenant), .text(tenant), .text(userId), .text(kind), .text(id)])
        try c.run("DELETE FROM factors WHERE tenant = ? AND user_id = ? AND kind = ? AND status = 'unverified' AND id <> ?",
                  [.text(tenant), .text(userId), .text(kind), .text(id)])
    }

    /// Records `step` as the factor's last accepted TOTP step; false when the factor already has that step
    /// or a later one (a concurrent check got there first).
    static func spend(_ c: borrowing Connection, tenant: String, id: String, step: Int64) throws -> Bool {
        try c.run("UPDATE factors SET last_used_step = ? WHERE tenant = ? AND id = ? AND (last_used_step IS NULL OR last_used_step < ?)",
                  [.int(step), .text(tenant), .text(id), .int(step)]) > 0
    }

    /// Opens a challenge on a factor and stamps the factor as challenged.
    static func insertChallenge(_ c: borrowing Connection, tenant: String, _ challenge: MFAChallenge) throws {
        try c.run("INSERT INTO challenges (tenant, id, factor_id, ip, created_at) VALUES (?,?,?,?,?)",
                  [.text(tenant), .text(challenge.id), .text(challenge.factorId), SQLValue(challenge.ip), SQLValue(challenge.createdAt)])
        try c.run("UPDATE factors SET last_challenged_at = ? WHERE tenant = ? AND id = ?",
                  [SQLValue(challenge.createdAt), .text(tenant), .text(challenge.factorId)])
    }

    /// An unanswered challenge on a factor.
    /// A challenge of the factor, answered or not.
    static func challenge(_ c: borrowing Connection, tenant: String, id: String, factorId: String) throws -> MFAChallenge? {
        guard let row = try c.first("SELECT * FROM challenges WHERE tenant = ? AND id = ? AND factor_id = ?",
                                    [.text(tenant), .text(id), .text(factorId)]), let created = row.date("created_at") else { return nil }
        return MFAChallenge(id: row.string("id") ?? id, factorId: factorId, ip: row.string("ip"), createdAt: created, verifiedAt: row.date("verified_at"))
    }

    /// Drops challenges opened before `cutoff`, answered or not.
    static func sweepChallenges(_ c: borrowing Connection, openedBefore cutoff: Date) throws -> Int {
        try c.run("DELETE FROM challenges WHERE created_at < ?", [SQLValue(cutoff)])
    }

    static func answerChallenge(_ c: borrowing Connection, tenant: String, id: String, at now: Date) throws {
        try c.run("UPDATE challenges SET verified_at = ? WHERE tenant = ? AND id = ?", [SQLValue(now), .text(tenant), .text(id)])
    }
}

extension Factor {
    /// A factor from a `factors` row.
    init(row: Row) {
        id = row.string("id") ?? ""
        userId = row.string("user_id") ?? ""
        kind = row.string("kind") ?? "totp"
        secret = row.string("secret")
        phone = row.string("phone")
        verified = row.string("status") == "verified"
        friendlyName = row.string("friendly_name")
        createdAt = row.date("created_at") ?? .distantPast
        updatedAt = row.date("updated_at") ?? .distantPast
        lastChallengedAt = row.date("last_challenged_at")
        lastUsedStep = row.int("last_used_step").map(Int64.init)
    }
}
