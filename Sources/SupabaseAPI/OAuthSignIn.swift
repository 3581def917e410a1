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

    /// `mailer` sends the confirmation a linking can need (`linkIdentityToUser`); callers that link pass it.
    static func user(for claims: [String: JSON], provider: String, project: SupabaseProject, emulator: Emulator, origin: RequestOrigin,
                     linkingTarget: String? = nil, mailer: Mailer? = nil) async throws -> User {
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
            let user = try emulator.requireUser(in: tenant, id: target)
            guard user.email == nil else { return try emulator.linkIdentity(in: tenant, userId: target, identity, origin: origin) }
            return try await adoptAddress(of: identity, verified: verified, linkingTo: user, provider: provider, project: project,
                                          emulator: emulator, origin: origin, mailer: mailer)
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

    /// GoTrue's `linkIdentityToUser` for a user without an email (an anonymous user, or a phone user): the linked
    /// identities' best address (`UpdateUserEmailFromIdentities`: verified first, then unverified, then none; the first
    /// no other user has) becomes the user's. When the provider vouches for the new identity's address the user is
    /// confirmed and stops being anonymous; otherwise a confirmation goes to the address and the link is refused with
    /// `email_not_confirmed`, the link and the address kept, as GoTrue commits them before refusing.
    private static func adoptAddress(of identity: NewIdentity, verified: Bool, linkingTo user: User, provider: String, project: SupabaseProject,
                                     emulator: Emulator, origin: RequestOrigin, mailer: Mailer?) async throws -> User {
        let tenant = project.storeTenant
        func rank(_ email: String?, _ verified: Bool) -> Int { (email ?? "").isEmpty ? 2 : verified ? 0 : 1 }
        let candidates = (user.identities.map { ($0.email, $0.data["email_verified"]?.boolValue ?? false) } + [(identity.email, verified)])
            .enumerated().sorted { (rank($0.element.0, $0.element.1), $0.offset) < (rank($1.element.0, $1.element.1), $1.offset) }.map(\.element)
        var primary: (email: String?, verified: Bool)?
        for candidate in candidates {
            guard let email = candidate.0, !email.isEmpty else { primary = candidate; break }
            if try emulator.user(in: tenant, .email(email)) == nil { primary = candidate; break }
        }
        guard let primary else {
            throw SupabaseError(status: .badRequest, code: .emailExists, message: "A user with this email address has already been registered")
        }
        _ = try emulator.linkIdentity(in: tenant, userId: user.id, identity, origin: origin)
        let address = (primary.email ?? "").isEmpty ? nil : primary.email
        guard verified else {
            var changes = UserChanges(email: address, emailVerified: primary.verified || project.config.mailerAutoconfirm)
            changes.addsAddressIdentities = false
            if !(primary.verified || project.config.mailerAutoconfirm) { changes.userMetadata = user.userMetadata.merging(["email_verified": false]) { $1 } }
            let pending = try emulator.updateUser(in: tenant, id: user.id, changes, origin: origin)
            try await mailer?.send(.confirmation, to: pending, redirectTo: project.config.siteURL, origin: origin)
            throw SupabaseError(status: .unprocessableContent, code: .emailNotConfirmed,
                                message: "Unverified email with \(provider). A confirmation email has been sent to your \(provider) email")
        }
        var changes = UserChanges(email: address, emailVerified: true, userMetadata: user.userMetadata.merging(["email_verified": true]) { $1 })
        changes.isAnonymous = false
        changes.addsAddressIdentities = false
        return try emulator.updateUser(in: tenant, id: user.id, changes, origin: origin)
    }
}
