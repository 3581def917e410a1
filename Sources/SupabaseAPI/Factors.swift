import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// MFA factors (`internal/api/mfa.go`): enroll a TOTP authenticator, a phone or a WebAuthn
/// authenticator, challenge it, verify a code (or a WebAuthn response, `FactorWebAuthn.swift`) to raise
/// the session to aal2, unenroll. TOTP codes are checked per RFC 6238 on the emulator clock; phone codes
/// are texted to the outbox.
struct Factors {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// Every `/factors` route's caller (api.go): signed in, and not anonymous by the token's claim
    /// (`requireNotAnonymous`), before the body or the factor is read.
    private func caller(_ call: Call, project: SupabaseProject) throws -> Authentication.Caller {
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        guard caller.claims["is_anonymous"]?.boolValue != true else {
            throw SupabaseError(status: .forbidden, code: .noAuthorization, message: "Anonymous user not allowed to perform these actions")
        }
        return caller
    }

    /// `POST /factors`: a new, unverified factor. TOTP answers with its secret, URI and QR code (SVG);
    /// phone with the number, which each challenge then texts a code to.
    func enroll(_ call: Call) async throws -> JSON {
        let project = try call.project()
        let caller = try self.caller(call, project: project)
        let body = try call.body()
        // GoTrue keeps a missing name as "" and checks it against the others', so a second unnamed factor conflicts.
        let name = try body.string("friendly_name") ?? ""
        let kind = try body.string("factor_type") ?? ""
        switch kind {
        case "totp" where !project.config.mfaTOTPEnroll:
            throw SupabaseError(status: .unprocessableContent, code: .mfaTOTPEnrollNotEnabled, message: "MFA enroll is disabled for TOTP")
        case "phone" where !project.config.mfaPhoneEnroll:
            throw SupabaseError(status: .unprocessableContent, code: .mfaPhoneEnrollNotEnabled, message: "MFA enroll is disabled for Phone")
        case "webauthn" where !project.config.mfaWebAuthnEnroll:
            throw SupabaseError(status: .unprocessableContent, code: .mfaWebAuthnEnrollNotEnabled, message: "MFA enroll is disabled for WebAuthn")
        case "totp", "phone", "webauthn":
            break
        default:
            throw SupabaseError.validation("factor_type needs to be totp, phone, or webauthn")
        }
        try emulator.requireAssurance(.factorEnrollment, session: caller.session)
        if kind == "webauthn" {
            // The credential itself is made by answering the factor's first challenge.
            let factor = try emulator.enrollWebAuthn(in: call.tenant, userId: caller.user.id, friendlyName: name, maxFactors: project.config.mfaMaxFactors)
            return ["id": .string(factor.id), "type": "webauthn", "friendly_name": .string(name)]
        }
        if kind == "phone" {
            guard let raw = try body.string("phone"), !raw.isEmpty else {
                throw SupabaseError.validation("Phone number required to enroll Phone factor")
            }
            guard let phone = try? Identifiers.phone(raw) else { throw SupabaseError.validation("Invalid phone number format (E.164 required)") }
            let factor = try emulator.enrollPhone(in: call.tenant, userId: caller.user.id, phone: phone, friendlyName: name,
                                                  maxFactors: project.config.mfaMaxFactors)
            return ["id": .string(factor.id), "type": "phone", "friendly_name": .string(name), "phone": .string(raw)]
        }
        let factor = try emulator.enrollTOTP(in: call.tenant, userId: caller.user.id, friendlyName: name, maxFactors: project.config.mfaMaxFactors)
        let issuer = try body.string("issuer").flatMap { $0.isEmpty ? nil : $0 } ?? URLComponents(string: project.config.siteURL)?.host ?? "localhost"
        let uri = factor.totp?.uri(issuer: issuer, account: caller.user.email ?? caller.user.phone ?? caller.user.id) ?? ""
        return ["id": .string(factor.id), "type": "totp", "friendly_name": .string(name),
                "totp": ["qr_code": .string(try QRCode(uri).svg()), "secret": JSON(factor.secret), "uri": .string(uri)]]
    }

    /// GoTrue checks the factor type's verify switch on challenge as well as on verify.
    private func requireVerifyEnabled(_ factor: Factor, _ config: SupabaseConfig) throws {
        if factor.kind == "phone", !config.mfaPhoneVerify {
            throw SupabaseError(status: .unprocessableContent, code: .mfaPhoneVerifyNotEnabled, message: "MFA verification is disabled for Phone")
        }
        if factor.kind == "totp", !config.mfaTOTPVerify {
            throw SupabaseError(status: .unprocessableContent, code: .mfaTOTPVerifyNotEnabled, message: "MFA verification is disabled for TOTP")
        }
        if factor.kind == "webauthn", !config.mfaWebAuthnVerify {
            throw SupabaseError(status: .unprocessableContent, code: .mfaWebAuthnVerifyNotEnabled, message: "MFA verification is disabled for WebAuthn")
        }
    }

    /// `POST /factors/{id}/challenge`. A phone factor's challenge texts a code, at most once per
    /// `GOTRUE_MFA_PHONE_MAX_FREQUENCY`.
    func challenge(_ call: Call) async throws -> JSON {
        let project = try call.project()
        let caller = try self.caller(call, project: project)
        let body = try call.body(emptyAllowed: true)
        let factor = try emulator.requireFactor(in: call.tenant, userId: caller.user.id, id: try call.factorParameter("id"))
        try requireVerifyEnabled(factor, project.config)
        if factor.kind == "webauthn" {
            return try FactorWebAuthn(emulator: emulator).challenge(call, factor: factor, user: caller.user, project: project)
        }
        if factor.kind == "phone" {
            try Validation.channel(try body.string("channel"), config: project.config)
            if let last = factor.lastChallengedAt {
                let wait = project.config.mfaPhoneMaxFrequency - emulator.clock.now.timeIntervalSince(last)
                if wait > 0 {
                    let seconds = Int(wait.rounded(.up))
                    throw SupabaseError(status: .tooManyRequests, code: .overSMSSendRateLimit,
                                        message: "For security purposes, you can only request this after \(seconds) seconds.", retryAfter: seconds)
                }
            }
        }
        let challenge = try emulator.challenge(in: call.tenant, factor: factor, ip: call.origin.ip)
        if factor.kind == "phone" {
            try await SmsSender(emulator: emulator, project: project).sendMFACode(for: factor, challengeId: challenge.id, user: caller.user, origin: call.origin)
        }
        return ["id": .string(challenge.id), "type": .string(factor.kind),
                "expires_at": .int(Int(challenge.createdAt.timeIntervalSince1970 + project.config.mfaChallengeExpiry))]
    }

    /// `POST /factors/{id}/verify`: the session becomes aal2 and gets a new refresh token; the user's
    /// other aal1 sessions end.
    func verify(_ call: Call) async throws -> JSON {
        let project = try call.project()
        let caller = try self.caller(call, project: project)
        let body = try call.body()
        let factor = try emulator.requireFactor(in: call.tenant, userId: caller.user.id, id: try call.factorParameter("id"))
        if factor.kind == "webauthn" {
            return try await FactorWebAuthn(emulator: emulator).verify(call, body: body, factor: factor, caller: caller, project: project)
        }
        try requireVerifyEnabled(factor, project.config)
        let code = try body.string("code") ?? ""
        guard !code.isEmpty else { throw SupabaseError.validation("Code needs to be non-empty") }
        let challengeId = Validation.uuid(try body.string("challenge_id") ?? "") ?? ""
        // A wrong code is held back until the MFA verification attempt hook has heard of it: the hook may
        // reject either way (GoTrue asks it between checking the code and answering).
        var wrongCode: (any Error)?
        var passed: Emulator.PassedChallenge?
        do {
            passed = try emulator.checkChallenge(in: call.tenant, factor: factor, challengeId: challengeId, ip: call.origin.ip,
                                                 expiry: project.config.mfaChallengeExpiry,
                                                 proof: factor.kind == "phone" ? .textedCode(code) : .totp(code), replayAllowed: true, origin: call.origin)
        } catch AuthError.factorNotFound {
            throw SupabaseError(status: .unprocessableContent, code: .mfaFactorNotFound, message: "MFA factor with the provided challenge ID not found")
        } catch AuthError.mfaVerificationFailed where factor.kind == "phone" {
            wrongCode = SupabaseError(status: .unprocessableContent, code: .mfaVerificationFailed, message: "Invalid MFA Phone code entered")
        } catch AuthError.mfaVerificationFailed {
            wrongCode = AuthError.mfaVerificationFailed
        }
        try await AuthHooks(emulator: emulator, project: project).mfaAttempt(userId: caller.user.id, factor: factor, valid: wrongCode == nil,
                                                                             origin: call.origin)
        if let wrongCode { throw wrongCode }
        // Recorded only once the hook has let it through: a rejected attempt leaves the factor and challenge as they were.
        if let passed { try emulator.recordChallenge(passed) }
        try emulator.elevate(in: call.tenant, sessionId: caller.session.id, method: factor.kind == "phone" ? "mfa/phone" : "totp", factorId: factor.id,
                             origin: call.origin)
        try emulator.revokeSessions(in: call.tenant, userId: caller.user.id, .belowAAL2Except(caller.session.id),
                                    reason: "mfa_verified", origin: call.origin)
        let issued = try emulator.reissueRefreshToken(in: call.tenant, sessionId: caller.session.id, newToken: Emulator.goTrueRefreshToken)
        return try await emulator.goTrueSessionResponse(issued, userId: caller.user.id, project: project,
                                                      method: factor.kind == "phone" ? "mfa/phone" : "totp", origin: call.origin).json
    }

    /// `DELETE /factors/{id}`: a verified factor can only be removed from an aal2 session.
    func unenroll(_ call: Call) throws -> JSON {
        let project = try call.project()
        let caller = try self.caller(call, project: project)
        let factor = try emulator.requireFactor(in: call.tenant, userId: caller.user.id, id: try call.factorParameter("id"))
        try emulator.requireAssurance(.verifiedFactorRemoval, session: caller.session, factor: factor)
        try emulator.deleteFactor(in: call.tenant, userId: caller.user.id, id: factor.id, downgradingSessions: true)
        return ["id": .string(factor.id)]
    }

    /// `GET /admin/users/{id}/factors`.
    func adminList(_ call: Call) throws -> JSON {
        let project = try call.project()
        try Authentication(emulator: emulator).requireAdmin(call.request, project: project)
        let user = try emulator.requireUser(in: call.tenant, id: try call.userParameter("id"))
        return .array(try emulator.factors(in: call.tenant, userId: user.id).map(GoTrueJSON.factor))
    }

    /// `DELETE /admin/users/{id}/factors/{factor}`.
    func adminDelete(_ call: Call) throws -> JSON {
        let project = try call.project()
        try Authentication(emulator: emulator).requireAdmin(call.request, project: project)
        let userId = try call.userParameter("id")
        let factor = try emulator.requireFactor(in: call.tenant, userId: userId, id: try call.factorParameter("factor"))
        try emulator.deleteFactor(in: call.tenant, userId: userId, id: factor.id, downgradingSessions: true)
        return GoTrueJSON.factor(factor)
    }
}
