import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `accounts:update` (`setAccountInfo`): profile, email, password, providers, passkeys, an out-of-band code, and
/// for owners the admin fields (`disableUser`, `customAttributes`, `validSince`…).
enum Update {
    static func handle(_ call: FirebaseCall) async throws -> Response {
        let body = call.body
        if let oobCode = try body.string("oobCode"), !oobCode.isEmpty {
            let (_, user) = try OobActions(call: call, scope: try call.scope()).apply(oobCode)
            return .json(response(user, extra: ["emailVerified": .bool(user.emailVerifiedAt != nil)]))
        }
        if !call.isOwner, (try body.string("idToken") ?? "").isEmpty { throw FirebaseError(.invalidReqType, "Unsupported request parameters.") }
        let (scope, user) = try call.subject()
        let doomedPasskeys = try Passkeys.toDelete(call, scope: scope, user: user)
        // Under email enumeration protection a user changes their email only through a link to the new address
        // (`verifyBeforeUpdateEmail`); the SDK's `updateEmail` gets this (firebase-js-sdk #8009).
        if !call.isOwner, scope.settings.improvedEmailPrivacy, try body.string("email") != nil {
            throw FirebaseError(.operationNotAllowed, "Please verify the new email before changing email.")
        }
        if try body.string("email") != nil || body.string("password") != nil { try call.requireRecentSignIn() }
        // The emulator's rules for a user's own update: custom claims are the owner's, disabling is refused, and
        // `emailVerified` is not theirs to set (ignored, in `profileChanges`).
        if try body.string("customAttributes") != nil { try call.requireOwner() }
        if !call.isOwner, body["disableUser"] != nil { throw FirebaseError(.operationNotAllowed) }
        var changes = try profileChanges(call, user: user, scope: scope)
        let deleted = Set(try body.strings("deleteAttribute"))
        if deleted.contains("PASSWORD") { try call.emulator.removePassword(in: scope.coreTenant, userId: user.id, origin: call.origin) }
        if deleted.contains("EMAIL") { try call.emulator.clearEmail(in: scope.coreTenant, userId: user.id) }
        let email = try body.string("email")?.lowercased()
        if let email {
            guard email.contains("@") else { throw FirebaseError(.invalidEmail) }
            changes.email = email
            // Only a new address starts unverified (the emulator compares it with the account's); the same one sent
            // again, as an admin form sends every field, keeps its verification.
            if email != user.email?.lowercased() { changes.emailVerified = call.isOwner ? (try body.bool("emailVerified") ?? false) : false }
        }
        if let password = try body.string("password") {
            try SignUp.checkPassword(password, scope: scope)
            changes.password = password
        }
        var updated = try call.emulator.updateUser(in: scope.coreTenant, id: user.id, changes, origin: call.origin)
        updated = try applyProviders(call, scope: scope, user: updated)
        if try applyValidSince(call, scope: scope, user: updated) { updated = try call.emulator.requireUser(in: scope.coreTenant, id: user.id) }
        try applyEnrollments(call, scope: scope, user: updated)
        for passkey in doomedPasskeys { try call.emulator.deleteWebAuthnCredential(in: scope.coreTenant, userId: user.id, id: passkey.id) }
        let emailChanged = email != nil && email != user.email?.lowercased()
        // The previous address may undo the change (an owner's change too, as the emulator sends it), but an
        // anonymous user's own.
        if emailChanged, let previous = user.email, call.isOwner || !user.isAnonymous {
            _ = try OobMailer(call: call, scope: scope).issue(.recoverEmail, email: previous, user: updated, newEmail: email, continueURL: nil)
        }
        var extra: [String: JSON] = [:]
        // A new password or email ends the sessions begun before this second (`validSince`), whoever changed it:
        // "a major account change … password or email address updates" (Manage user sessions). A user's own
        // `validSince` does the same (the emulator takes no other value from them). The user gets a fresh session.
        let ownRevocation = try !call.isOwner && body.string("validSince") != nil
        if changes.password != nil || emailChanged || ownRevocation {
            try call.emulator.revokeTokens(in: scope.coreTenant, userId: user.id, reason: "credentials_changed", origin: call.origin)
            if !call.isOwner { extra = try call.startSession(updated, scope: scope, provider: "password").fields }
        } else if !doomedPasskeys.isEmpty, !call.isOwner {
            // The iOS SDK's `unenroll` takes the tokens of its `setAccountInfo` answer and fails without them.
            let provider = FirebaseCall.provider(of: try call.caller(idToken: try body.string("idToken")).claims)
            extra = try call.startSession(updated, scope: scope, provider: provider).fields
        }
        return .json(response(try call.emulator.requireUser(in: scope.coreTenant, id: user.id), extra: extra))
    }

    /// Display name, photo, phone, disabled and custom claims, with `deleteAttribute` clearing fields.
    private static func profileChanges(_ call: FirebaseCall, user: User, scope: FirebaseScope) throws -> UserChanges {
        let body = call.body
        var metadata: [String: JSON] = [:]
        // A null clears the field as `deleteAttribute` does: the JS SDK's `updateProfile({displayName: null})` sends it,
        // and Identity Toolkit clears the name (Google's emulator refuses it instead; firebase-tools #6424).
        for field in ["displayName", "photoUrl"] {
            if body.fields[field]?.isNull == true { metadata[field] = .null } else if let value = try body.string(field) { metadata[field] = .string(value) }
        }
        var changes = UserChanges()
        for attribute in try body.strings("deleteAttribute") {
            switch attribute {
            case "DISPLAY_NAME": metadata["displayName"] = .null
            case "PHOTO_URL": metadata["photoUrl"] = .null
            case "EMAIL", "PASSWORD": break
            default: throw FirebaseError(.invalidArgument, "deleteAttribute \(attribute) is not supported")
            }
        }
        if !metadata.isEmpty { changes.userMetadata = metadata }
        if call.isOwner {
            changes.disabled = try body.bool("disableUser")
            if let verified = try body.bool("emailVerified") { changes.emailVerified = verified }
            if let phone = try body.string("phoneNumber"), phone != user.phone {
                guard phone.hasPrefix("+"), (try? Identifiers.phone(phone)) != nil else { throw FirebaseError(.invalidPhoneNumber, "Invalid format.") }
                changes.phone = phone
                changes.phoneVerified = true
            }
            if let claims = try body.string("customAttributes") {
                changes.appMetadata = try customClaims(claims)
                changes.replacesAppMetadata = true
            }
        }
        return changes
    }

    /// `customAttributes`: a JSON object of at most 1000 characters with no reserved claim, replacing the
    /// previous claims entirely.
    static func customClaims(_ text: String) throws -> [String: JSON] {
        guard text.count <= 1000 else { throw FirebaseError(.claimsTooLarge) }
        guard case .object(let claims)? = try? JSON.parse(text: text) else { throw FirebaseError(.invalidClaims) }
        if let reserved = claims.keys.sorted().first(where: FirebaseTokens.reservedClaims.contains) { throw FirebaseError(.forbiddenClaim, reserved) }
        return claims
    }

    /// `deleteProvider` and `linkProviderUserInfo`.
    private static func applyProviders(_ call: FirebaseCall, scope: FirebaseScope, user: User) throws -> User {
        var user = user
        for provider in try call.body.strings("deleteProvider") {
            user = try call.emulator.removeIdentities(in: scope.coreTenant, userId: user.id, provider: provider == "password" ? "email" : provider)
        }
        if let info = try call.body.object("linkProviderUserInfo") {
            try call.requireOwner()
            guard let provider = try info.string("providerId"), !provider.isEmpty else { throw FirebaseError(.missingProviderID) }
            guard let rawId = try info.string("rawId"), !rawId.isEmpty else { throw FirebaseError(.missingRawID) }
            var data: [String: JSON] = ["sub": .string(rawId)]
            data["name"] = try info.string("displayName").map(JSON.string)
            data["picture"] = try info.string("photoUrl").map(JSON.string)
            user = try call.emulator.linkIdentity(in: scope.coreTenant, userId: user.id,
                                                  NewIdentity(provider: provider, subject: rawId, email: try info.string("email"), data: data))
        }
        return user
    }

    /// `validSince` (firebase-admin's `revoke_refresh_tokens`): tokens issued before it are refused, and
    /// the sessions open now end.
    private static func applyValidSince(_ call: FirebaseCall, scope: FirebaseScope, user: User) throws -> Bool {
        guard call.isOwner, let text = try call.body.string("validSince") else { return false }
        let seconds = try FirebaseBody.int64(text, field: "valid_since")
        let instant = Date(timeIntervalSince1970: TimeInterval(seconds))
        try call.emulator.setTokensValidAfter(in: scope.coreTenant, userId: user.id, instant)
        try call.emulator.revokeSessions(in: scope.coreTenant, userId: user.id, .all, reason: "tokens_revoked", origin: call.origin)
        return true
    }

    /// Owners may replace the second factors (`mfa.enrollments`); phone enrollments only.
    private static func applyEnrollments(_ call: FirebaseCall, scope: FirebaseScope, user: User) throws {
        guard let mfa = try call.body.object("mfa") else { return }
        try call.requireOwner()
        try MFAAdmin.replaceEnrollments(call, scope: scope, user: user, enrollments: try mfa.array("enrollments"))
    }

    static func response(_ user: User, extra: [String: JSON]) -> JSON {
        var o: [String: JSON] = ["kind": "identitytoolkit#SetAccountInfoResponse", "localId": .string(user.id),
                                 "providerUserInfo": .array(FirebaseUserJSON.providers(of: user)), "emailVerified": .bool(user.emailVerifiedAt != nil)]
        o["email"] = user.email.map(JSON.string)
        o["displayName"] = user.userMetadata["displayName"]
        o["photoUrl"] = user.userMetadata["photoUrl"]
        if user.hasPassword { o["passwordHash"] = "UkVEQUNURUQ=" }
        o.merge(extra) { $1 }
        return .object(o)
    }
}
