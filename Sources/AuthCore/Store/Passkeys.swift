import Foundation

/// WebAuthn's three tables: the credentials relying parties registered (`webauthn_credentials`), the open
/// ceremonies' challenges (`webauthn_challenges`), and the keys the virtual authenticator holds
/// (`authenticator_keys`). The ceremonies' checks are `Emulator+WebAuthn`'s; this stores their outcome.
enum Passkeys {
    // MARK: Credentials

    /// A user's credentials, oldest first.
    static func credentials(_ c: borrowing Connection, tenant: String, userId: String) throws -> [WebAuthnCredential] {
        try c.query("SELECT * FROM webauthn_credentials WHERE tenant = ? AND user_id = ? ORDER BY created_at, rowid", [.text(tenant), .text(userId)])
            .map(WebAuthnCredential.init(row:))
    }

    /// The passkeys of each of `userIds`, oldest first: one query.
    static func passkeys(_ c: borrowing Connection, tenant: String, userIds: [String]) throws -> [String: [WebAuthnCredential]] {
        let ids = JSON.array(userIds.map { JSON($0) }).serialized()
        return Dictionary(grouping: try c.query("""
            SELECT * FROM webauthn_credentials WHERE tenant = ? AND user_id IN (SELECT value FROM json_each(?)) AND kind = 'passkey'
            ORDER BY created_at, rowid
            """, [.text(tenant), .text(ids)]).map(WebAuthnCredential.init(row:)), by: \.userId)
    }

    /// The credential with this authenticator credential id, whoever's it is.
    static func credential(_ c: borrowing Connection, tenant: String, credentialId: [UInt8]) throws -> WebAuthnCredential? {
        try c.first("SELECT * FROM webauthn_credentials WHERE tenant = ? AND credential_id = ?", [.text(tenant), .text(Base64URL.encode(credentialId))])
            .map(WebAuthnCredential.init(row:))
    }

    /// One of a user's credentials by record id.
    static func credential(_ c: borrowing Connection, tenant: String, userId: String, id: String) throws -> WebAuthnCredential? {
        try c.first("SELECT * FROM webauthn_credentials WHERE tenant = ? AND user_id = ? AND id = ?", [.text(tenant), .text(userId), .text(id)])
            .map(WebAuthnCredential.init(row:))
    }

    /// How many credentials of `kind` a user has.
    static func count(_ c: borrowing Connection, tenant: String, userId: String, kind: WebAuthnCredential.Kind) throws -> Int {
        try c.first("SELECT COUNT(*) AS n FROM webauthn_credentials WHERE tenant = ? AND user_id = ? AND kind = ?",
                    [.text(tenant), .text(userId), .text(kind.column)])?.int("n") ?? 0
    }

    /// Stores a new credential; a constraint violation when its credential id is registered already.
    static func insert(_ c: borrowing Connection, _ credential: WebAuthnCredential, tenant: String) throws {
        try c.run("""
            INSERT INTO webauthn_credentials (tenant, id, user_id, kind, factor_id, credential_id, public_key, algorithm, user_handle, rp_id,
              attestation_format, aaguid, sign_count, transports, backup_eligible, backed_up, user_verified, friendly_name, created_at, updated_at)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(credential.id), .text(credential.userId), .text(credential.kind.column), SQLValue(credential.kind.factorId),
                  .text(Base64URL.encode(credential.credentialId)), .text(Base64URL.encode(credential.publicKey)),
                  .int(credential.algorithm), .text(Base64URL.encode(credential.userHandle)), .text(credential.rpId),
                  .text(credential.attestationFormat), .text(Base64URL.encode(credential.aaguid)), .int(Int64(credential.signCount)),
                  SQLValue(JSON.array(credential.transports.map(JSON.string))), SQLValue(credential.backupEligible),
                  SQLValue(credential.backedUp), SQLValue(credential.userVerified),
                  SQLValue(credential.friendlyName), SQLValue(credential.createdAt), SQLValue(credential.updatedAt)])
    }

    /// Stores a use's counter and flags, only if the counter still moves forward from what is stored (or both
    /// are zero: an authenticator without a counter); answers whether it did.
    static func recordUse(_ c: borrowing Connection, tenant: String, id: String, signCount: UInt32, backedUp: Bool, userVerified: Bool,
                          at now: Date) throws -> Bool {
        let count = Int64(signCount)
        return try c.run("""
            UPDATE webauthn_credentials SET sign_count = ?, backed_up = ?, user_verified = ?, last_used_at = ?, updated_at = ?
            WHERE tenant = ? AND id = ? AND (sign_count < ? OR (sign_count = 0 AND ? = 0))
            """, [.int(count), SQLValue(backedUp), SQLValue(userVerified), SQLValue(now), SQLValue(now), .text(tenant), .text(id),
                  .int(count), .int(count)]) == 1
    }

    static func rename(_ c: borrowing Connection, tenant: String, id: String, to friendlyName: String, at now: Date) throws {
        try c.run("UPDATE webauthn_credentials SET friendly_name = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                  [.text(friendlyName), SQLValue(now), .text(tenant), .text(id)])
    }

    static func delete(_ c: borrowing Connection, tenant: String, id: String) throws {
        try c.run("DELETE FROM webauthn_credentials WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
    }

    // MARK: Challenges

    /// A ceremony's challenge as stored.
    struct Challenge {
        var bytes: [UInt8]?
        var relyingParty: JSON
        var userHandle: [UInt8]?
        /// The credential ids (base64url) an assertion may use; nil for any.
        var allowed: [String]?
        var expiresAt: Date?
    }

    /// Opens (or, under the same id, replaces) a ceremony's challenge.
    static func openChallenge(_ c: borrowing Connection, tenant: String, id: String, ceremony: String, userId: String?, scope: String,
                              _ challenge: Challenge, at now: Date) throws {
        try c.run("""
            INSERT OR REPLACE INTO webauthn_challenges (tenant, id, ceremony, user_id, user_handle, scope, challenge, relying_party, allowed, created_at, expires_at)
            VALUES (?,?,?,?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(id), .text(ceremony), SQLValue(userId), SQLValue(challenge.userHandle.map { Base64URL.encode($0) }), .text(scope),
                  SQLValue(challenge.bytes.map { Base64URL.encode($0) }), SQLValue(challenge.relyingParty),
                  challenge.allowed.map { SQLValue(JSON.array($0.map(JSON.string))) } ?? .null, SQLValue(now), SQLValue(challenge.expiresAt)])
    }

    /// Deletes and returns the challenge opened under `id` for this ceremony, scope and user (none for a
    /// discoverable sign-in), expired or not; nil when there is none.
    static func takeChallenge(_ c: borrowing Connection, tenant: String, id: String, ceremony: String, userId: String?, scope: String) throws -> Challenge? {
        guard let row = try c.first("SELECT * FROM webauthn_challenges WHERE tenant = ? AND id = ? AND ceremony = ? AND scope = ? AND user_id IS ?",
                                    [.text(tenant), .text(id), .text(ceremony), .text(scope), SQLValue(userId)]) else { return nil }
        try c.run("DELETE FROM webauthn_challenges WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
        return Challenge(bytes: row.string("challenge").flatMap(Base64URL.decode), relyingParty: row.json("relying_party"),
                         userHandle: row.string("user_handle").flatMap(Base64URL.decode),
                         allowed: row.json("allowed").arrayValue?.compactMap(\.stringValue), expiresAt: row.date("expires_at"))
    }

    /// Deletes the challenges that expired before `cutoff`; answers how many.
    static func sweepChallenges(_ c: borrowing Connection, before cutoff: Date) throws -> Int {
        try c.run("DELETE FROM webauthn_challenges WHERE expires_at < ?", [SQLValue(cutoff)])
    }

    // MARK: The virtual authenticator's keys

    static func insertKey(_ c: borrowing Connection, _ key: AuthenticatorKey, privateKey: [UInt8], tenant: String) throws {
        try c.run("""
            INSERT INTO authenticator_keys (tenant, credential_id, authenticator, rp_id, user_handle, user_name, algorithm, private_key,
              sign_count, backup_eligible, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)
            """, [.text(tenant), .text(key.credentialId), .text(key.authenticator), .text(key.rpId), .text(key.userHandle),
                  SQLValue(key.userName), .int(key.algorithm), .text(Base64URL.encode(privateKey)),
                  .int(Int64(key.signCount)), SQLValue(key.backupEligible), SQLValue(key.createdAt)])
    }

    /// The keys the authenticator holds for a tenant, oldest first, each with its private key.
    static func keys(_ c: borrowing Connection, tenant: String) throws -> [(key: AuthenticatorKey, privateKey: [UInt8])] {
        try c.query("SELECT * FROM authenticator_keys WHERE tenant = ? ORDER BY created_at, rowid", [.text(tenant)])
            .map { (AuthenticatorKey(row: $0), $0.string("private_key").flatMap(Base64URL.decode) ?? []) }
    }

    static func setSignCount(_ c: borrowing Connection, tenant: String, credentialId: String, _ signCount: UInt32) throws {
        try c.run("UPDATE authenticator_keys SET sign_count = ? WHERE tenant = ? AND credential_id = ?",
                  [.int(Int64(signCount)), .text(tenant), .text(credentialId)])
    }
}

extension WebAuthnCredential {
    /// A credential from a `webauthn_credentials` row.
    init(row: Row) {
        self.init(
            id: row.string("id") ?? "", userId: row.string("user_id") ?? "",
            kind: row.string("kind") == "factor" ? .factor(row.string("factor_id") ?? "") : .passkey,
            credentialId: row.string("credential_id").flatMap(Base64URL.decode) ?? [],
            publicKey: row.string("public_key").flatMap(Base64URL.decode) ?? [], algorithm: Int64(row.int("algorithm") ?? 0),
            userHandle: row.string("user_handle").flatMap(Base64URL.decode) ?? [], rpId: row.string("rp_id") ?? "",
            attestationFormat: row.string("attestation_format") ?? "none", aaguid: row.string("aaguid").flatMap(Base64URL.decode) ?? [],
            signCount: UInt32(clamping: row.int("sign_count") ?? 0), transports: row.json("transports").arrayValue?.compactMap(\.stringValue) ?? [],
            backupEligible: row.bool("backup_eligible"), backedUp: row.bool("backed_up"), userVerified: row.bool("user_verified"),
            friendlyName: row.string("friendly_name"), createdAt: row.date("created_at") ?? .distantPast,
            updatedAt: row.date("updated_at") ?? .distantPast, lastUsedAt: row.date("last_used_at"))
    }
}

extension AuthenticatorKey {
    /// A key from an `authenticator_keys` row.
    init(row: Row) {
        self.init(credentialId: row.string("credential_id") ?? "", authenticator: row.string("authenticator") ?? "default",
                  rpId: row.string("rp_id") ?? "", userHandle: row.string("user_handle") ?? "", userName: row.string("user_name"),
                  algorithm: Int64(row.int("algorithm") ?? 0), signCount: UInt32(clamping: row.int("sign_count") ?? 0),
                  backupEligible: row.bool("backup_eligible"), createdAt: row.date("created_at") ?? .distantPast)
    }
}
