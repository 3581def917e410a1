import Foundation

/// A device a user registered to sign in with (Cognito's "remember this device"): its key, the group key
/// its secret was derived with, a verifier of that secret (never the secret), whether the user chose to
/// remember it, and when and from where it was last used. The core keeps devices; what one means for a
/// sign-in is the dialect's rule.
public struct Device: Sendable, Equatable {
    public var tenant: String
    public var key: String
    public var userId: String
    public var groupKey: String
    public var name: String?
    public var remembered: Bool
    /// The verifier of the device's secret, as the dialect writes it (Cognito: `salt$verifier`, hex).
    public var verifier: String
    public var lastIP: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastAuthenticatedAt: Date?

    public init(tenant: String, key: String, userId: String, groupKey: String, name: String?, remembered: Bool, verifier: String,
                lastIP: String?, createdAt: Date, updatedAt: Date, lastAuthenticatedAt: Date?) {
        self.tenant = tenant; self.key = key; self.userId = userId; self.groupKey = groupKey; self.name = name
        self.remembered = remembered; self.verifier = verifier; self.lastIP = lastIP
        self.createdAt = createdAt; self.updatedAt = updatedAt; self.lastAuthenticatedAt = lastAuthenticatedAt
    }
}
