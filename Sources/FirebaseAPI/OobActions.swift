import AuthCore
import Foundation
import HTTPSupport

/// What using an out-of-band code does, shared by the REST endpoints (`accounts:resetPassword`,
/// `accounts:update {oobCode}`) and the action page a person opens from the email.
struct OobActions {
    let call: FirebaseCall
    let scope: FirebaseScope

    var emulator: Emulator { call.emulator }

    /// The unused, unexpired code; `INVALID_OOB_CODE` or `EXPIRED_OOB_CODE` otherwise.
    func live(_ oobCode: String) throws -> CodeRecord {
        guard let record = try emulator.code(in: scope.coreTenant, linkToken: oobCode, purposes: OobType.purposes), record.usedAt == nil else {
            throw FirebaseError(.invalidOOBCode)
        }
        guard record.expiresAt > emulator.clock.now else { throw FirebaseError(.expiredOOBCode) }
        return record
    }

    /// Uses the code for one of `types`; answers its record and user.
    private func use(_ oobCode: String, _ types: [OobType]) throws -> (CodeRecord, User) {
        let record = try live(oobCode)
        guard let type = OobType(purpose: record.purpose), types.contains(type) else { throw FirebaseError(.invalidOOBCode) }
        // The emulator finds the account by the address the code was sent to (getUserByEmail), so a verification or
        // reset code dies with its account or once the account's address changed, where a code held by id would
        // verify or reset the new address.
        guard let userId = record.userId, let user = try emulator.user(in: scope.coreTenant, id: userId),
              [.verifyEmail, .passwordReset].contains(type) ? user.email == record.target : true else {
            throw FirebaseError(.invalidOOBCode)
        }
        _ = try emulator.consumeCode(in: scope.coreTenant, purposes: [record.purpose], .linkToken(oobCode), origin: call.origin)
        try emulator.checkCanSignIn(user, stage: .recovery, origin: call.origin)
        return (record, user)
    }

    /// Sets the new password; the email is proven, and every earlier token and session ends, as a reset
    /// revokes them in Firebase.
    func resetPassword(_ oobCode: String, newPassword: String) throws -> User {
        try SignUp.checkPassword(newPassword, scope: scope)
        let (_, user) = try use(oobCode, [.passwordReset])
        let updated = try emulator.updateUser(in: scope.coreTenant, id: user.id, UserChanges(password: newPassword, emailVerified: true),
                                              origin: call.origin)
        try emulator.revokeTokens(in: scope.coreTenant, userId: user.id, reason: "password_reset", origin: call.origin)
        return updated
    }

    /// Applies a `VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL` or `RECOVER_EMAIL` code. A changed address
    /// sends the old one a `RECOVER_EMAIL` link, as Firebase does.
    func apply(_ oobCode: String) throws -> (OobType, User) {
        let (record, user) = try use(oobCode, [.verifyEmail, .verifyAndChangeEmail, .recoverEmail])
        let type = OobType(purpose: record.purpose) ?? .verifyEmail
        switch type {
        case .verifyEmail:
            return (type, try emulator.updateUser(in: scope.coreTenant, id: user.id, UserChanges(emailVerified: true), origin: call.origin))
        case .verifyAndChangeEmail:
            let previous = user.email
            let updated = try changeEmail(user, to: record.target)
            if let previous {
                _ = try OobMailer(call: call, scope: scope).issue(.recoverEmail, email: previous, user: updated, newEmail: record.target,
                                                                  continueURL: nil)
            }
            return (type, updated)
        case .recoverEmail, .passwordReset, .emailSignIn:
            return (type, try changeEmail(user, to: record.target))
        }
    }

    private func changeEmail(_ user: User, to email: String) throws -> User {
        let updated = try emulator.confirmAddressChange(in: scope.coreTenant, userId: user.id, channel: .email, address: email, origin: call.origin)
        try emulator.revokeTokens(in: scope.coreTenant, userId: user.id, reason: "email_changed", origin: call.origin)
        return updated
    }
}
