import AuthCore
import Foundation

/// The core's model in GoTrue's JSON shapes (`internal/models/user.go`, `identity.go`,
/// `tokens/service.go`).
package enum GoTrueJSON {
    /// GoTrue's `User`: `email` and `phone` always present (`""` when absent), phones without `+`,
    /// `confirmed_at` the earlier of the two confirmations, optional timestamps left out when unset.
    static func user(_ user: User, config: SupabaseConfig, factors: [Factor] = []) -> JSON {
        var o: [String: JSON] = [
            "id": .string(user.id), "aud": .string(config.jwtAudience), "role": .string(role(of: user)),
            "email": .string(user.email ?? ""), "phone": .string(phone(user.phone)),
            "app_metadata": .object(appMetadata(user)), "user_metadata": .object(user.userMetadata),
            "identities": .array(user.identities.map(identity)),
            "created_at": time(user.createdAt), "updated_at": time(user.updatedAt), "is_anonymous": .bool(user.isAnonymous),
            "is_sso_user": .bool(user.isSSOUser),
        ]
        o["email_confirmed_at"] = user.emailVerifiedAt.map(time)
        o["phone_confirmed_at"] = user.phoneVerifiedAt.map(time)
        o["confirmed_at"] = [user.emailVerifiedAt, user.phoneVerifiedAt].compactMap { $0 }.min().map(time)
        o["confirmation_sent_at"] = user.verificationSentAt.map(time)
        o["invited_at"] = user.invitedAt.map(time)
        o["last_sign_in_at"] = user.lastSignInAt.map(time)
        o["banned_until"] = user.bannedUntil.map(time)
        o["new_email"] = user.pendingEmail.map(JSON.string)
        o["new_phone"] = user.pendingPhone.map { .string(phone($0)) }
        // GoTrue eager-loads factors and leaves the key out when there are none.
        if !factors.isEmpty { o["factors"] = .array(factors.map(factor)) }
        return .object(o)
    }

    /// GoTrue's `Identity`, with its swapped names: `id` is the provider subject, `identity_id` the row.
    package static func identity(_ identity: Identity) -> JSON {
        var data = identity.data
        data["email_verified"] = data["email_verified"] ?? .bool(false)
        data["phone_verified"] = data["phone_verified"] ?? .bool(false)
        data.removeValue(forKey: "phone")
        var o: [String: JSON] = [
            "identity_id": .string(identity.id), "id": .string(identity.subject), "user_id": .string(identity.userId),
            "identity_data": .object(data), "provider": .string(identity.provider),
            "created_at": time(identity.createdAt), "updated_at": time(identity.updatedAt),
            "email": .string(identity.email ?? ""),
        ]
        o["last_sign_in_at"] = identity.lastSignInAt.map(time)
        return .object(o)
    }

    /// GoTrue's `Factor`.
    static func factor(_ factor: Factor) -> JSON {
        var o: [String: JSON] = [
            "id": .string(factor.id), "created_at": time(factor.createdAt), "updated_at": time(factor.updatedAt),
            "status": .string(factor.verified ? "verified" : "unverified"), "factor_type": .string(factor.kind),
            "phone": .string(phone(factor.phone)), "last_challenged_at": factor.lastChallengedAt.map(time) ?? .null,
        ]
        if let name = factor.friendlyName { o["friendly_name"] = .string(name) }
        return .object(o)
    }

    /// `app_metadata` with GoTrue's `provider`/`providers` bookkeeping (none for anonymous users).
    package static func appMetadata(_ user: User) -> [String: JSON] {
        var metadata = user.appMetadata
        let providers = user.identities.map(\.provider)
        if !user.isAnonymous, let first = providers.first {
            metadata["provider"] = metadata["provider"] ?? .string(first)
            metadata["providers"] = metadata["providers"] ?? .array(Array(Set(providers)).sorted().map(JSON.string))
        }
        return metadata
    }

    /// The session response, with `expires_in` computed from the token's own `exp`.
    static func session(_ token: AccessToken, refreshToken: String, user: User, config: SupabaseConfig, factors: [Factor] = []) -> JSON {
        [
            "access_token": .string(token.jwt), "token_type": "bearer", "expires_in": .int(token.expiresIn),
            "expires_at": .int(token.expiresAt), "refresh_token": .string(refreshToken),
            "user": GoTrueJSON.user(user, config: config, factors: factors),
        ]
    }

    static func role(of user: User) -> String { user.appMetadata["role"]?.stringValue ?? "authenticated" }
    static func phone(_ phone: String?) -> String { phone.map { $0.hasPrefix("+") ? String($0.dropFirst()) : $0 } ?? "" }
    static func time(_ date: Date) -> JSON { .string(RFC3339.string(from: date)) }
}
