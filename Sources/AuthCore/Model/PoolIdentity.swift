import Foundation

/// An identity of a Cognito identity pool: the id `GetId` hands out (`us-east-1:<uuid>`), the pool it belongs to,
/// and the logins linked to it (provider name to the subject its tokens name). One without logins is
/// unauthenticated; one merged into another when its user signed in is disabled. The user pool whose settings hold the identity pool is its tenant, so the identity goes with it.
public struct PoolIdentity: Sendable, Equatable {
    public var tenant: String
    public var id: String
    public var poolId: String
    public var logins: [String: String]
    public var disabled: Bool
    public var createdAt: Date
    public var updatedAt: Date

    public init(tenant: String, id: String, poolId: String, logins: [String: String] = [:], disabled: Bool = false, createdAt: Date,
                updatedAt: Date) {
        self.tenant = tenant; self.id = id; self.poolId = poolId; self.logins = logins; self.disabled = disabled
        self.createdAt = createdAt; self.updatedAt = updatedAt
    }

    public var isAuthenticated: Bool { !logins.isEmpty }
}
