import Foundation

/// The three capped histories: the audit trail (`events`), the outbox (`messages`) and the captured deep links
/// (`deeplinks`). Every row has an integer `seq` in insertion order beside its id; each table keeps its newest
/// rows, lists newest first after a cursor, and is read by id. What goes in and the live feed it is announced
/// on are `Emulator+Events`, `Emulator+Outbox` and `Emulator+DeepLinks`'.
enum History {
    enum Table: String {
        case events, messages, deeplinks
    }

    /// A listing's conditions: a `ListFilter`'s tenant and `since` cursor (an item id: strictly later items;
    /// an RFC 3339 instant: at or after it), and the table's own.
    struct Selection {
        let table: Table
        private(set) var clauses: [(sql: String, arguments: [SQLValue])] = []

        init(_ table: Table, _ filter: ListFilter) {
            self.table = table
            if let tenant = filter.tenant { and("tenant = ?", [.text(tenant)]) }
            if let since = filter.since, !since.isEmpty {
                if let instant = RFC3339.date(from: since) {
                    and("created_at >= ?", [SQLValue(instant)])
                } else {
                    and("seq > COALESCE((SELECT seq FROM \(table.rawValue) WHERE id = ?), 9223372036854775807)", [.text(since)])
                }
            }
        }

        mutating func and(_ sql: String, _ arguments: [SQLValue]) { clauses.append((sql, arguments)) }
    }

    static func events(_ c: borrowing Connection, _ selection: Selection, limit: Int) throws -> [Event] {
        try newest(c, selection, limit: limit).map(Event.init(row:))
    }

    static func messages(_ c: borrowing Connection, _ selection: Selection, limit: Int) throws -> [Message] {
        try newest(c, selection, limit: limit).map(Message.init(row:))
    }

    static func deepLinks(_ c: borrowing Connection, _ selection: Selection, limit: Int) throws -> [DeepLink] {
        try newest(c, selection, limit: limit).map(DeepLink.init(row:))
    }

    static func message(_ c: borrowing Connection, id: String) throws -> Message? {
        try c.first("SELECT * FROM messages WHERE id = ?", [.text(id)]).map(Message.init(row:))
    }

    static func deepLink(_ c: borrowing Connection, id: String) throws -> DeepLink? {
        try c.first("SELECT * FROM deeplinks WHERE id = ?", [.text(id)]).map(DeepLink.init(row:))
    }

    /// Appends an event; answers its `seq`.
    static func insert(_ c: borrowing Connection, _ event: Event, keep: Int) throws -> Int {
        try c.run("""
            INSERT INTO events (id, type, tenant, user_id, ip, user_agent, detail, created_at) VALUES (?,?,?,?,?,?,?,?)
            """, [.text(event.id), .text(event.type.rawValue), SQLValue(event.tenant), SQLValue(event.userId), SQLValue(event.ip),
                  SQLValue(event.userAgent), SQLValue(JSON.object(event.detail)), SQLValue(event.createdAt)])
        return try trim(c, .events, keep: keep)
    }

    /// Appends a message to the outbox; answers it as stored.
    static func insert(_ c: borrowing Connection, _ message: Message, keep: Int) throws -> Message? {
        try c.run("""
            INSERT INTO messages (id, tenant, channel, recipient, sender, subject, text, html, purpose, codes, links, status, reason, created_at)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """, [.text(message.id), .text(message.tenant), .text(message.channel.rawValue), .text(message.to), .text(message.from),
                  SQLValue(message.subject), .text(message.text), SQLValue(message.html), .text(message.purpose.rawValue),
                  SQLValue(JSON.array(message.codes.map(JSON.string))), SQLValue(JSON.array(message.links.map(JSON.string))),
                  .text(message.status.rawValue), SQLValue(message.reason), SQLValue(message.createdAt)])
        _ = try trim(c, .messages, keep: keep)
        return try self.message(c, id: message.id)
    }

    /// Appends a captured deep link; answers it as stored.
    static func insert(_ c: borrowing Connection, _ link: DeepLink, keep: Int) throws -> DeepLink? {
        try c.run("INSERT INTO deeplinks (id, tenant, url, scheme, params, source, user_id, created_at) VALUES (?,?,?,?,?,?,?,?)",
                  [.text(link.id), .text(link.tenant), .text(link.url), .text(link.scheme), SQLValue(JSON.object(link.params.mapValues(JSON.string))),
                   .text(link.source), SQLValue(link.userId), SQLValue(link.createdAt)])
        _ = try trim(c, .deeplinks, keep: keep)
        return try deepLink(c, id: link.id)
    }

    /// Empties the outbox, of one tenant or all; answers how many went.
    static func deleteMessages(_ c: borrowing Connection, tenant: String?) throws -> Int {
        if let tenant { return try c.run("DELETE FROM messages WHERE tenant = ?", [.text(tenant)]) }
        return try c.run("DELETE FROM messages")
    }

    /// The newest rows that meet `selection`, at most `limit` (1-10,000). The limit is bound like every
    /// value: written into the text, each distinct limit would be a statement of its own.
    private static func newest(_ c: borrowing Connection, _ selection: Selection, limit: Int) throws -> [Row] {
        let whereSQL = selection.clauses.isEmpty ? "" : " WHERE " + selection.clauses.map(\.sql).joined(separator: " AND ")
        return try c.query("SELECT * FROM \(selection.table.rawValue)\(whereSQL) ORDER BY seq DESC LIMIT ?",
                           selection.clauses.flatMap(\.arguments) + [.int(Int64(max(1, min(limit, 10_000))))])
    }

    /// Makes the next event's number follow `last` at least. A reset or a restore puts back a state whose numbering
    /// stopped earlier; numbering from there again would hand out numbers already published, and the feed's waiters
    /// (a mirrored project's answers wait until the mirror has handled the last published number) compare them.
    static func continueNumbering(_ c: borrowing Connection, after last: Int) throws {
        try c.run("INSERT INTO sqlite_sequence (name, seq) SELECT 'events', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'events')")
        try c.run("UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'events'", [.int(Int64(last))])
    }

    /// Keeps the newest `keep` rows once the row just inserted reaches a batch boundary (`seq` is the integer
    /// primary key, so this is a range delete; a one-row delete each time would cost more); answers that
    /// row's `seq`. No limit when `keep` is 0.
    private static func trim(_ c: borrowing Connection, _ table: Table, keep: Int) throws -> Int {
        let lastRow = c.lastInsertRowID
        if keep > 0, lastRow % Retention.trimBatch == 0, lastRow > keep {
            try c.run("DELETE FROM \(table.rawValue) WHERE seq <= ?", [.int(Int64(lastRow - keep))])
        }
        return lastRow
    }
}

extension Event {
    /// An event from its `events` row.
    init(row: Row) {
        id = row.string("id") ?? ""
        type = row.string("type").flatMap(EventType.init(rawValue:)) ?? .emulatorReset
        tenant = row.string("tenant")
        userId = row.string("user_id")
        ip = row.string("ip")
        userAgent = row.string("user_agent")
        detail = row.json("detail").objectValue ?? [:]
        createdAt = row.date("created_at") ?? .distantPast
        sequence = row.int("seq") ?? 0
    }
}

extension Message {
    /// An outbox message from its `messages` row.
    init(row: Row) {
        id = row.string("id") ?? ""
        tenant = row.string("tenant") ?? ""
        channel = row.string("channel").flatMap(Channel.init(rawValue:)) ?? .email
        to = row.string("recipient") ?? ""
        from = row.string("sender") ?? ""
        subject = row.string("subject")
        text = row.string("text") ?? ""
        html = row.string("html")
        purpose = row.string("purpose").flatMap(MessagePurpose.init(rawValue:)) ?? .notification
        codes = (row.json("codes").arrayValue ?? []).compactMap(\.stringValue)
        links = (row.json("links").arrayValue ?? []).compactMap(\.stringValue)
        status = row.string("status").flatMap(DeliveryStatus.init(rawValue:)) ?? .sent
        reason = row.string("reason")
        createdAt = row.date("created_at") ?? .distantPast
        sequence = row.int("seq") ?? 0
    }
}

extension DeepLink {
    /// A captured deep link from its `deeplinks` row.
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
