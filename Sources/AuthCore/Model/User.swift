import Foundation

/// An account in a tenant, in dialect-neutral terms; each dialect renders it in its vendor's shape.
public struct User: Sendable, Equatable {
    public var tenant: String
    public var id: String
    public var email: String?
    public var phone: String?
    public var username: String?
    public var emailVerifiedAt: Date?
    public var phoneVerifiedAt: Date?
    public var disabled: Bool
    public var bannedUntil: Date?
    public var isAnonymous: Bool
    /// User-editable data (Supabase `user_metadata`, Firebase display name and photo, Cognito attributes).
    public var userMetadata: [String: JSON]
    /// Server-controlled data (Supabase `app_metadata`, Firebase custom claims).
    public var appMetadata: [String: JSON]
    /// When the last message of each kind that carries a code went out (GoTrue's `*_sent_at`).
    public var sentAt: [SentMessage: Date]
    public var createdAt: Date
    public var updatedAt: Date
    public var lastSignInAt: Date?
    /// Linked sign-in methods, loaded with the user.
    public var identities: [Identity]
    /// A new email waiting for confirmation before it replaces `email` (GoTrue's `new_email`).
    public var pendingEmail: String?
    /// A new phone waiting for its SMS code before it replaces `phone` (GoTrue's `new_phone`).
    public var pendingPhone: String?
    /// Tokens issued before this instant are revoked (Firebase's `validSince`).
    public var tokensValidAfter: Date?
    /// When the user was last invited (GoTrue's `invited_at`).
    public var invitedAt: Date?
    /// When the password was last set; nil for users without one.
    public var passwordUpdatedAt: Date?
    /// An account a SAML provider made (GoTrue's `is_sso_user`); lookups by email skip it.
    public var isSSOUser = false
    /// When the user was soft-deleted (GoTrue's `deleted_at`): the row stays, with nothing left to sign in with.
    public var deletedAt: Date?
    /// The role an administrator gave the user (GoTrue's `role`, a Postgres role its tokens carry); nil for the default.
    public var role: String?
    /// Whether the user can sign in with a password.
    public var hasPassword: Bool { passwordUpdatedAt != nil }

    public init(tenant: String, id: String, email: String? = nil, phone: String? = nil, username: String? = nil,
                emailVerifiedAt: Date? = nil, phoneVerifiedAt: Date? = nil, disabled: Bool = false, bannedUntil: Date? = nil,
                isAnonymous: Bool = false, userMetadata: [String: JSON] = [:], appMetadata: [String: JSON] = [:],
                sentAt: [SentMessage: Date] = [:], createdAt: Date, updatedAt: Date, lastSignInAt: Date? = nil, identities: [Identity] = []) {
        self.tenant = tenant; self.id = id; self.email = email; self.phone = phone; self.username = username
        self.emailVerifiedAt = emailVerifiedAt; self.phoneVerifiedAt = phoneVerifiedAt; self.disabled = disabled
        self.bannedUntil = bannedUntil; self.isAnonymous = isAnonymous; self.userMetadata = userMetadata
        self.appMetadata = appMetadata; self.sentAt = sentAt; self.createdAt = createdAt
        self.updatedAt = updatedAt; self.lastSignInAt = lastSignInAt; self.identities = identities
    }

    /// Whether the user is banned at `now`.
    public func isBanned(at now: Date) -> Bool { bannedUntil.map { $0 > now } ?? false }
}

/// The messages with a code whose last sending an account remembers, each in a column of its own as GoTrue keeps
/// them (`confirmation_sent_at`, `recovery_sent_at`…). The dialect that shows them stamps them as it sends.
public enum SentMessage: String, Sendable, CaseIterable {
    /// A confirmation of the user's email or phone (GoTrue's `confirmation_sent_at`).
    case verification = "verification_sent_at"
    /// A recovery or magic link to an existing user.
    case recovery = "recovery_sent_at"
    case emailChange = "email_change_sent_at"
    case phoneChange = "phone_change_sent_at"
    case reauthentication = "reauthentication_sent_at"
}

/// A way to sign in linked to a user: a password on an email or phone, or an identity provider account.
public struct Identity: Sendable, Equatable {
    public var id: String
    public var userId: String
    /// `password`, `phone`, `anonymous`, `google.com`, `apple.com`, `oidc:<name>`…
    public var provider: String
    /// The provider's subject for this account (the user id for password identities).
    public var subject: String
    public var email: String?
    /// Claims and sign-up data the provider gave.
    public var data: [String: JSON]
    public var createdAt: Date
    public var updatedAt: Date
    public var lastSignInAt: Date?

    public init(id: String, userId: String, provider: String, subject: String, email: String?, data: [String: JSON],
                createdAt: Date, updatedAt: Date, lastSignInAt: Date?) {
        self.id = id; self.userId = userId; self.provider = provider; self.subject = subject; self.email = email
        self.data = data; self.createdAt = createdAt; self.updatedAt = updatedAt; self.lastSignInAt = lastSignInAt
    }
}
