import AuthCore
import Foundation
import HTTPSupport

/// Device tracking's operations: `ConfirmDevice`, then `GetDevice`, `ListDevices`, `UpdateDeviceStatus` and
/// `ForgetDevice`, whose admin twins name the pool and the user instead of an access token. How a device
/// signs in is `SignInFlow+Devices`.
enum Devices {
    /// Registers the device a sign-in was given (`NewDeviceMetadata`) with the verifier of a secret the
    /// client made for it. The key must be the one the access token's sign-in was given: any other is
    /// `Invalid device key given.`, as Cognito answers. Remembered at once, unless the pool leaves that to
    /// the user (`DeviceOnlyRememberedOnUserPrompt`, then `UserConfirmationNecessary`).
    static func confirm(_ call: CognitoCall) async throws -> JSON {
        let token = try call.body.required("AccessToken")
        let key = try deviceKey(call)
        let (pool, user, claims) = try CognitoTokens.caller(token, pools: call.pools, emulator: call.emulator)
        guard let sessionId = claims["origin_jti"]?.stringValue, let session = try call.emulator.session(in: pool.id, id: sessionId),
              let issued = session.claims["device_key"]?.stringValue, constantTimeEquals(issued, key),
              let groupKey = session.claims["device_group_key"]?.stringValue else {
            throw CognitoError.invalid("Invalid device key given.")
        }
        let secret = try DeviceSecret(call.body["DeviceSecretVerifierConfig"])
        let name = try call.body.string("DeviceName")
        if let name, !(1...1024).contains(name.count) {
            throw CognitoError.invalid("1 validation error detected: Value at 'deviceName' failed to satisfy constraint: Member must have length "
                                       + (name.isEmpty ? "greater than or equal to 1" : "less than or equal to 1024"))
        }
        let now = call.emulator.clock.now
        let existing = try call.emulator.device(in: pool.id, key: key, userId: user.id)
        let registered = try call.emulator.registerDevice(Device(
            tenant: pool.id, key: key, userId: user.id, groupKey: groupKey, name: name, remembered: !pool.devicesRememberedOnPrompt,
            verifier: secret.stored, lastIP: call.origin.ip ?? existing?.lastIP, createdAt: existing?.createdAt ?? now, updatedAt: now,
            lastAuthenticatedAt: existing?.lastAuthenticatedAt ?? session.createdAt))
        guard registered else { throw CognitoError.invalid("Invalid device key given.") }
        return ["UserConfirmationNecessary": .bool(pool.devicesRememberedOnPrompt)]
    }

    static func get(_ call: CognitoCall) async throws -> JSON {
        let (pool, user) = try owner(call)
        return ["Device": record(try device(try deviceKey(call), pool: pool, user: user, call: call))]
    }

    /// A page of the user's devices (`Limit` up to 60, `PaginationToken`), in the order of their keys.
    static func list(_ call: CognitoCall) async throws -> JSON {
        let (pool, user) = try owner(call)
        let paging = try Paging(call, .devices, scope: "ListDevices:\(pool.id):\(user.id)")
        let (page, next) = paging.page(try call.emulator.devices(in: pool.id, userId: user.id), key: \.key)
        return paging.answer("Devices", page.map(record), next: next)
    }

    /// `remembered` or `not_remembered`: whether the device stands in for MFA.
    static func updateStatus(_ call: CognitoCall) async throws -> JSON {
        let (pool, user) = try owner(call)
        let key = try deviceKey(call)
        let status = try call.body.string("DeviceRememberedStatus")
        guard status == "remembered" || status == "not_remembered" else {
            throw CognitoError.invalid("1 validation error detected: Value '\(status ?? "null")' at 'deviceRememberedStatus' failed to satisfy constraint: "
                                       + "Member must satisfy enum value set: [remembered, not_remembered]")
        }
        _ = try device(key, pool: pool, user: user, call: call)
        try call.emulator.setDeviceRemembered(in: pool.id, key: key, userId: user.id, status == "remembered")
        return [:]
    }

    /// The device goes: it no longer signs in, and the refresh tokens issued with it stop working.
    static func forget(_ call: CognitoCall) async throws -> JSON {
        let (pool, user) = try owner(call)
        guard try call.emulator.forgetDevice(in: pool.id, key: try deviceKey(call), userId: user.id) else { throw CognitoError.deviceDoesNotExist }
        return [:]
    }

    // MARK: Helpers

    /// The pool and user an operation is about: the access token's caller, or for the admin twins the
    /// `Username` of the pool `UserPoolId` names.
    static func owner(_ call: CognitoCall) throws -> (CognitoPool, User) {
        if call.action.rawValue.hasPrefix("Admin") {
            let pool = try call.pool()
            return (pool, try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator))
        }
        let (pool, user, _) = try CognitoTokens.caller(try call.body.required("AccessToken"), pools: call.pools, emulator: call.emulator)
        return (pool, user)
    }

    /// `DeviceKey`, in the model's shape (`[\w-]+_[0-9a-f-]+`, at most 55 characters).
    static func deviceKey(_ call: CognitoCall) throws -> String {
        let key = try call.body.required("DeviceKey")
        guard key.count <= 55 else {
            throw CognitoError.invalid("1 validation error detected: Value at 'deviceKey' failed to satisfy constraint: Member must have length less than or equal to 55")
        }
        // `\w` as AWS's patterns mean it: ASCII only.
        guard key.wholeMatch(of: #/[\w-]+_[0-9a-f-]+/#.asciiOnlyWordCharacters()) != nil else {
            throw CognitoError.invalid("1 validation error detected: Value '\(key)' at 'deviceKey' failed to satisfy constraint: "
                                       + "Member must satisfy regular expression pattern: [\\w-]+_[0-9a-f-]+")
        }
        return key
    }

    static func device(_ key: String, pool: CognitoPool, user: User, call: CognitoCall) throws -> Device {
        guard let device = try call.emulator.device(in: pool.id, key: key, userId: user.id) else { throw CognitoError.deviceDoesNotExist }
        return device
    }

    /// `DeviceType`: the key, the attributes Cognito lists (`device_status`, `device_name`, `last_ip_used`,
    /// `dev:device_remembered_status`), and the dates as epoch seconds.
    static func record(_ device: Device) -> JSON {
        var attributes: [JSON] = [["Name": "device_status", "Value": "valid"]]
        if let name = device.name { attributes.append(["Name": "device_name", "Value": .string(name)]) }
        if let ip = device.lastIP { attributes.append(["Name": "last_ip_used", "Value": .string(ip)]) }
        attributes.append(["Name": "dev:device_remembered_status", "Value": device.remembered ? "remembered" : "not_remembered"])
        var record: [String: JSON] = ["DeviceKey": .string(device.key), "DeviceAttributes": .array(attributes),
                                      "DeviceCreateDate": .double(device.createdAt.timeIntervalSince1970),
                                      "DeviceLastModifiedDate": .double(device.updatedAt.timeIntervalSince1970)]
        record["DeviceLastAuthenticatedDate"] = device.lastAuthenticatedAt.map { .double($0.timeIntervalSince1970) }
        return .object(record)
    }

    /// `DeviceConfiguration` as `CreateUserPool` and `UpdateUserPool` take it: a structure of booleans.
    static func checkConfiguration(_ value: JSON?) throws {
        guard let value, value != .null else { return }
        guard case .object(let members) = value else { throw CognitoError(.serialization, "Structure expected for DeviceConfiguration") }
        for (key, member) in members where member != .null && member.boolValue == nil {
            throw CognitoError(.serialization, "Boolean value expected for \(key)")
        }
    }
}
