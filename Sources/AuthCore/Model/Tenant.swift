import Foundation

/// The vendor whose wire protocol a tenant speaks.
public enum Dialect: String, Sendable, Codable, CaseIterable {
    case supabase, firebase, cognito
}

/// A Supabase project, Firebase project or Cognito user pool: its own users, settings and outbox.
public struct Tenant: Sendable, Equatable {
    public var id: String
    public var dialect: Dialect
    public var name: String
    /// Settings in the vendor's own terms (for Supabase: `gotrue_env`, `port`), read by the dialect.
    public var settings: [String: JSON]
    public var createdAt: Date

    public init(id: String, dialect: Dialect, name: String, settings: [String: JSON] = [:], createdAt: Date) {
        self.id = id; self.dialect = dialect; self.name = name; self.settings = settings; self.createdAt = createdAt
    }
}
