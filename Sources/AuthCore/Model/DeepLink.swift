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

    init(row: Row) {
        id = row.string("id") ?? ""
        tenant = row.string("tenant") ?? ""
        url = row.string("url") ?? ""
        scheme = row.string("scheme") ?? ""
        params = (row.json("params").objectValue ?? [:]).compactMapValues(\.stringValue)
        source = row.string("source") ?? ""
        userId = row.string("user_id")
        createdAt = row.date("created_at") ?? .distantPast
        sequence = row.int("seq") ?? 0
    }
}
