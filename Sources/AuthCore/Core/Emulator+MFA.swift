import Foundation

extension Emulator {
    /// Adds an unverified TOTP factor with a fresh 20-byte secret (RFC 4226's recommended size).
    public func enrollTOTP(in tenant: String, userId: String, friendlyName: String?, maxFactors: Int, secret: String? = nil) throws -> Factor {
        try enroll(in: tenant, userId: userId, kind: "totp", secret: secret ?? Self.newTOTPSecret(generator), phone: nil,
                   friendlyName: friendlyName, maxFactors: maxFactors)
    }

    /// A fresh TOTP secret, base32: 20 bytes, RFC 4226's recommended size.
    public static func newTOTPSecret(_ generator: Generator) -> String { Base32.encode(generator.bytes(20)) }

    /// Adds an unverified phone factor. An unverified factor for the same number is replaced; a
    /// verified one is `verifiedFactorExists`.
    public func enrollPhone(in tenant: String, userId: String, phone: String, friendlyName: String?, maxFactors: Int) throws -> Factor {
        for factor in try factors(in: tenant, userId: userId) where factor.kind == "phone" && factor.phone == phone {
            guard !factor.verified else { throw AuthError.verifiedFactorExists }
            try deleteFactor(in: tenant, userId: userId, id: factor.id)
        }
        return try enroll(in: tenant, userId: userId, kind: "phone", secret: nil, phone: phone, friendlyName: friendlyName, maxFactors: maxFactors)
    }

    /// Adds an unverified WebAuthn factor: its credential is registered by answering its first challenge.
    public func enrollWebAuthn(in tenant: String, userId: String, friendlyName: String?, maxFactors: Int) throws -> Factor {
        try enroll(in: tenant, userId: userId, kind: "webauthn", secret: nil, phone: nil, friendlyName: friendlyName, maxFactors: maxFactors)
    }

    /// How long an unverified factor that was never challenged is kept (GoTrue's `FactorExpiryDuration`),
    /// so abandoned enrolments do not count against the factor limit for ever.
    static let abandonedFactorLifetime: TimeInterval = 300

    private func enroll(in tenant: String, userId: String, kind: String, secret: String?, phone: String?, friendlyName: String?,
                        maxFactors: Int) throws -> Factor {
        let id = newID(), now = clock.now
        // One transaction: the limit and the name are checked against what is there when the factor is added,
        // so two concurrent enrolments cannot both take the last place.
        return try db.transaction { c in
            try Factors.dropAbandoned(c, tenant: tenant, userId: userId, madeBefore: now.addingTimeInterval(-Self.abandonedFactorLifetime))
            let existing = try Factors.of(c, tenant: tenant, userId: userId)
            guard existing.count < maxFactors else { throw AuthError.tooManyFactors }
            // A name is the user's one factor's (an empty one too, which GoTrue compares as well; a dialect that does
            // not name factors passes none).
            if let friendlyName, existing.contains(where: { ($0.friendlyName ?? "") == friendlyName }) {
                throw AuthError.factorNameTaken
            }
            try Factors.insert(c, tenant: tenant, id: id, userId: userId, kind: kind, secret: secret, phone: phone, friendlyName: friendlyName, at: now)
            guard let factor = try Factors.find(c, tenant: tenant, userId: userId, id: id) else { throw AuthError.factorNotFound }
            return factor
        }
    }

    /// A user's factors, oldest first.
    public func factors(in tenant: String, userId: String) throws -> [Factor] {
        // Kept until an account table changes: every sign-in of a project with MFA on asks, and the answer rarely changes.
        try factorReads.value("\(tenant)\u{0}\(userId)", in: db) { c in try Factors.of(c, tenant: tenant, userId: userId) }
    }

    /// One of the user's factors, or `factorNotFound`.
    public func requireFactor(in tenant: String, userId: String, id: String) throws -> Factor {
        let factor = try db.withConnection { c in try Factors.find(c, tenant: tenant, userId: userId, id: id) }
        guard let factor else { throw AuthError.factorNotFound }
        return factor
    }

    /// Removes a factor and its challenges. `downgradingSessions`: GoTrue's `DowngradeSessionsToAAL1` as well, the
    /// user's sessions lose the `amr` entry the factor proved, and stay aal2 only while another second factor's
    /// entry remains (what GoTrue's next token works out from the claims left), so a session cannot keep an
    /// assurance whose factor is gone.
    public func deleteFactor(in tenant: String, userId: String, id: String, downgradingSessions: Bool = false) throws {
        _ = try requireFactor(in: tenant, userId: userId, id: id)
        try db.transaction { c in
            try Factors.delete(c, tenant: tenant, id: id)
            guard downgradingSessions else { return }
            for var session in try Sessions.of(c, tenant: tenant, userId: userId) where session.revokedAt == nil {
                guard session.amr.contains(where: { $0.factorId == id }) else { continue }
                session.amr.removeAll { $0.factorId == id }
                let aal = session.amr.contains { $0.factorId != nil } ? "aal2" : "aal1"
                try Sessions.setAssurance(c, tenant: tenant, id: session.id, aal: aal, amr: session.amr)
            }
        }
    }

    /// Opens a challenge on a factor, remembering the caller's IP.
    public func challenge(in tenant: String, factor: Factor, ip: String?, id: String? = nil) throws -> MFAChallenge {
        let challenge = MFAChallenge(id: id ?? newID(), factorId: factor.id, ip: ip, createdAt: clock.now)
        try db.transaction { c in try Factors.insertChallenge(c, tenant: tenant, challenge) }
        return challenge
    }

    /// Checks the answer to a challenge: unused, unexpired on the emulator clock, from the same IP, and
    /// `proof` right for the factor (an authenticator code through `verifyTOTP`'s rules, a texted code
    /// through the challenge's own code), under the tenant's MFA lockout. Marks the challenge used and
    /// the factor verified.
    public func verifyChallenge(in tenant: String, factor: Factor, challengeId: String, ip: String?, expiry: TimeInterval,
                                proof: FactorProof, origin: RequestOrigin = RequestOrigin()) throws -> Factor {
        try recordChallenge(try checkChallenge(in: tenant, factor: factor, challengeId: challengeId, ip: ip, expiry: expiry, proof: proof,
                                               origin: origin))
    }

    /// A challenge whose proof was right, not yet recorded (`recordChallenge`).
    public struct PassedChallenge: Sendable {
        let tenant: String, factor: Factor, challengeId: String, step: Int64?, at: Date
    }

    /// `verifyChallenge`'s checks alone, so a caller may ask someone (GoTrue's MFA verification attempt hook) between
    /// the proof and its record. `replayAllowed`: an authenticator code already used may answer a new challenge, as
    /// GoTrue's `ValidateCustom` alone allows (Cognito and Firebase spend each code's step).
    public func checkChallenge(in tenant: String, factor: Factor, challengeId: String, ip: String?, expiry: TimeInterval,
                               proof: FactorProof, replayAllowed: Bool = false, origin: RequestOrigin = RequestOrigin()) throws -> PassedChallenge {
        let now = clock.now
        let open = try db.withConnection { c in try Factors.challenge(c, tenant: tenant, id: challengeId, factorId: factor.id) }
        guard let open else { throw AuthError.factorNotFound }
        // GoTrue's validateChallenge, in its order: an answered challenge is refused as one from another IP is, then
        // the expiry.
        guard open.verifiedAt == nil, open.ip == ip else { throw AuthError.mfaIPMismatch }
        guard now.timeIntervalSince(open.createdAt) <= expiry else { throw AuthError.mfaChallengeExpired }
        var spent: Int64?
        switch proof {
        case .totp(let code):
            guard factor.kind == "totp", let secret = factor.secret.flatMap(Base32.decode) else { throw AuthError.factorNotFound }
            let step = try totpAttempt(in: tenant, userId: factor.userId, secret: secret, code: code,
                                       lastUsedStep: replayAllowed ? nil : factor.lastUsedStep, origin: origin)
            spent = replayAllowed ? nil : step
        case .textedCode(let code):
            // The texted code is bound to its challenge; a wrong one leaves it usable for another try.
            guard try attempt(.mfa, in: tenant, subject: factor.userId, userId: factor.userId, origin: origin, {
                (try? consumeCode(in: tenant, purposes: [.mfa], .code(code, target: challengeId), lockout: false, origin: origin)) != nil
            }) else {
                record(.signInFailed, tenant: tenant, userId: factor.userId, origin: origin,
                       detail: ["reason": "mfa_code_invalid", "factor_id": .string(factor.id), "stage": .string(SignInStage.challenge.rawValue)])
                throw AuthError.mfaVerificationFailed
            }
        case .webAuthn(let response):
            // The ceremony's own challenge has the MFA challenge's id (see `beginWebAuthnFactorCeremony`): an
            // unverified factor registers its credential, a verified one signs with it.
            guard factor.kind == "webauthn" else { throw AuthError.factorNotFound }
            if factor.verified {
                try finishWebAuthnAssertion(in: tenant, challengeId: challengeId, userId: factor.userId, kind: .factor(factor.id),
                                            response: response, origin: origin)
            } else {
                try finishWebAuthnRegistration(in: tenant, challengeId: challengeId, userId: factor.userId, kind: .factor(factor.id),
                                               response: response, friendlyName: factor.friendlyName, origin: origin)
            }
        }
        return PassedChallenge(tenant: tenant, factor: factor, challengeId: challengeId, step: spent, at: now)
    }

    /// Records a passed challenge: answered, its factor verified (and its code's step spent).
    @discardableResult
    public func recordChallenge(_ passed: PassedChallenge) throws -> Factor {
        let (tenant, factor) = (passed.tenant, passed.factor)
        try db.transaction { c in
            if let step = passed.step { try spend(step, c, tenant: tenant, factorId: factor.id) }
            try Factors.answerChallenge(c, tenant: tenant, id: passed.challengeId, at: passed.at)
            try Factors.markVerified(c, tenant: tenant, id: factor.id, at: passed.at)
            // The user proved this factor, so their other half-finished enrolments of the same kind go.
            try Factors.dropOtherUnverified(c, tenant: tenant, userId: factor.userId, kind: factor.kind, keeping: factor.id)
        }
        return try requireFactor(in: tenant, userId: factor.userId, id: factor.id)
    }

    /// Raises a session to `aal2` after a second factor, adding `method` to its `amr` (newest first), with the factor
    /// that proved it where the dialect ties sessions to factors (`factorId`). A method proven again replaces its
    /// entry, stamped anew: a session holds one entry per method (GoTrue's `mfa_amr_claims` key). `recordsSignIn`:
    /// false where the factor was proven by enrolling it, not by signing in (Firebase's enrolment answers tokens that
    /// name it), so the audit trail shows no sign-in that did not happen.
    @discardableResult
    public func elevate(in tenant: String, sessionId: String, method: String, factorId: String? = nil, origin: RequestOrigin = RequestOrigin(),
                        recordsSignIn: Bool = true) throws -> Session {
        guard var session = try session(in: tenant, id: sessionId) else { throw AuthError.sessionNotFound }
        session.amr.removeAll { $0.method == method }
        session.amr.insert(AuthenticationMethod(method: method, at: clock.now, factorId: factorId), at: 0)
        try db.withConnection { c in try Sessions.setAssurance(c, tenant: tenant, id: sessionId, aal: "aal2", amr: session.amr) }
        if recordsSignIn {
            record(.signInSucceeded, tenant: tenant, userId: session.userId, origin: origin, detail: ["method": .string(method), "aal": "aal2"])
        }
        guard let elevated = try self.session(in: tenant, id: sessionId) else { throw AuthError.sessionNotFound }
        return elevated
    }
}

extension Emulator {
    /// Marks a factor proven without a challenge row (a dialect that checked the code itself), naming it.
    @discardableResult
    public func markFactorVerified(in tenant: String, userId: String, id: String, friendlyName: String?) throws -> Factor {
        _ = try requireFactor(in: tenant, userId: userId, id: id)
        try db.withConnection { c in try Factors.markVerified(c, tenant: tenant, id: id, friendlyName: friendlyName, at: clock.now) }
        return try requireFactor(in: tenant, userId: userId, id: id)
    }
}

extension Emulator {
    /// Challenges a WebAuthn factor: an MFA challenge (expiry, IP) and, under the same id, the WebAuthn
    /// ceremony answering it proves. An unverified factor gets creation options (its credential is made
    /// now), a verified one request options naming its credential. `user` is the entity the creation
    /// options describe.
    public func beginWebAuthnFactorCeremony(in tenant: String, factor: Factor, user: WebAuthnUserEntity, relyingParty: RelyingParty,
                                            ip: String?) throws -> (challenge: MFAChallenge, ceremony: WebAuthnCeremony) {
        guard factor.kind == "webauthn" else { throw AuthError.factorNotFound }
        let id = newID()
        let ceremony: WebAuthnCeremony
        if factor.verified {
            ceremony = try beginWebAuthnAssertion(in: tenant, userId: factor.userId, relyingParty: relyingParty, kind: .factor(factor.id),
                                                  allow: try webAuthnCredentials(in: tenant, userId: factor.userId, kind: .factor(factor.id)), id: .given(id))
        } else {
            let existing = try webAuthnCredentials(in: tenant, userId: factor.userId).filter { $0.kind != .passkey }
            ceremony = try beginWebAuthnRegistration(in: tenant, userId: factor.userId, user: user, relyingParty: relyingParty,
                                                     kind: .factor(factor.id), exclude: existing, id: .given(id))
        }
        return (try challenge(in: tenant, factor: factor, ip: ip, id: id), ceremony)
    }
}
