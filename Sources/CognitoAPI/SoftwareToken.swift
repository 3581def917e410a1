import AuthCore
import Foundation
import HTTPSupport

/// TOTP set-up (`AssociateSoftwareToken`, `VerifySoftwareToken`) with an access token, or with the
/// sign-in `Session` of an `MFA_SETUP` challenge; and each user's MFA choices (`SetUserMFAPreference`,
/// `AdminSetUserMFAPreference`).
enum SoftwareToken {
    /// Who is setting up TOTP: the access token's user, or the user of an `MFA_SETUP` session.
    private static func subject(_ call: CognitoCall) throws -> (pool: CognitoPool, user: User, session: ChallengeSession?) {
        if let token = try call.body.string("AccessToken"), !token.isEmpty {
            let (pool, user, _) = try CognitoTokens.caller(token, pools: call.pools, emulator: call.emulator)
            return (pool, user, nil)
        }
        guard let sealed = try call.body.string("Session"), !sealed.isEmpty else {
            throw CognitoError.invalid("Either AccessToken or Session is required.")
        }
        let session = try ChallengeSession.open(sealed, clientId: nil, emulator: call.emulator, replays: call.pools.replays)
        guard session.challenge == "MFA_SETUP" else { throw CognitoError(.notAuthorized, "Invalid session for the user.") }
        let pool = try call.pools.pool(session.poolId)
        guard let user = try call.emulator.user(in: pool.id, id: session.userId) else { throw CognitoError.userDoesNotExist }
        return (pool, user, session)
    }

    /// A pool that has TOTP off sets none up (the developer guide's TOTP page quotes this answer).
    private static func requirePoolTOTP(_ pool: CognitoPool) throws {
        guard pool.softwareTokenMFAEnabled else {
            throw CognitoError(.softwareTokenMFANotFound, "Software Token MFA has not been enabled by the userPool")
        }
    }

    /// A fresh secret (20 random bytes, base32) on a new unverified factor; unfinished set-ups go.
    static func associate(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, session) = try subject(call)
        try requirePoolTOTP(pool)
        let (factor, next) = try associate(user, pool: pool, session: session, emulator: call.emulator, replays: call.pools.replays)
        var answer: [String: JSON] = ["SecretCode": .string(factor.secret ?? "")]
        if let next { answer["Session"] = .string(try next.sealed(call.emulator)) }
        return .object(answer)
    }

    /// Checks the first code from the authenticator; the factor then replaces any earlier one. Through
    /// a sign-in session it also turns TOTP on as the user's MFA, which the pool requires.
    static func verify(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, session) = try subject(call)
        try requirePoolTOTP(pool)
        let next = try verify(user, pool: pool, session: session, code: try call.body.required("UserCode"),
                              friendlyName: try call.body.string("FriendlyDeviceName"), emulator: call.emulator, origin: call.origin,
                              replays: call.pools.replays)
        var answer: [String: JSON] = ["Status": "SUCCESS"]
        if let next { answer["Session"] = .string(try next.sealed(call.emulator)) }
        return .object(answer)
    }

    /// `AssociateSoftwareToken` for `user`, as the API and the hosted UI's set-up page both make it: the new factor (its
    /// secret unverified), and with an `MFA_SETUP` session (which it spends) the session that goes on, naming the factor.
    static func associate(_ user: User, pool: CognitoPool, session: ChallengeSession?, emulator: Emulator,
                          replays: SessionReplays) throws -> (factor: Factor, session: ChallengeSession?) {
        for factor in try emulator.factors(in: pool.id, userId: user.id) where factor.kind == "totp" && !factor.verified {
            try emulator.deleteFactor(in: pool.id, userId: user.id, id: factor.id)
        }
        let factor = try emulator.enrollTOTP(in: pool.id, userId: user.id, friendlyName: nil, maxFactors: 10)
        guard let session else { return (factor, nil) }
        guard replays.spend(session, now: emulator.clock.now) else { throw CognitoError.staleSession }
        return (factor, session.next("MFA_SETUP", data: ["factor": .string(factor.id)], emulator: emulator))
    }

    /// `VerifySoftwareToken` for `user`: a wrong code is `EnableSoftwareTokenMFAException` and spends nothing, so the
    /// same page or session may try again. With an `MFA_SETUP` session, the session that finishes the sign-in.
    static func verify(_ user: User, pool: CognitoPool, session: ChallengeSession?, code: String, friendlyName: String?,
                       emulator: Emulator, origin: RequestOrigin, replays: SessionReplays) throws -> ChallengeSession? {
        let factors = try emulator.factors(in: pool.id, userId: user.id).filter { $0.kind == "totp" }
        guard let factor = factors.last(where: { !$0.verified }) else {
            throw CognitoError(.softwareTokenMFANotFound, "Software Token MFA has not been associated with the user.")
        }
        do {
            try emulator.verifyTOTP(in: pool.id, factor: factor, code: code, origin: origin)
        } catch AuthError.mfaVerificationFailed {
            throw CognitoError(.enableSoftwareTokenMFA, "Code mismatch and fail enable Software Token MFA")
        }
        _ = try emulator.markFactorVerified(in: pool.id, userId: user.id, id: factor.id, friendlyName: friendlyName?.isEmpty == false ? friendlyName : nil)
        for old in factors where old.id != factor.id { try emulator.deleteFactor(in: pool.id, userId: user.id, id: old.id) }
        guard let session else { return nil }
        guard replays.spend(session, now: emulator.clock.now) else { throw CognitoError.staleSession }
        try setMFA(user, method: "SOFTWARE_TOKEN_MFA", enabled: true, preferred: true, emulator: emulator)
        return session.next("MFA_SETUP", data: ["totp_verified": true], emulator: emulator)
    }

    /// `SetUserMFAPreference` and `AdminSetUserMFAPreference`: each of `SMSMfaSettings`,
    /// `SoftwareTokenMfaSettings` and `EmailMfaSettings` turns its method on or off and may make it the
    /// preferred one. A method the user cannot receive is refused.
    static func setPreference(_ call: CognitoCall) async throws -> JSON {
        let pool: CognitoPool, user: User
        if call.action == .adminSetUserMFAPreference {
            pool = try call.pool()
            user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        } else {
            (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        }
        let settings = [("SMSMfaSettings", "SMS_MFA"), ("SoftwareTokenMfaSettings", "SOFTWARE_TOKEN_MFA"), ("EmailMfaSettings", "EMAIL_OTP")]
        var current = user
        for (key, method) in settings {
            guard let setting = try call.body.object(key) else { continue }
            let enabled = setting["Enabled"]?.boolValue ?? false, preferred = setting["PreferredMfa"]?.boolValue ?? false
            if enabled || preferred {
                switch method {
                case "SOFTWARE_TOKEN_MFA":
                    guard try CognitoUsers.softwareToken(user, pool: pool, emulator: call.emulator) != nil else {
                        // AWS's words since 2023 (aws-sdk-js-v3 #4645); "User has not verified software token mfa" before.
                        throw CognitoError.invalid("User does not have delivery config set to turn on SOFTWARE_TOKEN_MFA")
                    }
                case "SMS_MFA":
                    guard user.phone != nil else { throw CognitoError.invalid("User does not have a phone_number for SMS MFA") }
                default:
                    guard user.email != nil else { throw CognitoError.invalid("User does not have an email for email MFA") }
                    guard pool.pool["EmailMfaConfiguration"] != nil else { throw CognitoError.invalid("Email MFA is not configured for the user pool.") }
                }
            }
            current = try setMFA(current, method: method, enabled: enabled || preferred, preferred: preferred, emulator: call.emulator)
        }
        return [:]
    }

    /// `AdminDeleteSoftwareToken`, for a user who lost their authenticator: the TOTP factor goes, and with it TOTP as
    /// their MFA, so they may associate a new one (or, where the pool requires MFA, are asked to set one up).
    static func adminDelete(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        for factor in try call.emulator.factors(in: pool.id, userId: user.id) where factor.kind == "totp" {
            try call.emulator.deleteFactor(in: pool.id, userId: user.id, id: factor.id)
        }
        try setMFA(try call.emulator.requireUser(in: pool.id, id: user.id), method: "SOFTWARE_TOKEN_MFA", enabled: false, preferred: false,
                   emulator: call.emulator)
        return [:]
    }

    /// Turns one method on or off, and makes it preferred or stops it being so.
    @discardableResult
    static func setMFA(_ user: User, method: String, enabled: Bool, preferred: Bool, emulator: Emulator) throws -> User {
        var methods = CognitoUsers.enabledMFA(user).filter { $0 != method }
        if enabled { methods.append(method) }
        var preference = CognitoUsers.preferredMFA(user)
        if preferred { preference = method } else if preference == method { preference = nil }
        return try emulator.updateUser(in: user.tenant, id: user.id, UserChanges(appMetadata: [
            CognitoUsers.enabledMFAKey: methods.isEmpty ? .null : .array(methods.map(JSON.string)),
            CognitoUsers.preferredMFAKey: preference.map(JSON.string) ?? .null,
        ]))
    }
}
