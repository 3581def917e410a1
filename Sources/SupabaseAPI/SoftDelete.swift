import AuthCore
import Crypto
import Foundation

/// GoTrue's soft delete (`adminUserDelete` with `should_soft_delete`; `models.User.SoftDeleteUser` and
/// `SoftDeleteUserIdentities`): the user stays, listed and readable with `deleted_at`, but every name it had is replaced
/// by a hash of the user's id and the name, so nobody signs in as it again and the address is free for a new account.
enum SoftDelete {
    static func apply(to user: User, emulator: Emulator, origin: RequestOrigin) throws {
        try emulator.softDeleteUser(in: user.tenant, id: user.id, names: names, origin: origin)
    }

    /// The names a soft deletion leaves, as GoTrue makes them: every one obfuscated, even an empty one (an email-only
    /// user comes back with a 15-character phone), phones cut to 15 characters.
    static func names(_ user: User) -> RetiredNames {
        func email(_ value: String?) -> String { obfuscate(user.id, value ?? "") }
        func phone(_ value: String?) -> String { String(obfuscate(user.id, GoTrueJSON.phone(value)).prefix(15)) }
        let subjects = Dictionary(uniqueKeysWithValues: user.identities.map { ($0.id, obfuscate(user.id, $0.provider + ":" + $0.subject)) })
        return RetiredNames(email: email(user.email), phone: phone(user.phone), pendingEmail: email(user.pendingEmail),
                            pendingPhone: phone(user.pendingPhone), subjects: subjects)
    }

    /// `obfuscateValue`: base64url, unpadded, of SHA-256 of the user id's text followed by the value.
    static func obfuscate(_ id: String, _ value: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array((id.lowercased() + value).utf8))))
    }
}
