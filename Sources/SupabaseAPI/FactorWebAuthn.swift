import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// WebAuthn MFA factors (`mfa.go` `challengeWebAuthnFactor`, `verifyWebAuthnFactor`): the first challenge
/// of an unverified factor registers its credential (`type: "create"`), later ones sign with it
/// (`type: "request"`); a verified answer raises the session to aal2 with `amr` `mfa/webauthn`. The
/// relying party is the project's `GOTRUE_WEBAUTHN_*`, whatever `rpId` the client sends.
struct FactorWebAuthn {
    let emulator: Emulator

    /// `POST /factors/{id}/challenge` for a WebAuthn factor: `credential_options` wraps the options in
    /// `publicKey`, as go-webauthn's `CredentialCreation` / `CredentialAssertion` do.
    func challenge(_ call: Call, factor: Factor, user: User, project: SupabaseProject) throws -> JSON {
        let email = user.email ?? ""
        let entity = WebAuthnUserEntity(handle: Array(user.id.utf8), name: email, displayName: email)
        let (challenge, ceremony) = try emulator.beginWebAuthnFactorCeremony(in: call.tenant, factor: factor, user: entity,
                                                                             relyingParty: project.config.mfaRelyingParty, ip: call.origin.ip)
        return ["id": .string(challenge.id), "type": "webauthn",
                "expires_at": .int(Int(challenge.createdAt.timeIntervalSince1970 + project.config.mfaChallengeExpiry)),
                "webauthn": ["type": .string(factor.verified ? "request" : "create"), "credential_options": ["publicKey": ceremony.options]]]
    }

    /// `POST /factors/{id}/verify` with `webauthn: {type, credential_response}`.
    func verify(_ call: Call, body: JSONBody, factor: Factor, caller: Authentication.Caller, project: SupabaseProject) async throws -> JSON {
        // GoTrue answers a switched-off WebAuthn verify with the enroll code (`mfa.go` VerifyFactor).
        guard project.config.mfaWebAuthnVerify else {
            throw SupabaseError(status: .unprocessableContent, code: .mfaWebAuthnEnrollNotEnabled, message: "MFA verification is disabled for WebAuthn")
        }
        guard let params = try body.object("webauthn") else { throw SupabaseError.validation("WebAuthn config required") }
        let type = params["type"]?.stringValue ?? ""
        guard type == "create" || type == "request" else { throw SupabaseError.validation("WebAuthn type must be create or request") }
        guard let response = params["credential_response"], !response.isNull else { throw SupabaseError.validation("credential_response required") }
        let challengeId = Validation.uuid(try body.string("challenge_id") ?? "") ?? ""
        do {
            // The ceremony follows the factor's state; a response of the other kind cannot answer it.
            guard type == (factor.verified ? "request" : "create") else { throw AuthError.webAuthn(.rejected(.wrongCeremony)) }
            _ = try emulator.verifyChallenge(in: call.tenant, factor: factor, challengeId: challengeId, ip: call.origin.ip,
                                             expiry: project.config.mfaChallengeExpiry, proof: .webAuthn(response), origin: call.origin)
        } catch AuthError.factorNotFound {
            throw SupabaseError(status: .unprocessableContent, code: .mfaFactorNotFound, message: "MFA factor with the provided challenge ID not found")
        } catch AuthError.webAuthn(.malformed) {
            throw SupabaseError.validation("Invalid credential_response")
        } catch AuthError.webAuthn {
            // GoTrue lets go-webauthn's error through as a 500 here; Fauxth answers bad input with a 4xx,
            // in GoTrue's MFA code for a failed verification.
            throw SupabaseError(status: .unprocessableContent, code: .mfaVerificationFailed, message: "Failed to validate WebAuthn MFA response")
        }
        try emulator.elevate(in: call.tenant, sessionId: caller.session.id, method: "mfa/webauthn", factorId: factor.id, origin: call.origin)
        try emulator.revokeSessions(in: call.tenant, userId: caller.user.id, .belowAAL2Except(caller.session.id),
                                    reason: "mfa_verified", origin: call.origin)
        let issued = try emulator.reissueRefreshToken(in: call.tenant, sessionId: caller.session.id, newToken: Emulator.goTrueRefreshToken)
        return try await emulator.goTrueSessionResponse(issued, userId: caller.user.id, project: project, method: "mfa/webauthn", origin: call.origin).json
    }
}
