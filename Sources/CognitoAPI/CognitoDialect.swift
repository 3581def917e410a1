import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import IdentityProviders
import Logging

/// The Cognito dialect: user pools over JSON 1.1 (`POST /` with `X-Amz-Target`), each pool's keys and
/// discovery document, and the hosted UI (`/oauth2/*`, `/login`, `/logout`), so boto3, the AWS CLI,
/// Amplify and pycognito work with only an endpoint URL changed.
public struct CognitoDialect: Sendable {
    let emulator: Emulator
    let pools: CognitoPools
    let pages: LoginPages
    /// The fake providers federated sign-in goes through.
    let identityProviders: FakeIdentityProviders?

    /// - Parameters:
    ///   - page: the text of a file under `web/` (the hosted UI's templates).
    ///   - lambdaEndpoint: where triggers given as Lambda ARNs are invoked (`--lambda-endpoint`).
    public init(emulator: Emulator, page: @escaping @Sendable (String) -> String?, identityProviders: FakeIdentityProviders? = nil,
                lambdaEndpoint: String? = nil) {
        self.emulator = emulator
        self.pools = CognitoPools(emulator: emulator, lambdaEndpoint: lambdaEndpoint)
        self.pages = LoginPages(page: page)
        self.identityProviders = identityProviders
    }

    /// The SRP verifier every password of a Cognito pool implies, for `EmulatorOptions.credentialDerivers`.
    public static let credentialDeriver: CredentialDeriver = { tenant, userId, username, password, generator in
        let pool = CognitoPool(tenant: tenant)
        let srpUser = pool.usernameAttributes.isEmpty ? (username ?? userId) : userId
        return ["srp": CognitoSRP.credential(poolId: tenant.id, userId: srpUser, password: password, generator: generator)]
    }

    /// Which addresses are one user's in a pool, for `EmulatorOptions.addressUniqueness`, as in Cognito: those it
    /// signs in with (`UsernameAttributes`) whether verified or not; its aliases (`AliasAttributes`) once verified,
    /// so users may share one unverified and confirming a second fails with `AliasExistsException` (or moves the
    /// alias, with `ForceAliasCreation`); in a plain username pool users may share an email or a phone.
    public static let addressUniqueness: AddressUniqueness = { tenant in
        let pool = CognitoPool(tenant: tenant)
        func channels(_ attributes: [String]) -> Set<Channel> {
            Set([attributes.contains("email") ? Channel.email : nil, attributes.contains("phone_number") ? Channel.sms : nil].compactMap { $0 })
        }
        let always = channels(pool.usernameAttributes)
        return UniqueAddresses(always: always, whenVerified: channels(pool.aliasAttributes).subtracting(always))
    }

    /// Cognito's own protections as a pool's policies: the sign-in lockout every pool has, and a limit
    /// on code messages to one recipient (`LimitExceededException` on the sixth within an hour). Every
    /// limit applies but `anonymous_per_ip`: a pool has no anonymous sign-in.
    public static let policyDeriver: PolicyDeriver = { _ in
        VendorPolicies(base: TenantPolicies(lockouts: [.password: TenantPolicies.cognitoSignInLockout],
                                            limits: [.codeDeliveries: RateLimit(count: 5, window: 3600)]),
                       applied: PolicyLimit.common.subtracting([.anonymousPerIP]))
    }

    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post("/") { request, context in try await dispatch(request, context: context) }
        // A user import job's `PreSignedUrl`: this server stands in for S3.
        router.put("_cognito/user-import/:pool/:job") { request, context in
            try await UserImport.upload(request, pools: pools, pool: try context.parameters.require("pool"), job: try context.parameters.require("job"))
        }
        addHostedUIRoutes(to: router)
    }

    /// Each pool's keys and discovery document, and the hosted UI: what a pool's own domain serves.
    ///
    /// - Parameter pool: the pool whose own domain this is (its requests are that pool's), nil on the
    ///   shared listener, where the client id names the pool.
    public func addHostedUIRoutes<Context: RequestContext>(to router: Router<Context>, pool: String? = nil) {
        router.get(":pool/.well-known/jwks.json") { _, context in try WellKnown.jwks(try context.parameters.require("pool"), dialect: self) }
        router.get(":pool/.well-known/openid-configuration") { request, context in
            try WellKnown.openIDConfiguration(try context.parameters.require("pool"), baseURL: request.baseURL, dialect: self)
        }
        HostedUI(dialect: self).addRoutes(to: router, pool: pool)
    }

    /// Reads the body once, asks the fault rules about the operation `X-Amz-Target` names, then performs it.
    func dispatch<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let target = request.headers[.amzTarget] ?? ""
        let body: Result<CognitoBody, any Error>
        do { body = .success(try await CognitoBody.read(request)) } catch { body = .failure(error) }
        return try await FaultRunner(emulator: emulator).respond(
            to: request, context: context, target: { faultTarget(amzTarget: target, body: try? body.get(), request: request) },
            renderError: { faultResponse($0, message: $1, retryAfter: $2, hostedUI: false) }
        ) { await perform(target, body: body, request: request, origin: request.origin(context), logger: context.logger) }
    }

    /// Runs the operation `target` names and renders its answer or error as JSON 1.1 (a body Cognito
    /// cannot read is refused once the operation is known, as before).
    private func perform(_ target: String, body: Result<CognitoBody, any Error>, request: Request, origin: RequestOrigin,
                         logger: Logger) async -> Response {
        let requestId = emulator.generator.uuid()
        do {
            let prefix = "AWSCognitoIdentityProviderService."
            if target.hasPrefix("TrentService.") {
                return Self.answer(try KMSKeys.perform(String(target.dropFirst("TrentService.".count)), body: try body.get()), requestId: requestId)
            }
            if target.hasPrefix(IdentityPoolAction.targetPrefix) {
                let name = String(target.dropFirst(IdentityPoolAction.targetPrefix.count))
                guard let action = IdentityPoolAction(rawValue: name) else {
                    throw CognitoError(.unknownOperation, "Operation \(name) is not supported by Fauxth's Cognito identity pools")
                }
                let call = IdentityPoolCall(body: try body.get(), emulator: emulator, pools: pools, requestId: requestId)
                do {
                    return Self.answer(try action.handler(call), requestId: requestId)
                } catch let error as CognitoError where error.kind == .invalidParameter && error.message.hasPrefix("1 validation error detected") {
                    // Where the user pools answer a request the model refuses with InvalidParameterException, the
                    // identity pools answer ValidationException.
                    throw CognitoError(.validation, error.message)
                }
            }
            guard target.hasPrefix(prefix) else {
                throw CognitoError(.unknownOperation, target.isEmpty ? "Missing X-Amz-Target header" : "Unknown target \(target)")
            }
            let name = String(target.dropFirst(prefix.count))
            guard let action = CognitoAction(rawValue: name) else {
                throw CognitoError(.unknownOperation, "Operation \(name) is not supported by Fauxth's Cognito user pools")
            }
            let call = CognitoCall(request: request, action: action, body: try body.get(), origin: origin,
                                   emulator: emulator, pools: pools, requestId: requestId)
            return Self.answer(try await action.handler(call), requestId: requestId)
        } catch {
            return Self.failure(error, requestId: requestId, logger: logger)
        }
    }

    static func answer(_ body: JSON, requestId: String) -> Response {
        .json(body, headers: [.amznRequestId: requestId], contentType: "application/x-amz-json-1.1")
    }

    /// HTTP 400 with `{"__type","message"}`, `x-amzn-ErrorType: <Type>:` and `x-amzn-ErrorMessage`.
    static func failure(_ error: any Error, requestId: String, logger: Logger) -> Response {
        let failure: CognitoError
        switch error {
        case let e as CognitoError: failure = e
        case let e as AuthError: failure = CognitoError(core: e)
        default:
            logger.error("unexpected error in Cognito dialect: \(error)")
            failure = CognitoError(.internalError, "Internal error: \(error)")
        }
        let status: HTTPResponse.Status = failure.kind == .internalError ? .internalServerError : .badRequest
        return Self.failure(type: failure.kind.rawValue, message: failure.message, status: status, requestId: requestId)
    }

    /// The JSON 1.1 error answer for any exception type (a fault rule may name one Fauxth never raises).
    static func failure(type: String, message: String, status: HTTPResponse.Status, requestId: String) -> Response {
        var headers: HTTPFields = [.amznRequestId: requestId, .amznErrorType: type + ":"]
        // Header values must be one line of visible ASCII, and short: a message that echoes a 1 MB value would make a
        // header line clients refuse to read (Python's http.client stops at 64 KiB). The body keeps the whole message.
        headers[.amznErrorMessage] = String(message.prefix(1024).map { $0.isASCII && !$0.isNewline ? $0 : " " })
        return .json(["__type": .string(type), "message": .string(message)], status: status, headers: headers, contentType: "application/x-amz-json-1.1")
    }

    /// A fresh pool id in Cognito's form (`us-east-1_` and nine letters and digits), for a pool made outside
    /// `CreateUserPool` (the control API's `POST /tenants`).
    public static func newPoolID(generator: Generator) -> String {
        CognitoPool.newID(region: "us-east-1", generator: generator)
    }

    /// Checks a Cognito tenant's settings; throws what Fauxth cannot use.
    public static func validate(_ tenant: Tenant) throws {
        guard tenant.id.wholeMatch(of: #/[a-z]{2}(-[a-z]+)+-[0-9]_[0-9A-Za-z]+/#) != nil else {
            throw CognitoSettingsError("a user pool id is <region>_<id>, such as us-east-1_AbCdEf123")
        }
        for client in CognitoPool(tenant: tenant).clients where client.id.isEmpty {
            throw CognitoSettingsError("every client needs a ClientId")
        }
        if let port = tenant.settings["hosted_ui_port"], !(port.intValue.map { (1...65535).contains($0) } ?? false) {
            throw CognitoSettingsError("hosted_ui_port must be a port number 1-65535")
        }
        for item in tenant.settings["identity_pools"]?.arrayValue ?? [] {
            guard let id = item["IdentityPoolId"]?.stringValue, (try? IdentityPool.checkedId(id)) != nil, item["IdentityPoolName"]?.stringValue != nil
            else { throw CognitoSettingsError("every identity pool needs an IdentityPoolId (<region>:<uuid>) and an IdentityPoolName") }
        }
    }

    /// What a developer sets to point an SDK at a pool.
    public static func connectionHints(for tenant: Tenant, baseURL: String, hostedUIURL: String? = nil) -> [String: String] {
        let pool = CognitoPool(tenant: tenant)
        // What boto3 (AWS_DEFAULT_REGION), the AWS CLI and the JS SDK (AWS_REGION) read, and credentials for
        // the signed admin calls: any will do, Fauxth does not check signatures, but the SDKs refuse to sign without.
        var hints = ["AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": baseURL, "COGNITO_USER_POOL_ID": tenant.id, "AWS_REGION": pool.region,
                     "AWS_DEFAULT_REGION": pool.region, "AWS_ACCESS_KEY_ID": "fauxth", "AWS_SECRET_ACCESS_KEY": "fauxth"]
        hints["COGNITO_CLIENT_ID"] = pool.clients.first?.id
        if pool.domain != nil { hints["COGNITO_HOSTED_UI_URL"] = hostedUIURL ?? baseURL }
        if let identityPool = tenant.settings["identity_pools"]?.arrayValue?.first?["IdentityPoolId"]?.stringValue {
            hints["COGNITO_IDENTITY_POOL_ID"] = identityPool
            hints["AWS_ENDPOINT_URL_COGNITO_IDENTITY"] = baseURL
        }
        return hints
    }
}

/// A Cognito setting Fauxth cannot use.
public struct CognitoSettingsError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension HTTPField.Name {
    static let amzTarget = Self("X-Amz-Target")!
    static let amznRequestId = Self("x-amzn-RequestId")!
    static let amznErrorType = Self("x-amzn-ErrorType")!
    static let amznErrorMessage = Self("x-amzn-ErrorMessage")!
}
