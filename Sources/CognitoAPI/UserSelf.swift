import AuthCore
import Foundation
import HTTPSupport

/// What a signed-in user does with their access token: `GetUser`, `UpdateUserAttributes`,
/// `DeleteUserAttributes`, `GetUserAttributeVerificationCode`, `VerifyUserAttribute`, `DeleteUser`.
enum UserSelf {
    /// The user as their client may see them: only the attributes its `ReadAttributes` lists ("Amazon Cognito only returns
    /// values for attributes that your app client can read"), as in the ID token.
    static func get(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, claims) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let readable = pool.client(claims["client_id"]?.stringValue ?? "")?.readAttributes
        let details = CognitoUsers.details(user, pool: pool, only: readable)
        return .object(details.filter { ["Username", "UserAttributes", "UserMFASettingList", "PreferredMfaSetting", "MFAOptions"].contains($0.key) })
    }

    /// Refuses what the caller's client may not write: the verification flags and developer-only attributes, which are
    /// the administrator's (DeveloperOnlyAttribute in the AWS model), and anything outside its `WriteAttributes`. A
    /// deletion is a write.
    private static func requireWritable(_ names: [String], pool: CognitoPool, claims: [String: JSON]) throws {
        let writable = pool.client(claims["client_id"]?.stringValue ?? "")?.writeAttributes
        for name in names where name.hasSuffix("_verified") || name.hasPrefix("dev:") || !(writable.map { $0.contains(name) } ?? true) {
            throw CognitoError(.notAuthorized, "A client attempted to write unauthorized attribute")
        }
    }

    static func updateAttributes(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, claims) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let attributes = try call.body.attributes("UserAttributes")
        try requireWritable(attributes.map(\.name), pool: pool, claims: claims)
        let deliveries = try await AttributeUpdate(pool: pool, emulator: call.emulator, origin: call.origin)
            .apply(attributes, to: user, triggers: call.triggers(pool), cause: call.cause("UpdateUserAttribute", client: claims["client_id"]?.stringValue))
        return ["CodeDeliveryDetailsList": .array(deliveries)]
    }

    static func deleteAttributes(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, claims) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let names = try call.body.strings("UserAttributeNames") ?? []
        try requireWritable(names, pool: pool, claims: claims)
        try AttributeUpdate(pool: pool, emulator: call.emulator, origin: call.origin).delete(names, from: user)
        return [:]
    }

    static func verificationCode(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let destination = try AttributeUpdate.destination(of: try call.body.required("AttributeName"), user: user)
        let cause = call.cause("VerifyUserAttribute", client: call.pools.clientId(ofAccessToken: try call.body.required("AccessToken")))
        return ["CodeDeliveryDetails": try await CognitoMailer(triggers: call.triggers(pool)).send(.verifyAttribute, to: destination, user: user,
                                                                                                  origin: call.origin, cause: cause)]
    }

    static func verifyAttribute(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let name = try call.body.required("AttributeName"), code = try call.body.required("Code")
        let destination = try AttributeUpdate.destination(of: name, user: user)
        let mailer = CognitoMailer(emulator: call.emulator, pool: pool)
        try mailer.verify(.verifyAttribute, code: code, destination: destination, user: user, origin: call.origin)
        // A pending address (held back until verified) replaces the current one now, in the core's one
        // confirmation of an address change.
        try call.emulator.confirmAddressChange(in: pool.id, userId: user.id, channel: name == "email" ? .email : .sms, address: destination,
                                               origin: call.origin)
        return [:]
    }

    static func delete(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        try call.emulator.deleteUser(in: pool.id, id: user.id, origin: call.origin)
        return [:]
    }
}

/// Attribute changes as Cognito applies them, for a user or an administrator: a new email or phone is
/// unverified (and, when the pool auto-verifies it, sent a code), unless the pool keeps the old one
/// until the new one is verified (`AttributesRequireVerificationBeforeUpdate`).
struct AttributeUpdate {
    let pool: CognitoPool
    let emulator: Emulator
    let origin: RequestOrigin

    /// Applies `attributes`; answers the `CodeDeliveryDetails` of the codes it sent (through `triggers`,
    /// for `cause`).
    @discardableResult
    func apply(_ attributes: [(name: String, value: String)], to user: User, triggers: LambdaTriggers,
               cause: CognitoMailer.Cause) async throws -> [JSON] {
        try CognitoUsers.checkMutable(attributes.map(\.name), pool: pool)
        // A blank value deletes the attribute ("submit the attribute in your API request with a blank value"), under
        // the deletion's rules; an address is cleared, not changed to nothing.
        let blanked = attributes.filter(\.value.isEmpty).map(\.name)
        try checkDeletable(blanked)
        let addresses: Set<String> = ["email", "phone_number"]
        var changes = try CognitoUsers.changes(attributes.filter { !($0.value.isEmpty && addresses.contains($0.name)) }, pool: pool)
        let held = Set((pool.pool["UserAttributeUpdateSettings"]?["AttributesRequireVerificationBeforeUpdate"]?.arrayValue ?? []).compactMap(\.stringValue))
        var toVerify: [String] = []
        var pendingEmail: String?, pendingPhone: String?
        if let email = changes.email, email.lowercased() != user.email?.lowercased() {
            if changes.emailVerified != true, pool.autoVerifiedAttributes.contains("email") {
                toVerify.append(email)
                if held.contains("email"), user.email != nil { pendingEmail = email; changes.email = nil }
            }
            if changes.emailVerified == nil, changes.email != nil { changes.emailVerified = false }
        }
        if let phone = changes.phone, phone != user.phone {
            if changes.phoneVerified != true, pool.autoVerifiedAttributes.contains("phone_number") {
                toVerify.append(phone)
                if held.contains("phone_number"), user.phone != nil { pendingPhone = phone; changes.phone = nil }
            }
            if changes.phoneVerified == nil, changes.phone != nil { changes.phoneVerified = false }
        }
        do {
            try emulator.updateUser(in: pool.id, id: user.id, changes, origin: origin)
        } catch let error as AuthError {
            throw CognitoError(core: error)
        }
        try delete(blanked.filter(addresses.contains), from: user)
        if let pendingEmail { try emulator.setPendingEmail(in: pool.id, userId: user.id, pendingEmail) }
        if let pendingPhone { try emulator.setPendingPhone(in: pool.id, userId: user.id, pendingPhone) }
        let mailer = CognitoMailer(triggers: triggers)
        var deliveries: [JSON] = []
        for destination in toVerify {
            deliveries.append(try await mailer.send(.verifyAttribute, to: destination, user: user, origin: origin, cause: cause))
        }
        return deliveries
    }

    /// Refuses the deletion of what the pool's schema requires or makes immutable (`sub` among them).
    private func checkDeletable(_ names: [String]) throws {
        guard !names.isEmpty else { return }
        try CognitoUsers.checkMutable(names, pool: pool)
        if let name = names.first(where: pool.requiredAttributes.contains) {
            throw CognitoError.invalid("Invalid user attributes: \(name): Required attribute cannot be deleted.")
        }
    }

    /// Removes attributes; the ones the user signs in with, the required and the immutable ones cannot go.
    func delete(_ names: [String], from user: User) throws {
        try checkDeletable(names)
        var metadata: [String: JSON] = [:]
        for name in names {
            switch name {
            case "email", "phone_number":
                guard !pool.usernameAttributes.contains(name) else {
                    throw CognitoError.invalid("Cannot delete \(name): the pool's users sign in with it")
                }
                if name == "email" { try emulator.clearEmail(in: pool.id, userId: user.id) } else { try emulator.clearPhone(in: pool.id, userId: user.id) }
            case "email_verified": try emulator.updateUser(in: pool.id, id: user.id, UserChanges(emailVerified: false), origin: origin)
            case "phone_number_verified": try emulator.updateUser(in: pool.id, id: user.id, UserChanges(phoneVerified: false), origin: origin)
            default:
                guard CognitoUsers.standardAttributes.contains(name) || pool.customAttributes.contains(name) else {
                    throw CognitoError.invalid("Attributes did not conform to the schema: \(name): Attribute does not exist in the schema.\n")
                }
                metadata[name] = .null
            }
        }
        if !metadata.isEmpty { try emulator.updateUser(in: pool.id, id: user.id, UserChanges(userMetadata: metadata), origin: origin) }
    }

    /// Where a verification code for `attribute` goes: the address waiting to replace the current one,
    /// else the current one.
    static func destination(of attribute: String, user: User) throws -> String {
        switch attribute {
        case "email":
            guard let email = user.pendingEmail ?? user.email else { throw CognitoError.invalid("The user has no email to verify.") }
            return email
        case "phone_number":
            guard let phone = user.pendingPhone ?? user.phone else { throw CognitoError.invalid("The user has no phone_number to verify.") }
            return phone
        default:
            throw CognitoError.invalid("Only email and phone_number can be verified, not \(attribute).")
        }
    }
}
