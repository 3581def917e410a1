import AuthCore
import Foundation

/// Cognito's codes and the messages that carry them, with the pool's templates (`{####}` is the code,
/// `{username}` the user name), kept in the outbox. Codes are single use, expire, allow five wrong
/// tries, and follow the pool's `fixed_code` when it sets one.
///
/// With triggers, a message goes as the pool's functions say: a custom sender function
/// (`CustomEmailSender`, `CustomSMSSender`) gets the code encrypted and sends it itself; else a custom
/// message function may write the text. The outbox keeps the message either way, with its code.
struct CognitoMailer {
    let emulator: Emulator
    let pool: CognitoPool
    /// The pool's triggers on behalf of the request; nil where Cognito calls none.
    var triggers: LambdaTriggers?

    init(emulator: Emulator, pool: CognitoPool) {
        self.emulator = emulator
        self.pool = pool
    }

    init(triggers: LambdaTriggers) {
        self.init(emulator: triggers.emulator, pool: triggers.pool)
        self.triggers = triggers
    }

    /// Why a message goes out, in the trigger sources' words (`SignUp`, `ResendCode`, `ForgotPassword`,
    /// `UpdateUserAttribute`, `VerifyUserAttribute`, `AdminCreateUser`, `Authentication`), and for whom:
    /// the custom message and custom sender functions are told both.
    struct Cause: Sendable {
        var source: String
        var clientId: String?
        var clientMetadata: JSON = .null
    }

    /// Why a code is sent: its outbox purpose, lifetime and template.
    enum Kind {
        case confirmSignUp, verifyAttribute, forgotPassword, mfa
        /// A passwordless sign-in code (`USER_AUTH`'s `EMAIL_OTP` and `SMS_OTP`).
        case signIn

        func purpose(_ channel: Channel) -> MessagePurpose {
            switch self {
            case .confirmSignUp, .verifyAttribute: channel == .email ? .verifyEmail : .otp
            case .forgotPassword: .resetPassword
            case .mfa: .mfa
            case .signIn: .otp
            }
        }

        /// Sign-up, verification and reset codes last a day; sign-in and MFA codes three minutes.
        var lifetime: TimeInterval { self == .mfa || self == .signIn ? 180 : 86400 }
    }

    static let maxAttempts = 5

    /// Sends a code to `destination` (an email or an E.164 number); answers its `CodeDeliveryDetails`.
    @discardableResult
    func send(_ kind: Kind, to destination: String, user: User, origin: RequestOrigin = RequestOrigin(), cause: Cause) async throws -> JSON {
        let channel: Channel = destination.contains("@") ? .email : .sms
        let senderFunction = triggers?.sender(for: channel)
        let custom = try await customText(for: [channel], user: user, cause: cause)
        var (subject, template) = self.template(kind, channel: channel)
        if channel == .email {
            subject = custom?.emailSubject ?? subject
            template = custom?.emailMessage ?? template
        } else {
            template = custom?.smsMessage ?? template
        }
        // Codes a user can ask for again count per recipient (Cognito's LimitExceededException on
        // resends); sign-in and MFA codes only against the pool's sending quota.
        try emulator.admitSend(OutgoingMessage(tenant: pool.id, channel: channel, to: destination, from: channel == .email ? sender : "AWS",
                                               subject: channel == .email ? subject : nil, text: "", purpose: kind.purpose(channel)),
                               userId: user.id, perRecipient: kind != .mfa && kind != .signIn)
        let issued = try emulator.issueCode(in: pool.id, CodeRequest(userId: user.id, purpose: kind.purpose(channel), channel: channel, target: destination,
                                                                     lifetime: kind.lifetime, fixedCode: pool.fixedCode), origin: origin)
        var handedTo: String?
        if let senderFunction, let triggers {
            handedTo = await triggers.handToSender(senderFunction, channel: channel, cause: cause, user: user, code: issued.code)
        }
        deliverText(template, subject: subject, code: issued.code, to: destination, channel: channel, purpose: kind.purpose(channel), user: user,
                    handedTo: handedTo)
        return CognitoUsers.delivery(destination)
    }

    /// Uses a code sent to `destination` for `user`: `CodeMismatchException` for a wrong one (five tries),
    /// `ExpiredCodeException` for an old or used one. A code is its user's: another user's code to the same
    /// address (where a pool lets users share one) is a wrong code.
    func verify(_ kind: Kind, code: String, destination: String, user: User, origin: RequestOrigin) throws {
        let channel: Channel = destination.contains("@") ? .email : .sms
        do {
            _ = try emulator.consumeCode(in: pool.id, purposes: [kind.purpose(channel)], .code(code, target: destination), forUser: user.id,
                                         maxAttempts: Self.maxAttempts, origin: origin)
        } catch let error as AuthError {
            throw CognitoError(core: error)
        }
    }

    /// The custom message function's texts for a message on `channels`. A custom sender writes its own
    /// message, so Cognito asks no custom message function when every channel has one.
    private func customText(for channels: [Channel], user: User, cause: Cause) async throws -> LambdaTriggers.CustomText? {
        guard let triggers, channels.contains(where: { triggers.sender(for: $0) == nil }) else { return nil }
        return try await triggers.customMessage(source: "CustomMessage_\(cause.source)", user: user, clientId: cause.clientId,
                                                clientMetadata: cause.clientMetadata)
    }

    /// `AdminCreateUser`'s invitation with the temporary password.
    func invite(_ user: User, username: String, temporaryPassword: String, channels: [Channel], cause: Cause) async throws {
        guard !channels.isEmpty else { return }
        let template = pool.pool["AdminCreateUserConfig"]?["InviteMessageTemplate"]
        let custom = try await customText(for: channels, user: user, cause: cause)
        for channel in channels {
            guard let destination = channel == .email ? user.email : user.phone else { continue }
            var handedTo: String?
            if let triggers, let function = triggers.sender(for: channel) {
                handedTo = await triggers.handToSender(function, channel: channel, cause: cause, user: user, code: temporaryPassword)
            }
            let text = channel == .email
                ? (custom?.emailMessage ?? template?["EmailMessage"]?.stringValue ?? "Your username is {username} and temporary password is {####}. ")
                : (custom?.smsMessage ?? template?["SMSMessage"]?.stringValue ?? "Your username is {username} and temporary password is {####}. ")
            deliverText(text.replacingOccurrences(of: "{username}", with: username),
                        subject: custom?.emailSubject ?? template?["EmailSubject"]?.stringValue ?? "Your temporary password",
                        code: temporaryPassword, to: destination, channel: channel, purpose: .invite, user: user, handedTo: handedTo)
        }
    }

    private func template(_ kind: Kind, channel: Channel) -> (subject: String, text: String) {
        let p = pool.pool, messages = p["VerificationMessageTemplate"]
        switch (kind, channel) {
        case (.mfa, .sms), (.signIn, .sms):
            return ("", p["SmsMfaConfiguration"]?["SmsAuthenticationMessage"]?.stringValue ?? p["SmsAuthenticationMessage"]?.stringValue
                        ?? "Your authentication code is {####}. ")
        case (.mfa, .email), (.signIn, .email): return (p["EmailMfaConfiguration"]?["Subject"]?.stringValue ?? "Your sign-in code",
                                     p["EmailMfaConfiguration"]?["Message"]?.stringValue ?? "Your sign-in code is {####}. ")
        case (_, .sms): return ("", messages?["SmsMessage"]?.stringValue ?? p["SmsVerificationMessage"]?.stringValue ?? "Your verification code is {####}. ")
        case (_, .email):
            return (messages?["EmailSubject"]?.stringValue ?? p["EmailVerificationSubject"]?.stringValue ?? "Your verification code",
                    messages?["EmailMessage"]?.stringValue ?? p["EmailVerificationMessage"]?.stringValue ?? "Your verification code is {####}. ")
        }
    }

    /// Keeps the message in the outbox: sent, or (`handedTo`) handed to a custom sender function, with the
    /// text the pool's templates give so a tester still reads the code.
    private func deliverText(_ template: String, subject: String, code: String, to destination: String, channel: Channel,
                             purpose: MessagePurpose, user: User, handedTo: String? = nil) {
        let text = template.replacingOccurrences(of: "{####}", with: code)
        _ = try? emulator.deliver(OutgoingMessage(tenant: pool.id, channel: channel, to: destination, from: channel == .email ? sender : "AWS",
                                                  subject: channel == .email ? subject : nil, text: text, purpose: purpose, codes: [code],
                                                  handedTo: handedTo),
                                  userId: user.id)
    }

    /// The address the pool's emails come from.
    var sender: String { pool.pool["EmailConfiguration"]?["From"]?.stringValue ?? "no-reply@verificationemail.com" }

    /// A temporary password that satisfies the pool's policy.
    static func temporaryPassword(_ generator: Generator, policy: [String: JSON]) -> String {
        let length = max(policy["MinimumLength"]?.intValue ?? 8, 8)
        let base = generator.string(max(length - 4, 4), alphabet: "abcdefghijkmnopqrstuvwxyz23456789")
        return base + generator.string(1, alphabet: "ABCDEFGHJKLMNPQRSTUVWXYZ") + generator.string(1, alphabet: "abcdefghijkmnopqrstuvwxyz")
            + generator.string(1, alphabet: "23456789") + generator.string(1, alphabet: symbols)
    }

    /// What Cognito counts as a symbol; a space counts too, unless it leads or trails (`PasswordPolicy.countedOnlyInside`).
    static let symbols = "^$*.[]{}()?-\"!@#%&/\\,><':;|_~`+="

    /// The classes a pool may require, in the order Cognito checks them, with its words for a password without one.
    /// Letters and numbers are Basic Latin only, as Cognito's policy says: `é` is no lowercase letter and `١` no number.
    private static let classes: [(setting: String, characters: String, missing: String)] = [
        ("RequireLowercase", "abcdefghijklmnopqrstuvwxyz", "Password must have lowercase characters"),
        ("RequireUppercase", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "Password must have uppercase characters"),
        ("RequireNumbers", "0123456789", "Password must have numeric characters"),
        ("RequireSymbols", symbols + " ", "Password must have symbol characters"),
    ]

    /// The pool's password policy: `InvalidPasswordException` with Cognito's wording for the first shortfall.
    static func checkPassword(_ password: String, pool: CognitoPool) throws {
        let policy = pool.passwordPolicy
        let required = classes.filter { policy[$0.setting]?.boolValue ?? true }
        let rules = PasswordPolicy(minLength: policy["MinimumLength"]?.intValue ?? 8, unit: .characters,
                                   requiredCharacterSets: required.map(\.characters), countedOnlyInside: [" "])
        let reason = switch rules.shortfalls(password).first {
        case nil: nil as String?
        case .tooShort?, .tooLong?: "Password not long enough"
        case .missing(let index)?: required[index].missing
        }
        if let reason { throw CognitoError(.invalidPassword, "Password did not conform with policy: \(reason)") }
    }
}
