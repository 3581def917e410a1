import AuthCore
import Foundation
import HTTPTypes

/// GoTrue's SMS: `GOTRUE_SMS_TEMPLATE` (default "Your code is {{ .Code }}") with a 6-digit code that
/// expires after `GOTRUE_SMS_OTP_EXP` (default 60 s). A number listed in `GOTRUE_SMS_TEST_OTP` gets
/// its fixed code and no text: the message is kept in the outbox as suppressed, with that reason.
struct SmsSender {
    let emulator: Emulator
    let project: SupabaseProject

    /// Sends a code to the user's phone; returns the outbox message id (GoTrue's `message_id`).
    @discardableResult
    /// - Parameter address: the number to text, the user's phone by default (a phone change texts the new one).
    func sendCode(to user: User, address: String? = nil, origin: RequestOrigin, purpose: MessagePurpose = .otp) async throws -> String {
        guard let phone = address ?? user.phone else { return "" }
        let config = project.config
        let testCode = config.smsTestOTP[GoTrueJSON.phone(phone)]
        if testCode == nil, !config.phoneAutoconfirm { try checkProjectLimit(to: user, phone: phone, purpose: purpose) }
        let code = try emulator.issueCode(in: user.tenant, CodeRequest(
            userId: user.id, purpose: purpose, channel: .sms, target: phone, length: config.smsOTPLength,
            lifetime: config.smsOTPExpiry, fixedCode: testCode), origin: origin)
        let text = config.smsTemplate.replacingOccurrences(of: "{{ .Code }}", with: code.code)
        // Test numbers get no SMS and no hook call; any other goes to the send SMS hook when it is on.
        let handedTo = testCode == nil ? try await handToHook(user: user, otp: code.code, phone: phone, smsType: nil, origin: origin) : nil
        let message = try emulator.deliver(OutgoingMessage(
            tenant: user.tenant, channel: .sms, to: phone, from: "Fauxth SMS", text: text, purpose: purpose, codes: [code.code],
            suppressedReason: testCode == nil ? nil : "GOTRUE_SMS_TEST_OTP: test numbers get their fixed code and no SMS", handedTo: handedTo),
            userId: user.id)
        try emulator.markSent(Self.stamp(purpose), in: user.tenant, userId: user.id)
        return testCode == nil ? message.id : "test-otp"
    }

    /// What GoTrue answers for a code it texted: `{"message_id": "test-otp"}` for a test number, else `{}` (its
    /// `sendPhoneConfirmation` drops the provider's id: `phone.go` shadows `messageID`).
    static func answer(_ sent: String) -> JSON { sent == "test-otp" ? ["message_id": "test-otp"] : [:] }

    /// A phone factor's challenge code (`challengePhoneFactor`): MFA's own length and template, alive as
    /// long as the challenge and checked against it, not the number. GoTrue sends it outside the
    /// project's SMS limit and without test OTPs, and so does Fauxth.
    func sendMFACode(for factor: Factor, challengeId: String, user: User, origin: RequestOrigin) async throws {
        let config = project.config
        let code = try emulator.issueCode(in: user.tenant, CodeRequest(
            userId: user.id, purpose: .mfa, channel: .sms, target: challengeId, length: config.mfaPhoneOTPLength,
            lifetime: config.mfaChallengeExpiry), origin: origin)
        let handedTo: String?
        do {
            handedTo = try await handToHook(user: user, otp: code.code, phone: factor.phone ?? "", smsType: "mfa", origin: origin)
        } catch {
            // GoTrue's MFA challenge hides the hook's own error behind this one (`challengePhoneFactor`).
            throw AuthHooks.internalError("error invoking hook")
        }
        try emulator.deliver(OutgoingMessage(
            tenant: user.tenant, channel: .sms, to: factor.phone ?? "", from: "Fauxth SMS",
            text: config.mfaPhoneTemplate.replacingOccurrences(of: "{{ .Code }}", with: code.code), purpose: .mfa, codes: [code.code],
            handedTo: handedTo), userId: user.id)
    }

    /// Calls the send SMS hook with GoTrue's `sms` object when it is on; answers what the outbox says the
    /// text was handed to, nil when GoTrue would send it through its provider.
    private func handToHook(user: User, otp: String, phone: String, smsType: String?, origin: RequestOrigin) async throws -> String? {
        guard let binding = project.config.hooks[.sendSMS] else { return nil }
        var sms: [String: JSON] = ["otp": .string(otp), "phone": .string(GoTrueJSON.phone(phone))]
        if let smsType { sms["sms_type"] = .string(smsType) }
        try await AuthHooks(emulator: emulator, project: project).run(
            .sendSMS, ["user": GoTrueJSON.user(user, config: project.config), "sms": .object(sms)], origin: origin, userId: user.id, identifier: phone)
        return "the send_sms hook at \(binding.uri)"
    }

    /// `GOTRUE_RATE_LIMIT_SMS_SENT` (the project's `sms_sent` policy): texts per project per window;
    /// a refused one is kept as suppressed.
    private func checkProjectLimit(to user: User, phone: String, purpose: MessagePurpose) throws {
        try emulator.admitSend(OutgoingMessage(tenant: user.tenant, channel: .sms, to: phone, from: "Fauxth SMS", text: "", purpose: purpose),
                               userId: user.id, perRecipient: false)
    }

    /// The stamp a text of `purpose` sets and its cooldown reads (GoTrue's `sendPhoneConfirmation`): a sign-in code
    /// stamps `confirmation_sent_at` too, verified number or not.
    static func stamp(_ purpose: MessagePurpose) -> SentMessage {
        switch purpose {
        case .phoneChange: .phoneChange
        case .reauthentication: .reauthentication
        default: .verification
        }
    }

    /// GoTrue's per-user SMS cooldown (`GOTRUE_SMS_MAX_FREQUENCY`), one clock per kind of text (its
    /// `sendPhoneConfirmation` reads the stamp of the kind it sends), through the core's cooldown.
    func checkFrequency(for user: User, address: String? = nil, purpose: MessagePurpose = .otp) throws {
        try emulator.checkCooldown(SendCooldown(window: project.config.smsMaxFrequency, per: .user(Self.stamp(purpose)), source: "GOTRUE_SMS_MAX_FREQUENCY"),
                                   for: OutgoingMessage(tenant: user.tenant, channel: .sms, to: address ?? user.phone ?? "", from: "Fauxth SMS", text: "",
                                                        purpose: purpose),
                                   userId: user.id)
    }
}
