import AuthCore
import Foundation

/// GoTrue's emails, with its default subjects and templates (`mailer/templatemailer`).
struct Mailer {
    let emulator: Emulator
    let project: SupabaseProject
    /// Where `/verify` links point: `API_EXTERNAL_URL`, else this server's own `/auth/v1`.
    let externalURL: String

    /// Sends the sign-up confirmation: one 6-digit OTP that works both as a code and, hashed, as the
    /// link token (`token = hex(SHA-224(email + otp))`), as GoTrue does.
    func sendConfirmation(to user: User, redirectTo: String, origin: RequestOrigin) throws {
        guard let email = user.email else { return }
        let config = project.config
        let code = try emulator.issueCode(in: user.tenant, CodeRequest(
            userId: user.id, purpose: .verifyEmail, channel: .email, target: email.lowercased(),
            length: config.mailerOTPLength, lifetime: config.mailerOTPExpiry,
            linkToken: { otp in SHA224.hash(Array((email.lowercased() + otp).utf8)).hex }), origin: origin)
        let link = verifyLink(token: code.linkToken ?? "", type: "signup", redirectTo: redirectTo)
        let html = """
            <h2>Confirm your signup</h2>

            <p>Follow this link to confirm your user:</p>
            <p><a href="\(escape(link))">Confirm your mail</a></p>
            <p>Alternatively, enter the code: \(code.code)</p>
            """
        let text = "Confirm your signup\n\nFollow this link to confirm your user:\n\(link)\n\nAlternatively, enter the code: \(code.code)\n"
        try emulator.deliver(OutgoingMessage(
            tenant: user.tenant, channel: .email, to: email, from: config.senderAddress, subject: "Confirm your email address",
            text: text, html: html, purpose: .verifyEmail, codes: [code.code]), userId: user.id)
        try emulator.markVerificationSent(in: user.tenant, userId: user.id)
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
