import AuthCore
import Foundation

/// The `CUSTOM_AUTH` flow: the pool's define auth challenge function decides each step from the
/// challenges answered so far; its create auth challenge function makes each `CUSTOM_CHALLENGE`, and its
/// verify auth challenge response function judges each answer. With `SRP_A` at the start (as Amplify's
/// custom flow with SRP sends it), the define function may ask for the password first (`PASSWORD_VERIFIER`).
///
/// What the client must not see (the private challenge parameters, the challenges so far) travels in the
/// sealed `Session`, which, like every challenge session, is spent by its answer and expires with the
/// client's `AuthSessionValidity`.
struct CustomAuth {
    let flow: SignInFlow
    let triggers: LambdaTriggers
    let clientMetadata: JSON

    /// Session data: the challenges answered so far (`session` in the events), the private parameters and
    /// the metadata of the challenge due.
    static let historyKey = "custom_history"
    static let privateKey = "custom_private"
    static let metadataKey = "custom_metadata"
    /// The name asked about, in the session of a user the pool does not have.
    static let unknownUserKey = "custom_unknown_user"

    /// Whom the challenges are for: a user, or (for a client that hides which users exist) a name the pool
    /// does not know, which the functions are told (`userNotFound`) so they can answer as for anyone.
    struct Subject {
        var user: User?
        var userName: String
    }

    func subject(_ user: User) -> Subject { Subject(user: user, userName: CognitoUsers.username(user, pool: pool)) }

    var pool: CognitoPool { flow.pool }

    /// `InitiateAuth` with `CUSTOM_AUTH`. An unknown user (when the client hides which users exist) goes
    /// through the functions as anyone does, with `userNotFound`; it can only fail in the end.
    func start(_ user: User?, userName: String, srpA: String?) async throws -> SignInStep {
        let history: [JSON] = srpA?.isEmpty == false ? [.object(Self.entry("SRP_A", true))] : []
        return try await define(user.map(subject) ?? Subject(user: nil, userName: userName), history: history, srpA: srpA, previous: nil)
    }

    /// `RespondToAuthChallenge` with `CUSTOM_CHALLENGE` and the user's `ANSWER`.
    func respond(_ session: ChallengeSession, responses: [String: String]) async throws -> SignInStep {
        guard session.challenge == "CUSTOM_CHALLENGE", let history = session.data[Self.historyKey]?.arrayValue else {
            throw CognitoError.invalid("The challenge CUSTOM_CHALLENGE does not match the session, which is for \(session.challenge).")
        }
        guard let answer = responses["ANSWER"], !answer.isEmpty else { throw CognitoError.invalid("Missing required parameter ANSWER") }
        let subject: Subject
        if let unknown = session.data[Self.unknownUserKey]?.stringValue {
            subject = Subject(user: nil, userName: unknown)
        } else {
            guard let user = try flow.emulator.user(in: pool.id, id: session.userId) else { throw CognitoError.userDoesNotExist }
            subject = self.subject(user)
        }
        // Spent before the function judges the answer: a session gets one answer, right or wrong; a wrong
        // one goes to the define function, which decides whether the user may try again (with the new session).
        guard flow.pools.replays.spend(session, now: flow.now) else { throw CognitoError.staleSession }
        let response = try await triggers.invoke("VerifyAuthChallengeResponse", source: "VerifyAuthChallengeResponse_Authentication",
                                                 userName: subject.userName, clientId: flow.client.id, request: [
                                                     "userAttributes": attributes(subject),
                                                     "privateChallengeParameters": session.data[Self.privateKey] ?? [:],
                                                     "challengeAnswer": .string(answer), "clientMetadata": clientMetadata,
                                                     "userNotFound": .bool(subject.user == nil),
                                                 ], response: ["answerCorrect": .null], userId: subject.user?.id)
        let correct = try LambdaTriggers.flag(response, "answerCorrect")
        if !correct {
            flow.emulator.record(.signInFailed, tenant: pool.id, userId: subject.user?.id, origin: flow.origin, detail: ["reason": "wrong_challenge_answer"])
        }
        var entry = Self.entry("CUSTOM_CHALLENGE", correct)
        entry["challengeMetadata"] = session.data[Self.metadataKey] ?? .null
        return try await define(subject, history: history + [.object(entry)], srpA: nil, previous: session)
    }

    /// The answer to the `PASSWORD_VERIFIER` the define function asked for: right or wrong, it is the
    /// define function's to judge next.
    func passwordVerified(_ session: ChallengeSession, responses: [String: String]) async throws -> SignInStep {
        let history = session.data[Self.historyKey]?.arrayValue ?? []
        let verified: Bool
        do {
            _ = try await flow.verifySRP(session, responses: responses, continuing: false)
            verified = true
        } catch let error as CognitoError where error == .incorrectCredentials {
            verified = false
        }
        guard let user = try flow.emulator.user(in: pool.id, id: session.userId) else { throw CognitoError.incorrectCredentials }
        return try await define(subject(user), history: history + [.object(Self.entry("PASSWORD_VERIFIER", verified))], srpA: nil, previous: session)
    }

    // MARK: Steps

    /// Asks the define function what comes next: tokens, a failure, or another challenge.
    private func define(_ subject: Subject, history: [JSON], srpA: String?, previous: ChallengeSession?) async throws -> SignInStep {
        let response = try await triggers.invoke("DefineAuthChallenge", source: "DefineAuthChallenge_Authentication",
                                                 userName: subject.userName, clientId: flow.client.id, request: [
                                                     "userAttributes": attributes(subject), "session": .array(history),
                                                     "clientMetadata": clientMetadata, "userNotFound": .bool(subject.user == nil),
                                                 ], response: ["challengeName": .null, "issueTokens": .null, "failAuthentication": .null],
                                                 userId: subject.user?.id)
        if try LambdaTriggers.flag(response, "failAuthentication") {
            flow.emulator.record(.signInFailed, tenant: pool.id, userId: subject.user?.id, origin: flow.origin, detail: ["reason": "custom_auth_failed"])
            throw CognitoError.incorrectCredentials
        }
        guard let user = subject.user else {
            // Nobody to issue tokens to, nor a password to verify: an unknown user fails as a wrong answer does.
            guard try LambdaTriggers.text(response, "challengeName") == "CUSTOM_CHALLENGE", try !LambdaTriggers.flag(response, "issueTokens") else {
                throw CognitoError.incorrectCredentials
            }
            return try await create(subject, history: history, previous: previous)
        }
        if try LambdaTriggers.flag(response, "issueTokens") {
            // The account's state still counts: a disabled or unconfirmed user gets no tokens.
            try flow.emulator.checkCanSignIn(user, origin: flow.origin)
            guard CognitoUsers.status(user) != "UNCONFIRMED" else { throw CognitoError(.userNotConfirmed, "User is not confirmed.") }
            return .signedIn(user, firstFactor: "custom", mfa: nil)
        }
        switch try LambdaTriggers.text(response, "challengeName") {
        case "CUSTOM_CHALLENGE"?:
            return try await create(subject, history: history, previous: previous)
        case "PASSWORD_VERIFIER"? where srpA?.isEmpty == false:
            let start = flow.newSession(userId: user.id, challenge: "CUSTOM_AUTH", firstFactor: "custom", data: [Self.historyKey: .array(history)])
            return try await flow.startSRP(user, srpA: srpA ?? "", from: start)
        default:
            throw CognitoError.unrecognizableLambdaOutput
        }
    }

    /// Asks the create function for the challenge; its public parameters go to the client, its private
    /// ones into the sealed session for the verify function.
    private func create(_ subject: Subject, history: [JSON], previous: ChallengeSession?) async throws -> SignInStep {
        let response = try await triggers.invoke("CreateAuthChallenge", source: "CreateAuthChallenge_Authentication",
                                                 userName: subject.userName, clientId: flow.client.id, request: [
                                                     "userAttributes": attributes(subject), "challengeName": "CUSTOM_CHALLENGE",
                                                     "session": .array(history), "clientMetadata": clientMetadata,
                                                     "userNotFound": .bool(subject.user == nil),
                                                 ], response: ["publicChallengeParameters": .null, "privateChallengeParameters": .null,
                                                               "challengeMetadata": .null], userId: subject.user?.id)
        let publicParameters = try Self.parameters(response["publicChallengeParameters"])
        let privateParameters = try Self.parameters(response["privateChallengeParameters"])
        var data: [String: JSON] = [Self.historyKey: .array(history), Self.privateKey: .object(privateParameters.mapValues(JSON.string)),
                                    Self.metadataKey: try LambdaTriggers.text(response, "challengeMetadata").map(JSON.string) ?? .null]
        if subject.user == nil { data[Self.unknownUserKey] = .string(subject.userName) }
        let session = previous?.next("CUSTOM_CHALLENGE", data: data, lifetime: flow.sessionLifetime, emulator: flow.emulator)
            ?? flow.newSession(userId: subject.user?.id ?? "", challenge: "CUSTOM_CHALLENGE", firstFactor: "custom", data: data)
        var parameters = publicParameters
        parameters["USERNAME"] = subject.userName
        return .challenge("CUSTOM_CHALLENGE", parameters: parameters, session: session)
    }

    /// `request.userAttributes`: none for a user the pool does not have.
    private func attributes(_ subject: Subject) -> JSON { subject.user.map { LambdaTriggers.userAttributes($0, pool: pool) } ?? [:] }

    /// One entry of the events' `session`.
    private static func entry(_ challenge: String, _ passed: Bool) -> [String: JSON] {
        ["challengeName": .string(challenge), "challengeResult": .bool(passed), "challengeMetadata": .null]
    }

    /// Challenge parameters: a map of strings (other scalars as their JSON text).
    private static func parameters(_ value: JSON?) throws -> [String: String] {
        switch value {
        case nil, .null?: return [:]
        case .object(let object)?: return object.mapValues { $0.stringValue ?? $0.serialized() }
        default: throw CognitoError.unrecognizableLambdaOutput
        }
    }
}
