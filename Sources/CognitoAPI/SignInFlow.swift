import AuthCore
import Foundation

/// Where a sign-in step leads: the user is signed in, or the client has a challenge to answer.
enum SignInStep {
    /// `mfa` names the second factor answered, if one was.
    case signedIn(User, firstFactor: String, mfa: String?)
    case challenge(String, parameters: [String: String], session: ChallengeSession)
}

/// The rules of a Cognito sign-in, step by step, shared by `InitiateAuth`/`RespondToAuthChallenge`
/// (and their admin twins) and the hosted UI: first factors (password, SRP, email or SMS codes), the
/// account's state (unconfirmed, reset required, temporary password), then MFA.
struct SignInFlow {
    let emulator: Emulator
    let pools: CognitoPools
    let pool: CognitoPool
    let client: CognitoClient
    let origin: RequestOrigin
    /// The request's `ClientMetadata`, for the functions a sign-in code's message calls.
    var clientMetadata: JSON = .null
    /// The device the client says it signs in from (`DEVICE_KEY`), carried from step to step.
    var deviceKey: String? = nil

    var now: Date { emulator.clock.now }
    var mailer: CognitoMailer { CognitoMailer(triggers: pools.triggers(pool, origin: origin)) }
    /// Sign-in and MFA codes are `Authentication` messages to the custom message and sender functions.
    var authenticationMessage: CognitoMailer.Cause { CognitoMailer.Cause(source: "Authentication", clientId: client.id, clientMetadata: clientMetadata) }

    /// The user a sign-in names. An unknown name is `UserNotFoundException`, or, for a client that
    /// prevents user-existence errors and in choice-based sign-in (`hiding`), nil (the flow then fails the way a
    /// wrong password does).
    func user(named name: String, hiding: Bool? = nil) throws -> User? {
        if let user = try CognitoUsers.find(name, pool: pool, emulator: emulator) { return user }
        emulator.record(.signInFailed, tenant: pool.id, origin: origin, detail: ["reason": "unknown_user"])
        guard hiding ?? client.preventUserExistenceErrors else { throw CognitoError.userDoesNotExist }
        return nil
    }

    // MARK: First factors

    /// A password sign-in (`USER_PASSWORD_AUTH`, `ADMIN_USER_PASSWORD_AUTH`, `USER_AUTH`'s `PASSWORD`, the hosted UI).
    func password(_ user: User?, _ password: String) async throws -> SignInStep {
        // An unknown name was recorded when it was looked up (`user(named:)`).
        guard let user else { throw CognitoError.incorrectCredentials }
        // A user with no password to check (imported by a job, or migrated with a forgotten one) must choose one
        // through ForgotPassword first, which Cognito says whatever password was tried, unless the client hides
        // which users exist.
        if !user.hasPassword, CognitoUsers.status(user) == "RESET_REQUIRED" {
            throw client.preventUserExistenceErrors ? CognitoError.incorrectCredentials : CognitoError.resetRequired
        }
        do {
            return try await afterFirstFactor(try emulator.authenticate(in: pool.id, user: user, password: password, origin: origin), method: "password")
        } catch AuthError.invalidCredentials {
            throw CognitoError.incorrectCredentials
        }
    }

    /// `USER_SRP_AUTH` (and `PASSWORD_SRP`): the `PASSWORD_VERIFIER` challenge with the user's salt, the
    /// server's public value `B` and a `SECRET_BLOCK` that carries `b` sealed. An unknown user (when
    /// existence errors are hidden) or one without a password gets a challenge no answer can pass.
    func startSRP(_ user: User?, srpA: String, from previous: ChallengeSession? = nil) async throws -> SignInStep {
        // A must be a number in the group and not 0 mod N, or a client could force the shared secret.
        guard let A = SRPNumber(hex: srpA), A < CognitoSRP.n, !A.isZero else { throw CognitoError.invalid("SRP_A is not valid.") }
        let credential = try user.flatMap { try emulator.credential(in: pool.id, userId: $0.id, kind: "srp") }
        let stored = credential?.split(separator: "$")
        // The stored salt's text as it is: one written before salts lost their leading zeros (its verifier hashed
        // them) still works for clients that hash the text (pycognito), if not for those that hash the number.
        let salt = stored?.first.map(String.init) ?? CognitoSRP.newSalt(emulator.generator)
        let verifier = stored.flatMap { $0.count == 2 ? SRPNumber(hex: String($0[1])) : nil }
            ?? SRPNumber(bytes: emulator.generator.bytes(32)) // a stand-in no password produces
        let (b, B) = CognitoSRP.serverKey(verifier: verifier, generator: emulator.generator)
        let srpUser = user.map { CognitoUsers.username($0, pool: pool) } ?? emulator.generator.uuid()
        // The key the password's holder will derive, worked out now rather than at the answer: everything it
        // needs is known here, and keeping it (not b) spares the answer recomputing B, one of the four
        // 3072-bit exponentiations an SRP sign-in cost. An unknown user's stand-in costs the same.
        var data: [String: JSON] = ["srp_key": CognitoSRP.sessionKey(A: A, B: B, b: b, verifier: verifier).map { .string($0.hex) } ?? .null,
                                    "srp_user": .string(srpUser)]
        data["srp_credential"] = credential.map { .string(CognitoSRP.fingerprint($0)) }
        if user == nil || stored == nil { data["ghost"] = true }
        let session = previous?.next("PASSWORD_VERIFIER", data: data, emulator: emulator)
            ?? newSession(userId: user?.id ?? "", challenge: "PASSWORD_VERIFIER", firstFactor: "srp", data: data)
        let block = try session.sealed(emulator)
        return .challenge("PASSWORD_VERIFIER", parameters: ["SALT": salt, "SRP_B": B.hex, "SECRET_BLOCK": block,
                                                            "USER_ID_FOR_SRP": srpUser, "USERNAME": srpUser], session: session)
    }

    /// The answer to `PASSWORD_VERIFIER`: the client's HMAC over the pool name, its user id, the secret
    /// block and its timestamp, with the key only the right password yields. One answer per block.
    /// `continuing: false` stops at the password (the custom flow's define function decides what follows).
    func verifySRP(_ session: ChallengeSession, responses: [String: String], continuing: Bool = true) async throws -> SignInStep {
        guard pools.replays.spend(session, now: now) else { throw CognitoError.staleSession }
        // A password changed since the challenge gets no answer from the old one's key.
        guard session.data["ghost"] == nil, let user = try emulator.user(in: pool.id, id: session.userId),
              let srpUser = session.data["srp_user"]?.stringValue,
              let credential = try emulator.credential(in: pool.id, userId: user.id, kind: "srp"),
              session.data["srp_credential"]?.stringValue == CognitoSRP.fingerprint(credential) else { throw CognitoError.incorrectCredentials }
        guard let timestamp = responses["TIMESTAMP"], CognitoSRP.isValidTimestamp(timestamp),
              let signature = responses["PASSWORD_CLAIM_SIGNATURE"].flatMap({ Data(base64Encoded: $0) }),
              let block = responses["PASSWORD_CLAIM_SECRET_BLOCK"].flatMap({ Data(base64Encoded: $0) }) else {
            throw CognitoError.incorrectCredentials
        }
        let key = session.data["srp_key"]?.stringValue.map { CognitoSRP.bytes(hex: $0) }
        let signedIn: User
        do {
            signedIn = try emulator.authenticate(in: pool.id, user: user, method: "srp", origin: origin) {
                guard let key else { return false }
                let expected = CognitoSRP.claimSignature(key: key, poolId: pool.id, userId: srpUser, secretBlock: Array(block), timestamp: timestamp)
                return constantTimeEquals(expected, Array(signature))
            }
        } catch AuthError.invalidCredentials {
            throw CognitoError.incorrectCredentials
        }
        guard continuing else { return .signedIn(signedIn, firstFactor: "srp", mfa: nil) }
        do {
            return try await afterFirstFactor(signedIn, method: "srp")
        } catch let error as CognitoError where error == .deviceDoesNotExist {
            // A forgotten device: Amplify and amazon-cognito-identity-js drop the key and send the same answer with the
            // same session, which AWS takes (amplify-js handlePasswordSRP's retry, tested against it in #12241).
            pools.replays.refund(session)
            throw error
        }
    }

    /// Sends a sign-in code by email or SMS (`USER_AUTH`'s `EMAIL_OTP` and `SMS_OTP` first factors).
    func startOTP(_ user: User, challenge: String, from previous: ChallengeSession? = nil) async throws -> SignInStep {
        let destination = challenge == "EMAIL_OTP" ? user.email : user.phone
        guard let destination else { throw CognitoError.invalid("The user has no \(challenge == "EMAIL_OTP" ? "email" : "phone_number") to send a code to.") }
        try await mailer.send(.signIn, to: destination, user: user, origin: origin, cause: authenticationMessage)
        let data: [String: JSON] = ["destination": .string(destination), "passwordless": true]
        let session = next(previous, user: user, challenge: challenge, firstFactor: "otp", data: data)
        return .challenge(challenge, parameters: codeDelivery(destination), session: session)
    }

    // MARK: After the first factor

    /// The account's state, then MFA.
    func afterFirstFactor(_ user: User, method: String) async throws -> SignInStep {
        try emulator.checkCanSignIn(user, origin: origin)
        switch CognitoUsers.status(user) {
        case "UNCONFIRMED": throw CognitoError(.userNotConfirmed, "User is not confirmed.")
        case "RESET_REQUIRED": throw CognitoError.resetRequired
        case "FORCE_CHANGE_PASSWORD":
            let days = pool.passwordPolicy["TemporaryPasswordValidityDays"]?.intValue ?? 7
            if let set = user.passwordUpdatedAt, now.timeIntervalSince(set) > Double(days) * 86400 {
                throw CognitoError(.notAuthorized, "Temporary password has expired and must be reset by an administrator.")
            }
            var attributes: [String: JSON] = [:]
            for attribute in CognitoUsers.attributes(user) {
                guard let name = attribute["Name"]?.stringValue, name != "sub" else { continue }
                attributes[name] = attribute["Value"]
            }
            let session = newSession(userId: user.id, challenge: "NEW_PASSWORD_REQUIRED", firstFactor: method)
            return .challenge("NEW_PASSWORD_REQUIRED", parameters: [
                "USER_ID_FOR_SRP": CognitoUsers.username(user, pool: pool), "userAttributes": JSON.object(attributes).serialized(),
                "requiredAttributes": JSON.array(missingRequiredAttributes(user).map { .string("userAttributes.\($0)") }).serialized(),
            ], session: session)
        default:
            // A DEVICE_KEY the user has no device under is refused here, once the password is through.
            _ = try trackedDevice(of: user)
            return try await mfa(user, firstFactor: method)
        }
    }

    /// The MFA methods the user has turned on (SMS the legacy way too) that the pool allows and that can reach them.
    func usableMFA(_ user: User) throws -> [String] {
        let hasTOTP = try CognitoUsers.softwareToken(user, pool: pool, emulator: emulator) != nil
        var enabled = CognitoUsers.enabledMFA(user)
        if CognitoUsers.legacySMSMFA(user), !enabled.contains("SMS_MFA") { enabled.append("SMS_MFA") }
        return enabled.filter { method in
            switch method {
            // "If you deactivate software token MFA for the user pool later, users who previously associated and
            // verified a TOTP token can continue to use it for MFA" (the TOTP page of the developer guide).
            case "SOFTWARE_TOKEN_MFA": hasTOTP
            case "SMS_MFA": pool.smsMFAEnabled && user.phone != nil
            case "EMAIL_OTP": pool.emailMFAEnabled && user.email != nil
            default: false
            }
        }
    }

    /// A second factor when the pool asks for one: the user's preferred method, a choice between
    /// several, or (in a pool that requires MFA) whatever reaches a user who set none up.
    func mfa(_ user: User, firstFactor: String, from previous: ChallengeSession? = nil) async throws -> SignInStep {
        guard pool.mfaConfiguration != "OFF" else { return .signedIn(user, firstFactor: firstFactor, mfa: nil) }
        // A remembered device proves itself instead (`DEVICE_SRP_AUTH`, before any tokens).
        if try deviceStandsInForMFA(user) { return .signedIn(user, firstFactor: firstFactor, mfa: nil) }
        let usable = try usableMFA(user)
        if let preferred = CognitoUsers.preferredMFA(user), usable.contains(preferred) {
            return try await mfaChallenge(preferred, user: user, firstFactor: firstFactor, from: previous)
        }
        if usable.count == 1 { return try await mfaChallenge(usable[0], user: user, firstFactor: firstFactor, from: previous) }
        if usable.count > 1 {
            let session = next(previous, user: user, challenge: "SELECT_MFA_TYPE", firstFactor: firstFactor)
            return .challenge("SELECT_MFA_TYPE", parameters: ["MFAS_CAN_CHOOSE": JSON.array(usable.map(JSON.string)).serialized()], session: session)
        }
        guard pool.mfaConfiguration == "ON" else { return .signedIn(user, firstFactor: firstFactor, mfa: nil) }
        if pool.smsMFAEnabled, user.phone != nil { return try await mfaChallenge("SMS_MFA", user: user, firstFactor: firstFactor, from: previous) }
        if pool.emailMFAEnabled, user.email != nil { return try await mfaChallenge("EMAIL_OTP", user: user, firstFactor: firstFactor, from: previous) }
        return try mfaSetup(user, firstFactor: firstFactor, from: previous)
    }

    /// `SMS_MFA` and `EMAIL_OTP` send a code; `SOFTWARE_TOKEN_MFA` asks the authenticator app.
    func mfaChallenge(_ name: String, user: User, firstFactor: String, from previous: ChallengeSession?) async throws -> SignInStep {
        switch name {
        case "SMS_MFA", "EMAIL_OTP":
            guard let destination = name == "SMS_MFA" ? user.phone : user.email else {
                throw CognitoError(.mfaMethodNotFound, "The user has no \(name == "SMS_MFA" ? "phone_number" : "email") for \(name).")
            }
            try await mailer.send(.mfa, to: destination, user: user, origin: origin, cause: authenticationMessage)
            let session = next(previous, user: user, challenge: name, firstFactor: firstFactor, data: ["destination": .string(destination)])
            return .challenge(name, parameters: codeDelivery(destination), session: session)
        default:
            // AWS names the authenticator as VerifySoftwareToken was told it (amazon-cognito-identity-js hands these
            // to totpRequired; Amplify Android shows the name).
            var parameters = ["USER_ID_FOR_SRP": CognitoUsers.username(user, pool: pool)]
            parameters["FRIENDLY_DEVICE_NAME"] = try CognitoUsers.softwareToken(user, pool: pool, emulator: emulator)?.friendlyName
            let session = next(previous, user: user, challenge: "SOFTWARE_TOKEN_MFA", firstFactor: firstFactor)
            return .challenge("SOFTWARE_TOKEN_MFA", parameters: parameters, session: session)
        }
    }

    // MARK: Answers

    /// The answer to any challenge but `PASSWORD_VERIFIER`. A wrong code counts against the session;
    /// a right answer uses it up.
    func respond(_ name: String, session: ChallengeSession, responses: [String: String]) async throws -> SignInStep {
        guard session.challenge == name else {
            throw CognitoError.invalid("The challenge \(name) does not match the session, which is for \(session.challenge).")
        }
        func required(_ key: String) throws -> String {
            guard let value = responses[key], !value.isEmpty else { throw CognitoError.invalid("Missing required parameter \(key)") }
            return value
        }
        // An unknown user's stand-in challenge (`unknownUser`): no answer passes it, and it fails as a wrong one does.
        if session.data["ghost"] == true, name == "EMAIL_OTP" || name == "SMS_OTP" {
            pools.replays.fail(session, now: now)
            throw CognitoError(.codeMismatch, "Invalid code or auth state for the user.")
        }
        if session.data["ghost"] == true, name == "PASSWORD" {
            _ = try required("PASSWORD")
            pools.replays.fail(session, now: now)
            throw CognitoError.incorrectCredentials
        }
        guard let user = try emulator.user(in: pool.id, id: session.userId) else { throw CognitoError.userDoesNotExist }
        func spend() throws {
            guard pools.replays.spend(session, now: now) else { throw CognitoError.staleSession }
        }
        switch name {
        case "NEW_PASSWORD_REQUIRED":
            let password = try required("NEW_PASSWORD")
            try CognitoMailer.checkPassword(password, pool: pool)
            let attributes = responses.compactMap { key, value in
                key.hasPrefix("userAttributes.") ? (name: String(key.dropFirst("userAttributes.".count)), value: value) : nil
            }
            // The pool's required attributes the user lacks must come with the new password.
            if let missing = missingRequiredAttributes(user).first(where: { name in !attributes.contains { $0.name == name && !$0.value.isEmpty } }) {
                throw CognitoError.invalid("Invalid attributes given, \(missing) is missing")
            }
            try CognitoUsers.checkNewPasswordAttributes(attributes.map(\.name), of: user, pool: pool)
            var changes = try CognitoUsers.changes(attributes, pool: pool)
            changes.password = password
            changes.appMetadata = [CognitoUsers.statusKey: "CONFIRMED"]
            try spend()
            let updated = try emulator.updateUser(in: pool.id, id: user.id, changes, origin: origin)
            return try await mfa(updated, firstFactor: session.firstFactor, from: session)
        case "SMS_MFA", "EMAIL_OTP", "SMS_OTP":
            let code = try required(name == "SMS_MFA" ? "SMS_MFA_CODE" : (name == "SMS_OTP" ? "SMS_OTP_CODE" : "EMAIL_OTP_CODE"))
            let passwordless = session.data["passwordless"] == true
            do {
                try mailer.verify(passwordless ? .signIn : .mfa, code: code, destination: session.data["destination"]?.stringValue ?? "", user: user,
                                  origin: origin)
            } catch let error as CognitoError where error.kind == .codeMismatch {
                pools.replays.fail(session, now: now)
                throw CognitoError(.codeMismatch, "Invalid code or auth state for the user.")
            }
            try spend()
            if session.data["mfa_setup"] == true, let address = session.data["destination"]?.stringValue {
                return .signedIn(try finishEmailSetup(user, address: address), firstFactor: session.firstFactor, mfa: name)
            }
            guard passwordless else {
                // "After your user completes SMS MFA, Amazon Cognito sets their phone_number_verified attribute to true."
                let proven = name == "SMS_MFA" && user.phoneVerifiedAt == nil
                    ? try emulator.updateUser(in: pool.id, id: user.id, UserChanges(phoneVerified: true), origin: origin) : user
                return .signedIn(proven, firstFactor: session.firstFactor, mfa: name)
            }
            try emulator.checkCanSignIn(user, stage: .challenge, origin: origin)
            // A code that reached the address proves it, as a confirmation code would.
            if CognitoUsers.status(user) == "CONFIRMED" {
                try emulator.updateUser(in: pool.id, id: user.id, name == "EMAIL_OTP" ? UserChanges(emailVerified: true) : UserChanges(phoneVerified: true))
            }
            return try await afterFirstFactorWithoutMFA(user)
        case "SOFTWARE_TOKEN_MFA":
            let code = try required("SOFTWARE_TOKEN_MFA_CODE")
            guard let factor = try CognitoUsers.softwareToken(user, pool: pool, emulator: emulator) else {
                throw CognitoError(.softwareTokenMFANotFound, "Software Token MFA has not been set up for the user.")
            }
            do {
                try emulator.verifyTOTP(in: pool.id, factor: factor, code: code, origin: origin)
            } catch AuthError.mfaVerificationFailed {
                pools.replays.fail(session, now: now)
                throw CognitoError(.codeMismatch, "Invalid code received for user")
            }
            try spend()
            return .signedIn(user, firstFactor: session.firstFactor, mfa: name)
        case "SELECT_MFA_TYPE":
            let answer = try required("ANSWER")
            guard try usableMFA(user).contains(answer) else { throw CognitoError.invalid("The MFA type \(answer) is not enabled for the user.") }
            try spend()
            return try await mfaChallenge(answer, user: user, firstFactor: session.firstFactor, from: session)
        case "MFA_SETUP":
            return try await answerMFASetup(user, session: session, responses: responses, spend: spend)
        case "SELECT_CHALLENGE":
            let answer = try required("ANSWER")
            guard availableFirstFactors(user).contains(answer) else { throw CognitoError.invalid("The challenge \(answer) is not available for the user.") }
            switch answer {
            case "PASSWORD":
                guard let password = responses["PASSWORD"] else {
                    try spend()
                    return .challenge("PASSWORD", parameters: [:], session: session.next("PASSWORD", lifetime: sessionLifetime, emulator: emulator))
                }
                return try await answerPassword(password, user: user, session: session)
            case "PASSWORD_SRP":
                let srpA = try required("SRP_A")
                try spend()
                return try await startSRP(user, srpA: srpA, from: session)
            case "WEB_AUTHN":
                try spend()
                return try startWebAuthn(user, from: session)
            default:
                try spend()
                return try await startOTP(user, challenge: answer, from: session)
            }
        case "PASSWORD":
            return try await answerPassword(try required("PASSWORD"), user: user, session: session)
        case "WEB_AUTHN":
            let credential = try required("CREDENTIAL")
            try spend()
            return try answerWebAuthn(session, user: user, credential: credential)
        case "PASSWORD_SRP":
            let srpA = try required("SRP_A")
            try spend()
            return try await startSRP(user, srpA: srpA, from: session)
        default:
            throw CognitoError.invalid("The challenge \(name) is not supported by Fauxth.")
        }
    }

    private func answerPassword(_ password: String, user: User, session: ChallengeSession) async throws -> SignInStep {
        do {
            let step = try await self.password(user, password)
            guard pools.replays.spend(session, now: now) else { throw CognitoError.staleSession }
            return step
        } catch let error as CognitoError where error == .incorrectCredentials {
            pools.replays.fail(session, now: now)
            throw error
        }
    }

    /// After a passwordless first factor Cognito asks for no second one.
    private func afterFirstFactorWithoutMFA(_ user: User) async throws -> SignInStep {
        guard CognitoUsers.status(user) != "UNCONFIRMED" else { throw CognitoError(.userNotConfirmed, "User is not confirmed.") }
        return .signedIn(user, firstFactor: "otp", mfa: nil)
    }

    // MARK: Helpers

    var sessionLifetime: TimeInterval { client.authSessionValidity }

    func newSession(userId: String, challenge: String, firstFactor: String, data: [String: JSON] = [:]) -> ChallengeSession {
        var data = data
        if let deviceKey, data["device_key"] == nil { data["device_key"] = .string(deviceKey) }
        return ChallengeSession(poolId: pool.id, clientId: client.id, userId: userId, challenge: challenge, firstFactor: firstFactor, data: data,
                                lifetime: sessionLifetime, emulator: emulator)
    }

    /// The session of the step after `previous` (spent with it), or a new one when the step starts the sign-in.
    func next(_ previous: ChallengeSession?, user: User, challenge: String, firstFactor: String, data: [String: JSON] = [:]) -> ChallengeSession {
        previous?.next(challenge, data: data, lifetime: sessionLifetime, emulator: emulator)
            ?? newSession(userId: user.id, challenge: challenge, firstFactor: firstFactor, data: data)
    }

    func codeDelivery(_ destination: String) -> [String: String] {
        ["CODE_DELIVERY_DELIVERY_MEDIUM": destination.contains("@") ? "EMAIL" : "SMS", "CODE_DELIVERY_DESTINATION": CognitoUsers.masked(destination)]
    }

    /// The pool's required schema attributes the user has no value for.
    private func missingRequiredAttributes(_ user: User) -> [String] {
        let have = Set(CognitoUsers.attributes(user).compactMap { $0["Name"]?.stringValue })
        return (pool.pool["Schema"]?.arrayValue ?? []).compactMap { attribute in
            guard attribute["Required"]?.boolValue == true, let name = attribute["Name"]?.stringValue, !have.contains(name) else { return nil }
            return name
        }
    }
}

extension CognitoError {
    static let staleSession = CognitoError(.notAuthorized, "Invalid session for the user, session can only be used once.")
}
