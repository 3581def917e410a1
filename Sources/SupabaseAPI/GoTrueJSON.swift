import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// The core's model in GoTrue's JSON shapes (`internal/models/user.go`, `identity.go`,
/// `tokens/service.go`).
package enum GoTrueJSON {
    /// GoTrue's `User`: `email` and `phone` always present (`""` when absent), phones without `+`,
    /// `confirmed_at` the earlier of the two confirmations, optional timestamps left out when unset, and no
    /// `is_sso_user` (GoTrue's model keeps it out of its JSON; an SSO account shows as its `sso:` provider).
    /// - Parameter role: the `role` member, the user's own by default (`signUpExisting`'s made-up user has none).
    static func user(_ user: User, config: SupabaseConfig, factors: [Factor] = [], role: String? = nil) -> JSON {
        JSONObjectBuilder.object { Self.user(user, config: config, factors: factors, role: role, into: &$0) }
    }

    /// `user(_:config:factors:)`'s members, in key order (see `JSONObjectSink`).
    static func user<Sink: JSONObjectSink>(_ user: User, config: SupabaseConfig, factors: [Factor], role: String? = nil, into o: inout Sink) {
        o.member("app_metadata", .object(appMetadata(user)))
        o.member("aud", .string(config.jwtAudience))
        o.member("banned_until", ifPresent: user.bannedUntil.map(time))
        o.member("confirmation_sent_at", ifPresent: user.sentAt[.verification].map(time))
        let confirmed = switch (user.emailVerifiedAt, user.phoneVerifiedAt) {
        case let (email?, phone?): min(email, phone)
        case let (email, phone): email ?? phone
        }
        o.member("confirmed_at", ifPresent: confirmed.map(time))
        o.member("created_at", time(user.createdAt))
        o.member("deleted_at", ifPresent: user.deletedAt.map(time))
        o.member("email", .string(user.email ?? ""))
        o.member("email_change_sent_at", ifPresent: user.sentAt[.emailChange].map(time))
        o.member("email_confirmed_at", ifPresent: user.emailVerifiedAt.map(time))
        // GoTrue eager-loads factors and leaves the key out when there are none.
        if !factors.isEmpty { o.objects("factors", factors) { Self.factor($1, into: &$0) } }
        o.member("id", .string(user.id))
        o.objects("identities", user.identities) { Self.identity($1, into: &$0) }
        o.member("invited_at", ifPresent: user.invitedAt.map(time))
        o.member("is_anonymous", .bool(user.isAnonymous))
        o.member("last_sign_in_at", ifPresent: user.lastSignInAt.map(time))
        o.member("new_email", ifPresent: user.pendingEmail.map(JSON.string))
        o.member("new_phone", ifPresent: user.pendingPhone.map { .string(phone($0)) })
        o.member("phone", .string(phone(user.phone)))
        o.member("phone_change_sent_at", ifPresent: user.sentAt[.phoneChange].map(time))
        o.member("phone_confirmed_at", ifPresent: user.phoneVerifiedAt.map(time))
        o.member("reauthentication_sent_at", ifPresent: user.sentAt[.reauthentication].map(time))
        o.member("recovery_sent_at", ifPresent: user.sentAt[.recovery].map(time))
        o.member("role", .string(role ?? Self.role(of: user)))
        o.member("updated_at", time(user.updatedAt))
        o.member("user_metadata", .object(user.userMetadata))
    }

    /// GoTrue's `Identity`, with its swapped names: `id` is the provider subject, `identity_id` the row.
    package static func identity(_ identity: Identity) -> JSON {
        JSONObjectBuilder.object { Self.identity(identity, into: &$0) }
    }

    static func identity<Sink: JSONObjectSink>(_ identity: Identity, into o: inout Sink) {
        var data = identity.data
        if data["email_verified"] == nil { data["email_verified"] = .bool(false) }
        // GoTrue writes `phone` into the data where it confirms a number (a phone change, an admin's update), always
        // with `phone_verified`; a phone sign-up's identity has neither, and Fauxth's keeps the number for the core.
        if data["phone_verified"] == nil {
            data.removeValue(forKey: "phone")
            data["phone_verified"] = .bool(false)
        } else if let number = data["phone"]?.stringValue {
            data["phone"] = .string(phone(number))
        }
        o.member("created_at", time(identity.createdAt))
        // The identity's `email` is a generated column in GoTrue, `lower(identity_data->>'email')`, and `omitempty`: a
        // phone identity has none, even for a user with an email.
        let email = identity.data["email"]?.stringValue?.lowercased() ?? (identity.provider == "phone" ? nil : identity.email)
        o.member("email", ifPresent: email.flatMap { $0.isEmpty ? nil : .string($0) })
        o.member("id", .string(identity.subject))
        o.member("identity_data", .object(data))
        o.member("identity_id", .string(identity.id))
        o.member("last_sign_in_at", ifPresent: identity.lastSignInAt.map(time))
        o.member("provider", .string(identity.provider))
        o.member("updated_at", time(identity.updatedAt))
        o.member("user_id", .string(identity.userId))
    }

    /// GoTrue's `Factor`.
    static func factor(_ factor: Factor) -> JSON {
        JSONObjectBuilder.object { Self.factor(factor, into: &$0) }
    }

    static func factor<Sink: JSONObjectSink>(_ factor: Factor, into o: inout Sink) {
        o.member("created_at", time(factor.createdAt))
        o.member("factor_type", .string(factor.kind))
        o.member("friendly_name", ifPresent: factor.friendlyName.flatMap { $0.isEmpty ? nil : .string($0) })
        o.member("id", .string(factor.id))
        o.member("last_challenged_at", factor.lastChallengedAt.map(time) ?? .null)
        o.member("phone", .string(phone(factor.phone)))
        o.member("status", .string(factor.verified ? "verified" : "unverified"))
        o.member("updated_at", time(factor.updatedAt))
    }

    /// `app_metadata` with GoTrue's `provider`/`providers` bookkeeping (none for anonymous users, nor for soft-deleted
    /// ones, whose stored metadata GoTrue empties).
    package static func appMetadata(_ user: User) -> [String: JSON] {
        var metadata = user.appMetadata
        let providers = user.identities.map(\.provider)
        if !user.isAnonymous, user.deletedAt == nil, let first = providers.first {
            metadata["provider"] = metadata["provider"] ?? .string(first)
            metadata["providers"] = metadata["providers"] ?? .array(Array(Set(providers)).sorted().map(JSON.string))
        }
        return metadata
    }

    /// The role an administrator set (GoTrue's `role` column), else the one a seed put in `app_metadata`, else
    /// `authenticated`.
    static func role(of user: User) -> String { user.role ?? user.appMetadata["role"]?.stringValue ?? "authenticated" }
    static func phone(_ phone: String?) -> String { phone.map { $0.hasPrefix("+") ? String($0.dropFirst()) : $0 } ?? "" }
    static func time(_ date: Date) -> JSON { .string(RFC3339.string(from: date)) }
}

/// GoTrue's session response (`AccessTokenResponse`): the tokens and the user they were issued for, with `expires_in`
/// from the token's own `exp`. A grant answers with its bytes, written as the members come (`JSONObjectWriter`); the
/// flows that redirect or wrap it read its fields or its `json`.
struct GoTrueSession {
    let token: AccessToken
    let refreshToken: String
    let user: User
    let config: SupabaseConfig
    let factors: [Factor]
    /// The provider's access token, which an OAuth flow's code exchange hands over with the session.
    var providerToken: String?
    /// What a password sign-in's password falls short of under the project's policy (GoTrue's `weak_password`, which
    /// auth-js hands the app as `weakPassword`).
    var weakPassword: (message: String, reasons: [String])?

    func members<Sink: JSONObjectSink>(into o: inout Sink) {
        o.member("access_token", .string(token.jwt))
        o.member("expires_at", .int(token.expiresAt))
        o.member("expires_in", .int(token.expiresIn))
        o.member("provider_token", ifPresent: providerToken.map(JSON.string))
        o.member("refresh_token", .string(refreshToken))
        o.member("token_type", "bearer")
        o.object("user") { GoTrueJSON.user(user, config: config, factors: factors, into: &$0) }
        if let weakPassword {
            o.member("weak_password", ["message": .string(weakPassword.message), "reasons": .array(weakPassword.reasons.map(JSON.string))])
        }
    }

    var json: JSON { JSONObjectBuilder.object { members(into: &$0) } }

    /// The tokens as a redirect's fragment carries them (`#access_token=…`), in key order.
    var fragment: [(String, String)] {
        [("access_token", token.jwt), ("expires_at", String(token.expiresAt)), ("expires_in", String(token.expiresIn)),
         ("refresh_token", refreshToken), ("token_type", "bearer")]
    }

    /// The answer's body: about two KiB with its token and user.
    var response: Response { .json(bytes: JSONObjectWriter.bytes(capacity: 2048) { members(into: &$0) }) }
}
