import AuthCore
import Foundation
import HTTPSupport

/// Users as an administrator sees them: `AdminCreateUser` (with its invitation), `AdminGetUser`,
/// `AdminDeleteUser`, `AdminDisableUser`/`AdminEnableUser`, `AdminUpdateUserAttributes`,
/// `AdminDeleteUserAttributes` and `AdminLinkProviderForUser`.
enum UserAdmin {
    /// A new user with a temporary password (given, or generated to fit the policy) who must choose
    /// their own at first sign-in, invited by email or SMS unless `MessageAction` is `SUPPRESS`.
    /// `RESEND` sends a new invitation to a user who has not signed in yet.
    static func create(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let username = try call.body.required("Username")
        let action = try call.body.string("MessageAction")
        guard action == nil || action == "RESEND" || action == "SUPPRESS" else {
            throw CognitoError.invalid("1 validation error detected: Value '\(action ?? "")' at 'messageAction' failed to satisfy constraint: Member must satisfy enum value set: [RESEND, SUPPRESS]")
        }
        let given = try call.body.string("TemporaryPassword")
        if let given { try CognitoMailer.checkPassword(given, pool: pool) }
        let temporary = given ?? CognitoMailer.temporaryPassword(call.emulator.generator, policy: pool.passwordPolicy)
        let user: User
        if action == "RESEND" {
            let existing = try CognitoUsers.require(username, pool: pool, emulator: call.emulator)
            guard CognitoUsers.status(existing) == "FORCE_CHANGE_PASSWORD" else {
                throw CognitoError(.unsupportedUserState, "Resend not possible. \(CognitoUsers.username(existing, pool: pool)) status is not FORCE_CHANGE_PASSWORD.")
            }
            user = try call.emulator.updateUser(in: pool.id, id: existing.id, UserChanges(password: temporary), origin: call.origin)
        } else {
            let attributes = try call.body.attributes("UserAttributes")
            var new = try SignUp.newUser(username: username, attributes: attributes, pool: pool, emulator: call.emulator)
            // The user is the administrator's to confirm (a temporary password), and the function's answer is not
            // read: "autoVerifyPhone, autoVerifyEmail and autoConfirmUser are ignored" for AdminCreateUser (the pre
            // sign-up trigger's guide). It may still refuse the user.
            _ = try await call.triggers(pool).preSignUp(source: "PreSignUp_AdminCreateUser", userName: username, clientId: nil,
                                                        attributes: attributes, validationData: try call.body.attributes("ValidationData"),
                                                        clientMetadata: call.clientMetadata)
            new.password = temporary
            new.emailVerified = attributes.contains { $0.name == "email_verified" && CognitoUsers.isTrue($0.value) }
            new.phoneVerified = attributes.contains { $0.name == "phone_number_verified" && CognitoUsers.isTrue($0.value) }
            new.appMetadata[CognitoUsers.statusKey] = "FORCE_CHANGE_PASSWORD"
            new.takeVerifiedAddresses = try call.body.bool("ForceAliasCreation") ?? false
            user = try SignUp.create(new, pool: pool, emulator: call.emulator, origin: call.origin, event: .userCreated)
        }
        if action != "SUPPRESS" {
            let mediums = try call.body.strings("DesiredDeliveryMediums") ?? ["SMS"]
            var channels = mediums.compactMap { $0 == "EMAIL" ? Channel.email : ($0 == "SMS" ? Channel.sms : nil) }
                .filter { ($0 == .email ? user.email : user.phone) != nil }
            // The default (SMS) falls back to email for a user without a phone, rather than inviting nobody.
            if channels.isEmpty, user.email != nil { channels = [.email] }
            try await CognitoMailer(triggers: call.triggers(pool)).invite(user, username: username, temporaryPassword: temporary, channels: channels,
                                                                          cause: call.cause("AdminCreateUser", client: nil))
        }
        return ["User": .object(CognitoUsers.record(user, pool: pool))]
    }

    static func get(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        return .object(CognitoUsers.details(user, pool: pool))
    }

    static func delete(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        try call.emulator.deleteUser(in: pool.id, id: user.id, origin: call.origin)
        return [:]
    }

    /// Disabling a user also ends their sessions, so their tokens stop working.
    static func setEnabled(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        let enable = call.action == .adminEnableUser
        try call.emulator.updateUser(in: pool.id, id: user.id, UserChanges(disabled: !enable), origin: call.origin)
        if !enable { try call.emulator.revokeSessions(in: pool.id, userId: user.id, .all, reason: "user_disabled", origin: call.origin) }
        return [:]
    }

    static func updateAttributes(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        try await AttributeUpdate(pool: pool, emulator: call.emulator, origin: call.origin)
            .apply(try call.body.attributes("UserAttributes"), to: user, triggers: call.triggers(pool), cause: call.cause("UpdateUserAttribute", client: nil))
        return [:]
    }

    static func deleteAttributes(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        try AttributeUpdate(pool: pool, emulator: call.emulator, origin: call.origin).delete(try call.body.strings("UserAttributeNames") ?? [], from: user)
        return [:]
    }

    /// Links an identity-provider account (`SourceUser`) to an existing user (`DestinationUser`), so a
    /// federated sign-in with it lands on that user. The provider must be one of the pool's.
    static func linkProvider(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        guard let destination = try call.body.object("DestinationUser"), let source = try call.body.object("SourceUser") else {
            throw CognitoError.invalid("DestinationUser and SourceUser are required.")
        }
        guard let name = destination["ProviderAttributeValue"]?.stringValue else { throw CognitoError.invalid("DestinationUser.ProviderAttributeValue is required.") }
        let user = try CognitoUsers.require(name, pool: pool, emulator: call.emulator)
        guard let provider = source["ProviderName"]?.stringValue, let subject = source["ProviderAttributeValue"]?.stringValue, !subject.isEmpty else {
            throw CognitoError.invalid("SourceUser.ProviderName and SourceUser.ProviderAttributeValue are required.")
        }
        guard let idp = pool.identityProviders.first(where: { $0["ProviderName"]?.stringValue == provider }) else {
            throw CognitoError.invalid("The identity provider \(provider) does not exist in the user pool.")
        }
        if let owner = try call.emulator.user(in: pool.id, provider: provider, subject: subject), owner.id != user.id {
            throw CognitoError(.aliasExists, "The source user is already linked to another user.")
        }
        try call.emulator.linkIdentity(in: pool.id, userId: user.id, NewIdentity(provider: provider, subject: subject,
                                                                                 data: ["providerType": idp["ProviderType"] ?? .string(provider)]),
                                       origin: call.origin)
        return [:]
    }

    /// `AdminDisableProviderForUser`: a provider account (`Cognito_Subject` and the subject it was linked with) stops
    /// signing in as the user it was linked to, so its next sign-in makes a user of its own; with `ProviderName`
    /// `Cognito`, a native user (by username) can no longer sign in with their password. A provider account that is
    /// the user's only identity (a user its first sign-in made) is linked to no one, and refused with AWS's words.
    static func disableProvider(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        guard let source = try call.body.object("User") else { throw CognitoBody.missing("User") }
        guard let provider = source["ProviderName"]?.stringValue, !provider.isEmpty,
              let value = source["ProviderAttributeValue"]?.stringValue, !value.isEmpty else {
            throw CognitoError.invalid("User.ProviderName and User.ProviderAttributeValue are required.")
        }
        if provider == "Cognito" {
            let user = try CognitoUsers.require(value, pool: pool, emulator: call.emulator)
            try call.emulator.removePassword(in: pool.id, userId: user.id, origin: call.origin)
            return [:]
        }
        guard pool.identityProviders.contains(where: { $0["ProviderName"]?.stringValue == provider }) else {
            throw CognitoError.invalid("The provider \(provider) does not exist for User Pool \(pool.id)")
        }
        guard let user = try call.emulator.user(in: pool.id, provider: provider, subject: value), user.identities.count > 1,
              let identity = user.identities.first(where: { $0.provider == provider && $0.subject == value }) else {
            throw CognitoError.invalid("Account isn't linked to anyone else, verify that the account has been linked")
        }
        try call.emulator.unlinkIdentity(in: pool.id, userId: user.id, identityId: identity.id, origin: call.origin)
        return [:]
    }
}
