import Foundation

/// A second factor: a TOTP authenticator or a phone.
public struct Factor: Sendable, Equatable {
    public var id: String
    public var userId: String
    /// `totp` or `phone`.
    public var kind: String
    /// The TOTP secret, base32.
    public var secret: String?
    public var phone: String?
    public var verified: Bool
    public var friendlyName: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var lastChallengedAt: Date?
    /// The TOTP time step whose code was last accepted: that code, and older ones, are spent.
    public var lastUsedStep: Int64?

    /// The authenticator this factor's secret drives.
    public var totp: TOTP? { secret.flatMap(Base32.decode).map { TOTP(secret: $0) } }
}

/// An MFA challenge: proof is due within the dialect's expiry, from the same IP.
public struct MFAChallenge: Sendable, Equatable {
    public var id: String
    public var factorId: String
    public var ip: String?
    public var createdAt: Date
    /// When a proof answered it; an answered challenge takes no other.
    public var verifiedAt: Date? = nil
}
