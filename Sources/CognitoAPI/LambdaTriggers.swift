import AuthCore
import Foundation
import HTTPSupport

/// A pool's Lambda triggers (`LambdaConfig`): where each one is called, the event Cognito sends it, and
/// how its answer (or its failure) becomes the operation's result or Cognito's exception.
///
/// A trigger whose `LambdaConfig` value is a Lambda ARN is invoked through the Lambda Invoke API
/// (`POST {endpoint}/2015-03-31/functions/{name}/invocations`, the event as the body, the returned event
/// as the answer) at `--lambda-endpoint` or the pool's `lambda_endpoint`: what `sam local start-lambda`
/// and LocalStack serve. A value that is itself an `http(s)://` URL gets the event as a plain POST and
/// answers the event. No SigV4 signature is sent: both local Lambda servers take unsigned calls.
struct LambdaTriggers {
    let emulator: Emulator
    let pool: CognitoPool
    /// Where ARNs are invoked: the pool's own `lambda_endpoint`, else `--lambda-endpoint`.
    let endpoint: String?
    let origin: RequestOrigin

    /// AWS gives a Cognito trigger five seconds, whatever the function's own timeout.
    static let timeout: Duration = .seconds(5)

    /// The triggers Fauxth calls, in `LambdaConfig`'s names.
    static let points = ["PreSignUp", "CustomMessage", "PostConfirmation", "PreAuthentication", "PostAuthentication", "PreTokenGeneration",
                         "UserMigration", "DefineAuthChallenge", "CreateAuthChallenge", "VerifyAuthChallengeResponse"] + senders

    /// The `clientId` of an event that no app client caused (the admin operations), as Cognito sends it.
    static let noClient = "CLIENT_ID_NOT_APPLICABLE"

    init(emulator: Emulator, pool: CognitoPool, endpoint: String?, origin: RequestOrigin) {
        self.emulator = emulator
        self.pool = pool
        self.endpoint = pool.lambdaEndpoint ?? endpoint
        self.origin = origin
        config = pool.lambdaConfig
    }

    /// The pool's `LambdaConfig`, read once: a sign-in asks it for four triggers, some twice.
    let config: [String: JSON]

    /// The function a trigger calls (an ARN or a URL), nil when the pool sets none.
    func function(_ trigger: String) -> String? {
        if trigger == "PreTokenGeneration", let arn = config["PreTokenGenerationConfig"]?["LambdaArn"]?.stringValue, !arn.isEmpty { return arn }
        // The custom senders are `{LambdaArn, LambdaVersion}`, the others a plain ARN.
        return (config[trigger]?["LambdaArn"]?.stringValue ?? config[trigger]?.stringValue).flatMap { $0.isEmpty ? nil : $0 }
    }

    func isSet(_ trigger: String) -> Bool { function(trigger) != nil }

    /// The pre token generation event's version: `1` (ID token only), `2` (and the access token), `3`
    /// (and client credentials), from `PreTokenGenerationConfig.LambdaVersion` (V1_0 without one).
    var tokenGenerationVersion: Int {
        switch config["PreTokenGenerationConfig"]?["LambdaVersion"]?.stringValue {
        case "V2_0"?: 2
        case "V3_0"?: 3
        default: 1
        }
    }

    /// Calls `trigger` with an event of `source` and answers the event's `response` as the function
    /// returned it. A function error is `UserLambdaValidationException`, an answer Cognito cannot read
    /// `InvalidLambdaResponseException`, no answer (a timeout, a refused connection, an error of the
    /// Lambda service) `UnexpectedLambdaException`.
    func invoke(_ trigger: String, source: String, userName: String, clientId: String?, request: [String: JSON],
                response: [String: JSON] = [:], version: String = "1", userId: String? = nil) async throws -> [String: JSON] {
        guard let function = function(trigger) else { return [:] }
        let event: JSON = [
            "version": .string(version), "region": .string(pool.region), "userPoolId": .string(pool.id), "triggerSource": .string(source),
            "userName": .string(userName), "callerContext": ["awsSdkVersion": "aws-sdk-unknown-unknown", "clientId": .string(clientId ?? Self.noClient)],
            // A call that sent no ClientMetadata leaves the key out of the event (captured PreSignUp_SignUp and
            // CustomMessage events), where `null` would break a function's `request.get("clientMetadata", {})`.
            "request": .object(request.filter { $0.key != "clientMetadata" || $0.value != .null }), "response": .object(response),
        ]
        let url = try self.url(of: function, trigger: trigger)
        let outcome = await emulator.callHook(HookRequest(dialect: .cognito, tenant: pool.id, point: trigger, url: url, json: event,
                                                          timeout: Self.timeout, identifier: userName),
                                              origin: origin, userId: userId)
        return try Self.response(of: outcome, trigger: trigger)
    }

    /// Where a function is called: its URL, or the Invoke API's path for the function an ARN names
    /// (`arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]`, or a bare name).
    func url(of function: String, trigger: String) throws -> String {
        if function.hasPrefix("http://") || function.hasPrefix("https://") { return function }
        guard let endpoint, !endpoint.isEmpty else {
            throw CognitoError(.unexpectedLambda, "\(trigger) invocation failed due to error Fauxth has no Lambda endpoint to invoke \(function): "
                               + "start it with --lambda-endpoint or give the pool lambda_endpoint.")
        }
        let parts = function.split(separator: ":", omittingEmptySubsequences: false)
        let name = function.hasPrefix("arn:") && parts.count >= 7 ? String(parts[6]) : function
        var url = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        url += "/2015-03-31/functions/\(name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)/invocations"
        if function.hasPrefix("arn:"), parts.count >= 8 { url += "?Qualifier=\(parts[7])" }
        return url
    }

    /// The returned event's `response`, or the exception the outcome is.
    static func response(of outcome: HookOutcome, trigger: String) throws -> [String: JSON] {
        switch outcome {
        case .timedOut:
            throw CognitoError(.unexpectedLambda, "\(trigger) invocation failed due to error Socket timeout while invoking Lambda function.")
        case .unreachable(let reason):
            throw CognitoError(.unexpectedLambda, "\(trigger) invocation failed due to error \(reason).")
        case .answered(let status, _, let body):
            let answer = try? JSON.parse(body)
            // A function that threw: Lambda answers its `errorMessage` (with `X-Amz-Function-Error`); a plain
            // URL may answer the same with any status.
            if let message = answer?["errorMessage"]?.stringValue {
                throw CognitoError(.userLambdaValidation, "\(trigger) failed with error \(message).")
            }
            guard (200..<300).contains(status) else {
                let type = answer?["__type"]?.stringValue ?? answer?["Type"]?.stringValue ?? "HTTP \(status)"
                throw CognitoError(.unexpectedLambda, "\(trigger) invocation failed due to error \(type).")
            }
            guard let answer else { throw CognitoError.invalidLambdaJSON }
            guard case .object(let event) = answer else { throw CognitoError.unrecognizableLambdaOutput }
            switch event["response"] {
            case nil, .null?: return [:]
            case .object(let response)?: return response
            default: throw CognitoError.unrecognizableLambdaOutput
            }
        }
    }

    // MARK: Event parts

    /// `request.userAttributes`: the user's attributes by name, with `cognito:user_status`.
    static func userAttributes(_ user: User, pool: CognitoPool) -> JSON {
        var attributes: [String: JSON] = [:]
        for attribute in CognitoUsers.attributes(user) {
            if let name = attribute["Name"]?.stringValue { attributes[name] = attribute["Value"] }
        }
        attributes["cognito:user_status"] = .string(CognitoUsers.status(user))
        return .object(attributes)
    }

    /// Name-value pairs (`ValidationData`, `UserAttributes`) as an event's map.
    static func map(_ pairs: [(name: String, value: String)]) -> JSON {
        .object(Dictionary(pairs.map { ($0.name, JSON.string($0.value)) }, uniquingKeysWith: { $1 }))
    }

    /// A response member that must be a boolean when present.
    static func flag(_ response: [String: JSON], _ key: String) throws -> Bool {
        switch response[key] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw CognitoError.unrecognizableLambdaOutput
        }
    }

    /// A response member that must be a string when present.
    static func text(_ response: [String: JSON], _ key: String) throws -> String? {
        switch response[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw CognitoError.unrecognizableLambdaOutput
        }
    }
}

extension CognitoPools {
    /// The triggers of `pool`, called on behalf of a request from `origin`.
    func triggers(_ pool: CognitoPool, origin: RequestOrigin) -> LambdaTriggers {
        LambdaTriggers(emulator: emulator, pool: pool, endpoint: lambdaEndpoint, origin: origin)
    }

    /// The app client an access token was issued to (its `client_id`), for the events a token's holder causes.
    func clientId(ofAccessToken token: String) -> String? { JWS.unverifiedClaims(token)?["client_id"]?.stringValue }
}

extension CognitoCall {
    func triggers(_ pool: CognitoPool) -> LambdaTriggers { pools.triggers(pool, origin: origin) }

    /// `ClientMetadata`, passed to every trigger the operation calls.
    var clientMetadata: JSON { body["ClientMetadata"]?.objectValue.map(JSON.object) ?? .null }

    /// Why this operation sends a message (a trigger source's suffix), for the message and sender triggers.
    func cause(_ source: String, client: String?) -> CognitoMailer.Cause {
        CognitoMailer.Cause(source: source, clientId: client, clientMetadata: clientMetadata)
    }
}

// MARK: - The triggers, one by one

extension LambdaTriggers {
    /// What a pre sign-up function decided.
    struct SignUpDecision {
        var autoConfirmUser = false
        var autoVerifyEmail = false
        var autoVerifyPhone = false
    }

    /// `PreSignUp`: the sign-up as asked; the function refuses it by failing, or confirms the user and
    /// verifies their addresses at once.
    func preSignUp(source: String, userName: String, clientId: String?, attributes: [(name: String, value: String)],
                   validationData: [(name: String, value: String)], clientMetadata: JSON) async throws -> SignUpDecision {
        guard isSet("PreSignUp") else { return SignUpDecision() }
        let response = try await invoke("PreSignUp", source: source, userName: userName, clientId: clientId, request: [
            "userAttributes": Self.map(attributes), "validationData": validationData.isEmpty ? .null : Self.map(validationData),
            "clientMetadata": clientMetadata,
        ], response: ["autoConfirmUser": false, "autoVerifyEmail": false, "autoVerifyPhone": false])
        return SignUpDecision(autoConfirmUser: try Self.flag(response, "autoConfirmUser"), autoVerifyEmail: try Self.flag(response, "autoVerifyEmail"),
                              autoVerifyPhone: try Self.flag(response, "autoVerifyPhone"))
    }

    /// `PostConfirmation`: told after a user is confirmed (its failure fails the call, the user stays confirmed).
    func postConfirmation(source: String, user: User, clientId: String?, clientMetadata: JSON) async throws {
        guard isSet("PostConfirmation") else { return }
        _ = try await invoke("PostConfirmation", source: source, userName: CognitoUsers.username(user, pool: pool), clientId: clientId,
                             request: ["userAttributes": Self.userAttributes(user, pool: pool), "clientMetadata": clientMetadata], userId: user.id)
    }

    /// `PreAuthentication`: asked before a sign-in checks the password; it refuses by failing.
    func preAuthentication(user: User?, userName: String, clientId: String, validationData: [(name: String, value: String)],
                           clientMetadata: JSON) async throws {
        guard isSet("PreAuthentication") else { return }
        var request: [String: JSON] = ["userAttributes": user.map { Self.userAttributes($0, pool: pool) } ?? [:],
                                       "validationData": validationData.isEmpty ? .null : Self.map(validationData), "clientMetadata": clientMetadata]
        if user == nil { request["userNotFound"] = true }
        _ = try await invoke("PreAuthentication", source: "PreAuthentication_Authentication",
                             userName: user.map { CognitoUsers.username($0, pool: pool) } ?? userName, clientId: clientId, request: request, userId: user?.id)
    }

    /// `PostAuthentication`: told once a sign-in succeeded, before the tokens; it can still fail it. `newDeviceUsed`
    /// is whether a pool that tracks devices gave the sign-in a new one.
    func postAuthentication(user: User, clientId: String, clientMetadata: JSON, newDeviceUsed: Bool = false) async throws {
        guard isSet("PostAuthentication") else { return }
        _ = try await invoke("PostAuthentication", source: "PostAuthentication_Authentication", userName: CognitoUsers.username(user, pool: pool),
                             clientId: clientId, request: ["userAttributes": Self.userAttributes(user, pool: pool), "newDeviceUsed": .bool(newDeviceUsed),
                                                           "clientMetadata": clientMetadata], userId: user.id)
    }

    /// The texts a custom message function chose; nil members keep the pool's.
    struct CustomText: Sendable {
        var emailSubject: String?
        var emailMessage: String?
        var smsMessage: String?
    }

    /// `CustomMessage`: the function writes the message, with `{####}` where the code goes (and, for an
    /// invitation, `{username}` where the username goes), as Cognito sends it those placeholders.
    func customMessage(source: String, user: User, clientId: String?, clientMetadata: JSON) async throws -> CustomText? {
        guard isSet("CustomMessage") else { return nil }
        let response = try await invoke("CustomMessage", source: source, userName: CognitoUsers.username(user, pool: pool), clientId: clientId,
                                        request: ["userAttributes": Self.userAttributes(user, pool: pool), "codeParameter": "{####}",
                                                  "linkParameter": "{##Click Here##}",
                                                  "usernameParameter": source == "CustomMessage_AdminCreateUser" ? "{username}" : .null,
                                                  "clientMetadata": clientMetadata],
                                        response: ["smsMessage": .null, "emailMessage": .null, "emailSubject": .null], userId: user.id)
        return CustomText(emailSubject: try Self.text(response, "emailSubject"), emailMessage: try Self.text(response, "emailMessage"),
                          smsMessage: try Self.text(response, "smsMessage"))
    }

    /// What a migration function said about a user the pool does not have.
    struct Migration {
        var attributes: [(name: String, value: String)]
        var finalUserStatus: String?
        var messageAction: String?
    }

    /// `UserMigration`: asked for a user the pool lacks, at a password sign-in (with the password) or a
    /// forgotten password. No `userAttributes` means the function does not know the user either.
    func userMigration(source: String, userName: String, password: String?, clientId: String, validationData: [(name: String, value: String)],
                       clientMetadata: JSON) async throws -> Migration? {
        guard isSet("UserMigration") else { return nil }
        var request: [String: JSON] = ["validationData": validationData.isEmpty ? .null : Self.map(validationData), "clientMetadata": clientMetadata]
        request["password"] = password.map(JSON.string)
        let response: [String: JSON]
        do {
            response = try await invoke("UserMigration", source: source, userName: userName, clientId: clientId, request: request,
                                        response: ["userAttributes": .null, "finalUserStatus": .null, "messageAction": .null,
                                                   "desiredDeliveryMediums": .null, "forceAliasCreation": .null, "enableSMSMFA": .null])
        } catch let error as CognitoError where error.kind == .userLambdaValidation {
            // A function that throws (a wrong password, an unknown user) is a user Cognito could not migrate.
            return nil
        }
        guard let attributes = response["userAttributes"]?.objectValue else { return nil }
        let pairs = try attributes.keys.sorted().map { key -> (name: String, value: String) in
            guard let value = attributes[key]?.stringValue else { throw CognitoError.unrecognizableLambdaOutput }
            return (key, value)
        }
        let status = try Self.text(response, "finalUserStatus")
        guard status == nil || status == "CONFIRMED" || status == "RESET_REQUIRED" else { throw CognitoError.unrecognizableLambdaOutput }
        return Migration(attributes: pairs.filter { $0.name != "sub" && $0.name != "username" }, finalUserStatus: status,
                         messageAction: try Self.text(response, "messageAction"))
    }
}

extension LambdaTriggers {
    /// The user a migration function described, with the password it was asked about: `CONFIRMED` only when the
    /// function says so, `RESET_REQUIRED` otherwise ("If you don't set this attribute to CONFIRMED, it's set to
    /// RESET_REQUIRED") and always for a forgotten password.
    func createMigrated(_ migration: Migration, userName: String, password: String?) throws -> User {
        var new = try SignUp.newUser(username: userName, attributes: migration.attributes, pool: pool, emulator: emulator)
        new.password = password
        new.emailVerified = migration.attributes.contains { $0.name == "email_verified" && CognitoUsers.isTrue($0.value) }
        new.phoneVerified = migration.attributes.contains { $0.name == "phone_number_verified" && CognitoUsers.isTrue($0.value) }
        new.appMetadata[CognitoUsers.statusKey] = .string(password != nil && migration.finalUserStatus == "CONFIRMED" ? "CONFIRMED" : "RESET_REQUIRED")
        return try SignUp.create(new, pool: pool, emulator: emulator, origin: origin, event: .userCreated)
    }
}

extension CognitoError {
    static let unrecognizableLambdaOutput = CognitoError(.invalidLambdaResponse, "Unrecognizable lambda output")
    static let invalidLambdaJSON = CognitoError(.invalidLambdaResponse, "Invalid lambda function output : Invalid JSON")
}
