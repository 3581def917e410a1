import AuthCore
import Foundation
import HTTPTypes

/// GoTrue's emails, with its default subjects and templates (`mailer/templatemailer`). Each carries
/// one OTP that works both as a code and, hashed, as the link token
/// (`token = hex(SHA-224(email + otp))`), as GoTrue does. The code is also written into the body so a
/// tester can type it; GoTrue's default templates show only the link.
struct Mailer {
    let emulator: Emulator
    let project: SupabaseProject
    /// Where `/verify` links point: `API_EXTERNAL_URL`, else this server's own `/auth/v1`.
    let externalURL: String

    /// The emails GoTrue sends, with their verification type, purpose, subject and template text.
    enum Kind {
        case confirmation, magicLink, recovery, invite, emailChange, reauthentication

        /// The `amr` method a PKCE flow started by this email records (GoTrue's authentication method).
        var authenticationMethod: String {
            switch self {
            case .confirmation: "email/signup"
            case .magicLink: "magiclink"
            case .recovery: "recovery"
            case .invite: "invite"
            case .emailChange: "email_change"
            case .reauthentication: "reauthentication"
            }
        }

        var type: String {
            switch self {
            case .confirmation: "signup"
            case .magicLink: "magiclink"
            case .recovery: "recovery"
            case .invite: "invite"
            case .emailChange: "email_change"
            case .reauthentication: "reauthentication"
            }
        }

        /// The stamp the email sets on the user (GoTrue's `mail.go`: an invitation stamps `confirmation_sent_at`, a
        /// magic link `recovery_sent_at`).
        var sentMessage: SentMessage {
            switch self {
            case .confirmation, .invite: .verification
            case .magicLink, .recovery: .recovery
            case .emailChange: .emailChange
            case .reauthentication: .reauthentication
            }
        }

        var purpose: MessagePurpose {
            switch self {
            case .confirmation: .verifyEmail
            case .magicLink: .magicLink
            case .recovery: .resetPassword
            case .invite: .invite
            case .emailChange: .emailChange
            case .reauthentication: .reauthentication
            }
        }

        /// Subject, heading, lead sentence and link text of GoTrue's default template.
        var template: (subject: String, heading: String, lead: String, action: String) {
            switch self {
            case .confirmation: ("Confirm your email address", "Confirm your signup", "Follow this link to confirm your user:", "Confirm your mail")
            case .magicLink: ("Your sign-in link", "Magic Link", "Follow this link to login:", "Log In")
            case .recovery: ("Reset your password", "Reset Password", "Follow this link to reset the password for your user:", "Reset Password")
            case .invite: ("You've been invited", "You have been invited", "You have been invited to create a user. Follow this link to accept the invite:", "Accept the invite")
            case .emailChange: ("Confirm your new email address", "Confirm Change of Email", "Follow this link to confirm the update of your email:", "Change Email")
            case .reauthentication: ("Confirm reauthentication", "Confirm reauthentication", "Enter the code below.", "")
            }
        }
    }

    /// A code issued for an email, and the verify link that carries it.
    struct Prepared {
        let code: IssuedCode
        let link: String
    }

    /// Issues the code and builds the link without sending anything (`/admin/generate_link`).
    /// - Parameter address: where the email goes, the user's email by default (an email change also
    ///   writes to the new address).
    func prepare(_ kind: Kind, for user: User, address: String? = nil, redirectTo: String, origin: RequestOrigin, pkce: Bool = false) throws -> Prepared {
        let target = (address ?? user.email ?? "").lowercased()
        let config = project.config
        var request = CodeRequest(
            userId: user.id, purpose: kind.purpose, channel: .email, target: target,
            length: config.mailerOTPLength, lifetime: config.mailerOTPExpiry,
            linkToken: { otp in (pkce ? PKCE.tokenPrefix : "") + SHA224.hash(Array((target + otp).utf8)).hex })
        // "Magic Link is just a recovery with a different template" (mail.go): both are the user's one recovery_token.
        if kind == .magicLink { request.replaces = [.resetPassword] }
        if kind == .recovery { request.replaces = [.magicLink] }
        let code = try emulator.issueCode(in: user.tenant, request, origin: origin)
        return Prepared(code: code, link: verifyLink(token: code.linkToken ?? "", type: kind.type, redirectTo: redirectTo))
    }

    /// Sends `kind` to the user's email and records when (for the per-user send frequency).
    /// With `pkce`, the user's open PKCE flow must already exist (`Emulator.startFlow`). With the send
    /// email hook on, the hook delivers it: the outbox keeps the message as handed over, and a hook that
    /// fails fails the request, as in GoTrue.
    func send(_ kind: Kind, to user: User, address: String? = nil, redirectTo: String, origin: RequestOrigin, pkce: Bool = false) async throws {
        guard let email = address ?? user.email else { return }
        try checkProjectLimit(kind, to: user, address: email)
        let prepared = try prepare(kind, for: user, address: email, redirectTo: redirectTo, origin: origin, pkce: pkce)
        let code = prepared.code
        let handedTo = try await handToHook(kind, user: user, data: ["token": .string(code.code), "token_hash": .string(code.linkToken ?? "")],
                                            redirectTo: redirectTo, origin: origin)
        try deliver(kind, to: user, address: email, prepared, handedTo: handedTo)
    }

    /// An email change's confirmations: to the new address and, with secure email change, to the current one. With
    /// the send email hook on, GoTrue makes one call for both (`sendEmailChange`, `sendEmail`), with the user's
    /// `new_email` set: `token` the current address's code (the new one's when the change is not secure), `token_hash`
    /// the new address's hash, `token_new` the new address's code and `token_hash_new` the current's hash (a crossing
    /// GoTrue keeps for compatibility). Without the hook the two are sent as two emails.
    func sendEmailChange(to user: User, newAddress: String, alsoCurrent: Bool, redirectTo: String, origin: RequestOrigin,
                         pkce: Bool = false) async throws {
        let current = alsoCurrent ? user.email : nil
        guard project.config.hooks[.sendEmail] != nil else {
            try await send(.emailChange, to: user, address: newAddress, redirectTo: redirectTo, origin: origin, pkce: pkce)
            if let current { try await send(.emailChange, to: user, address: current, redirectTo: redirectTo, origin: origin, pkce: pkce) }
            return
        }
        try checkProjectLimit(.emailChange, to: user, address: newAddress)
        let toNew = try prepare(.emailChange, for: user, address: newAddress, redirectTo: redirectTo, origin: origin, pkce: pkce)
        let toCurrent = try current.map { try prepare(.emailChange, for: user, address: $0, redirectTo: redirectTo, origin: origin, pkce: pkce) }
        var data: [String: JSON] = ["token": .string(toCurrent?.code.code ?? toNew.code.code), "token_hash": .string(toNew.code.linkToken ?? "")]
        if let toCurrent {
            data["token_new"] = .string(toNew.code.code)
            data["token_hash_new"] = .string(toCurrent.code.linkToken ?? "")
        }
        let handedTo = try await handToHook(.emailChange, user: user, data: data, redirectTo: redirectTo, origin: origin)
        try deliver(.emailChange, to: user, address: newAddress, toNew, handedTo: handedTo)
        if let current, let toCurrent { try deliver(.emailChange, to: user, address: current, toCurrent, handedTo: handedTo) }
    }

    /// Keeps a prepared email in the outbox (as sent, or as handed to the hook) and stamps when it went.
    private func deliver(_ kind: Kind, to user: User, address email: String, _ prepared: Prepared, handedTo: String?) throws {
        let (code, link) = (prepared.code, prepared.link)
        let t = kind.template
        let text: String, html: String
        if kind == .reauthentication {
            // GoTrue's reauthentication email carries the code only: it is typed into the app as `nonce`.
            text = "\(t.heading)\n\nEnter the code: \(code.code)\n"
            html = "<h2>\(t.heading)</h2>\n\n<p>Enter the code: \(code.code)</p>"
        } else {
            text = "\(t.heading)\n\n\(t.lead)\n\(link)\n\nAlternatively, enter the code: \(code.code)\n"
            html = """
                <h2>\(t.heading)</h2>

                <p>\(t.lead)</p>
                <p><a href="\(escape(link))">\(t.action)</a></p>
                <p>Alternatively, enter the code: \(code.code)</p>
                """
        }
        try emulator.deliver(OutgoingMessage(
            tenant: user.tenant, channel: .email, to: email, from: project.config.senderAddress, subject: t.subject,
            text: text, html: html, purpose: kind.purpose, codes: [code.code], handedTo: handedTo), userId: user.id)
        try emulator.markSent(kind.sentMessage, in: user.tenant, userId: user.id)
    }

    /// Calls the send email hook with GoTrue's `email_data` when it is on; answers what the outbox says
    /// the message was handed to, nil when GoTrue would send it itself.
    /// `data`: the tokens (`token`, `token_hash`, and for an email change `token_new`, `token_hash_new`).
    private func handToHook(_ kind: Kind, user: User, data tokens: [String: JSON], redirectTo: String, origin: RequestOrigin) async throws -> String? {
        guard let binding = project.config.hooks[.sendEmail] else { return nil }
        var data: [String: JSON] = [
            "token": "", "token_hash": "", "redirect_to": .string(redirectTo),
            "email_action_type": .string(kind.type), "site_url": .string(externalURL), "token_new": "", "token_hash_new": "",
            "old_email": "", "old_phone": "", "provider": "", "factor_type": "",
        ]
        data.merge(tokens) { $1 }
        try await AuthHooks(emulator: emulator, project: project).run(.sendEmail, ["user": GoTrueJSON.user(user, config: project.config), "email_data": .object(data)],
                            origin: origin, userId: user.id, identifier: user.email)
        return "the send_email hook at \(binding.uri)"
    }

    /// Sends `kind`, opening a PKCE flow first when the request carried a challenge.
    func send(_ kind: Kind, to user: User, redirectTo: String, origin: RequestOrigin, challenge: PKCEChallenge?) async throws {
        if let challenge {
            try emulator.startFlow(in: user.tenant, userId: user.id, challenge: challenge, authenticationMethod: kind.authenticationMethod)
        }
        try await send(kind, to: user, redirectTo: redirectTo, origin: origin, pkce: challenge != nil)
    }

    /// `GOTRUE_RATE_LIMIT_EMAIL_SENT` (the project's `email_sent` policy): emails per project per
    /// window, not counted under autoconfirm (as in GoTrue). A refused email is kept in the outbox as
    /// suppressed, without a code (none was issued).
    private func checkProjectLimit(_ kind: Kind, to user: User, address email: String) throws {
        try emulator.admitSend(OutgoingMessage(tenant: user.tenant, channel: .email, to: email, from: project.config.senderAddress,
                                               subject: kind.template.subject, text: kind.template.heading, purpose: kind.purpose),
                               userId: user.id, perRecipient: false)
    }

    /// `GOTRUE_SMTP_MAX_FREQUENCY`: the user's last email of this kind went out less than that ago
    /// (GoTrue's per-user `*_sent_at` check; recovery and magic links share one clock, as there). The
    /// core's cooldown refuses it and keeps it in the outbox as suppressed.
    func checkFrequency(_ kind: Kind, for user: User, address: String? = nil) throws {
        try emulator.checkCooldown(SendCooldown(window: project.config.smtpMaxFrequency, per: .user(kind.sentMessage), source: "GOTRUE_SMTP_MAX_FREQUENCY"),
                                   for: OutgoingMessage(tenant: user.tenant, channel: .email, to: address ?? user.email ?? "",
                                                        from: project.config.senderAddress, subject: kind.template.subject, text: "",
                                                        purpose: kind.purpose),
                                   userId: user.id)
    }

    /// `<external>/verify?token=…&type=…&redirect_to=…`; the redirect is percent-encoded only when it
    /// holds `&`, `=` or `#`, as GoTrue's link builder does.
    func verifyLink(token: String, type: String, redirectTo: String) -> String {
        let needsEncoding = redirectTo.contains(where: { "&=#".contains($0) })
        let redirect = needsEncoding ? (redirectTo.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? redirectTo) : redirectTo
        return "\(externalURL)/verify?token=\(token)&type=\(type)&redirect_to=\(redirect)"
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
