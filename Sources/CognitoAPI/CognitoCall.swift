import AuthCore
import Foundation
import HTTPSupport
import Hummingbird
import NIOCore

/// The user pools of the emulator, found by pool id or by one of their client ids.
final class CognitoPools: Sendable {
    let emulator: Emulator
    /// Sign-in sessions already used.
    let replays = SessionReplays()
    /// Device sign-ins waiting for their `DEVICE_SRP_AUTH` answer.
    let pendingDevices = PendingDeviceSignIns()
    /// Where Lambda ARNs are invoked (`--lambda-endpoint`), for pools that name no endpoint of their own.
    let lambdaEndpoint: String?

    init(emulator: Emulator, lambdaEndpoint: String? = nil) {
        self.emulator = emulator
        self.lambdaEndpoint = lambdaEndpoint
    }

    /// Changes a pool's settings in place (and its name, if given). Pool resources (clients, groups, domains…) live
    /// there; the core's `changeTenantSettings` reads and writes them while holding the store, so two changes at once
    /// each see the other.
    @discardableResult
    func update<T>(_ poolId: String, name: String? = nil, _ change: (inout [String: JSON]) throws -> T) throws -> T {
        _ = try pool(poolId)
        return try emulator.changeTenantSettings(poolId, name: name, change)
    }

    func pool(_ id: String) throws -> CognitoPool {
        guard let tenant = try emulator.tenant(id), tenant.dialect == .cognito else {
            throw CognitoError(.resourceNotFound, "User pool \(id) does not exist.")
        }
        return CognitoPool(tenant: tenant)
    }

    /// The pool that has app client `clientId`, and the client.
    func pool(clientId: String) throws -> (CognitoPool, CognitoClient) {
        for tenant in try emulator.tenants() where tenant.dialect == .cognito {
            let pool = CognitoPool(tenant: tenant)
            if let client = pool.client(clientId) { return (pool, client) }
        }
        throw CognitoError(.resourceNotFound, "User pool client \(clientId) does not exist.")
    }

    func all() throws -> [CognitoPool] { try emulator.tenants().filter { $0.dialect == .cognito }.map(CognitoPool.init) }
}

/// One JSON 1.1 request as a handler sees it.
struct CognitoCall: Sendable {
    let request: Request
    let action: CognitoAction
    let body: CognitoBody
    let origin: RequestOrigin
    let emulator: Emulator
    let pools: CognitoPools
    /// The `x-amzn-RequestId` the answer carries (some of Cognito's messages name it).
    let requestId: String

    var baseURL: String { request.baseURL }

    /// The pool `UserPoolId` names.
    func pool() throws -> CognitoPool { try limited(try pools.pool(try body.required("UserPoolId"))) }

    /// The pool and client `ClientId` names.
    func poolAndClient() throws -> (CognitoPool, CognitoClient) {
        let (pool, client) = try pools.pool(clientId: try body.required("ClientId"))
        return (try limited(pool), client)
    }

    /// The pool `UserPoolId` names and its client `ClientId` names (the admin sign-in operations).
    func poolAndItsClient() throws -> (CognitoPool, CognitoClient) {
        let pool = try pool()
        let id = try body.required("ClientId")
        guard let client = pool.client(id) else { throw CognitoError(.resourceNotFound, "User pool client \(id) does not exist.") }
        return (pool, client)
    }

    /// Counts the call against the pool's per-IP policy for its action (`TooManyRequestsException`).
    private func limited(_ pool: CognitoPool) throws -> CognitoPool {
        if let limit = action.requestLimit { try emulator.checkRequestLimit(limit, in: pool.tenant, client: origin.ip) }
        return pool
    }

    /// `ForgotPassword` and `ResendConfirmationCode`: sends the code to the user `Username` names and
    /// answers its `CodeDeliveryDetails`; for an unknown user, a made-up delivery when the client hides
    /// which users exist (`PreventUserExistenceErrors`), else `UserNotFoundException` in the words these calls use.
    /// `migrate` may bring in a user the pool lacks (the `UserMigration` trigger) first.
    func deliverCode(migrate: ((String, CognitoPool, CognitoClient) async throws -> User?)? = nil,
                     _ send: (User, CognitoPool, CognitoClient) async throws -> JSON) async throws -> JSON {
        let (pool, client) = try poolAndClient()
        let username = try body.required("Username")
        try checkSecretHash(try body.string("SecretHash"), usernames: [username], client: client)
        var found = try CognitoUsers.find(username, pool: pool, emulator: emulator)
        if found == nil, let migrate { found = try await migrate(username, pool, client) }
        guard let user = found else {
            guard client.preventUserExistenceErrors else { throw CognitoError.userNotFoundForClient }
            return ["CodeDeliveryDetails": CognitoUsers.simulatedDelivery(username)]
        }
        return ["CodeDeliveryDetails": try await send(user, pool, client)]
    }

    /// `SECRET_HASH` (`base64(HMAC-SHA256(secret, username ‖ clientId))`), required and checked in
    /// constant time for a client with a secret. Any of `usernames` may be the one hashed: the name
    /// the user typed, or the internal username a challenge or a refresh token stands for.
    func checkSecretHash(_ hash: String?, usernames: [String], client: CognitoClient) throws {
        guard let secret = client.secret else { return }
        guard let hash, !hash.isEmpty else {
            throw CognitoError(.notAuthorized, "Unable to verify secret hash for client \(client.id)")
        }
        var matched = false
        for username in usernames {
            matched = constantTimeEquals(CognitoTokens.secretHash(secret: secret, username: username, clientId: client.id), hash) || matched
        }
        guard matched else { throw CognitoError(.notAuthorized, "Unable to verify secret hash for client \(client.id)") }
    }
}

/// One hosted-UI request as a handler sees it: where it came from, and a POST's form, read once when its
/// route matched (the fault step takes the username and client from it).
struct HostedUICall: Sendable {
    let request: Request
    let origin: RequestOrigin
    /// The form, or why it could not be read: a body over its limit is answered when a handler asks.
    let posted: Result<[String: String], any Error>

    static func read(_ request: Request, origin: RequestOrigin) async -> HostedUICall {
        guard request.method == .post else { return HostedUICall(request: request, origin: origin, posted: .success([:])) }
        do { return HostedUICall(request: request, origin: origin, posted: .success(try await request.formFields())) } catch {
            return HostedUICall(request: request, origin: origin, posted: .failure(error))
        }
    }

    /// The posted form (`application/x-www-form-urlencoded`; empty for another type, or a GET).
    func form() throws -> [String: String] { try posted.get() }
}
