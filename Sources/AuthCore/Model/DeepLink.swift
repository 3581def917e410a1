import Foundation

/// A redirect to a non-web scheme that an app would have been opened with.
public struct DeepLink: Sendable, Equatable {
    public var id: String
    public var tenant: String
    public var url: String
    public var scheme: String
    /// Query and fragment parameters, parsed.
    public var params: [String: String]
    /// The flow that produced it (`verify`, `authorize`, `callback`, …).
    public var source: String
    public var userId: String?
    public var createdAt: Date
    public var sequence: Int
}
