import Foundation

/// What a user presents to prove a second factor.
public enum FactorProof: Sendable {
    /// A code from an authenticator app (RFC 6238).
    case totp(String)
    /// A code texted for the challenge: issued with the challenge's id as its target, so it proves only
    /// that challenge (GoTrue's phone factors).
    case textedCode(String)
    /// A WebAuthn response to the challenge: a registration (`create`) while the factor is unverified, an
    /// assertion (`request`) once it is.
    case webAuthn(JSON)
}

/// What checking an authenticator code found.
enum TOTPCheck: Equatable {
    case accepted(step: Int64)
    case wrong
    /// The code of a time step already accepted once, or older.
    case reused
}

extension Emulator {
    /// Checks an authenticator code for a stored TOTP factor and spends its time step: one
    /// implementation for every dialect (Cognito's software tokens, Firebase's and GoTrue's TOTP).
    /// Under the tenant's MFA lockout; a wrong code is `mfaVerificationFailed`, the code of a spent step
    /// `codeReused` (RFC 6238 §5.2: a code is good once), and both count as failures.
    /// `drift`: how many steps either way a code may be from now (Identity Platform's `adjacentIntervals`).
    public func verifyTOTP(in tenant: String, factor: Factor, code: String, drift: Int = 1, origin: RequestOrigin = RequestOrigin()) throws {
        guard factor.kind == "totp", let secret = factor.secret.flatMap(Base32.decode) else { throw AuthError.factorNotFound }
        let step = try totpAttempt(in: tenant, userId: factor.userId, secret: secret, code: code, lastUsedStep: factor.lastUsedStep, drift: drift,
                                   origin: origin)
        try db.withConnection { c in try spend(step, c, tenant: tenant, factorId: factor.id) }
    }

    /// Checks the first code of an authenticator whose secret is not stored yet (Firebase carries it
    /// in the signed enrollment session until then), then stores the factor verified, that code's step
    /// already spent.
    public func enrollVerifiedTOTP(in tenant: String, userId: String, secret: String, code: String, friendlyName: String?, maxFactors: Int,
                                   drift: Int = 1, origin: RequestOrigin = RequestOrigin()) throws -> Factor {
        guard let bytes = Base32.decode(secret), !bytes.isEmpty else { throw AuthError.mfaVerificationFailed }
        let step = try totpAttempt(in: tenant, userId: userId, secret: bytes, code: code, lastUsedStep: nil, drift: drift, origin: origin)
        let factor = try enrollTOTP(in: tenant, userId: userId, friendlyName: nil, maxFactors: maxFactors, secret: secret)
        try db.withConnection { c in try spend(step, c, tenant: tenant, factorId: factor.id) }
        return try markFactorVerified(in: tenant, userId: userId, id: factor.id, friendlyName: friendlyName)
    }

    /// The time step `code` belongs to, once the lockout lets the attempt through and it is neither
    /// wrong nor spent.
    func totpAttempt(in tenant: String, userId: String, secret: [UInt8], code: String, lastUsedStep: Int64?, drift: Int = 1,
                     origin: RequestOrigin) throws -> Int64 {
        var outcome = TOTPCheck.wrong
        let passed = try attempt(.mfa, in: tenant, subject: userId, userId: userId, origin: origin) {
            outcome = Self.checkTOTP(code, secret: secret, lastUsedStep: lastUsedStep, drift: drift, at: clock.now)
            return outcome != .wrong && outcome != .reused
        }
        if passed, case .accepted(let step) = outcome { return step }
        let reused = outcome == .reused
        record(.signInFailed, tenant: tenant, userId: userId, origin: origin,
               detail: ["reason": .string(reused ? "mfa_code_reused" : "mfa_code_invalid"), "stage": .string(SignInStage.challenge.rawValue)])
        throw reused ? AuthError.codeReused : AuthError.mfaVerificationFailed
    }

    /// RFC 6238 with `drift` steps either way (one by default: what GoTrue, Cognito and authenticator apps assume),
    /// compared in constant time; a step at or before the last accepted one is spent.
    static func checkTOTP(_ code: String, secret: [UInt8], lastUsedStep: Int64?, drift: Int = 1, at now: Date) -> TOTPCheck {
        guard let step = TOTP(secret: secret).matchingStep(code, at: now, window: drift).map(Int64.init) else { return .wrong }
        if let lastUsedStep, step <= lastUsedStep { return .reused }
        return .accepted(step: step)
    }

    /// Records `step` as the factor's last accepted one, unless a concurrent check got there first with
    /// the same or a later step (then this code is the reused one).
    func spend(_ step: Int64, _ c: borrowing Connection, tenant: String, factorId: String) throws {
        guard try Factors.spend(c, tenant: tenant, id: factorId, step: step) else { throw AuthError.codeReused }
    }
}
