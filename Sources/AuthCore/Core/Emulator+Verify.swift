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
    ///
    /// Typed codes also fall under the tenant's code lockout (`mfa_lockout` for MFA codes), counted
    /// per address the code went to; `lockout: false` leaves that to a caller that counts itself.
    ///
    /// With `forUser`, a typed code counts only among that user's codes: where a tenant lets users share an
    /// address, one user's code does not answer for another.
    ///
    /// With `gatingOwner`, a code whose user may not sign in (disabled, banned) is refused with the gate's error before
    /// it is used or its expiry looked at, and stays usable (GoTrue's `verifyTokenHash` checks the ban first).
    public func consumeCode(in tenant: String, purposes: [MessagePurpose], _ proof: CodeProof, forUser owner: String? = nil, maxAttempts: Int? = nil,
                            lockout: Bool = true, gatingOwner: Bool = false, origin: RequestOrigin = RequestOrigin())
        throws -> (userId: String?, purpose: MessagePurpose, target: String) {
        let now = clock.now
        let guarded = lockout ? try lockoutSubject(in: tenant, proof, purposes: purposes) : nil
        if let guarded, try !lockoutAllows(guarded.kind, in: tenant, subject: guarded.subject, userId: nil, origin: origin) {
            throw AuthError.wrongCode
        }
        var attemptedBy: String?
        var refused: (user: User, reason: String)?
        let found: Result<CodeRecord, AuthError> = try db.transaction { c in
            let candidates: [CodeRecord]
            switch proof {
            case .code(let code, let target):
                let codes = try Codes.unused(c, tenant: tenant, target: target, purposes: purposes).filter { code in owner.map { code.userId == $0 } ?? true }
                candidates = codes.filter { $0.isCode(code) }
                let live = codes.filter { $0.expiresAt > now }
                if candidates.isEmpty, !live.isEmpty {
                    attemptedBy = live.lazy.compactMap(\.userId).first
                    return .failure(try Self.countAttempt(c, live, tenant: tenant, now: now, maxAttempts: maxAttempts))
                }
            case .linkToken(let token):
                candidates = try Codes.unused(c, tenant: tenant, linkToken: token, purposes: purposes)
            case .codeWithHandle(let code, let handle):
                let codes = try Codes.unused(c, tenant: tenant, linkToken: handle, purposes: purposes)
                guard let first = codes.first else { return .failure(.codeInvalid) }
                candidates = codes.filter { $0.isCode(code) }
                if candidates.isEmpty {
                    if first.expiresAt <= now { return .failure(.codeExpired) }
                    attemptedBy = first.userId
                    return .failure(try Self.countAttempt(c, codes, tenant: tenant, now: now, maxAttempts: maxAttempts))
                }
            }
            guard let found = candidates.first else { return .failure(.codeInvalid) }
            if gatingOwner, let userId = found.userId, let user = try Accounts.user(c, tenant: tenant, id: userId),
               let refusal = signInRefusal(user, at: now) {
                refused = (user, refusal.1)
                return .failure(refusal.0)
            }
            guard found.expiresAt > now else { return .failure(.codeExpired) }
            try Codes.markUsed(c, tenant: tenant, id: found.id, at: now)
            return .success(found)
        }
        guard case .success(let found) = found else {
            let error = if case .failure(let error) = found { error } else { AuthError.codeInvalid }
            if let refused {
                recordRefusal(refused.user, reason: refused.reason, stage: .firstFactor, origin: origin)
                throw error
            }
            let reason = switch error {
            case .codeExpired: "code_expired"
            case .wrongCode: "wrong_code"
            case .tooManyAttempts: "too_many_attempts"
            default: "code_invalid"
            }
            record(.signInFailed, tenant: tenant, userId: attemptedBy, origin: origin, detail: ["reason": .string(reason), "method": "otp"])
            if let guarded, error == .wrongCode || error == .tooManyAttempts {
                try countAttempt(guarded.kind, in: tenant, subject: guarded.subject, userId: attemptedBy, passed: false, origin: origin)
            }
            throw error
        }
        if let guarded { try countAttempt(guarded.kind, in: tenant, subject: guarded.subject, userId: found.userId, passed: true, origin: origin) }
        record(.codeUsed, tenant: tenant, userId: found.userId, origin: origin,
               detail: ["purpose": .string(found.purpose.rawValue), "code_id": .string(found.id)])
        return (found.userId, found.purpose, found.target)
    }

    /// Which lockout a typed code falls under, and whose: the address it went to (a link's token is
    /// not typed, so links are not counted).
    private func lockoutSubject(in tenant: String, _ proof: CodeProof, purposes: [MessagePurpose]) throws -> (kind: LockoutKind, subject: String)? {
        let kind: LockoutKind = purposes.contains(.mfa) ? .mfa : .code
        switch proof {
        case .code(_, let target): return (kind, target)
        case .linkToken: return nil
        case .codeWithHandle(_, let handle):
            let target = try db.withConnection { c in try Codes.target(c, tenant: tenant, handle: handle) }
            return target.map { (kind, $0) }
        }
    }

    /// A wrong code against live ones: one more attempt on each, and those that reach `maxAttempts` are
    /// used up.
    private static func countAttempt(_ c: borrowing Connection, _ codes: [CodeRecord], tenant: String, now: Date, maxAttempts: Int?) throws -> AuthError {
        var exhausted = false
        for code in codes {
            let attempts = code.attempts + 1
            let spent = maxAttempts.map { attempts >= $0 } ?? false
            exhausted = exhausted || spent
            try Codes.setAttempts(c, tenant: tenant, id: code.id, attempts: attempts, usedAt: spent ? now : nil)
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
        let (column, verifiedAt): (Accounts.Column, Date) = channel == .email
            ? (.emailVerifiedAt, user.emailVerifiedAt ?? now) : (.phoneVerifiedAt, user.phoneVerifiedAt ?? now)
        try db.transaction { c in
            try Accounts.set(c, tenant: tenant, id: userId, [column: SQLValue(verifiedAt), .userMetadata: SQLValue(JSON.object(userMetadata)),
                                                             .updatedAt: SQLValue(now)])
            for identity in user.identities where identity.provider == (channel == .email ? "email" : "phone") {
                var data = identity.data
                data.merge(metadata) { $1 }
                try Identities.update(c, tenant: tenant, id: identity.id, data: data, at: now)
            }
        }
        user = try requireUser(in: tenant, id: userId)
        return user
    }
}

extension Emulator {
    /// Makes `address` the user's verified email (or phone) in one transaction: the address replaces the
    /// old one and any pending change, the matching identity carries it verified (made if missing), and an
    /// anonymous user stops being anonymous, as GoTrue's `emailChangeVerify` and `smsVerify` do. What a
    /// confirmed change, and an address added under autoconfirm, come to in every dialect.
    @discardableResult
    public func confirmAddressChange(in tenant: String, userId: String, channel: Channel, address: String,
                                     origin: RequestOrigin = RequestOrigin()) throws -> User {
        let now = clock.now
        let user = try requireUser(in: tenant, id: userId)
        let (column, provider, key) = channel == .email ? ("email", "email", "email_verified") : ("phone", "phone", "phone_verified")
        let value = channel == .email ? try Identifiers.email(address) : try Identifiers.phone(address)
        guard let value else { throw channel == .email ? AuthError.invalidEmail : AuthError.invalidPhone }
        let unique = try uniqueAddresses(in: tenant)
        do {
            try db.transaction { c in
                let claim = AddressClaim(value, verified: true)
                try claimAddresses(c, tenant: tenant, userId: userId, email: channel == .email ? claim : nil, phone: channel == .email ? nil : claim,
                                   unique: unique)
                if channel == .email {
                    // A confirmed user stays confirmed since when it was (GoTrue's ConfirmEmailChange confirms only an
                    // unconfirmed one); a new number is confirmed now (ConfirmPhoneChange).
                    try Accounts.set(c, tenant: tenant, id: userId, [.email: .text(value), .emailVerifiedAt: SQLValue(user.emailVerifiedAt ?? now), .pendingEmail: .null,
                                                                     .isAnonymous: SQLValue(false), .updatedAt: SQLValue(now)])
                } else {
                    try Accounts.set(c, tenant: tenant, id: userId, [.phone: .text(value), .phoneVerifiedAt: SQLValue(now), .pendingPhone: .null,
                                                                     .isAnonymous: SQLValue(false), .updatedAt: SQLValue(now)])
                }
                if let identity = user.identities.first(where: { $0.provider == provider }) {
                    var data = identity.data
                    data[provider] = .string(value)
                    data[key] = true
                    try Identities.update(c, tenant: tenant, id: identity.id, email: channel == .email ? value : user.email, data: data, at: now)
                } else {
                    try insertIdentity(c, tenant: tenant, userId: userId, provider: provider, subject: userId,
                                       email: channel == .email ? value : user.email,
                                       data: ["sub": .string(userId), .init(stringLiteral: provider): .string(value), .init(stringLiteral: key): true],
                                       at: now)
                }
                if channel == .email {
                    // Every identity row carries the user's email (GoTrue's `identities.email` is generated from it).
                    try Identities.setEmail(c, tenant: tenant, userId: userId, provider: "phone", value, at: nil)
                }
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw Self.clash(error)
        }
        record(.userUpdated, tenant: tenant, userId: userId, origin: origin, detail: [column: .string(value), "confirmed": true])
        return try requireUser(in: tenant, id: userId)
    }
}
