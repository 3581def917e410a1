import Foundation

/// What a new account is made of; the dialects and the seed fill it in.
public struct NewUser: Sendable {
    public var id: String?
    public var email: String?
    public var phone: String?
    public var username: String?
    /// A plaintext password, hashed before it is stored.
    public var password: String?
    /// An already hashed password: our own format, or bcrypt (imports).
    public var passwordHash: String?
    public var emailVerified: Bool
    public var phoneVerified: Bool
    public var disabled: Bool
    public var isAnonymous: Bool
    public var userMetadata: [String: JSON]
    public var appMetadata: [String: JSON]
    /// Data copied onto the password identity (GoTrue puts sign-up data there too).
    public var identityData: [String: JSON]
    public var createdAt: Date?
    /// Whether the email and phone get `email`/`phone` identities (Firebase keeps none for an address a
    /// provider gave or an admin set without a password).
    public var addressIdentities: Bool
    /// Identity-provider accounts linked from the start (a Google sign-up…).
    public var identities: [NewIdentity]
    /// An account a SAML provider made (GoTrue's `is_sso_user`): its email may be another account's too.
    public var isSSOUser = false
    /// A verified address another user has verified, where the tenant keeps verified addresses to one user
    /// (`UniqueAddresses.whenVerified`), moves to this one, unverified there, instead of failing (Cognito's
    /// `ForceAliasCreation`).
    public var takeVerifiedAddresses = false
    /// The role an administrator gives the user (GoTrue's admin `role`); nil for the default.
    public var role: String?

    public init(id: String? = nil, email: String? = nil, phone: String? = nil, username: String? = nil, password: String? = nil,
                passwordHash: String? = nil, emailVerified: Bool = false, phoneVerified: Bool = false, disabled: Bool = false,
                isAnonymous: Bool = false, userMetadata: [String: JSON] = [:], appMetadata: [String: JSON] = [:],
                identityData: [String: JSON] = [:], createdAt: Date? = nil, addressIdentities: Bool = true,
                identities: [NewIdentity] = []) {
        self.id = id; self.email = email; self.phone = phone; self.username = username; self.password = password
        self.passwordHash = passwordHash; self.emailVerified = emailVerified; self.phoneVerified = phoneVerified
        self.disabled = disabled; self.isAnonymous = isAnonymous; self.userMetadata = userMetadata
        self.appMetadata = appMetadata; self.identityData = identityData; self.createdAt = createdAt
        self.addressIdentities = addressIdentities; self.identities = identities
    }
}

/// An identity-provider account to link: the provider, its subject, and what it said about the user.
public struct NewIdentity: Sendable, Equatable {
    public var provider: String
    public var subject: String
    public var email: String?
    public var data: [String: JSON]

    public init(provider: String, subject: String, email: String? = nil, data: [String: JSON] = [:]) {
        self.provider = provider; self.subject = subject; self.email = email; self.data = data
    }
}

/// Normalisation and checks every vendor applies to identifiers.
public enum Identifiers {
    /// Trimmed; nil when empty. Case is kept (lookups are case-insensitive).
    public static func email(_ raw: String?) throws -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        // Local and domain parts around one @, no whitespace; `dev@localhost` is an address the vendors'
        // emulators take. By hand: a Regex literal is parsed again on every call.
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard trimmed.count <= 255, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
              !trimmed.contains(where: \.isWhitespace) else { throw AuthError.invalidEmail }
        return trimmed
    }

    /// E.164 with the `+`; nil when empty. Spaces, dashes and brackets are dropped first.
    public static func phone(_ raw: String?) throws -> String? {
        guard let raw else { return nil }
        let digits = raw.filter { !" -()".contains($0) }
        guard !digits.isEmpty else { return nil }
        let bare = digits.hasPrefix("+") ? String(digits.dropFirst()) : digits
        // E.164: a non-zero digit, then 1-14 more. Checked by hand: a Regex match cost a fifth of a Firebase
        // sign-in, when its project settings (test phone numbers included) were parsed on every call.
        let bytes = Array(bare.utf8)
        guard (2...15).contains(bytes.count), (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[0]),
              bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { throw AuthError.invalidPhone }
        return "+" + bare
    }
}
