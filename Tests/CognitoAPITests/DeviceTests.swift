import AuthCore
@testable import CognitoAPI
import Crypto
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Device tracking: `NewDeviceMetadata`, `ConfirmDevice` and the device operations, device SRP standing in for
/// MFA on a remembered device, refresh tokens bound to their device, and devices in snapshots and resets.
@Suite struct DeviceTests {
    /// A pool that tracks devices with `configuration`; MFA `mfa`, by email (dave has only an email).
    static func seed(_ configuration: JSON = ["ChallengeRequiredOnNewDevice": true, "DeviceOnlyRememberedOnUserPrompt": false],
                     mfa: String = "OFF") -> Seed {
        var pool: [String: JSON] = ["DeviceConfiguration": configuration, "MfaConfiguration": .string(mfa)]
        if mfa != "OFF" { pool["EmailMfaConfiguration"] = ["Subject": "Your sign-in code", "Message": "Sign in with {####}"] }
        return cognitoSeed(pool: pool)
    }

    /// The client side of device SRP, as amazon-cognito-identity-js and pycognito compute it: a random secret,
    /// `x = H(PAD(salt) ‖ H(groupKey ‖ deviceKey ‖ ":" ‖ secret))`, and claims signed over the group key
    /// and the device key where a user's are over the pool name and the user.
    struct DeviceClient {
        let key: String
        let groupKey: String
        let secret: String
        let salt: SRPNumber

        init(_ metadata: JSON?, harness: Harness) throws {
            key = try #require(metadata?["DeviceKey"]?.stringValue)
            groupKey = try #require(metadata?["DeviceGroupKey"]?.stringValue)
            secret = Data(harness.emulator.generator.bytes(40)).base64EncodedString()
            salt = SRPNumber(bytes: harness.emulator.generator.bytes(16))
        }

        func x(saltHex: String) -> SRPNumber {
            let inner = SRPTests.Client.hash(Array("\(groupKey)\(key):\(secret)".utf8))
            return SRPNumber(bytes: SRPTests.Client.hash(SRPTests.Client.pad(SRPNumber(hex: saltHex)!) + inner))
        }

        /// `DeviceSecretVerifierConfig`: base64 of the padded hex's bytes.
        var config: JSON {
            let verifier = CognitoSRP.g.power(x(saltHex: salt.hex), modulus: CognitoSRP.n)
            return ["PasswordVerifier": .string(Data(SRPTests.Client.pad(verifier)).base64EncodedString()),
                    "Salt": .string(Data(SRPTests.Client.pad(salt)).base64EncodedString())]
        }

        func signature(a: SRPNumber, parameters: JSON, timestamp: String, secret override: String? = nil) throws -> String {
            let client = override.map { DeviceClient(key: key, groupKey: groupKey, secret: $0, salt: salt) } ?? self
            let N = CognitoSRP.n, g = CognitoSRP.g
            let A = g.power(a, modulus: N)
            let B = try #require(parameters["SRP_B"]?.stringValue.flatMap { SRPNumber(hex: $0) })
            let block = try #require(parameters["SECRET_BLOCK"]?.stringValue.flatMap { Data(base64Encoded: $0) })
            let k = SRPNumber(bytes: SRPTests.Client.hash(SRPTests.Client.pad(N) + SRPTests.Client.pad(g)))
            let x = client.x(saltHex: try #require(parameters["SALT"]?.stringValue))
            let u = SRPNumber(bytes: SRPTests.Client.hash(SRPTests.Client.pad(A) + SRPTests.Client.pad(B)))
            let base = B.minus(k.times(g.power(x, modulus: N), modulus: N), modulus: N)
            let S = base.power(a, modulus: N).times(base.power(x, modulus: N).power(u, modulus: N), modulus: N)
            let prk = HMAC<SHA256>.authenticationCode(for: SRPTests.Client.pad(S), using: SymmetricKey(data: SRPTests.Client.pad(u)))
            let hkdf = Array(HMAC<SHA256>.authenticationCode(for: Array("Caldera Derived Key".utf8) + [1], using: SymmetricKey(data: Data(prk))).prefix(16))
            let message = Array(groupKey.utf8) + Array(key.utf8) + Array(block) + Array(timestamp.utf8)
            return Data(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: hkdf))).base64EncodedString()
        }

        private init(key: String, groupKey: String, secret: String, salt: SRPNumber) {
            self.key = key; self.groupKey = groupKey; self.secret = secret; self.salt = salt
        }
    }

    /// Signs dave in with a password (answering an email MFA code if asked) and answers the result.
    static func signIn(_ client: Client, _ harness: Harness, device: String? = nil) async throws -> Reply {
        let reply = try await client.passwordAuth("dave", clientId: testClient, extra: device.map { ["DEVICE_KEY": .string($0)] } ?? [:])
        guard reply.json["ChallengeName"] == "EMAIL_OTP" else { return reply }
        let code = try latestCode(harness, to: "dave@example.com", purpose: .mfa)
        return try await client.respond("EMAIL_OTP", session: reply.json["Session"], ["USERNAME": "dave", "EMAIL_OTP_CODE": .string(code)],
                                        clientId: testClient)
    }

    /// Signs in, confirms the device the sign-in was given, and answers the device and the confirmation.
    static func confirmedDevice(_ client: Client, _ harness: Harness, name: String = "Dave's phone") async throws
        -> (DeviceClient, tokens: JSON, confirmed: Reply) {
        let tokens = try #require(try await signIn(client, harness).json["AuthenticationResult"])
        let device = try DeviceClient(tokens["NewDeviceMetadata"], harness: harness)
        let confirmed = try await client.cognito("ConfirmDevice", ["AccessToken": tokens["AccessToken"] ?? .null, "DeviceKey": .string(device.key),
                                                                   "DeviceSecretVerifierConfig": device.config, "DeviceName": .string(name)])
        #expect(confirmed.status == .ok, "\(confirmed.text)")
        return (device, tokens, confirmed)
    }

    /// `DEVICE_SRP_AUTH` then `DEVICE_PASSWORD_VERIFIER` for a challenge, with the device's secret or `secret`; the
    /// first answer with `staleSession` in place of the challenge's own when one is given.
    static func proveDevice(_ client: Client, _ harness: Harness, _ device: DeviceClient, challenge: Reply, secret: String? = nil,
                            session: Bool = true, staleSession: JSON? = nil) async throws -> Reply {
        #expect(challenge.json["ChallengeName"] == "DEVICE_SRP_AUTH", "\(challenge.text)")
        let a = SRPNumber(bytes: harness.emulator.generator.bytes(32))
        let A = CognitoSRP.g.power(a, modulus: CognitoSRP.n)
        let verifier = try await client.respond("DEVICE_SRP_AUTH", session: staleSession ?? (session ? challenge.json["Session"] : nil),
                                                ["USERNAME": "dave", "DEVICE_KEY": .string(device.key), "SRP_A": .string(A.hex)], clientId: testClient)
        #expect(verifier.json["ChallengeName"] == "DEVICE_PASSWORD_VERIFIER", "\(verifier.text)")
        let parameters = try #require(verifier.json["ChallengeParameters"])
        #expect(parameters["DEVICE_KEY"]?.stringValue == device.key)
        let stamp = SRPTests.timestamp(harness.emulator.clock.now)
        return try await client.respond("DEVICE_PASSWORD_VERIFIER", session: session ? verifier.json["Session"] : nil, [
            "USERNAME": parameters["USERNAME"] ?? .null, "DEVICE_KEY": .string(device.key), "TIMESTAMP": .string(stamp),
            "PASSWORD_CLAIM_SECRET_BLOCK": parameters["SECRET_BLOCK"] ?? .null,
            "PASSWORD_CLAIM_SIGNATURE": .string(try device.signature(a: a, parameters: parameters, timestamp: stamp, secret: secret)),
        ], clientId: testClient)
    }

    @Test func aPoolKeepsItsDeviceConfigurationAndRefusesOneOfTheWrongShape() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            let created = try await client.cognito("CreateUserPool", ["PoolName": "devices", "DeviceConfiguration": [
                "ChallengeRequiredOnNewDevice": true, "DeviceOnlyRememberedOnUserPrompt": true]])
            let id = try #require(created.json["UserPool"]?["Id"])
            #expect(created.json["UserPool"]?["DeviceConfiguration"] == ["ChallengeRequiredOnNewDevice": true, "DeviceOnlyRememberedOnUserPrompt": true])
            #expect(try await client.cognito("UpdateUserPool", ["UserPoolId": id, "DeviceConfiguration": ["ChallengeRequiredOnNewDevice": false]]).status == .ok)
            let described = try await client.cognito("DescribeUserPool", ["UserPoolId": id])
            #expect(described.json["UserPool"]?["DeviceConfiguration"] == ["ChallengeRequiredOnNewDevice": false])
            let wrong = try await client.cognito("CreateUserPool", ["PoolName": "x", "DeviceConfiguration": ["ChallengeRequiredOnNewDevice": "yes"]])
            #expect(wrong.json == ["__type": "SerializationException", "message": "Boolean value expected for ChallengeRequiredOnNewDevice"])
        }
    }

    @Test func aPoolThatTracksDevicesGivesEachNewSignInADeviceKeyAsAWSFormsIt() async throws {
        let untracked = try Harness(seed: cognitoSeed())
        try await untracked.run { client in
            let tokens = try await client.signIn("dave", clientId: testClient)
            #expect(tokens["NewDeviceMetadata"] == nil)
            #expect(try claims(tokens["AccessToken"])["device_key"] == nil)
        }
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            let tokens = try await client.signIn("dave", clientId: testClient)
            let key = try #require(tokens["NewDeviceMetadata"]?["DeviceKey"]?.stringValue)
            #expect(key.wholeMatch(of: #/us-east-1_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/#) != nil)
            #expect(tokens["NewDeviceMetadata"]?["DeviceGroupKey"]?.stringValue?.wholeMatch(of: #/-[A-Za-z0-9]{8}/#) != nil)
            #expect(try claims(tokens["AccessToken"])["device_key"]?.stringValue == key)
            // Until it is confirmed the key names no device, and no other sign-in's token confirms it.
            let other = try await client.signIn("dave", clientId: testClient)
            #expect(other["NewDeviceMetadata"]?["DeviceKey"]?.stringValue != key)
            let device = try DeviceClient(tokens["NewDeviceMetadata"], harness: harness)
            let foreign = try await client.cognito("ConfirmDevice", ["AccessToken": other["AccessToken"] ?? .null, "DeviceKey": .string(key),
                                                                     "DeviceSecretVerifierConfig": device.config])
            #expect(foreign.json == ["__type": "InvalidParameterException", "message": "Invalid device key given."])
            let missing = try await client.cognito("GetDevice", ["AccessToken": tokens["AccessToken"] ?? .null, "DeviceKey": .string(key)])
            #expect(missing.json == ["__type": "ResourceNotFoundException", "message": "Device does not exist."])
        }
    }

    @Test func aConfirmedDeviceIsRememberedAtOnceOrWhenTheUserSaysSo() async throws {
        let always = try Harness(seed: Self.seed())
        try await always.run { client in
            let (device, tokens, confirmed) = try await Self.confirmedDevice(client, always)
            #expect(confirmed.json == ["UserConfirmationNecessary": false])
            let got = try await client.cognito("GetDevice", ["AccessToken": tokens["AccessToken"] ?? .null, "DeviceKey": .string(device.key)])
            // Epoch seconds (a whole number here, as the frozen clock is on a second).
            let now = JSON.int(Int(Harness.epoch.timeIntervalSince1970))
            #expect(got.json == ["Device": ["DeviceKey": .string(device.key), "DeviceAttributes": [
                ["Name": "device_status", "Value": "valid"], ["Name": "device_name", "Value": "Dave's phone"],
                ["Name": "dev:device_remembered_status", "Value": "remembered"],
            ], "DeviceCreateDate": now, "DeviceLastModifiedDate": now, "DeviceLastAuthenticatedDate": now]])
        }
        let prompt = try Harness(seed: Self.seed(["DeviceOnlyRememberedOnUserPrompt": true]))
        try await prompt.run { client in
            let (device, tokens, confirmed) = try await Self.confirmedDevice(client, prompt)
            #expect(confirmed.json == ["UserConfirmationNecessary": true])
            func status() async throws -> JSON? {
                let got = try await client.cognito("AdminGetDevice", ["UserPoolId": .string(testPool), "Username": "dave", "DeviceKey": .string(device.key)])
                return got.json["Device"]?["DeviceAttributes"]?.arrayValue?.first { $0["Name"] == "dev:device_remembered_status" }?["Value"]
            }
            #expect(try await status() == "not_remembered")
            let wrong = try await client.cognito("UpdateDeviceStatus", ["AccessToken": tokens["AccessToken"] ?? .null, "DeviceKey": .string(device.key),
                                                                        "DeviceRememberedStatus": "yes"])
            #expect(wrong.errorType == "InvalidParameterException")
            #expect(try await client.cognito("UpdateDeviceStatus", ["AccessToken": tokens["AccessToken"] ?? .null, "DeviceKey": .string(device.key),
                                                                    "DeviceRememberedStatus": "remembered"]).json == [:])
            #expect(try await status() == "remembered")
        }
    }

    @Test func aRememberedDeviceSignsInWithDeviceSRPInsteadOfMFA() async throws {
        let harness = try Harness(seed: Self.seed(mfa: "ON"))
        try await harness.run { client in
            let (device, _, _) = try await Self.confirmedDevice(client, harness)
            harness.emulator.clock.advance(by: 60)
            let challenged = try await client.passwordAuth("dave", clientId: testClient, extra: ["DEVICE_KEY": .string(device.key)])
            #expect(challenged.json["ChallengeParameters"] == ["USERNAME": "dave", "DEVICE_KEY": .string(device.key)])
            let signedIn = try await Self.proveDevice(client, harness, device, challenge: challenged)
            let result = try #require(signedIn.json["AuthenticationResult"], "\(signedIn.text)")
            #expect(result["NewDeviceMetadata"] == nil)
            #expect(try claims(result["AccessToken"])["device_key"]?.stringValue == device.key)
            let got = try await client.cognito("GetDevice", ["AccessToken": result["AccessToken"] ?? .null, "DeviceKey": .string(device.key)])
            #expect(got.json["Device"]?["DeviceLastAuthenticatedDate"] == .int(Int(Harness.epoch.timeIntervalSince1970) + 60))

            // The wrong secret is refused, and the block it answered cannot be answered again.
            let again = try await client.passwordAuth("dave", clientId: testClient, extra: ["DEVICE_KEY": .string(device.key)])
            let wrong = try await Self.proveDevice(client, harness, device, challenge: again, secret: "not the device's secret")
            #expect(wrong.json == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
        }
    }

    @Test func aDeviceNotRememberedStillAnswersMFAThenProvesItself() async throws {
        let harness = try Harness(seed: Self.seed(["ChallengeRequiredOnNewDevice": true, "DeviceOnlyRememberedOnUserPrompt": true], mfa: "ON"))
        try await harness.run { client in
            let (device, _, _) = try await Self.confirmedDevice(client, harness)
            let started = try await client.passwordAuth("dave", clientId: testClient, extra: ["DEVICE_KEY": .string(device.key)])
            #expect(started.json["ChallengeName"] == "EMAIL_OTP")
            let code = try latestCode(harness, to: "dave@example.com", purpose: .mfa)
            let answered = try await client.respond("EMAIL_OTP", session: started.json["Session"], ["USERNAME": "dave", "EMAIL_OTP_CODE": .string(code)],
                                                    clientId: testClient)
            let signedIn = try await Self.proveDevice(client, harness, device, challenge: answered)
            #expect(signedIn.json["AuthenticationResult"]?["AccessToken"] != nil, "\(signedIn.text)")

            // amazon-cognito-identity-js answers the device challenge with the MFA step's session, which that step
            // spent; AWS reads none there, so the sign-in the device waits in goes on.
            let again = try await client.passwordAuth("dave", clientId: testClient, extra: ["DEVICE_KEY": .string(device.key)])
            let second = try latestCode(harness, to: "dave@example.com", purpose: .mfa)
            let mfa = try await client.respond("EMAIL_OTP", session: again.json["Session"], ["USERNAME": "dave", "EMAIL_OTP_CODE": .string(second)],
                                               clientId: testClient)
            let stale = try await Self.proveDevice(client, harness, device, challenge: mfa, staleSession: again.json["Session"])
            #expect(stale.json["AuthenticationResult"]?["AccessToken"] != nil, "\(stale.text)")
        }
    }

    @Test func deviceSRPWithoutTheSessionContinuesOnlyTheSignInItsDeviceWaitsIn() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            let (device, _, _) = try await Self.confirmedDevice(client, harness)
            let early = try await client.respond("DEVICE_SRP_AUTH", session: nil, ["USERNAME": "dave", "DEVICE_KEY": .string(device.key), "SRP_A": "abc"],
                                                 clientId: testClient)
            #expect(early.json == ["__type": "InvalidParameterException", "message": "Missing required parameter Session"])
            let challenged = try await client.passwordAuth("dave", clientId: testClient, extra: ["DEVICE_KEY": .string(device.key)])
            let signedIn = try await Self.proveDevice(client, harness, device, challenge: challenged, session: false)
            #expect(signedIn.json["AuthenticationResult"]?["AccessToken"] != nil, "\(signedIn.text)")
        }
    }

    @Test func aRefreshTokenIsItsDevicesAndEndsWhenTheDeviceIsForgotten() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            func refresh(_ token: JSON?, device: String?) async throws -> Reply {
                var parameters: [String: JSON] = ["REFRESH_TOKEN": token ?? .null]
                parameters["DEVICE_KEY"] = device.map(JSON.string)
                return try await client.cognito("InitiateAuth", ["AuthFlow": "REFRESH_TOKEN_AUTH", "ClientId": .string(testClient),
                                                                 "AuthParameters": .object(parameters)])
            }
            let (device, tokens, _) = try await Self.confirmedDevice(client, harness)
            #expect(try await refresh(tokens["RefreshToken"], device: nil).json == ["__type": "NotAuthorizedException", "message": "Invalid Refresh Token."])
            let refreshed = try await refresh(tokens["RefreshToken"], device: device.key)
            #expect(try claims(refreshed.json["AuthenticationResult"]?["AccessToken"])["device_key"]?.stringValue == device.key)

            // A device not confirmed has no refresh either.
            let unconfirmed = try await client.signIn("dave", clientId: testClient)
            #expect(try await refresh(unconfirmed["RefreshToken"], device: unconfirmed["NewDeviceMetadata"]?["DeviceKey"]?.stringValue).errorType
                    == "NotAuthorizedException")

            #expect(try await client.cognito("ForgetDevice", ["AccessToken": tokens["AccessToken"] ?? .null, "DeviceKey": .string(device.key)]).json == [:])
            #expect(try await refresh(tokens["RefreshToken"], device: device.key).json["message"] == "Invalid Refresh Token.")
            let gone = try await client.cognito("ForgetDevice", ["AccessToken": tokens["AccessToken"] ?? .null, "DeviceKey": .string(device.key)])
            #expect(gone.json == ["__type": "ResourceNotFoundException", "message": "Device does not exist."])
            // A sign-in naming the forgotten key is refused once the password is through, as AWS refuses it; the clients
            // then drop the key, and a sign-in without it gets a new device.
            let named = try await client.passwordAuth("dave", clientId: testClient, extra: ["DEVICE_KEY": .string(device.key)])
            #expect(named.json == ["__type": "ResourceNotFoundException", "message": "Device does not exist."])
            let wrongPassword = try await client.passwordAuth("dave", "not-the-password", clientId: testClient, extra: ["DEVICE_KEY": .string(device.key)])
            #expect(wrongPassword.errorType == "NotAuthorizedException")
            let next = try await client.passwordAuth("dave", clientId: testClient)
            #expect(next.json["AuthenticationResult"]?["NewDeviceMetadata"]?["DeviceKey"] != nil)
        }
    }

    @Test func devicesAreListedAPageAtATimeAndAdministeredByName() async throws {
        let harness = try Harness(seed: Self.seed())
        try await harness.run { client in
            var keys: [String] = []
            var token: JSON = .null
            for name in ["one", "two", "three"] {
                let (device, tokens, _) = try await Self.confirmedDevice(client, harness, name: name)
                keys.append(device.key)
                token = tokens["AccessToken"] ?? .null
            }
            let first = try await client.cognito("ListDevices", ["AccessToken": token, "Limit": 2])
            let second = try await client.cognito("ListDevices", ["AccessToken": token, "Limit": 2, "PaginationToken": first.json["PaginationToken"] ?? .null])
            let listed = ((first.json["Devices"]?.arrayValue ?? []) + (second.json["Devices"]?.arrayValue ?? [])).compactMap { $0["DeviceKey"]?.stringValue }
            #expect(listed == keys.sorted())
            #expect(second.json["PaginationToken"] == nil)
            #expect(try await client.cognito("ListDevices", ["AccessToken": token, "Limit": 61]).errorType == "InvalidParameterException")

            let admin: JSON = ["UserPoolId": .string(testPool), "Username": "dave"]
            #expect(try await client.cognito("AdminListDevices", admin).json["Devices"]?.arrayValue?.count == 3)
            var update = admin.objectValue ?? [:]
            update["DeviceKey"] = .string(keys[0])
            update["DeviceRememberedStatus"] = "not_remembered"
            #expect(try await client.cognito("AdminUpdateDeviceStatus", .object(update)).json == [:])
            update["DeviceRememberedStatus"] = nil
            #expect(try await client.cognito("AdminForgetDevice", .object(update)).json == [:])
            #expect(try await client.cognito("AdminGetDevice", .object(update)).json["__type"] == "ResourceNotFoundException")
            update["DeviceKey"] = "not a key"
            #expect(try await client.cognito("AdminGetDevice", .object(update)).errorType == "InvalidParameterException")
            update["Username"] = "nobody"
            #expect(try await client.cognito("AdminListDevices", .object(update)).errorType == "UserNotFoundException")
        }
    }

    @Test func snapshotsKeepDevicesAndResetsAndUserDeletionsDropThem() async throws {
        let harness = try Harness(seed: Self.seed())
        let emulator = harness.emulator
        try await harness.run { client in
            let (device, _, _) = try await Self.confirmedDevice(client, harness)
            try emulator.takeSnapshot(named: "with-device")
            try emulator.reset()
            #expect(try emulator.device(in: testPool, key: device.key) == nil)
            try emulator.restoreSnapshot(named: "with-device")
            #expect(try emulator.device(in: testPool, key: device.key)?.name == "Dave's phone")
            try emulator.reset(tenant: testPool)
            #expect(try emulator.device(in: testPool, key: device.key) == nil)
            try emulator.restoreSnapshot(named: "with-device")
            #expect(try await client.cognito("AdminDeleteUser", ["UserPoolId": .string(testPool), "Username": "dave"]).status == .ok)
            #expect(try emulator.device(in: testPool, key: device.key) == nil)
        }
    }
}
