import AuthCore
import Foundation
import HTTPSupport

/// `SignUp`, `ConfirmSignUp`, `ResendConfirmationCode` and `AdminConfirmSignUp`.
enum SignUp {
    static func signUp(_ call: CognitoCall) async throws -> JSON {
        let (pool, client) = try call.poolAndClient()
        guard !pool.adminCreateUserOnly else { throw CognitoError(.notAuthorized, "SignUp is not permitted for this user pool") }
        let username = try call.body.required("Username")
        // Left out (or blank) only where a passwordless sign-in is open to the client: the pool's first factors offer
        // an email or SMS code and the client allows `USER_AUTH` (SignUp's `Password`, and the developer guide's
        // "passwordless sign-in is active in your user pool and app client").
        let password = try call.body.string("Password").flatMap { $0.isEmpty ? nil : $0 }
        if password == nil, !client.allows("ALLOW_USER_AUTH") || pool.passwordlessFactors.isEmpty { throw CognitoBody.missing("Password") }
        try call.checkSecretHash(try call.body.string("SecretHash"), usernames: [username], client: client)
        let registered = try await register(username: username, password: password, attributes: try call.body.attributes("UserAttributes"),
                                            validationData: try call.body.attributes("ValidationData"), triggers: call.triggers(pool),
                                            cause: call.cause("SignUp", client: client.id))
        var answer: [String: JSON] = ["UserConfirmed": .bool(registered.confirmed), "UserSub": .string(registered.user.id)]
        answer["CodeDeliveryDetails"] = registered.delivery
        answer["Session"] = try signUpSession(registered.user, confirmed: registered.confirmed, client: client, call: call)
        return .object(answer)
    }

    /// The `Session` SignUp and ConfirmSignUp answer a client that allows `USER_AUTH`: `InitiateAuth` `USER_AUTH` with it
    /// signs the confirmed user in once, without another code or MFA, the confirmation code having been their proof ("sign
    /// in a user directly from the sign-up process"; `SignInFlow.signUpSession`). SignUp's does so only for a user a pre
    /// sign-up function confirmed at once, which is when Amplify's auto sign-in sends it; otherwise ConfirmSignUp's does.
    static func signUpSession(_ user: User, confirmed: Bool, client: CognitoClient, call: CognitoCall) throws -> JSON? {
        guard client.allows("ALLOW_USER_AUTH") else { return nil }
        let session = ChallengeSession(poolId: user.tenant, clientId: client.id, userId: user.id, challenge: SignInFlow.signUpChallenge,
                                       firstFactor: "otp", data: ["confirmed": .bool(confirmed)], lifetime: client.authSessionValidity,
                                       emulator: call.emulator)
        return .string(try session.sealed(call.emulator))
    }

    /// What a sign-up did: the user, whether a pre sign-up function confirmed them at once, and where the
    /// confirmation code went (its `CodeDeliveryDetails`), if the pool auto-verifies an address they gave.
    struct Registration {
        let user: User
        let confirmed: Bool
        let delivery: JSON?
    }

    /// A sign-up, from the API or the hosted UI's page: the request is checked before the pre sign-up
    /// function is asked about it; a user it confirms is told to the post confirmation function, any other
    /// is sent a code.
    static func register(username: String, password: String?, attributes: [(name: String, value: String)],
                         validationData: [(name: String, value: String)], triggers: LambdaTriggers, cause: CognitoMailer.Cause) async throws -> Registration {
        let pool = triggers.pool
        if let password { try CognitoMailer.checkPassword(password, pool: pool) }
        let new = try newUser(username: username, attributes: attributes, pool: pool, emulator: triggers.emulator)
        // A sign-up must give what the schema requires (an administrator's AdminCreateUser need not).
        let given = Set(attributes.filter { !$0.value.isEmpty }.map(\.name)
                        + (new.email != nil ? ["email"] : []) + (new.phone != nil ? ["phone_number"] : []))
        let missing = pool.requiredAttributes.subtracting(given).sorted()
        if !missing.isEmpty {
            throw CognitoError.invalid("Attributes did not conform to the schema: " + missing.map { "\($0): The attribute is required\n" }.joined())
        }
        // A user without a password signs in with a code, so they must give an address one of the pool's code factors uses.
        if password == nil, !(pool.passwordlessFactors.contains("EMAIL_OTP") && new.email != nil),
           !(pool.passwordlessFactors.contains("SMS_OTP") && new.phone != nil) {
            throw CognitoError.invalid("A user without a password needs an email address or phone number the pool's passwordless sign-in can use.")
        }
        // In a pool that signs in by email or phone the function sees the user's sub as userName, as it does in
        // every later event (captured PreSignUp_SignUp events; amplify-cli #2219), so the user keeps the id it was told.
        let decision = try await triggers.preSignUp(source: "PreSignUp_SignUp", userName: new.username ?? new.id ?? username, clientId: cause.clientId,
                                                    attributes: attributes, validationData: validationData, clientMetadata: cause.clientMetadata)
        let user = try createUnconfirmed(username: username, password: password, attributes: attributes, pool: pool, decision: decision,
                                         emulator: triggers.emulator, origin: triggers.origin, id: new.id)
        if decision.autoConfirmUser {
            try await triggers.postConfirmation(source: "PostConfirmation_ConfirmSignUp", user: user, clientId: cause.clientId,
                                                clientMetadata: cause.clientMetadata)
            return Registration(user: user, confirmed: true, delivery: nil)
        }
        guard let destination = destination(user, pool: pool) else { return Registration(user: user, confirmed: false, delivery: nil) }
        let delivery = try await CognitoMailer(triggers: triggers).send(.confirmSignUp, to: destination, user: user, origin: triggers.origin, cause: cause)
        return Registration(user: user, confirmed: false, delivery: delivery)
    }

    /// The signed-up user: `UNCONFIRMED`, unless a pre sign-up function confirmed them (and verified their
    /// addresses).
    static func createUnconfirmed(username: String, password: String?, attributes: [(name: String, value: String)], pool: CognitoPool,
                                  decision: LambdaTriggers.SignUpDecision = LambdaTriggers.SignUpDecision(), emulator: Emulator,
                                  origin: RequestOrigin, id: String? = nil) throws -> User {
        if let password { try CognitoMailer.checkPassword(password, pool: pool) }
        var new = try newUser(username: username, attributes: attributes, pool: pool, emulator: emulator)
        if let id { new.id = id }
        new.password = password
        new.appMetadata[CognitoUsers.statusKey] = decision.autoConfirmUser ? "CONFIRMED" : "UNCONFIRMED"
        new.emailVerified = decision.autoVerifyEmail && new.email != nil
        new.phoneVerified = decision.autoVerifyPhone && new.phone != nil
        return try create(new, pool: pool, emulator: emulator, origin: origin, event: .userSignedUp)
    }

    /// The account a sign-up (or `AdminCreateUser`) describes. In a pool that signs in by email or phone
    /// the username is that address and the user gets no separate name.
    static func newUser(username: String, attributes: [(name: String, value: String)], pool: CognitoPool, emulator: Emulator) throws -> NewUser {
        let changes = try CognitoUsers.changes(attributes.filter { !$0.name.hasSuffix("_verified") }, pool: pool)
        var new = NewUser(id: emulator.generator.uuid(), email: changes.email, phone: changes.phone, userMetadata: changes.userMetadata ?? [:])
        if pool.usernameAttributes.isEmpty {
            guard username.wholeMatch(of: #/[\p{L}\p{M}\p{S}\p{N}\p{P}]+/#) != nil else {
                throw CognitoError.invalid("Username should match the pattern [\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+")
            }
            // An alias may not be mistaken for a username: in an alias pool a username cannot look like one.
            if pool.aliasAttributes.contains("email"), (try? Identifiers.email(username)) != nil {
                throw CognitoError.invalid("Username cannot be of email format, since user pool is configured for email alias.")
            }
            if pool.aliasAttributes.contains("phone_number"), username.hasPrefix("+"), (try? Identifiers.phone(username)) != nil {
                throw CognitoError.invalid("Username cannot be of phone number format, since user pool is configured for phone number alias.")
            }
            new.username = pool.caseSensitive ? username : username.lowercased()
        } else if pool.usernameAttributes.contains("email"), username.contains("@") {
            new.email = username
        } else if pool.usernameAttributes.contains("phone_number"), username.hasPrefix("+") {
            new.phone = username
        } else {
            throw CognitoError.invalid(pool.usernameAttributes == ["email"] ? "Username should be an email."
                                       : "Username should be either an email or a phone number.")
        }
        return new
    }

    /// Creates the user; a taken username or sign-in address is `UsernameExistsException`, a verified address another
    /// user has verified as an alias `AliasExistsException`.
    static func create(_ new: NewUser, pool: CognitoPool, emulator: Emulator, origin: RequestOrigin, event: EventType) throws -> User {
        do {
            return try emulator.createUser(in: pool.id, new, origin: origin, event: event)
        } catch AuthError.invalidInput(field: "username", _) {
            throw CognitoError.usernameTaken
        } catch AuthError.emailTaken {
            guard pool.usernameAttributes.contains("email") else { throw CognitoError.aliasTaken(.email) }
            throw CognitoError(.usernameExists, "An account with the given email already exists.")
        } catch AuthError.phoneTaken {
            guard pool.usernameAttributes.contains("phone_number") else { throw CognitoError.aliasTaken(.sms) }
            throw CognitoError(.usernameExists, "An account with the given phone_number already exists.")
        } catch AuthError.invalidEmail {
            throw CognitoError.invalid("Invalid email address format.")
        }
    }

    /// Where confirmation codes go: the phone if the pool auto-verifies phones, else the email if it
    /// auto-verifies emails; nil when it verifies neither.
    static func destination(_ user: User, pool: CognitoPool) -> String? {
        if pool.autoVerifiedAttributes.contains("phone_number"), let phone = user.phone { return phone }
        if pool.autoVerifiedAttributes.contains("email"), let email = user.email { return email }
        return nil
    }

    static func confirm(_ call: CognitoCall) async throws -> JSON {
        let (pool, client) = try call.poolAndClient()
        let username = try call.body.required("Username"), code = try call.body.required("ConfirmationCode")
        try call.checkSecretHash(try call.body.string("SecretHash"), usernames: [username], client: client)
        // A client that hides which users exist answers an unknown one as a wrong code.
        let user = try CognitoUsers.require(username, pool: pool, emulator: call.emulator, hiding: client.preventUserExistenceErrors ? .codeMismatch : .userNotFoundForClient)
        // SignUp's session, when sent, must be this user's sign-up through this client (Amplify sends none).
        if let given = try call.body.string("Session"), !given.isEmpty {
            let session = try ChallengeSession.open(given, clientId: client.id, emulator: call.emulator, replays: call.pools.replays)
            guard session.challenge == SignInFlow.signUpChallenge, session.poolId == pool.id, session.userId == user.id else {
                throw CognitoError(.notAuthorized, "Invalid session for the user.")
            }
        }
        try confirm(user, code: code, pool: pool, emulator: call.emulator, origin: call.origin,
                    forcingAlias: try call.body.bool("ForceAliasCreation") ?? false)
        try await confirmed(user, triggers: call.triggers(pool), source: "PostConfirmation_ConfirmSignUp", clientId: client.id,
                            clientMetadata: call.clientMetadata)
        var answer: [String: JSON] = [:]
        answer["Session"] = try signUpSession(user, confirmed: true, client: client, call: call)
        return .object(answer)
    }

    /// The post confirmation function told of `user` (as now confirmed) by `source`
    /// (`PostConfirmation_ConfirmSignUp`, `PostConfirmation_ConfirmForgotPassword`).
    static func confirmed(_ user: User, triggers: LambdaTriggers, source: String, clientId: String?, clientMetadata: JSON) async throws {
        guard triggers.isSet("PostConfirmation"), let user = try triggers.emulator.user(in: triggers.pool.id, id: user.id) else { return }
        try await triggers.postConfirmation(source: source, user: user, clientId: clientId, clientMetadata: clientMetadata)
    }

    /// Confirms an `UNCONFIRMED` user with the code sent to them. The address it went to becomes verified: if another
    /// user has it verified as an alias, that is `AliasExistsException`, unless `forcingAlias` moves it here.
    static func confirm(_ user: User, code: String, pool: CognitoPool, emulator: Emulator, origin: RequestOrigin,
                        forcingAlias: Bool = false) throws {
        guard CognitoUsers.status(user) == "UNCONFIRMED" else {
            throw CognitoError(.notAuthorized, "User cannot be confirmed. Current status is \(CognitoUsers.status(user))")
        }
        guard let destination = destination(user, pool: pool) else { throw CognitoError.expiredCode }
        // Refused before the code is spent, so the app can ask the person and confirm again with ForceAliasCreation.
        let email = destination.contains("@")
        if !forcingAlias, pool.aliasAttributes.contains(email ? "email" : "phone_number"),
           try emulator.verifiedHolder(in: pool.id, email ? .email(destination) : .phone(destination), otherThan: user.id) != nil {
            throw CognitoError.aliasTaken(email ? .email : .sms)
        }
        try CognitoMailer(emulator: emulator, pool: pool).verify(.confirmSignUp, code: code, destination: destination, user: user, origin: origin)
        try markConfirmed(user, verifying: destination, emulator: emulator, origin: origin, forcingAlias: forcingAlias)
    }

    /// `CONFIRMED`, and the address the code went to verified.
    static func markConfirmed(_ user: User, verifying destination: String?, emulator: Emulator, origin: RequestOrigin,
                              forcingAlias: Bool = false) throws {
        var changes = UserChanges(appMetadata: [CognitoUsers.statusKey: "CONFIRMED"])
        changes.takeVerifiedAddresses = forcingAlias
        if let destination { if destination.contains("@") { changes.emailVerified = true } else { changes.phoneVerified = true } }
        try emulator.updateUser(in: user.tenant, id: user.id, changes, origin: origin)
    }

    static func resend(_ call: CognitoCall) async throws -> JSON {
        try await call.deliverCode { user, pool, client in
            guard CognitoUsers.status(user) == "UNCONFIRMED" else { throw CognitoError.invalid("User is already confirmed.") }
            guard destination(user, pool: pool) != nil else { throw CognitoError.autoVerificationOff }
            return try await resendCode(user, triggers: call.triggers(pool), cause: call.cause("ResendCode", client: client.id))
        }
    }

    /// A new confirmation code for an `UNCONFIRMED` user; the old one stops working.
    static func resendCode(_ user: User, triggers: LambdaTriggers, cause: CognitoMailer.Cause) async throws -> JSON {
        guard CognitoUsers.status(user) == "UNCONFIRMED" else { throw CognitoError.invalid("User is already confirmed.") }
        guard let destination = destination(user, pool: triggers.pool) else { throw CognitoError.autoVerificationOff }
        return try await CognitoMailer(triggers: triggers).send(.confirmSignUp, to: destination, user: user, origin: triggers.origin, cause: cause)
    }

    static func adminConfirm(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        guard CognitoUsers.status(user) == "UNCONFIRMED" else {
            throw CognitoError(.notAuthorized, "User cannot be confirmed. Current status is \(CognitoUsers.status(user))")
        }
        try markConfirmed(user, verifying: nil, emulator: call.emulator, origin: call.origin)
        try await confirmed(user, triggers: call.triggers(pool), source: "PostConfirmation_ConfirmSignUp", clientId: nil, clientMetadata: call.clientMetadata)
        return [:]
    }
}

extension CognitoError {
    /// AWS's answer to a resend in a pool that verifies no address (as users quote it, with its type).
    static let autoVerificationOff = CognitoError(.notAuthorized, "Cannot resend codes. Auto verification not turned on.")
}
