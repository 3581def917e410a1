import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:sendVerificationCode` and `accounts:signInWithPhoneNumber`: an SMS code bound to the
/// `sessionInfo` the sender gets back. Codes expire (`phone_code_ttl`, five minutes by default), one
/// number gets at most one code per `phone_resend_interval` when the project sets one (the emulator has
/// none), and the project's test numbers get their fixed code with nothing texted.
enum Phone {
    static func sendCode(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.scope()
        let phone = try number(try call.body.string("phoneNumber"))
        if scope.settings.mfaEnabled, let owner = try call.emulator.user(in: scope.coreTenant, .phone(phone)),
           try call.emulator.factors(in: scope.coreTenant, userId: owner.id).contains(where: \.verified) {
            throw FirebaseError(.unsupportedFirstFactor, "A phone number cannot be set as a first factor on an SMS based MFA user.")
        }
        let sessionInfo = try await send(call, scope: scope, phone: phone, purpose: .otp, flow: "sign-in", userId: nil,
                                   template: "%LOGIN_CODE% is your verification code for %APP_NAME%.")
        return .json(["sessionInfo": .string(sessionInfo)])
    }

    /// An E.164 number, or `INVALID_PHONE_NUMBER : Invalid format.` (also for a missing one, as the
    /// emulator answers).
    static func number(_ text: String?) throws -> String {
        guard let text, text.hasPrefix("+"), let phone = try? Identifiers.phone(text) else {
            throw FirebaseError(.invalidPhoneNumber, "Invalid format.")
        }
        return phone
    }

    /// Issues a code for `phone` and texts it (or, for a test number, keeps the text unsent); answers the
    /// `sessionInfo` that proves which code a later request means. The resend interval counts per number
    /// and `flow`, so enrolling a second factor and signing in with it straight after both get their code.
    static func send(_ call: FirebaseCall, scope: FirebaseScope, phone: String, purpose: MessagePurpose, flow: String, userId: String?,
                     template: String) async throws -> String {
        let emulator = call.emulator
        let fixed = scope.settings.testPhoneNumbers[phone]
        if fixed == nil {
            // A test number is texted nothing, so no beforeSendSms either.
            let type = ["mfa-sign-in": "MULTI_FACTOR_SIGN_IN", "mfa-enrollment": "MULTI_FACTOR_ENROLLMENT"][flow] ?? "SIGN_IN_OR_SIGN_UP"
            try await call.beforeSendSms(to: phone, type: type, scope: scope, userId: userId)
            let message = OutgoingMessage(tenant: scope.coreTenant, channel: .sms, to: phone, from: "Firebase", text: "", purpose: purpose)
            try emulator.checkCooldown(SendCooldown(window: scope.settings.phoneResendInterval, per: .recipient(flow: flow), source: "phone_resend_interval"),
                                       for: message, userId: userId)
            try emulator.admitSend(message, userId: userId, scope: flow)
        }
        let sessionInfo = emulator.generator.string(200, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let issued = try emulator.issueCode(in: scope.coreTenant, CodeRequest(userId: userId, purpose: purpose, channel: .sms, target: phone,
                                                                              lifetime: scope.settings.phoneCodeTTL, linkToken: { _ in sessionInfo },
                                                                              fixedCode: fixed), origin: call.origin)
        let text = template.replacingOccurrences(of: "%LOGIN_CODE%", with: issued.code).replacingOccurrences(of: "%APP_NAME%", with: scope.displayName)
        try emulator.deliver(OutgoingMessage(tenant: scope.coreTenant, channel: .sms, to: phone, from: "Firebase", text: text, purpose: purpose,
                                             codes: [issued.code],
                                             suppressedReason: fixed == nil ? nil : "a test phone number: Firebase sends nothing to it"), userId: userId)
        return sessionInfo
    }

    /// Uses a code: `INVALID_SESSION_INFO` for an unknown session, `INVALID_CODE` for a wrong code (the
    /// code stays usable), `SESSION_EXPIRED` past its lifetime. Answers the number it was sent to.
    static func verify(_ call: FirebaseCall, scope: FirebaseScope, sessionInfo: String?, code: String?, purposes: [MessagePurpose]) throws
        -> (phone: String, userId: String?) {
        guard let sessionInfo, !sessionInfo.isEmpty else { throw FirebaseError(.missingSessionInfo) }
        guard let code, !code.isEmpty else { throw FirebaseError(.missingCode) }
        do {
            let used = try call.emulator.consumeCode(in: scope.coreTenant, purposes: purposes, .codeWithHandle(code, handle: sessionInfo),
                                                     origin: call.origin)
            return (used.target, used.userId)
        } catch AuthError.codeInvalid {
            throw FirebaseError(.invalidSessionInfo)
        } catch AuthError.codeExpired {
            throw FirebaseError(.sessionExpired)
        }
    }

    static func signIn(_ call: FirebaseCall) async throws -> Response {
        let body = call.body
        let linking = try body.string("idToken").flatMap { $0.isEmpty ? nil : $0 }
        let caller = try linking.map { try call.caller(idToken: $0) }
        let scope = try caller?.scope ?? call.scope()
        let phone: String
        let usesProof = (try body.string("temporaryProof"))?.isEmpty == false
        if usesProof, let proof = try body.string("temporaryProof") {
            // The emulator's order: a proof comes with the number it proves.
            guard let number = try body.string("phoneNumber"), !number.isEmpty else { throw FirebaseError(.missingPhoneNumber) }
            phone = try readProof(proof, call: call, phone: number)
        } else {
            phone = try verify(call, scope: scope, sessionInfo: try body.string("sessionInfo"), code: try body.string("code"), purposes: [.otp]).phone
        }
        let owner = try call.emulator.user(in: scope.coreTenant, .phone(phone))
        if let caller {
            if let owner, owner.id != caller.user.id {
                // A proof that is already the answer to this refusal is refused outright, so an app cannot loop on it.
                guard !usesProof else { throw FirebaseError(.phoneNumberExists) }
                // The number belongs to someone else: Firebase answers a proof the app can sign in with instead.
                return .json(["phoneNumber": .string(phone), "temporaryProof": .string(try proof(for: phone, call: call)),
                              "temporaryProofExpiresIn": "3600"])
            }
            let user = try call.emulator.updateUser(in: scope.coreTenant, id: caller.user.id, UserChanges(phone: phone, phoneVerified: true, isAnonymous: false),
                                                    origin: call.origin)
            var answer = try await call.signIn(user, scope: scope, provider: "phone", isNewUser: false, allowMFA: false, blocking: .init("phone"))
            answer["phoneNumber"] = .string(phone)
            return .json(.object(answer))
        }
        var user: User
        if let owner {
            user = owner
        } else {
            // The SDK's reauthenticateWithPhoneNumber says `operation: REAUTH` and reads USER_NOT_FOUND as another
            // user's number (`auth/user-mismatch`): a reauthentication never signs a new user up.
            if try body.string("operation") == "REAUTH" { throw FirebaseError(.userNotFound) }
            let new = try await call.beforeCreate(NewUser(id: SignUp.newLocalId(call.emulator), phone: phone, phoneVerified: true), scope: scope, .init("phone"))
            user = try call.emulator.createUser(in: scope.coreTenant, new, origin: call.origin, event: .userSignedUp)
        }
        var answer = try await call.signIn(user, scope: scope, provider: "phone", isNewUser: owner == nil, blocking: .init("phone"))
        answer["phoneNumber"] = .string(phone)
        return .json(.object(answer))
    }

    private static func proof(for phone: String, call: FirebaseCall) throws -> String {
        let exp = Int(call.emulator.clock.now.timeIntervalSince1970) + 3600
        return try JWS.sign(["phone": .string(phone), "exp": .int(exp)], with: call.emulator.keyring.hmacKey("firebase-phone", generator: call.emulator.generator))
    }

    private static func readProof(_ proof: String, call: FirebaseCall, phone: String?) throws -> String {
        let key = call.emulator.keyring.hmacKey("firebase-phone", generator: call.emulator.generator)
        guard let claims = try? JWS.verify(proof, keys: [key.verificationKey]).claims, let proven = claims["phone"]?.stringValue,
              !call.emulator.clock.hasPassed(expiryOf: claims, required: true),
              phone.map({ (try? Identifiers.phone($0)) == proven }) ?? true else {
            throw FirebaseError(.invalidTemporaryProof)
        }
        return proven
    }
}
