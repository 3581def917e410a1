import Foundation

/// Filters shared by the event, message and deep-link listings.
public struct ListFilter: Sendable {
    public var tenant: String?
    /// Only items after this cursor: an item id (strictly later items) or an RFC 3339 instant (at or after).
    public var since: String?
    public var limit: Int

    public init(tenant: String? = nil, since: String? = nil, limit: Int = 500) {
        self.tenant = tenant; self.since = since; self.limit = limit
    }
}

extension Emulator {
    /// Appends to the audit trail and publishes it on the feed.
    @discardableResult
    public func record(_ type: EventType, tenant: String? = nil, userId: String? = nil, origin: RequestOrigin = RequestOrigin(),
                       detail: [String: JSON] = [:]) -> Event? {
        // Recording never fails the operation it describes: a failed insert only loses the event.
        guard let event = try? db.withConnection({ c in try insertEvent(c, type, tenant: tenant, userId: userId, origin: origin, detail: detail) })
        else { return nil }
        announce(event)
        return event
    }

    /// Writes an event on a connection already held, so an operation that writes anyway records its
    /// event in the same transaction (one lock and one commit fewer). Built from what was written, not
    /// read back. The caller passes it to `announce` once the connection is released.
    func insertEvent(_ c: borrowing Connection, _ type: EventType, tenant: String? = nil, userId: String? = nil,
                     origin: RequestOrigin = RequestOrigin(), detail: [String: JSON] = [:]) throws -> Event {
        let id = newID()
        let now = clock.now
        try c.run("""
            INSERT INTO events (id, type, tenant, user_id, ip, user_agent, detail, created_at) VALUES (?,?,?,?,?,?,?,?)
            """, [.text(id), .text(type.rawValue), SQLValue(tenant), SQLValue(userId), SQLValue(origin.ip),
                  SQLValue(origin.userAgent), SQLValue(JSON.object(detail)), SQLValue(now)])
        let sequence = c.lastInsertRowID
        try c.trimHistory("events", keep: retention.events)
        return Event(id: id, type: type, tenant: tenant, userId: userId, ip: origin.ip, userAgent: origin.userAgent, detail: detail,
                     createdAt: now, sequence: sequence)
    }

    /// Publishes a stored event on the feed, and sweeps when a sweep is due.
    func announce(_ event: Event) {
        feed.publish(.event(event))
        sweepIfDue(at: event.createdAt)
    }

    /// The audit trail, newest first.
    public func events(type: String? = nil, filter: ListFilter = ListFilter()) throws -> [Event] {
        var clauses = cursorClauses(table: "events", filter)
        if let type { clauses.append(("(type = ? OR type LIKE ?)", [.text(type), .text(type + ".%")])) }
        return try db.withConnection { c in
            try newest(c, in: "events", clauses, limit: filter.limit).map(Event.init(row:))
        }
    }

    /// WHERE clauses for a tenant and a `since` cursor on a table with `seq`, `id` and `created_at`.
    func cursorClauses(table: String, _ filter: ListFilter) -> [(String, [SQLValue])] {
        var clauses: [(String, [SQLValue])] = []
        if let tenant = filter.tenant { clauses.append(("tenant = ?", [.text(tenant)])) }
        if let since = filter.since, !since.isEmpty {
            if let instant = RFC3339.date(from: since) {
                clauses.append(("created_at >= ?", [SQLValue(instant)]))
            } else {
                clauses.append(("seq > COALESCE((SELECT seq FROM \(table) WHERE id = ?), 9223372036854775807)", [.text(since)]))
            }
        }
        return clauses
    }

    /// The newest rows of a list table that meet `clauses`, at most `limit` (1-10,000). The limit is bound like
    /// every value: written into the text, each distinct limit would be a statement of its own.
    func newest(_ c: borrowing Connection, in table: String, _ clauses: [(String, [SQLValue])], limit: Int) throws -> [Row] {
        let whereSQL = clauses.isEmpty ? "" : " WHERE " + clauses.map(\.0).joined(separator: " AND ")
        return try c.query("SELECT * FROM \(table)\(whereSQL) ORDER BY seq DESC LIMIT ?",
                           clauses.flatMap(\.1) + [.int(Int64(max(1, min(limit, 10_000))))])
    }
}
