import AuthCore
import Foundation
import HTTPSupport

/// What a user signs in with, asked and set outside a sign-in: `Get|AdminGetUserAuthFactors` (the factors
/// `USER_AUTH` offers them and their MFA settings) and `Set|AdminSetUserSettings`, the legacy way to turn SMS MFA
/// on and off that amazon-cognito-identity-js's `enableMFA` and `disableMFA` (and Amplify v5's `enableSMS`) call.
enum UserAuthFactors {
    /// The user an access token names (`Get…`, `Set…`), or the one `Username` names in `UserPoolId` (`Admin…`).
    private static func user(_ call: CognitoCall) throws -> (CognitoPool, User) {
        switch call.action {
        case .adminGetUserAuthFactors, .adminSetUserSettings:
            let pool = try call.pool()
            return (pool, try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator))
        default:
            let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
            return (pool, user)
        }
    }

    /// `ConfiguredUserAuthFactors`: the first factors a `USER_AUTH` sign-in would offer (`PASSWORD` for both
    /// password flows), then `SOFTWARE_TOKEN` for an authenticator app set up in a pool that allows it, which can
    /// only be a second factor. The MFA settings are `AdminGetUser`'s, each left out when unset.
    static func get(_ call: CognitoCall) async throws -> JSON {
        let (pool, user) = try user(call)
        var factors = SignInFlow.firstFactors(user, pool: pool, emulator: call.emulator).filter { $0 != "PASSWORD_SRP" }
        if pool.softwareTokenMFAEnabled, try CognitoUsers.softwareToken(user, pool: pool, emulator: call.emulator) != nil {
            factors.append("SOFTWARE_TOKEN")
        }
        var answer = CognitoUsers.mfaSettings(user)
        answer["Username"] = .string(CognitoUsers.username(user, pool: pool))
        answer["ConfiguredUserAuthFactors"] = .array(factors.map(JSON.string))
        return .object(answer)
    }

    /// `MFAOptions`: one SMS option on `phone_number` turns legacy SMS MFA on, none turns it off. AWS documents
    /// SMS as the only medium and `phone_number` as the only attribute; its refusal of another attribute is the one
    /// observed (2016), the others are ours.
    static func setSettings(_ call: CognitoCall) async throws -> JSON {
        guard let options = try call.body.array("MFAOptions") else { throw CognitoBody.missing("MFAOptions") }
        let (_, user) = try user(call)
        for option in options {
            guard option["AttributeName"]?.stringValue == "phone_number" else {
                throw CognitoError.invalid("Only phone_number attribute is currently supported as a MFA option.")
            }
            guard option["DeliveryMedium"]?.stringValue == "SMS" else {
                throw CognitoError.invalid("Only SMS delivery medium is currently supported as a MFA option.")
            }
        }
        if !options.isEmpty, user.phone == nil { throw CognitoError.invalid("User does not have a phone_number for SMS MFA") }
        try call.emulator.updateUser(in: user.tenant, id: user.id, UserChanges(appMetadata: [
            CognitoUsers.legacySMSMFAKey: options.isEmpty ? .null : true,
        ]))
        return [:]
    }
}
