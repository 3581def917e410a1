import AuthCore
import Foundation

/// How a core user is a Cognito user: `sub` is the user id, `email` and `phone_number` (with their
/// `_verified` flags) are the core's addresses, every other attribute (`name`, `custom:*`…) is a string
/// in the user metadata, and the status, groups and MFA settings are in the app metadata.
enum CognitoUsers {
    static let statusKey = "cognito:user_status"
    static let groupsKey = "cognito:groups"
    static let preferredMFAKey = "cognito:mfa_preferred"
    static let enabledMFAKey = "cognito:mfa_enabled"
    /// SMS MFA turned on the legacy way (`SetUserSettings`): AWS shows it only as `MFAOptions`, not in
    /// `UserMFASettingList` nor as `PreferredMfaSetting`, and sends SMS codes at sign-in all the same.
    static let legacySMSMFAKey = "cognito:mfa_options_sms"

    /// The standard attributes Cognito knows besides the addresses.
    static let standardAttributes: Set = ["name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile",
                                          "picture", "website", "gender", "birthdate", "zoneinfo", "locale", "address", "updated_at"]

    /// The name a user signs in with and Cognito answers as `Username`: the user id when the pool signs
    /// in by email or phone (`UsernameAttributes`), the chosen username otherwise.
    static func username(_ user: User, pool: CognitoPool) -> String {
        // Federated users keep the name Cognito gives them (`Google_<sub>`) in any pool.
        user.username ?? user.id
    }

    /// The providers that are not an address of the user's own: what Cognito lists in `identities`.
    static func federatedIdentities(_ user: User) -> [Identity] {
        user.identities.filter { !["email", "phone", "password", "anonymous"].contains($0.provider) }
    }

    /// The `identities` attribute: a JSON array of the user's federated identities, as Cognito writes it.
    static func identitiesAttribute(_ user: User) -> String? {
        let identities = federatedIdentities(user)
        guard !identities.isEmpty else { return nil }
        return JSON.array(identities.map { identity in
            ["userId": .string(identity.subject), "providerName": .string(identity.provider),
             "providerType": identity.data["providerType"] ?? .string(identity.provider), "issuer": identity.data["issuer"] ?? .null,
             "primary": .string(identity.id == identities.first?.id ? "true" : "false"),
             "dateCreated": .string(String(Int(identity.createdAt.timeIntervalSince1970 * 1000)))]
        }).serialized()
    }

    static func status(_ user: User) -> String { user.appMetadata[statusKey]?.stringValue ?? "CONFIRMED" }
    static func groups(_ user: User) -> [String] { (user.appMetadata[groupsKey]?.arrayValue ?? []).compactMap(\.stringValue) }
    static func enabledMFA(_ user: User) -> [String] { (user.appMetadata[enabledMFAKey]?.arrayValue ?? []).compactMap(\.stringValue) }
    static func preferredMFA(_ user: User) -> String? { user.appMetadata[preferredMFAKey]?.stringValue }
    static func legacySMSMFA(_ user: User) -> Bool { user.appMetadata[legacySMSMFAKey]?.boolValue ?? false }

    /// `GetUser`'s and `AdminGetUser`'s `MFAOptions`: present while SMS MFA is on, either way it was turned on.
    static func mfaOptions(_ user: User) -> JSON? {
        guard legacySMSMFA(user) || enabledMFA(user).contains("SMS_MFA") else { return nil }
        return [["DeliveryMedium": "SMS", "AttributeName": "phone_number"]]
    }

    /// The user's authenticator app: their newest verified TOTP factor, if any.
    static func softwareToken(_ user: User, pool: CognitoPool, emulator: Emulator) throws -> Factor? {
        try emulator.factors(in: pool.id, userId: user.id).last { $0.kind == "totp" && $0.verified }
    }

    /// `[{Name, Value}]`, optionally only the names in `only` (a client's `ReadAttributes`).
    static func attributes(_ user: User, only: [String]? = nil) -> [JSON] {
        attributePairs(user, only: only).map { ["Name": .string($0.name), "Value": .string($0.value)] }
    }

    /// The same attributes as names and values, for the ID token, which has no use for the `{Name, Value}` objects.
    static func attributePairs(_ user: User, only: [String]? = nil) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = [("sub", user.id)]
        if let email = user.email {
            pairs += [("email", email), ("email_verified", user.emailVerifiedAt == nil ? "false" : "true")]
        }
        if let phone = user.phone {
            pairs += [("phone_number", phone), ("phone_number_verified", user.phoneVerifiedAt == nil ? "false" : "true")]
        }
        pairs += user.userMetadata.keys.sorted().compactMap { key in user.userMetadata[key]?.stringValue.map { (key, $0) } }
        if let identities = identitiesAttribute(user) { pairs.append(("identities", identities)) }
        guard let only else { return pairs }
        let allowed = Set(only + ["sub"])
        return pairs.filter { allowed.contains($0.name) }
    }

    /// A user by the name given at sign-in: the username (or, in an email/phone pool, the address or
    /// the `sub`), then a verified alias. Read from the core's kept users: Cognito shows no sign-in stamp, the one
    /// thing they may not have caught up with, and every sign-in starts here.
    static func find(_ name: String, pool: CognitoPool, emulator: Emulator) throws -> User? {
        let tenant = pool.id
        // The name's bytes searched for `@`: `contains("@")` on a String went through Foundation's `range(of:)` (an
        // NSString search, 5K instructions of every sign-in).
        if pool.usernameAttributes.contains("email"), name.utf8.contains(UInt8(ascii: "@")),
           let user = try emulator.keptUser(in: tenant, .email(name)) { return user }
        if pool.usernameAttributes.contains("phone_number"), name.hasPrefix("+"),
           let user = try emulator.keptUser(in: tenant, .phone(name)) { return user }
        // A username: chosen in a username pool, given to a federated user (`google_<sub>`) in any pool.
        if let user = try emulator.keptUser(in: tenant, .username(pool.caseSensitive ? name : name.lowercased())) { return user }
        if let user = try emulator.user(in: tenant, id: name) { return user }
        // An alias is the one user's who has it verified; others may have it unverified (CognitoDialect.addressUniqueness).
        // A case-sensitive pool takes an email alias only as written ("also enables … email alias to be case insensitive"
        // is what CaseSensitive false does, UsernameConfigurationType).
        if pool.aliasAttributes.contains("email"), let user = try emulator.verifiedHolder(in: tenant, .email(name)),
           !pool.caseSensitive || user.email == name { return user }
        if pool.aliasAttributes.contains("phone_number"), let user = try emulator.verifiedHolder(in: tenant, .phone(name)) { return user }
        if pool.aliasAttributes.contains("preferred_username") {
            return try emulator.usersByID(in: tenant, limit: 1, matching: UserFilter(.userMetadata("preferred_username"), value: name)).first
        }
        return nil
    }

    /// The same, or `UserNotFoundException` (or `hiding`, for a client that hides which users exist).
    static func require(_ name: String, pool: CognitoPool, emulator: Emulator, hiding: CognitoError? = nil) throws -> User {
        guard let user = try find(name, pool: pool, emulator: emulator) else { throw hiding ?? CognitoError.userDoesNotExist }
        return user
    }

    /// What Cognito answers, for a client that hides which users exist, when a code would have gone to
    /// an unknown user: a delivery that goes nowhere.
    static func simulatedDelivery(_ name: String) -> JSON { delivery(name.contains("@") ? name : "+10000000000") }

    /// The `UserType` of `ListUsers`, `ListUsersInGroup` and `AdminCreateUser`, whose model has no MFA settings.
    static func record(_ user: User, pool: CognitoPool, only: [String]? = nil) -> [String: JSON] {
        ["Username": .string(username(user, pool: pool)), "Attributes": .array(attributes(user, only: only)),
         "UserCreateDate": .double(user.createdAt.timeIntervalSince1970), "UserLastModifiedDate": .double(user.updatedAt.timeIntervalSince1970),
         "Enabled": .bool(!user.disabled), "UserStatus": .string(status(user))]
    }

    /// `AdminGetUser`'s answer: the record with its attributes as `UserAttributes`, and the user's MFA settings, modern
    /// and legacy. `GetUser` answers part of it, with the attributes its client may read (`only`).
    static func details(_ user: User, pool: CognitoPool, only: [String]? = nil) -> [String: JSON] {
        var o = record(user, pool: pool, only: only)
        o["UserAttributes"] = o.removeValue(forKey: "Attributes")
        o.merge(mfaSettings(user)) { $1 }
        o["MFAOptions"] = mfaOptions(user)
        return o
    }

    /// `UserMFASettingList` and `PreferredMfaSetting`, each left out when unset.
    static func mfaSettings(_ user: User) -> [String: JSON] {
        var o: [String: JSON] = [:]
        let mfa = enabledMFA(user)
        if !mfa.isEmpty { o["UserMFASettingList"] = .array(mfa.map(JSON.string)) }
        o["PreferredMfaSetting"] = preferredMFA(user).map(JSON.string)
        return o
    }

    /// Splits attribute updates into the core's fields and the metadata; `sub` cannot be written, and a value must fit
    /// the pool's schema (an empty one clears the attribute).
    static func changes(_ attributes: [(name: String, value: String)], pool: CognitoPool) throws -> UserChanges {
        var changes = UserChanges()
        var metadata: [String: JSON] = [:]
        let schema = attributes.isEmpty ? [] : PoolSchema.described(pool.pool["Schema"]?.arrayValue ?? [])
        for (name, value) in attributes {
            if !value.isEmpty, let problem = PoolSchema.problem(with: value, of: name, in: schema) {
                throw CognitoError.invalid("Attributes did not conform to the schema: \(name): \(problem)\n")
            }
            switch name {
            case "sub": throw CognitoError.invalid("Cannot modify the non-mutable attribute sub")
            // Kept as written, as Cognito keeps attribute values (amplify-flutter #5678); lookups by address ignore case.
            case "email": changes.email = value
            case "phone_number":
                guard (try? Identifiers.phone(value)) != nil, value.hasPrefix("+") else { throw CognitoError.invalid("Invalid phone number format.") }
                changes.phone = value
            case "email_verified": changes.emailVerified = isTrue(value)
            case "phone_number_verified": changes.phoneVerified = isTrue(value)
            default:
                guard standardAttributes.contains(name) || pool.customAttributes.contains(name) else {
                    throw CognitoError.invalid("Attributes did not conform to the schema: \(name): Attribute does not exist in the schema.\n")
                }
                metadata[name] = value.isEmpty ? .null : .string(value)
            }
        }
        if !metadata.isEmpty { changes.userMetadata = metadata }
        return changes
    }

    /// A boolean attribute's value as Cognito reads it: `true` in any case is true, anything else false (the
    /// Java service's `Boolean.parseBoolean`; an administrator's `"True"` verifies an address).
    static func isTrue(_ value: String) -> Bool { value.caseInsensitiveCompare("true") == .orderedSame }

    /// What an update may not change: `sub`, and the attributes the pool's schema makes immutable (Cognito
    /// takes those only when the user is created). `NEW_PASSWORD_REQUIRED` refuses the verification flags as
    /// well, which the challenge's own `userAttributes` lists and SDKs used to send back (aws-sdk-ios#2203,
    /// amplify-android#244): InvalidParameterException "Cannot modify the non-mutable attribute email_verified".
    static func checkMutable(_ names: [String], pool: CognitoPool, refusingVerificationFlags: Bool = false) throws {
        var fixed: Set<String> = ["sub"]
        for attribute in pool.pool["Schema"]?.arrayValue ?? [] where attribute["Mutable"]?.boolValue == false {
            if let name = attribute["Name"]?.stringValue { fixed.insert(name) }
        }
        if refusingVerificationFlags { fixed.formUnion(["email_verified", "phone_number_verified"]) }
        if let name = names.first(where: fixed.contains) { throw CognitoError.invalid("Cannot modify the non-mutable attribute \(name)") }
    }

    /// What a `NEW_PASSWORD_REQUIRED` answer may not set: what `checkMutable` refuses, the verification flags among it, and
    /// "a required attribute that already has a value" (the model's words; the CLI quotes NotAuthorizedException
    /// "Cannot modify an already provided email"), which the SDKs' habit of echoing `userAttributes` back trips.
    static func checkNewPasswordAttributes(_ names: [String], of user: User, pool: CognitoPool) throws {
        try checkMutable(names, pool: pool, refusingVerificationFlags: true)
        let present = Set(attributePairs(user).map(\.name))
        if let name = names.first(where: { pool.requiredAttributes.contains($0) && present.contains($0) }) {
            throw CognitoError(.notAuthorized, "Cannot modify an already provided \(name)")
        }
    }

    /// How Cognito shows where a code went: `a***@e***` for an email, `+*******0100` for a phone.
    static func masked(_ destination: String) -> String {
        if destination.contains("@") {
            let parts = destination.split(separator: "@", maxSplits: 1)
            return "\(parts[0].prefix(1))***@\(parts.count > 1 ? String(parts[1].prefix(1)) : "")***"
        }
        return "+" + String(repeating: "*", count: max(0, destination.count - 5)) + destination.suffix(4)
    }

    /// `CodeDeliveryDetails` for a code sent to `destination`.
    static func delivery(_ destination: String) -> JSON {
        let isEmail = destination.contains("@")
        return ["Destination": .string(masked(destination)), "DeliveryMedium": .string(isEmail ? "EMAIL" : "SMS"),
                "AttributeName": .string(isEmail ? "email" : "phone_number")]
    }
}
