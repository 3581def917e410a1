import AuthCore
import Foundation
import Hummingbird

/// MFA factors (`internal/api/mfa.go`): enroll a TOTP authenticator, challenge it, verify a code to
/// raise the session to aal2, unenroll. Codes are checked per RFC 6238 on the emulator clock.
struct Factors {
    let emulator: Emulator
    let projects: SupabaseProjects

    /// `POST /factors`: a new, unverified TOTP factor with its secret, URI and QR code (SVG).
    func enroll(_ call: Call) async throws -> JSON {
        let (body, project) = try await call.bodyAndProject()
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        guard !caller.user.isAnonymous else {
            throw SupabaseError(status: .forbidden, code: .noAuthorization, message: "Anonymous users cannot enroll MFA factors")
        }
        let name = try body.string("friendly_name")
        switch try body.string("factor_type") ?? "" {
        case "totp":
            guard project.config.mfaTOTPEnroll else {
                throw SupabaseError(status: .unprocessableContent, code: .mfaTOTPEnrollNotEnabled, message: "MFA enroll is disabled for TOTP")
            }
            let factor = try emulator.enrollTOTP(in: call.tenant, userId: caller.user.id, friendlyName: name, maxFactors: project.config.mfaMaxFactors)
            let issuer = try body.string("issuer").flatMap { $0.isEmpty ? nil : $0 } ?? URLComponents(string: project.config.siteURL)?.host ?? "localhost"
            let uri = factor.totp?.uri(issuer: issuer, account: caller.user.email ?? caller.user.phone ?? caller.user.id) ?? ""
            return ["id": .string(factor.id), "type": "totp", "friendly_name": .string(name ?? ""),
                    "totp": ["qr_code": .string(try QRCode(uri).svg()), "secret": JSON(factor.secret), "uri": .string(uri)]]
        case "phone":
            throw SupabaseError(status: .unprocessableContent, code: .validationFailed,
                                message: project.config.mfaPhoneEnroll ? "Fauxth does not emulate phone MFA yet" : "MFA enroll is disabled for Phone")
        default:
            throw SupabaseError.validation("factor_type needs to be totp or phone")
        }
    }

    /// `POST /factors/{id}/challenge`.
    func challenge(_ call: Call) throws -> JSON {
        let project = try call.project()
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        let factor = try emulator.requireFactor(in: call.tenant, userId: caller.user.id, id: try call.parameter("id"))
        let challenge = try emulator.challenge(in: call.tenant, factor: factor, ip: call.origin.ip)
        return ["id": .string(challenge.id), "type": .string(factor.kind),
                "expires_at": .int(Int(challenge.createdAt.timeIntervalSince1970 + project.config.mfaChallengeExpiry))]
    }

    /// `POST /factors/{id}/verify`: the session becomes aal2 and gets a new refresh token.
    func verify(_ call: Call) async throws -> JSON {
        let (body, project) = try await call.bodyAndProject()
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        guard project.config.mfaTOTPVerify else {
            throw SupabaseError(status: .unprocessableContent, code: .mfaTOTPVerifyNotEnabled, message: "MFA verification is disabled for TOTP")
        }
        let factor = try emulator.requireFactor(in: call.tenant, userId: caller.user.id, id: try call.parameter("id"))
        let code = try body.string("code") ?? ""
        let now = emulator.clock.now
        do {
            _ = try emulator.verifyChallenge(in: call.tenant, factor: factor, challengeId: try body.string("challenge_id") ?? "",
                                             ip: call.origin.ip, expiry: project.config.mfaChallengeExpiry) { factor in
                factor.totp?.verify(code, at: now) ?? false
            }
        } catch AuthError.factorNotFound {
            throw SupabaseError(status: .unprocessableContent, code: .mfaFactorNotFound, message: "MFA factor with the provided challenge ID not found")
        }
        try emulator.elevate(in: call.tenant, sessionId: caller.session.id, method: "totp", origin: call.origin)
        let issued = try emulator.reissueRefreshToken(in: call.tenant, sessionId: caller.session.id, newToken: Emulator.goTrueRefreshToken)
        return try emulator.goTrueSessionResponse(issued, userId: caller.user.id, project: project)
    }

    /// `DELETE /factors/{id}`: a verified factor can only be removed from an aal2 session.
    func unenroll(_ call: Call) throws -> JSON {
        let project = try call.project()
        let caller = try Authentication(emulator: emulator).require(call.request, project: project)
        let factor = try emulator.requireFactor(in: call.tenant, userId: caller.user.id, id: try call.parameter("id"))
        if factor.verified && caller.session.aal != "aal2" {
            throw SupabaseError(status: .unprocessableContent, code: .insufficientAAL, message: "AAL2 required to unenroll verified factor")
        }
        try emulator.deleteFactor(in: call.tenant, userId: caller.user.id, id: factor.id)
        return ["id": .string(factor.id)]
    }

    /// `GET /admin/users/{id}/factors`.
    func adminList(_ call: Call) throws -> JSON {
        let project = try call.project()
        try Authentication(emulator: emulator).requireAdmin(call.request, project: project)
        let user = try emulator.requireUser(in: call.tenant, id: try call.parameter("id"))
        return .array(try emulator.factors(in: call.tenant, userId: user.id).map(GoTrueJSON.factor))
    }

    /// `DELETE /admin/users/{id}/factors/{factor}`.
    func adminDelete(_ call: Call) throws -> JSON {
        let project = try call.project()
        try Authentication(emulator: emulator).requireAdmin(call.request, project: project)
        let userId = try call.parameter("id")
        let factor = try emulator.requireFactor(in: call.tenant, userId: userId, id: try call.parameter("factor"))
        try emulator.deleteFactor(in: call.tenant, userId: userId, id: factor.id)
        return GoTrueJSON.factor(factor)
    }
}
