import AuthCore
import Foundation
import HTTPSupport

/// `ForgotPassword`, `ConfirmForgotPassword`, `ChangePassword`, `AdminSetUserPassword` and
/// `AdminResetUserPassword`.
enum Passwords {
    static func forgot(_ call: CognitoCall) async throws -> JSON {
        try await call.deliverCode(migrate: { username, pool, client in
            // A user the pool lacks may be one a migration function knows (without a password: it must reset it).
            let triggers = call.triggers(pool)
            guard let migration = try await triggers.userMigration(source: "UserMigration_ForgotPassword", userName: username, password: nil,
                                                                   clientId: client.id, validationData: [], clientMetadata: call.clientMetadata) else { return nil }
            return try triggers.createMigrated(migration, userName: username, password: nil)
        }) { user, pool, client in
            // A user an administrator made, who has not signed in and chosen a password, has none to reset.
            guard CognitoUsers.status(user) != "FORCE_CHANGE_PASSWORD" else { throw CognitoError.cannotResetInThisState }
            do {
                try call.emulator.checkCanSignIn(user, stage: .recovery, origin: call.origin)
                _ = try recoveryDestination(user, pool: pool)
            } catch let error where client.preventUserExistenceErrors && (error as? AuthError == .userDisabled || (error as? CognitoError)?.kind == .invalidParameter) {
                // "When a user isn't found, is deactivated, or doesn't have a verified delivery mechanism" a client that
                // hides which users exist answers a simulated delivery (the developer guide's user existence page).
                return CognitoUsers.simulatedDelivery(try call.body.required("Username"))
            }
            return try await sendResetCode(user, triggers: call.triggers(pool), cause: call.cause("ForgotPassword", client: client.id))
        }
    }

    /// A reset code to the user's recovery address; its `CodeDeliveryDetails`.
    static func sendResetCode(_ user: User, triggers: LambdaTriggers, cause: CognitoMailer.Cause) async throws -> JSON {
        try triggers.emulator.checkCanSignIn(user, stage: .recovery, origin: triggers.origin)
        let destination = try recoveryDestination(user, pool: triggers.pool)
        return try await CognitoMailer(triggers: triggers).send(.forgotPassword, to: destination, user: user, origin: triggers.origin, cause: cause)
    }

    /// Where a reset code goes: the first of the pool's recovery mechanisms the user has verified.
    static func recoveryDestination(_ user: User, pool: CognitoPool) throws -> String {
        for mechanism in pool.recoveryMechanisms {
            switch mechanism {
            case "verified_phone_number": if let phone = user.phone, user.phoneVerifiedAt != nil { return phone }
            case "verified_email": if let email = user.email, user.emailVerifiedAt != nil { return email }
            case "admin_only": throw CognitoError(.notAuthorized, "Contact administrator to reset password.")
            default: continue
            }
        }
        throw CognitoError.invalid("Cannot reset password for the user as there is no registered/verified email or phone_number")
    }

    static func confirmForgot(_ call: CognitoCall) async throws -> JSON {
        let (pool, client) = try call.poolAndClient()
        let username = try call.body.required("Username")
        let code = try call.body.required("ConfirmationCode"), password = try call.body.required("Password")
        try call.checkSecretHash(try call.body.string("SecretHash"), usernames: [username], client: client)
        let user = try CognitoUsers.require(username, pool: pool, emulator: call.emulator, hiding: client.preventUserExistenceErrors ? .codeMismatch : .userNotFoundForClient)
        // A disabled user's code sets nothing: CodeMismatchException where the client hides users, as for one that does
        // not exist.
        if user.disabled { throw client.preventUserExistenceErrors ? CognitoError.codeMismatch : CognitoError(.notAuthorized, "User is disabled.") }
        try reset(user, code: code, password: password, pool: pool, emulator: call.emulator, origin: call.origin)
        try await SignUp.confirmed(user, triggers: call.triggers(pool), source: "PostConfirmation_ConfirmForgotPassword", clientId: client.id,
                                   clientMetadata: call.clientMetadata)
        return [:]
    }

    /// Sets a new password with a reset code; a reset or temporary-password user is confirmed by it.
    static func reset(_ user: User, code: String, password: String, pool: CognitoPool, emulator: Emulator, origin: RequestOrigin) throws {
        // A password the policy refuses leaves the code usable for a better one.
        try CognitoMailer.checkPassword(password, pool: pool)
        let destination = try emulator.liveCodeTargets(in: pool.id, userId: user.id, purpose: .resetPassword).first
            ?? user.email ?? user.phone ?? ""
        try CognitoMailer(emulator: emulator, pool: pool).verify(.forgotPassword, code: code, destination: destination, user: user, origin: origin)
        var changes = UserChanges(password: password)
        if ["RESET_REQUIRED", "FORCE_CHANGE_PASSWORD"].contains(CognitoUsers.status(user)) {
            changes.appMetadata = [CognitoUsers.statusKey: "CONFIRMED"]
        }
        // The code reached the address, which proves it.
        if destination.contains("@") { changes.emailVerified = true } else if !destination.isEmpty { changes.phoneVerified = true }
        try emulator.updateUser(in: pool.id, id: user.id, changes, origin: origin)
    }

    static func change(_ call: CognitoCall) async throws -> JSON {
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        let previous = try call.body.required("PreviousPassword"), proposed = try call.body.required("ProposedPassword")
        // The previous password is a password attempt like a sign-in's: the pool's lockout counts it.
        do {
            _ = try call.emulator.authenticate(in: pool.id, user: user, method: "change_password", origin: call.origin) {
                try call.emulator.checkPassword(previous, in: pool.id, userId: user.id)
            }
        } catch AuthError.invalidCredentials {
            throw CognitoError.incorrectCredentials
        } catch AuthError.lockedOut {
            // Where a sign-in says "Password attempts exceeded", a password change says this (aws-sdk-android #627).
            throw CognitoError(.limitExceeded, "Attempt limit exceeded, please try after some time.")
        }
        try CognitoMailer.checkPassword(proposed, pool: pool)
        try call.emulator.updateUser(in: pool.id, id: user.id, UserChanges(password: proposed), origin: call.origin)
        return [:]
    }

    /// A permanent password confirms the user; a temporary one must be changed at the next sign-in.
    static func adminSet(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        let password = try call.body.required("Password")
        try CognitoMailer.checkPassword(password, pool: pool)
        let permanent = try call.body.bool("Permanent") ?? false
        try call.emulator.updateUser(in: pool.id, id: user.id, UserChanges(password: password, appMetadata: [
            CognitoUsers.statusKey: .string(permanent ? "CONFIRMED" : "FORCE_CHANGE_PASSWORD"),
        ]), origin: call.origin)
        return [:]
    }

    /// The password stops working (sign-in answers `PasswordResetRequiredException`) and a reset code
    /// goes to the user's recovery address.
    static func adminReset(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        guard CognitoUsers.status(user) != "UNCONFIRMED" else { throw CognitoError.cannotResetInThisState }
        // "You need to use admin-enable-user before admin-reset-user-password" (amazon-cognito-identity-js #373).
        guard !user.disabled else { throw CognitoError(.notAuthorized, "User is disabled.") }
        let destination: String?
        do { destination = try recoveryDestination(user, pool: pool) } catch let error as CognitoError where error.kind == .notAuthorized {
            destination = nil // admin_only recovery: the administrator sets the next password.
        }
        try call.emulator.updateUser(in: pool.id, id: user.id, UserChanges(appMetadata: [CognitoUsers.statusKey: "RESET_REQUIRED"]), origin: call.origin)
        if let destination {
            try await CognitoMailer(triggers: call.triggers(pool)).send(.forgotPassword, to: destination, user: user, origin: call.origin,
                                                                        cause: call.cause("ForgotPassword", client: nil))
        }
        return [:]
    }
}

extension CognitoError {
    static let cannotResetInThisState = CognitoError(.notAuthorized, "User password cannot be reset in the current state.")
}
