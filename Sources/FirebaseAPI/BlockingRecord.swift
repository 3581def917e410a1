import AuthCore
import Foundation

/// The `user_record` claim: firebase-functions' `DecodedPayloadUserRecord`, snake_case, times in
/// milliseconds.
enum BlockingRecord {
    static func record(of user: User, factors: [Factor], tenantId: String?) -> [String: JSON] {
        var o: [String: JSON] = ["uid": .string(user.id), "email_verified": .bool(user.emailVerifiedAt != nil), "disabled": .bool(user.disabled),
                                 "custom_claims": .object(user.appMetadata.filter { $0.value != .null })]
        o["email"] = user.email.map(JSON.string)
        o["phone_number"] = user.phone.map(JSON.string)
        o["display_name"] = user.userMetadata["displayName"]
        o["photo_url"] = user.userMetadata["photoUrl"]
        o["provider_data"] = .array(FirebaseUserJSON.providers(of: user).map(provider))
        var metadata: [String: JSON] = ["creation_time": millis(user.createdAt)]
        metadata["last_sign_in_time"] = user.lastSignInAt.map(millis)
        o["metadata"] = .object(metadata)
        if let valid = user.tokensValidAfter { o["tokens_valid_after_time"] = .int(Int(valid.timeIntervalSince1970)) }
        if !factors.isEmpty {
            o["multi_factor"] = ["enrolled_factors": .array(factors.map { factor in
                var f: [String: JSON] = ["uid": .string(factor.id), "factor_id": .string(factor.kind),
                                         "enrollment_time": .string(RFC3339.string(from: factor.updatedAt, fractionalDigits: 0))]
                f["display_name"] = factor.friendlyName.map(JSON.string)
                f["phone_number"] = factor.phone.map(JSON.string)
                return .object(f)
            })]
        }
        o["tenant_id"] = tenantId.map(JSON.string)
        return o
    }

    /// An account about to be created, as the function sees it: what it will be stored with.
    static func record(of new: NewUser, tenantId: String?, now: Date) -> [String: JSON] {
        var o: [String: JSON] = ["uid": JSON(new.id), "email_verified": .bool(new.emailVerified), "disabled": .bool(new.disabled),
                                 "custom_claims": .object(new.appMetadata)]
        o["email"] = new.email.map(JSON.string)
        o["phone_number"] = new.phone.map(JSON.string)
        o["display_name"] = new.userMetadata["displayName"]
        o["photo_url"] = new.userMetadata["photoUrl"]
        var providers: [JSON] = []
        if let email = new.email, new.password != nil || new.identityData["emailLinkSignin"] != nil {
            providers.append(["provider_id": "password", "uid": .string(email), "email": .string(email)])
        }
        if let phone = new.phone { providers.append(["provider_id": "phone", "uid": .string(phone), "phone_number": .string(phone)]) }
        for identity in new.identities {
            var p: [String: JSON] = ["provider_id": .string(identity.provider), "uid": .string(identity.subject)]
            p["email"] = identity.email.map(JSON.string)
            p["display_name"] = identity.data["name"]
            p["photo_url"] = identity.data["picture"]
            providers.append(.object(p))
        }
        o["provider_data"] = .array(providers)
        o["metadata"] = ["creation_time": millis(new.createdAt ?? now)]
        o["tenant_id"] = tenantId.map(JSON.string)
        return o
    }

    /// A `providerUserInfo` entry in the event's names.
    private static func provider(_ info: JSON) -> JSON {
        var p: [String: JSON] = [:]
        for (from, to) in [("providerId", "provider_id"), ("rawId", "uid"), ("email", "email"), ("displayName", "display_name"),
                           ("photoUrl", "photo_url"), ("phoneNumber", "phone_number")] {
            p[to] = info[from]
        }
        return .object(p)
    }

    private static func millis(_ date: Date) -> JSON { .int(Int(date.timeIntervalSince1970 * 1000)) }
}
