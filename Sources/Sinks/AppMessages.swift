import AuthCore
import Foundation

/// The app's own mail and texts, kept in the outbox beside what the auth services sent, under the
/// tenant `app` with the purpose `app`.
public enum AppMessages {
    public static let tenant = "app"

    /// Keeps an email that came in over SMTP: one outbox entry per envelope recipient (so a wait on any
    /// of them finds it), with its codes and links extracted from the decoded bodies.
    @discardableResult
    public static func deliver(_ envelope: SMTPSession.Envelope, to emulator: Emulator) throws -> [Message] {
        let mime = MIMEMessage.parse(envelope.data)
        // Codes are looked for in the text; an HTML-only email gets a text made from its HTML for that.
        let text = mime.text ?? mime.html.map(plainText) ?? ""
        return try envelope.recipients.map { recipient in
            try emulator.deliver(OutgoingMessage(tenant: tenant, channel: .email, to: recipient, from: mime.from ?? envelope.from,
                                                 subject: mime.subject, text: text, html: mime.html, purpose: .app))
        }
    }

    /// Keeps a text sent through the Twilio-shaped endpoint.
    @discardableResult
    public static func deliverSMS(to: String, from: String, body: String, emulator: Emulator) throws -> Message {
        try emulator.deliver(OutgoingMessage(tenant: tenant, channel: .sms, to: to, from: from, text: body, purpose: .app))
    }

    /// HTML reduced to its text: tags dropped, the common entities decoded, blank runs collapsed.
    static func plainText(_ html: String) -> String {
        var text = html.replacing(#/(?is)<(script|style)[^>]*>.*?</\1>/#, with: "")
        text = text.replacing(#/(?i)<br\s*/?>|</p>|</div>|</tr>|</h[1-6]>/#, with: "\n")
        text = text.replacing(#/<[^>]+>/#, with: "")
        for (entity, character) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text.replacing(#/\n\s*\n+/#, with: "\n\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
