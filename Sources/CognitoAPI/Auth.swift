import AuthCore
import Foundation
import HTTPSupport

/// `InitiateAuth`, `AdminInitiateAuth`, `RespondToAuthChallenge`, `AdminRespondToAuthChallenge` and
/// `GetTokensFromRefreshToken`: the JSON face of `SignInFlow`.
enum Auth {
    /// Every `AuthFlowType` the model has, for the validation message.
    static let flows = ["USER_SRP_AUTH", "REFRESH_TOKEN_AUTH", "REFRESH_TOKEN", "CUSTOM_AUTH", "ADMIN_NO_SRP_AUTH", "USER_PASSWORD_AUTH",
                        "ADMIN_USER_PASSWORD_AUTH", "USER_AUTH"]

    /// The flows each operation takes, and the `ExplicitAuthFlows` entry each needs on the client.
    static let publicFlows = ["USER_SRP_AUTH": "ALLOW_USER_SRP_AUTH", "USER_PASSWORD_AUTH": "ALLOW_USER_PASSWORD_AUTH",
                              "REFRESH_TOKEN_AUTH": "ALLOW_REFRESH_TOKEN_AUTH", "REFRESH_TOKEN": "ALLOW_REFRESH_TOKEN_AUTH",
                              "USER_AUTH": "ALLOW_USER_AUTH", "CUSTOM_AUTH": "ALLOW_CUSTOM_AUTH"]
    static let adminFlows = ["ADMIN_USER_PASSWORD_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH": "ALLOW_ADMIN_USER_PASSWORD_AUTH",
                             "USER_SRP_AUTH": "ALLOW_USER_SRP_AUTH", "REFRESH_TOKEN_AUTH": "ALLOW_REFRESH_TOKEN_AUTH",
                             "REFRESH_TOKEN": "ALLOW_REFRESH_TOKEN_AUTH", "USER_AUTH": "ALLOW_USER_AUTH", "CUSTOM_AUTH": "ALLOW_CUSTOM_AUTH"]

    static func initiate(_ call: CognitoCall) async throws -> JSON {
        let admin = call.action == .adminInitiateAuth
        let (pool, client) = try admin ? call.poolAndItsClient() : call.poolAndClient()
        let flowName = try call.body.required("AuthFlow")
        let parameters = try call.body.map("AuthParameters")
        guard let needed = (admin ? adminFlows : publicFlows)[flowName] else {
            guard flows.contains(flowName) else {
                throw CognitoError.invalid("1 validation error detected: Value '\(flowName)' at 'authFlow' failed to satisfy constraint: "
                                           + "Member must satisfy enum value set: [\(flows.joined(separator: ", "))]")
            }
            throw CognitoError.invalid("Initiate Auth method not supported.")
        }
        guard client.allows(needed) else { throw CognitoError.invalid("\(flowName) flow not enabled for this client") }
        // InitiateAuth hands its ClientMetadata only to the pre authentication and migration functions, as their
        // `validationData`; every other function it runs gets none (the API reference's ClientMetadata).
        let validationData = (call.clientMetadata.objectValue ?? [:]).compactMap { key, value in value.stringValue.map { (name: key, value: $0) } }
            .sorted { $0.name < $1.name }
        var flow = SignInFlow(emulator: call.emulator, pools: call.pools, pool: pool, client: client, origin: call.origin, clientMetadata: .null)
        flow.deviceKey = parameters["DEVICE_KEY"]
        if flowName == "REFRESH_TOKEN_AUTH" || flowName == "REFRESH_TOKEN" {
            return try await refresh(call, flow: flow, parameters: parameters)
        }
        let triggers = call.triggers(pool)
        guard flowName != "CUSTOM_AUTH" || triggers.isSet("DefineAuthChallenge") else {
            throw CognitoError.invalid("Custom auth lambda trigger is not configured for the user pool.")
        }
        guard let name = parameters["USERNAME"], !name.isEmpty else { throw CognitoError.invalid("Missing required parameter USERNAME") }
        try call.checkSecretHash(parameters["SECRET_HASH"], usernames: [name], client: client)
        var found = try CognitoUsers.find(name, pool: pool, emulator: call.emulator)
        if found == nil, ["USER_PASSWORD_AUTH", "ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH"].contains(flowName),
           let password = parameters["PASSWORD"], !password.isEmpty {
            found = try await migrate(name, password: password, triggers: triggers, client: client, validationData: validationData,
                                      clientMetadata: .null)
        }
        let user = try found ?? flow.user(named: name, hiding: flowName == "USER_AUTH" ? true : nil)
        try await triggers.preAuthentication(user: user, userName: name, clientId: client.id, validationData: validationData,
                                             clientMetadata: .null)
        let step: SignInStep
        switch flowName {
        case "CUSTOM_AUTH":
            step = try await CustomAuth(flow: flow, triggers: triggers, clientMetadata: flow.clientMetadata).start(user, userName: name, srpA: parameters["SRP_A"])
        case "USER_SRP_AUTH":
            guard let srpA = parameters["SRP_A"], !srpA.isEmpty else { throw CognitoError.invalid("Missing required parameter SRP_A") }
            step = try await flow.startSRP(user, srpA: srpA)
        case "USER_AUTH":
            if let sealed = try call.body.string("Session"), !sealed.isEmpty {
                step = try flow.signUpSession(sealed, user: user)
            } else {
                step = try await flow.choiceBased(user, name: name, parameters: parameters)
            }
        default:
            guard let password = parameters["PASSWORD"], !password.isEmpty else { throw CognitoError.invalid("Missing required parameter PASSWORD") }
            step = try await flow.password(user, password)
        }
        return try await answer(step, flow: flow, call: call)
    }

    /// `UserMigration_Authentication`: a user the pool lacks, brought in by the migration function with the
    /// password they signed in with. A function that does not know them leaves them unknown.
    static func migrate(_ name: String, password: String, triggers: LambdaTriggers, client: CognitoClient,
                        validationData: [(name: String, value: String)], clientMetadata: JSON) async throws -> User? {
        guard let migration = try await triggers.userMigration(source: "UserMigration_Authentication", userName: name, password: password,
                                                               clientId: client.id, validationData: validationData,
                                                               clientMetadata: clientMetadata) else {
            guard !triggers.isSet("UserMigration") || client.preventUserExistenceErrors else {
                throw CognitoError(.userNotFound, "Exception migrating user in app client \(client.id)")
            }
            return nil
        }
        // No password policy here: "Amazon Cognito doesn't enforce the password strength policy … during migration"
        // (the migrate user trigger's guide); a function that wants it answers RESET_REQUIRED.
        return try triggers.createMigrated(migration, userName: name, password: password)
    }

    static func respond(_ call: CognitoCall) async throws -> JSON {
        let admin = call.action == .adminRespondToAuthChallenge
        let (pool, client) = try admin ? call.poolAndItsClient() : call.poolAndClient()
        let name = try call.body.required("ChallengeName")
        let responses = try call.body.map("ChallengeResponses")
        let session = try challengeSession(call, name: name, responses: responses, pool: pool, client: client)
        // SECRET_HASH may be over the name the user typed or the internal username the challenge named.
        let user = try call.emulator.user(in: pool.id, id: session.userId)
        let userNames = user.map { [CognitoUsers.username($0, pool: pool), $0.email, $0.phone, $0.userMetadata["preferred_username"]?.stringValue].compactMap { $0 } } ?? []
        // The answer names the user the session is for, or none: one user's session is not answered in another's name.
        if let named = responses["USERNAME"], user != nil, !userNames.contains(where: { $0.lowercased() == named.lowercased() }) {
            throw CognitoError(.notAuthorized, "Incorrect username or password.")
        }
        try call.checkSecretHash(responses["SECRET_HASH"], usernames: [responses["USERNAME"]].compactMap { $0 } + userNames, client: client)
        var flow = SignInFlow(emulator: call.emulator, pools: call.pools, pool: pool, client: client, origin: call.origin,
                              clientMetadata: call.clientMetadata)
        flow.deviceKey = responses["DEVICE_KEY"] ?? session.data["device_key"]?.stringValue
        let custom = CustomAuth(flow: flow, triggers: call.triggers(pool), clientMetadata: call.clientMetadata)
        let step: SignInStep
        switch name {
        case "PASSWORD_VERIFIER" where session.data[CustomAuth.historyKey] != nil:
            step = try await custom.passwordVerified(session, responses: responses)
        case "PASSWORD_VERIFIER":
            step = try await flow.verifySRP(session, responses: responses)
        case "CUSTOM_CHALLENGE":
            step = try await custom.respond(session, responses: responses)
        case "DEVICE_SRP_AUTH":
            step = try flow.startDeviceSRP(session, responses: responses)
        case "DEVICE_PASSWORD_VERIFIER":
            let (user, device) = try flow.verifyDeviceSRP(session, responses: responses)
            return try await answer(.signedIn(user, firstFactor: session.firstFactor, mfa: session.data["mfa"]?.stringValue), flow: flow, call: call,
                                    source: "TokenGeneration_AuthenticateDevice", device: device)
        default:
            step = try await flow.respond(name, session: session, responses: responses)
        }
        return try await answer(step, flow: flow, call: call,
                                source: name == "NEW_PASSWORD_REQUIRED" ? "TokenGeneration_NewPasswordChallenge" : "TokenGeneration_Authentication")
    }

    /// The session an answer continues: the `Session` given (for the SRP verifiers, the secret block that
    /// is one), or for a `DEVICE_SRP_AUTH` sent without its own, the sign-in its device is waiting in. AWS reads no
    /// session there: pycognito sends none, and amazon-cognito-identity-js, after an MFA code, sends the MFA step's,
    /// which that step spent.
    static func challengeSession(_ call: CognitoCall, name: String, responses: [String: String], pool: CognitoPool,
                                 client: CognitoClient) throws -> ChallengeSession {
        let given = try call.body.string("Session")
        let sealed = name == "PASSWORD_VERIFIER" || name == "DEVICE_PASSWORD_VERIFIER" ? (responses["PASSWORD_CLAIM_SECRET_BLOCK"] ?? given) : given
        if name == "DEVICE_SRP_AUTH", let device = responses["DEVICE_KEY"],
           let waiting = call.pools.pendingDevices.waiting(poolId: pool.id, clientId: client.id, deviceKey: device, now: call.emulator.clock.now) {
            let own = sealed.flatMap { try? ChallengeSession.open($0, clientId: client.id, emulator: call.emulator, replays: call.pools.replays) }
            return own.flatMap { $0.challenge == "DEVICE_SRP_AUTH" && $0.poolId == pool.id ? $0 : nil } ?? waiting
        }
        guard sealed?.isEmpty == false else { throw CognitoError.invalid("Missing required parameter Session") }
        let session = try ChallengeSession.open(sealed, clientId: client.id, emulator: call.emulator, replays: call.pools.replays)
        guard session.poolId == pool.id else { throw CognitoError(.notAuthorized, "Invalid session for the user.") }
        return session
    }

    /// A step as `InitiateAuth` answers it: `AuthenticationResult` (after the post authentication and pre
    /// token generation triggers, the latter's event from `source`), or `ChallengeName` with its
    /// parameters and `Session`. A user signing in on a device they registered gets `DEVICE_SRP_AUTH` first;
    /// once it has `proven` itself, the tokens are that device's; in a pool that tracks devices, any other
    /// sign-in's carry `NewDeviceMetadata`.
    static func answer(_ step: SignInStep, flow: SignInFlow, call: CognitoCall, source: String = "TokenGeneration_Authentication",
                       device proven: Device? = nil) async throws -> JSON {
        switch step {
        case .signedIn(let user, let firstFactor, let mfa):
            if proven == nil, let device = try flow.trackedDevice(of: user) {
                return try await answer(flow.deviceChallenge(user, device: device, firstFactor: firstFactor, mfa: mfa), flow: flow, call: call)
            }
            let device = try proven.map(DeviceBinding.init(proven:)) ?? flow.newDevice(for: user)
            let triggers = call.triggers(flow.pool)
            let overrides = try await triggers.preTokenGeneration(source: source, user: user, clientId: flow.client.id, scopes: [CognitoTokens.adminScope],
                                                                  clientMetadata: flow.clientMetadata)
            try await triggers.postAuthentication(user: user, clientId: flow.client.id, clientMetadata: flow.clientMetadata,
                                                  newDeviceUsed: device?.isNew == true)
            let (minted, refreshToken) = try CognitoTokens.issue(user, pool: flow.pool, client: flow.client, firstFactor: firstFactor, mfa: mfa,
                                                                 baseURL: call.baseURL, emulator: call.emulator, origin: call.origin, overrides: overrides,
                                                                 device: device)
            return ["ChallengeParameters": [:], "AuthenticationResult": CognitoTokens.authenticationResult(minted, refreshToken: refreshToken,
                                                                                                            newDevice: device)]
        case .challenge(let name, let parameters, let session):
            var answer: [String: JSON] = ["ChallengeName": .string(name), "ChallengeParameters": .object(parameters.mapValues(JSON.string)),
                                          "Session": .string(try session.sealed(call.emulator))]
            if name == "SELECT_CHALLENGE", let user = try call.emulator.user(in: flow.pool.id, id: session.userId) {
                answer["AvailableChallenges"] = .array(flow.availableFirstFactors(user).map(JSON.string))
            }
            return .object(answer)
        }
    }

    /// `REFRESH_TOKEN_AUTH`: new access and ID tokens for the same session; the refresh token stays.
    static func refresh(_ call: CognitoCall, flow: SignInFlow, parameters: [String: String]) async throws -> JSON {
        guard let token = parameters["REFRESH_TOKEN"], !token.isEmpty else { throw CognitoError.invalid("Missing required parameter REFRESH_TOKEN") }
        // "Refresh token rotation must be completed with GetTokensFromRefreshToken" (RefreshTokenRotationType); AWS's
        // refusal is not known, so its words are Fauxth's.
        guard !flow.client.refreshTokenRotation.enabled else {
            throw CognitoError.invalid("This app client rotates refresh tokens: refresh with GetTokensFromRefreshToken, not REFRESH_TOKEN_AUTH.")
        }
        if flow.client.secret != nil {
            // The hash is over the user's internal username, which only the token's session knows.
            let owner = try call.emulator.session(in: flow.pool.id, refreshToken: token).flatMap { try call.emulator.user(in: flow.pool.id, id: $0.userId) }
            let names = [parameters["USERNAME"], owner.map { CognitoUsers.username($0, pool: flow.pool) }].compactMap { $0 }
            try call.checkSecretHash(parameters["SECRET_HASH"], usernames: names, client: flow.client)
        }
        try CognitoTokens.checkDevice(of: token, given: parameters["DEVICE_KEY"], pool: flow.pool, emulator: call.emulator)
        let (user, session) = try CognitoTokens.continueSession(token, pool: flow.pool, client: flow.client, emulator: call.emulator, origin: call.origin)
        let overrides = try await refreshOverrides(call.triggers(flow.pool), client: flow.client, user: user, session: session,
                                                   clientMetadata: flow.clientMetadata)
        let minted = try CognitoTokens.mint(user: user, pool: flow.pool, client: flow.client, session: session, baseURL: call.baseURL,
                                            emulator: call.emulator, overrides: overrides)
        return ["ChallengeParameters": [:], "AuthenticationResult": CognitoTokens.authenticationResult(minted, refreshToken: nil)]
    }

    /// `GetTokensFromRefreshToken`: like `REFRESH_TOKEN_AUTH`, with the client secret itself instead of
    /// a hash, and a new refresh token when the client rotates them.
    static func tokensFromRefreshToken(_ call: CognitoCall) async throws -> JSON {
        let (pool, client) = try call.poolAndClient()
        let token = try call.body.required("RefreshToken")
        if let secret = client.secret {
            guard let given = try call.body.string("ClientSecret"), constantTimeEquals(given, secret) else {
                throw CognitoError(.notAuthorized, "Unable to verify secret for client \(client.id)")
            }
        }
        guard client.allows("ALLOW_REFRESH_TOKEN_AUTH") else { throw CognitoError.invalid("REFRESH_TOKEN_AUTH flow not enabled for this client") }
        try CognitoTokens.checkDevice(of: token, given: try call.body.string("DeviceKey"), pool: pool, emulator: call.emulator)
        let (user, session, rotated) = try CognitoTokens.refreshSession(token, pool: pool, client: client, emulator: call.emulator, origin: call.origin)
        let overrides = try await refreshOverrides(call, pool: pool, client: client, user: user, session: session)
        let minted = try CognitoTokens.mint(user: user, pool: pool, client: client, session: session, baseURL: call.baseURL, emulator: call.emulator,
                                            overrides: overrides)
        return ["AuthenticationResult": CognitoTokens.authenticationResult(minted, refreshToken: rotated)]
    }

    /// `TokenGeneration_RefreshTokens`: the pre token generation function sees every refresh too.
    static func refreshOverrides(_ call: CognitoCall, pool: CognitoPool, client: CognitoClient, user: User,
                                 session: Session) async throws -> LambdaTriggers.TokenOverrides? {
        try await refreshOverrides(call.triggers(pool), client: client, user: user, session: session, clientMetadata: call.clientMetadata)
    }

    /// `TokenGeneration_RefreshTokens`, with the scopes the session was granted (the API's and the hosted UI's refresh).
    static func refreshOverrides(_ triggers: LambdaTriggers, client: CognitoClient, user: User, session: Session,
                                 clientMetadata: JSON) async throws -> LambdaTriggers.TokenOverrides? {
        let scopes = (session.claims["scope"]?.stringValue ?? CognitoTokens.adminScope).split(separator: " ").map(String.init)
        return try await triggers.preTokenGeneration(source: "TokenGeneration_RefreshTokens", user: user, clientId: client.id, scopes: scopes,
                                                     clientMetadata: clientMetadata)
    }
}
