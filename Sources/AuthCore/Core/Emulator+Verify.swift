import Foundation

/// How a code is presented back: the code with the address it went to, or the token a link carries.
public enum CodeProof: Sendable {
    case code(String, target: String)
    case linkToken(String)
    /// A code typed by the user, with the handle the sender got back (Firebase's `sessionInfo`): an
    /// unknown handle is `codeInvalid`, a wrong code `wrongCode` and leaves the code usable.
    case codeWithHandle(String, handle: String)
}

extension Emulator {
    /// Uses a live code of one of `purposes`: checks it in constant time against the stored hash, that
    /// it is unused and unexpired on the emulator clock, and marks it used (one use only).
    ///
    /// A typed code that is wrong while a code is live is `wrongCode` and counts an attempt; with
    /// `maxAttempts`, the attempt that reaches it retires the code (`tooManyAttempts`).
    public func consumeCode(in tenant: String, purposes: [MessagePurpose], _ proof: CodeProof, maxAttempts: Int? = nil,
                            origin: RequestOrigin = RequestOrigin()) throws -> (userId: String?, purpose: MessagePurpose, target: String) {
        let now = clock.now
        let placeholders = purposes.map { _ in "?" }.joined(separator: ",")
        let purposeArgs = purposes.map { SQLValue.text($0.rawValue) }
        let found: Result<Row, AuthError> = try db.transaction { c in
            let candidates: [Row]
            switch proof {
            case .code(let code, let target):
                let rows = try c.query("""
                    SELECT * FROM codes WHERE tenant = ? AND target = ? COLLATE NOCASE AND purpose IN (\(placeholders)) AND used_at IS NULL
                    """, [.text(tenant), .text(target)] + purposeArgs)
                let hash = Array(Self.codeHash(code).utf8)
                candidates = rows.filter { constantTimeEquals(Array(($0.string("value_hash") ?? "").utf8), hash) }
                let live = rows.filter { ($0.date("expires_at") ?? .distantPast) > now }
                if candidates.isEmpty, !live.isEmpty { return .failure(try Self.countAttempt(c, live, tenant: tenant, now: now, maxAttempts: maxAttempts)) }
            case .linkToken(let token):
                candidates = try c.query("""
                    SELECT * FROM codes WHERE tenant = ? AND link_token = ? AND purpose IN (\(placeholders)) AND used_at IS NULL
                    """, [.text(tenant), .text(token)] + purposeArgs)
            case .codeWithHandle(let code, let handle):
                let rows = try c.query("""
                    SELECT * FROM codes WHERE tenant = ? AND link_token = ? AND purpose IN (\(placeholders)) AND used_at IS NULL
                    """, [.text(tenant), .text(handle)] + purposeArgs)
                guard !rows.isEmpty else { return .failure(.codeInvalid) }
                let hash = Array(Self.codeHash(code).utf8)
                candidates = rows.filter { constantTimeEquals(Array(($0.string("value_hash") ?? "").utf8), hash) }
                if candidates.isEmpty {
                    if let expires = rows[0].date("expires_at"), expires <= now { return .failure(.codeExpired) }
                    return .failure(try Self.countAttempt(c, rows, tenant: tenant, now: now, maxAttempts: maxAttempts))
                }
            }
            guard let row = candidates.first else { return .failure(.codeInvalid) }
            guard let expires = row.date("expires_at"), expires > now else { return .failure(.codeExpired) }
            try c.run("UPDATE codes SET used_at = ? WHERE tenant = ? AND id = ?", [SQLValue(now), .text(tenant), .text(row.string("id") ?? "")])
            return .success(row)
        }
        guard case .success(let found) = found, let purpose = found.string("purpose").flatMap(MessagePurpose.init(rawValue:)) else {
            let error = if case .failure(let error) = found { error } else { AuthError.codeInvalid }
            let reason = switch error {
            case .codeExpired: "code_expired"
            case .wrongCode: "wrong_code"
            case .tooManyAttempts: "too_many_attempts"
            default: "code_invalid"
            }
            record(.signInFailed, tenant: tenant, origin: origin, detail: ["reason": .string(reason), "method": "otp"])
            throw error
        }
        let userId = found.string("user_id")
        record(.codeUsed, tenant: tenant, userId: userId, origin: origin,
               detail: ["purpose": .string(purpose.rawValue), "code_id": .string(found.string("id") ?? "")])
        return (userId, purpose, found.string("target") ?? "")
    }

    /// A wrong code against live ones: one more attempt on each, and those that reach `maxAttempts` are
    /// used up.
    private static func countAttempt(_ c: borrowing Connection, _ rows: [Row], tenant: String, now: Date, maxAttempts: Int?) throws -> AuthError {
        var exhausted = false
        for row in rows {
            let attempts = (row.int("attempts") ?? 0) + 1
            let spent = maxAttempts.map { attempts >= $0 } ?? false
            exhausted = exhausted || spent
            try c.run("UPDATE codes SET attempts = ?, used_at = ? WHERE tenant = ? AND id = ?",
                      [.int(Int64(attempts)), SQLValue(spent ? now : nil), .text(tenant), .text(row.string("id") ?? "")])
        }
        return exhausted ? .tooManyAttempts : .wrongCode
    }

    /// Marks a user's email (or phone) verified, merging `metadata` into the user metadata and the
    /// matching identity's data (GoTrue records `email_verified: true` in both).
    @discardableResult
    public func confirm(in tenant: String, userId: String, channel: Channel, metadata: [String: JSON] = [:]) throws -> User {
        var user = try requireUser(in: tenant, id: userId)
        let now = clock.now
        var userMetadata = user.userMetadata
        userMetadata.merge(metadata) { $1 }
        let column = channel == .email ? "email_verified_at" : "phone_verified_at"
        try db.transaction { c in
            try c.run("UPDATE users SET \(column) = COALESCE(\(column), ?), user_metadata = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                      [SQLValue(now), SQLValue(JSON.object(userMetadata)), SQLValue(now), .text(tenant), .text(userId)])
            for identity in user.identities where identity.provider == (channel == .email ? "email" : "phone") {
                var data = identity.data
                data.merge(metadata) { $1 }
                try c.run("UPDATE identities SET data = ?, updated_at = ? WHERE tenant = ? AND id = ?",
                          [SQLValue(JSON.object(data)), SQLValue(now), .text(tenant), .text(identity.id)])
            }
        }
        user = try requireUser(in: tenant, id: userId)
        return user
    }
}
