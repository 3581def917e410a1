import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// The v2 `mfaEnrollment:*` and `mfaSignIn:*` endpoints, for SMS and TOTP second factors (TOTP being
/// what the Firebase emulator lacks). TOTP codes are RFC 6238 (SHA-1, 6 digits, 30 s, ±1 step) on the
/// emulator clock.
enum MFA {
    /// Firebase's limit on enrolled second factors.
    static let maxFactors = 5
    static let smsTemplate = "%LOGIN_CODE% is your verification code for %APP_NAME%."

    static func startEnrollment(_ call: FirebaseCall) async throws -> Response {
        let phoneInfo = try call.body.object("phoneEnrollmentInfo")
        let totp = try phoneInfo == nil && call.body.object("totpEnrollmentInfo") != nil
        // Generating a TOTP secret needs a recent sign-in (flutterfire #12087); texting a phone code is documented
        // nowhere to, so the phone enrolment is refused at its finalize, as `enroll` is documented.
        let caller = try enrollingCaller(call, totp: totp, needsRecentSignIn: totp)
        let scope = caller.scope, tenant = scope.coreTenant
        if let phoneInfo {
            guard let text = try phoneInfo.string("phoneNumber"), text.hasPrefix("+"), let phone = try? Identifiers.phone(text) else {
                throw FirebaseError(.invalidMFAPhoneNumber, "Invalid format.")
            }
            let factors = try call.emulator.factors(in: tenant, userId: caller.user.id)
            if factors.contains(where: { $0.verified && $0.phone == phone }) {
                throw FirebaseError(.secondFactorExists, "Phone number already enrolled as second factor for this account.")
            }
            let sessionInfo = try await Phone.send(call, scope: scope, phone: phone, purpose: .mfa, flow: "mfa-enrollment", userId: caller.user.id,
                                             template: smsTemplate)
            return .json(["phoneSessionInfo": ["sessionInfo": .string(sessionInfo)]])
        }
        guard try call.body.object("totpEnrollmentInfo") != nil else { throw FirebaseError(.invalidArgument, "((Missing phoneEnrollmentInfo.))") }
        // Nothing is stored until the code proves the authenticator has the secret: the signed
        // sessionInfo carries it, so abandoned enrollments leave nothing behind.
        let secret = Emulator.newTOTPSecret(call.emulator.generator)
        let deadline = call.emulator.clock.now.addingTimeInterval(600)
        let sessionInfo = try JWS.sign(["sub": .string(caller.user.id), "secret": .string(secret), "exp": .int(Int(deadline.timeIntervalSince1970))],
                                       with: enrollmentKey(call))
        return .json(["totpSessionInfo": ["sharedSecretKey": .string(secret), "verificationCodeLength": 6,
                                          "hashingAlgorithm": "SHA1", "periodSec": 30, "sessionInfo": .string(sessionInfo),
                                          "finalizeEnrollmentTime": .string(RFC3339.string(from: deadline))]])
    }

    /// Enrols the factor, then answers tokens that name it, as the emulator's do (`sign_in_second_factor`), from a new
    /// session: production revokes the user's other sessions on an enrolment, as the SDK documents for `enroll`.
    static func finalizeEnrollment(_ call: FirebaseCall) async throws -> Response {
        let phoneInfo = try call.body.object("phoneVerificationInfo")
        let caller = try enrollingCaller(call, totp: phoneInfo == nil && call.body.object("totpVerificationInfo") != nil, needsRecentSignIn: true)
        let scope = caller.scope, tenant = scope.coreTenant, userId = caller.user.id
        let name = try call.body.string("displayName")
        let factor: Factor
        if let phoneInfo {
            let (phone, _) = try Phone.verify(call, scope: scope, sessionInfo: try phoneInfo.string("sessionInfo"), code: try phoneInfo.string("code"),
                                              purposes: [.mfa])
            let enrolled = try call.emulator.enrollPhone(in: tenant, userId: userId, phone: phone, friendlyName: nil, maxFactors: maxFactors + 1)
            factor = try call.emulator.markFactorVerified(in: tenant, userId: userId, id: enrolled.id, friendlyName: name)
        } else if let totpInfo = try call.body.object("totpVerificationInfo") {
            let key = enrollmentKey(call)
            guard let sessionInfo = try totpInfo.string("sessionInfo"), let claims = try? JWS.verify(sessionInfo, keys: [key.verificationKey]).claims,
                  claims["sub"]?.stringValue == userId, let secret = claims["secret"]?.stringValue,
                  Base32.decode(secret) != nil else { throw FirebaseError(.invalidSessionInfo) }
            guard !call.emulator.clock.hasPassed(expiryOf: claims, required: true) else { throw FirebaseError(.sessionExpired) }
            factor = try call.emulator.enrollVerifiedTOTP(in: tenant, userId: userId, secret: secret, code: try totpInfo.string("verificationCode") ?? "",
                                                          friendlyName: name, maxFactors: maxFactors, drift: scope.settings.totpAdjacentIntervals,
                                                          origin: call.origin)
        } else {
            throw FirebaseError(.invalidArgument, "((Missing phoneVerificationInfo.))")
        }
        try call.emulator.revokeTokens(in: tenant, userId: userId, reason: "second_factor_enrolled", origin: call.origin)
        let issued = try call.emulator.startSession(for: try call.emulator.requireUser(in: tenant, id: userId),
                                                    method: FirebaseCall.provider(of: caller.claims), origin: call.origin,
                                                    refreshToken: FirebaseTokens.newRefreshToken)
        let session = try call.emulator.elevate(in: tenant, sessionId: issued.session.id,
                                                method: FirebaseTokens.SignIn.amrMethod(secondFactor: factor.kind, enrollmentId: factor.id),
                                                origin: call.origin, recordsSignIn: false)
        let tokens = try call.tokens(for: session, refreshToken: issued.refreshToken, scope: scope, user: issued.user)
        return .json(["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken)])
    }

    /// Removes a factor. Recent sign-in is needed, as for enrolling; other sessions stay ("Sessions are not revoked when
    /// the account is unenrolled", the SDK's `unenroll`).
    static func withdraw(_ call: FirebaseCall) async throws -> Response {
        let caller = try call.caller(idToken: try call.body.string("idToken"))
        try call.requireRecentSignIn(of: caller)
        guard let id = try call.body.string("mfaEnrollmentId"), !id.isEmpty else { throw FirebaseError(.mfaEnrollmentNotFound) }
        do {
            try call.emulator.deleteFactor(in: caller.scope.coreTenant, userId: caller.user.id, id: id)
        } catch AuthError.factorNotFound {
            throw FirebaseError(.mfaEnrollmentNotFound)
        }
        let tokens = try call.startSession(caller.user, scope: caller.scope, provider: FirebaseCall.provider(of: caller.claims))
        return .json(["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken), "expiresIn": .string(String(tokens.expiresIn))])
    }

    static func startSignIn(_ call: FirebaseCall) async throws -> Response {
        let (scope, user, _) = try pending(call)
        guard let id = try call.body.string("mfaEnrollmentId"), !id.isEmpty else {
            throw FirebaseError(.missingMFAEnrollmentID, "No second factor identifier is provided.")
        }
        let factor = try call.emulator.requireFactor(in: scope.coreTenant, userId: user.id, id: id)
        guard factor.verified, factor.kind == "phone", let phone = factor.phone else { throw FirebaseError(.mfaEnrollmentNotFound) }
        let sessionInfo = try await Phone.send(call, scope: scope, phone: phone, purpose: .mfa, flow: "mfa-sign-in", userId: user.id, template: smsTemplate)
        return .json(["phoneResponseInfo": ["sessionInfo": .string(sessionInfo)]])
    }

    /// Completes a sign-in with the second factor: the session is `aal2`, and its tokens say which factor.
    static func finalizeSignIn(_ call: FirebaseCall) async throws -> Response {
        let (scope, user, provider) = try pending(call)
        let factors = try call.emulator.factors(in: scope.coreTenant, userId: user.id).filter(\.verified)
        let factor: Factor
        if let phoneInfo = try call.body.object("phoneVerificationInfo") {
            let (phone, _) = try Phone.verify(call, scope: scope, sessionInfo: try phoneInfo.string("sessionInfo"), code: try phoneInfo.string("code"),
                                              purposes: [.mfa])
            guard let match = factors.first(where: { $0.kind == "phone" && $0.phone == phone }) else { throw FirebaseError(.mfaEnrollmentNotFound) }
            factor = match
        } else if let totpInfo = try call.body.object("totpVerificationInfo") {
            guard let id = try call.body.string("mfaEnrollmentId"), let match = factors.first(where: { $0.id == id && $0.kind == "totp" }) else {
                throw FirebaseError(.mfaEnrollmentNotFound)
            }
            try call.emulator.verifyTOTP(in: scope.coreTenant, factor: match, code: try totpInfo.string("verificationCode") ?? "",
                                         drift: scope.settings.totpAdjacentIntervals, origin: call.origin)
            factor = match
        } else {
            throw FirebaseError(.invalidArgument, "((Missing phoneVerificationInfo.))")
        }
        // beforeSignIn runs once the second factor is verified, as Identity Platform documents.
        let (signedIn, sessionClaims) = try await call.beforeSignIn(user, scope: scope, .init(provider, secondFactor: factor.kind))
        let issued = try call.emulator.startSession(for: signedIn, method: provider, origin: call.origin, claims: sessionClaims,
                                                    refreshToken: FirebaseTokens.newRefreshToken)
        let session = try call.emulator.elevate(in: scope.coreTenant, sessionId: issued.session.id,
                                                method: FirebaseTokens.SignIn.amrMethod(secondFactor: factor.kind, enrollmentId: factor.id),
                                                origin: call.origin)
        let tokens = try call.tokens(for: session, refreshToken: issued.refreshToken, scope: scope)
        return .json(["idToken": .string(tokens.idToken), "refreshToken": .string(tokens.refreshToken)])
    }

    /// The caller of an enrollment: the kind of factor on for the project or tenant, a verified email, a first factor MFA
    /// can follow, and where `needsRecentSignIn`, a recent sign-in ("Recent re-authentication is required", the SDK's
    /// `enroll`).
    private static func enrollingCaller(_ call: FirebaseCall, totp: Bool, needsRecentSignIn: Bool) throws -> TokenCaller {
        let caller = try call.caller(idToken: try call.body.string("idToken"))
        // The SMS wording is Identity Platform's; the TOTP one follows it (production's is not known).
        if totp, !caller.scope.settings.totpMFAEnabled { throw FirebaseError(.operationNotAllowed, "TOTP based MFA not enabled.") }
        if !totp, !caller.scope.settings.smsMFAEnabled { throw FirebaseError(.operationNotAllowed, "SMS based MFA not enabled.") }
        let provider = FirebaseCall.provider(of: caller.claims)
        guard !["anonymous", "phone", "custom", "gc.apple.com"].contains(provider) else {
            throw FirebaseError(.unsupportedFirstFactor, "MFA is not available for the given first factor.")
        }
        guard caller.user.emailVerifiedAt != nil else {
            throw FirebaseError(.unverifiedEmail, "Need to verify email first before enrolling second factors.")
        }
        if needsRecentSignIn { try call.requireRecentSignIn(of: caller) }
        return caller
    }

    /// The user behind an MFA pending credential, in the request's project.
    private static func pending(_ call: FirebaseCall) throws -> (FirebaseScope, User, String) {
        guard let credential = try call.body.string("mfaPendingCredential"), !credential.isEmpty else {
            throw FirebaseError(.missingMFAPendingCredential, "Request does not have MFA pending credential.")
        }
        let (userId, tenant, provider) = try FirebaseTokens.readPendingCredential(credential, emulator: call.emulator)
        let project = try call.projectId()
        guard tenant == project || tenant.hasPrefix(project + ":") else { throw FirebaseError(.invalidMFAPendingCredential) }
        let scope = try call.scope(tokenTenant: tenant == project ? nil : String(tenant.dropFirst(project.count + 1)))
        guard let user = try call.emulator.user(in: scope.coreTenant, id: userId) else { throw FirebaseError(.userNotFound) }
        try call.emulator.checkCanSignIn(user, stage: .challenge, origin: call.origin)
        return (scope, user, provider)
    }

    private static func enrollmentKey(_ call: FirebaseCall) -> SigningKey {
        call.emulator.keyring.hmacKey("firebase-totp-enrollment", generator: call.emulator.generator)
    }
}

/// Admin edits of second factors (`accounts:update` with `mfa.enrollments`, `batchCreate` with `mfaInfo`).
enum MFAAdmin {
    /// Replaces a user's factors with `enrollments` (phone ones; TOTP secrets cannot be imported).
    /// Every number is checked before anything changes, so a refused list leaves the user's factors as they were; a
    /// number given twice is kept once, as the emulator's getMfaEnrollmentsFromRequest does ("the real API is lenient
    /// and removes duplicates").
    static func replaceEnrollments(_ call: FirebaseCall, scope: FirebaseScope, user: User, enrollments: [JSON]) throws {
        let tenant = scope.coreTenant
        var wanted: [(phone: String, name: String?)] = []
        for enrollment in enrollments {
            guard let text = enrollment["phoneInfo"]?.stringValue, text.hasPrefix("+"), let phone = try? Identifiers.phone(text) else {
                throw FirebaseError(.invalidMFAPhoneNumber, "Invalid format.")
            }
            if !wanted.contains(where: { $0.phone == phone }) { wanted.append((phone, enrollment["displayName"]?.stringValue)) }
        }
        for factor in try call.emulator.factors(in: tenant, userId: user.id) {
            try call.emulator.deleteFactor(in: tenant, userId: user.id, id: factor.id)
        }
        for (phone, name) in wanted {
            let factor = try call.emulator.enrollPhone(in: tenant, userId: user.id, phone: phone, friendlyName: nil, maxFactors: MFA.maxFactors + 1)
            try call.emulator.markFactorVerified(in: tenant, userId: user.id, id: factor.id, friendlyName: name)
        }
    }
}
