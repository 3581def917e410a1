import Foundation

/// What is left of a user's names after a soft deletion. The dialect makes them (GoTrue obfuscates each value with the
/// user's id) and the core keeps them, so the old ones find nobody and a new account can take them.
public struct RetiredNames: Sendable {
    public var email: String?
    public var phone: String?
    public var pendingEmail: String?
    public var pendingPhone: String?
    /// Each identity's new subject, by identity id.
    public var subjects: [String: String]

    public init(email: String?, phone: String?, pendingEmail: String?, pendingPhone: String?, subjects: [String: String]) {
        self.email = email; self.phone = phone; self.pendingEmail = pendingEmail; self.pendingPhone = pendingPhone; self.subjects = subjects
    }
}

extension Emulator {
    /// A soft deletion (GoTrue's `should_soft_delete`): the user's row stays, listed and readable, stamped `deleted_at`,
    /// with nothing left to sign in with. In one transaction its names become `names(user)`, its metadata empties, its
    /// password, codes, second factors, passkeys and sessions go, and its identities stay with empty data under new
    /// subjects. False, changing nothing, when the user was soft-deleted already.
    @discardableResult
    public func softDeleteUser(in tenant: String, id: String, names: (User) -> RetiredNames, origin: RequestOrigin = RequestOrigin()) throws -> Bool {
        let now = clock.now
        let deleted = try db.transaction { c -> Bool in
            guard let user = try Accounts.user(c, tenant: tenant, id: id) else { throw AuthError.userNotFound }
            guard user.deletedAt == nil else { return false }
            let retired = names(user)
            try Accounts.set(c, tenant: tenant, id: id, [
                .email: SQLValue(retired.email), .phone: SQLValue(retired.phone), .pendingEmail: SQLValue(retired.pendingEmail),
                .pendingPhone: SQLValue(retired.pendingPhone), .userMetadata: SQLValue(JSON.object([:])),
                .appMetadata: SQLValue(JSON.object([:])), .deletedAt: SQLValue(now), .updatedAt: SQLValue(now),
            ])
            try Accounts.deleteCredentials(c, tenant: tenant, id: id, at: now)
            for identity in user.identities {
                try Identities.retire(c, tenant: tenant, id: identity.id, subject: retired.subjects[identity.id] ?? identity.subject)
            }
            return true
        }
        if deleted { record(.userDeleted, tenant: tenant, userId: id, origin: origin, detail: ["soft": true]) }
        return deleted
    }
}
