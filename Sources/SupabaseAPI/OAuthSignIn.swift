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
        // DetermineAccountLinking: under autoconfirm every address the provider gives counts as verified.
        let vouched = verified || project.config.mailerAutoconfirm
        let user: User
        if let existing = try emulator.user(in: tenant, provider: provider, subject: subject) {
            try checkCanSignIn(existing, emulator: emulator, origin: origin)
            _ = try emulator.linkIdentity(in: tenant, userId: existing.id, identity, origin: origin)
            user = try emulator.updateUser(in: tenant, id: existing.id, metadataOnly(data), origin: origin)
        } else if let email, vouched, let match = try emulator.user(in: tenant, .email(email)) {
            try checkCanSignIn(match, emulator: emulator, origin: origin)
            _ = try emulator.linkIdentity(in: tenant, userId: match.id, identity, origin: origin)
            // LinkAccount merges the identity's data into the user's metadata, as a returning sign-in does.
            user = try emulator.updateUser(in: tenant, id: match.id, metadataOnly(data), origin: origin)
        } else {
            guard !project.config.disableSignup else {
                throw SupabaseError(status: .unprocessableContent, code: .signupDisabled, message: "Signups not allowed for this instance")
            }
            let taken = try email.map { try emulator.user(in: tenant, .email($0)) != nil } ?? false
            user = try await AuthHooks(emulator: emulator, project: project).createUser(
                NewUser(email: taken ? nil : email, emailVerified: verified, userMetadata: data, addressIdentities: false, identities: [identity]),
                provider: provider, origin: origin)
        }
        let kept = try user.emailVerifiedAt == nil
            ? removeUnconfirmed(user, keeping: identity, data: data, emulator: emulator, tenant: tenant, origin: origin) : user
        return try await confirmed(kept, vouched: vouched, provider: provider, project: project, emulator: emulator, origin: origin, mailer: mailer)
    }

    /// GoTrue's RemoveUnconfirmedIdentities, before an unconfirmed user is confirmed or refused: what an earlier, unproven
    /// sign-up gave the account goes (its password, its other identities, its metadata, replaced by the provider's), so an
    /// account someone registered with another person's address cannot be taken over once its owner signs in.
    private static func removeUnconfirmed(_ user: User, keeping identity: NewIdentity, data: [String: JSON], emulator: Emulator, tenant: String,
                                          origin: RequestOrigin) throws -> User {
        try emulator.clearUnprovenSignUp(in: tenant, userId: user.id, keeping: { $0.provider == identity.provider && $0.subject == identity.subject },
                                         origin: origin)
        var replaced = data
        for key in user.userMetadata.keys where data[key] == nil { replaced[key] = .null }
        return try emulator.updateUser(in: tenant, id: user.id, metadataOnly(replaced), origin: origin)
    }

    /// A metadata change that adds no `email` identity for the address the user already has: GoTrue's provider sign-in
    /// touches only the provider's identity.
    private static func metadataOnly(_ metadata: [String: JSON]) -> UserChanges {
        var changes = UserChanges(userMetadata: metadata)
        changes.addsAddressIdentities = false
        return changes
    }

    /// createAccountFromExternalIdentity's last step, for every decision: an unconfirmed user is confirmed when the
    /// provider vouches for the address (or autoconfirm is on); otherwise the address gets a confirmation and the
    /// sign-in is refused with 422 `provider_email_needs_verification`, the user kept (GoTrue commits before refusing),
    /// unless `GOTRUE_MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS`.
    private static func confirmed(_ user: User, vouched: Bool, provider: String, project: SupabaseProject, emulator: Emulator,
                                  origin: RequestOrigin, mailer: Mailer?) async throws -> User {
        guard user.emailVerifiedAt == nil else { return user }
        if vouched, user.email != nil { return try emulator.confirm(in: project.storeTenant, userId: user.id, channel: .email) }
        if vouched || project.config.allowUnverifiedEmailSignIns { return user }
        guard user.email != nil else {
            throw SupabaseError(status: .unprocessableContent, code: .providerEmailNeedsVerification,
                                message: "Unverified email with \(provider). Verify the email with \(provider) in order to sign in")
        }
        try await mailer?.send(.confirmation, to: user, redirectTo: project.config.siteURL, origin: origin)
        throw SupabaseError(status: .unprocessableContent, code: .providerEmailNeedsVerification,
                            message: "Unverified email with \(provider). A confirmation email has been sent to your \(provider) email")
    }

    /// A provider's sign-in refuses a banned user with 403 (external.go's createAccountFromExternalIdentity), where
    /// the password grant's refusal is a 400.
    private static func checkCanSignIn(_ user: User, emulator: Emulator, origin: RequestOrigin) throws {
        do {
            try emulator.checkCanSignIn(user, origin: origin)
        } catch AuthError.userBanned, AuthError.userDisabled {
            throw SupabaseError(status: .forbidden, code: .userBanned, message: "User is banned")
        }
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
