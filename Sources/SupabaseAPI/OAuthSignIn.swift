import AuthCore
import Foundation
import HTTPTypes

/// Who an identity provider's account signs in as (`internal/models/linking.go`
/// `DetermineAccountLinking`), for `/callback` and the `id_token` grant:
/// 1. the user that already has this (provider, sub) identity, its data refreshed;
/// 2. with no verified email from the provider, a new user (without the email if another user has it);
/// 3. a verified email that one user has: that user, the identity linked to it (and the user confirmed);
/// 4. otherwise a new user.
/// With a linking target (manual linking) the identity is linked to that user, unless another user has it.
enum OAuthSignIn {
    /// GoTrue's `identity_data`, which also becomes a new user's `user_metadata`.
    static func identityData(_ claims: [String: JSON], provider: String) -> [String: JSON] {
        var data: [String: JSON] = ["sub": claims["sub"] ?? "", "provider_id": claims["sub"] ?? "", "phone_verified": false]
        data["iss"] = claims["iss"]
        data["email"] = claims["email"]
        data["email_verified"] = .bool(isVerified(claims))
        let name = claims["name"] ?? (claims["given_name"]?.stringValue).map { given in
            .string([given, claims["family_name"]?.stringValue].compactMap { $0 }.joined(separator: " "))
        }
        data["name"] = name
        data["full_name"] = name
        data["picture"] = claims["picture"]
        data["avatar_url"] = claims["picture"]
        return data
    }

    /// Apple writes `email_verified` as a string; Google and OIDC providers as a boolean.
    static func isVerified(_ claims: [String: JSON]) -> Bool {
        claims["email_verified"]?.boolValue ?? (claims["email_verified"]?.stringValue == "true")
    }

    static func user(for claims: [String: JSON], provider: String, project: SupabaseProject, emulator: Emulator, origin: RequestOrigin,
                     linkingTarget: String? = nil) async throws -> User {
        let tenant = project.storeTenant
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw SupabaseError.validation("The identity provider gave no subject") }
        let email = claims["email"]?.stringValue.map { $0.lowercased() }
        let verified = isVerified(claims)
        let data = identityData(claims, provider: provider)
        let identity = NewIdentity(provider: provider, subject: subject, email: email, data: data)
        if let target = linkingTarget {
            // GoTrue's `linkIdentityToUser`: linking an identity the user already has is refused too, in its own words.
            if let owner = try emulator.user(in: tenant, provider: provider, subject: subject) {
                throw SupabaseError(status: .unprocessableContent, code: .identityAlreadyExists,
                                    message: owner.id == target ? "Identity is already linked" : "Identity is already linked to another user")
            }
            return try emulator.linkIdentity(in: tenant, userId: target, identity, origin: origin)
        }
        if let existing = try emulator.user(in: tenant, provider: provider, subject: subject) {
            try emulator.checkCanSignIn(existing, origin: origin)
            _ = try emulator.linkIdentity(in: tenant, userId: existing.id, identity, origin: origin)
            return try emulator.updateUser(in: tenant, id: existing.id, UserChanges(userMetadata: data), origin: origin)
        }
        if let email, verified, let match = try emulator.user(in: tenant, .email(email)) {
            try emulator.checkCanSignIn(match, origin: origin)
            _ = try emulator.linkIdentity(in: tenant, userId: match.id, identity, origin: origin)
            // The provider vouches for the address: an unconfirmed account is confirmed by it.
            return match.emailVerifiedAt == nil ? try emulator.confirm(in: tenant, userId: match.id, channel: .email) : try emulator.requireUser(in: tenant, id: match.id)
        }
        guard !project.config.disableSignup else {
            throw SupabaseError(status: .unprocessableContent, code: .signupDisabled, message: "Signups not allowed for this instance")
        }
        let taken = try email.map { try emulator.user(in: tenant, .email($0)) != nil } ?? false
        return try await AuthHooks(emulator: emulator, project: project).createUser(
            NewUser(email: taken ? nil : email, emailVerified: verified, userMetadata: data, addressIdentities: false, identities: [identity]),
            provider: provider, origin: origin)
    }
}
