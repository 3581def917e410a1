import AuthCore
import Foundation
import HTTPSupport

/// The core's model in Identity Toolkit's shapes (`UserInfo`, `ProviderUserInfo`, `MfaEnrollment`).
enum FirebaseUserJSON {
    /// A `UserInfo` as `accounts:lookup` answers it. Timestamps follow the API: `createdAt`, `lastLoginAt`
    /// and `validSince` as strings of milliseconds (seconds for `validSince`), `lastRefreshAt` in RFC 3339.
    /// No usable password hash is ever returned: Firebase answers the redacted placeholder to callers
    /// without the hash-reading permission, and Fauxth to everyone.
    static func user(_ user: User, factors: [Factor], passkeys: [WebAuthnCredential] = [], lastRefreshAt: Date?, tenantId: String?) -> JSON {
        var o: [String: JSON] = [
            "localId": .string(user.id), "emailVerified": .bool(user.emailVerifiedAt != nil), "disabled": .bool(user.disabled),
            "createdAt": millis(user.createdAt), "providerUserInfo": .array(providers(of: user)),
        ]
        o["email"] = user.email.map(JSON.string)
        o["phoneNumber"] = user.phone.map(JSON.string)
        o["displayName"] = user.userMetadata["displayName"]
        o["photoUrl"] = user.userMetadata["photoUrl"]
        o["lastLoginAt"] = user.lastSignInAt.map(millis)
        o["lastRefreshAt"] = (lastRefreshAt ?? user.lastSignInAt).map { .string(RFC3339.string(from: $0)) }
        o["validSince"] = .string(String(Int((user.tokensValidAfter ?? user.createdAt).timeIntervalSince1970)))
        if !user.appMetadata.isEmpty { o["customAttributes"] = .string(JSON.object(user.appMetadata).serialized()) }
        if let updated = user.passwordUpdatedAt {
            o["passwordHash"] = "UkVEQUNURUQ="
            o["passwordUpdatedAt"] = .int(Int(updated.timeIntervalSince1970 * 1000))
        }
        let enrolled = factors.filter(\.verified)
        if !enrolled.isEmpty { o["mfaInfo"] = .array(enrolled.map(mfaInfo)) }
        if !passkeys.isEmpty { o["passkeyInfo"] = .array(Passkeys.info(passkeys)) }
        if emailLinkUser(user) { o["emailLinkSignin"] = true }
        o["tenantId"] = tenantId.map(JSON.string)
        return .object(o)
    }

    /// `providerUserInfo`: `password` for an email with a password (or an email-link user), `phone`,
    /// and each identity provider's account.
    static func providers(of user: User) -> [JSON] {
        user.identities.compactMap { identity -> JSON? in
            switch identity.provider {
            case "email":
                guard let email = user.email, user.hasPassword || emailLinkUser(user) else { return nil }
                var o: [String: JSON] = ["providerId": "password", "federatedId": .string(email), "email": .string(email), "rawId": .string(email)]
                o["displayName"] = user.userMetadata["displayName"]
                o["photoUrl"] = user.userMetadata["photoUrl"]
                return .object(o)
            case "phone":
                guard let phone = user.phone else { return nil }
                return ["providerId": "phone", "rawId": .string(phone), "phoneNumber": .string(phone)]
            case "anonymous":
                return nil
            default:
                var o: [String: JSON] = ["providerId": .string(identity.provider), "rawId": .string(identity.subject),
                                         "federatedId": .string(federatedId(provider: identity.provider, subject: identity.subject))]
                o["email"] = identity.email.map(JSON.string)
                o["displayName"] = identity.data["name"]
                o["photoUrl"] = identity.data["picture"]
                o["screenName"] = identity.data["screen_name"]
                return .object(o)
            }
        }
    }

    /// Identity Toolkit's `federatedId`: Google's is a URL, other providers' the bare subject.
    static func federatedId(provider: String, subject: String) -> String {
        provider == "google.com" ? "https://accounts.google.com/\(subject)" : subject
    }

    static func emailLinkUser(_ user: User) -> Bool {
        user.identities.contains { $0.provider == "email" && $0.data["emailLinkSignin"]?.boolValue == true }
    }

    /// An `MfaEnrollment`: phone factors show the number, TOTP factors an empty `totpInfo`.
    static func mfaInfo(_ factor: Factor) -> JSON { mfaInfo(factor, obfuscated: false) }

    /// The same, with the number masked, as a pending sign-in shows it.
    static func mfaInfo(_ factor: Factor, obfuscated masked: Bool) -> JSON {
        var o: [String: JSON] = ["mfaEnrollmentId": .string(factor.id), "enrolledAt": .string(RFC3339.string(from: factor.updatedAt))]
        o["displayName"] = factor.friendlyName.map(JSON.string)
        if factor.kind == "phone" {
            o["phoneInfo"] = factor.phone.map { .string(masked ? obfuscated($0) : $0) }
        } else {
            o["totpInfo"] = [:]
        }
        return .object(o)
    }

    /// A phone number with all but its last four digits masked (`+*******0100`), as pending MFA
    /// sign-ins show it.
    static func obfuscated(_ phone: String) -> String {
        "+" + String(repeating: "*", count: max(0, phone.count - 5)) + phone.suffix(4)
    }

    static func millis(_ date: Date) -> JSON { .string(String(Int(date.timeIntervalSince1970 * 1000))) }
}
