import Foundation

/// How a message travels.
public enum Channel: String, Sendable, Codable, CaseIterable {
    case email, sms
}

/// Why a message was sent; the inbox filters on it.
public enum MessagePurpose: String, Sendable, Codable, CaseIterable {
    case verifyEmail = "verify_email"
    case resetPassword = "reset_password"
    case magicLink = "magic_link"
    case otp, mfa, invite
    case emailChange = "email_change"
    /// A link to undo an email change, sent to the old address (Firebase's RECOVER_EMAIL).
    case recoverEmail = "recover_email"
    case phoneChange = "phone_change"
    case reauthentication, notification
    /// The app's own mail or text, through the SMTP sink or the SMS endpoint.
    case app
}

/// Whether the message would have reached its recipient.
public enum DeliveryStatus: String, Sendable, Codable {
    case sent, suppressed
    /// Handed to the app's own sending hook (Supabase's send email/SMS hook, Cognito's custom sender),
    /// which delivers it instead of the vendor.
    case hook
}

/// An outbox entry: an email or SMS the real service would have sent, kept with what is in it.
public struct Message: Sendable, Equatable {
    public var id: String
    public var tenant: String
    public var channel: Channel
    public var to: String
    public var from: String
    public var subject: String?
    public var text: String
    public var html: String?
    public var purpose: MessagePurpose
    /// Codes in the message (OTPs), already extracted.
    public var codes: [String]
    /// Every link in the message, any scheme.
    public var links: [String]
    public var status: DeliveryStatus
    /// Why a suppressed message was not sent.
    public var reason: String?
    public var createdAt: Date
    /// Insertion order; `since=<id>` cursors compare on it.
    public var sequence: Int
}

/// A message as a dialect composes it, before it enters the outbox.
public struct OutgoingMessage: Sendable {
    public var tenant: String
    public var channel: Channel
    public var to: String
    public var from: String
    public var subject: String?
    public var text: String
    public var html: String?
    public var purpose: MessagePurpose
    /// Codes the composer put in; when empty, codes are extracted from the text.
    public var codes: [String]
    /// Set to keep the message but mark it not sent, with why.
    public var suppressedReason: String?
    /// Set when the app's own hook delivers the message instead of the vendor: which hook, and where.
    public var handedTo: String?

    public init(tenant: String, channel: Channel, to: String, from: String, subject: String? = nil, text: String,
                html: String? = nil, purpose: MessagePurpose, codes: [String] = [], suppressedReason: String? = nil, handedTo: String? = nil) {
        self.tenant = tenant; self.channel = channel; self.to = to; self.from = from; self.subject = subject
        self.text = text; self.html = html; self.purpose = purpose; self.codes = codes; self.suppressedReason = suppressedReason
        self.handedTo = handedTo
    }
}
