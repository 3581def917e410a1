import Foundation

/// Which messages to list.
public struct MessageFilter: Sendable {
    public var channel: Channel?
    public var to: String?
    public var purpose: MessagePurpose?
    public var list: ListFilter

    public init(channel: Channel? = nil, to: String? = nil, purpose: MessagePurpose? = nil, list: ListFilter = ListFilter()) {
        self.channel = channel; self.to = to; self.purpose = purpose; self.list = list
    }

    /// Whether `message` passes this filter (used on the live feed, where SQL is not involved).
    public func matches(_ message: Message) -> Bool {
        (channel == nil || message.channel == channel)
            && (to == nil || message.to.caseInsensitiveCompare(to!) == .orderedSame)
            && (purpose == nil || message.purpose == purpose)
            && (list.tenant == nil || message.tenant == list.tenant)
    }
}

extension Emulator {
    /// Keeps an email or SMS in the outbox, with its codes and links extracted, and announces it.
    @discardableResult
    public func deliver(_ outgoing: OutgoingMessage, userId: String? = nil) throws -> Message {
        let id = newID()
        let body = [outgoing.subject ?? "", outgoing.text, outgoing.html ?? ""].joined(separator: "\n")
        let codes = outgoing.codes.isEmpty ? LinkExtractor.codes(in: outgoing.text) : outgoing.codes
        let links = LinkExtractor.links(in: body)
        let status: DeliveryStatus = outgoing.suppressedReason != nil ? .suppressed : outgoing.handedTo != nil ? .hook : .sent
        let reason = outgoing.suppressedReason ?? outgoing.handedTo.map { "handed to \($0)" }
        let message = try db.withConnection { c in
            try c.run("""
                INSERT INTO messages (id, tenant, channel, recipient, sender, subject, text, html, purpose, codes, links, status, reason, created_at)
                VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
                """, [.text(id), .text(outgoing.tenant), .text(outgoing.channel.rawValue), .text(outgoing.to), .text(outgoing.from),
                      SQLValue(outgoing.subject), .text(outgoing.text), SQLValue(outgoing.html), .text(outgoing.purpose.rawValue),
                      SQLValue(JSON.array(codes.map(JSON.string))), SQLValue(JSON.array(links.map(JSON.string))),
                      .text(status.rawValue), SQLValue(reason), SQLValue(clock.now)])
            try c.trimHistory("messages", keep: retention.messages)
            return try c.first("SELECT * FROM messages WHERE id = ?", [.text(id)]).map(Message.init(row:))
        }
        guard let message else { throw AuthError.invalidInput(field: "message", reason: "could not be stored") }
        feed.publish(.message(message))
        // A link in a message that opens an app is a deep link the app would be opened with.
        for link in links { _ = try? captureIfAppLink(link, tenant: outgoing.tenant, source: "message", userId: userId) }
        record(status == .suppressed ? .messageSuppressed : .messageSent, tenant: outgoing.tenant, userId: userId,
               detail: ["message_id": .string(id), "channel": .string(outgoing.channel.rawValue), "to": .string(outgoing.to),
                        "purpose": .string(outgoing.purpose.rawValue), "reason": JSON(reason), "status": .string(status.rawValue)])
        return message
    }

    /// Outbox messages, newest first.
    public func messages(_ filter: MessageFilter = MessageFilter()) throws -> [Message] {
        var clauses = cursorClauses(table: "messages", filter.list)
        if let channel = filter.channel { clauses.append(("channel = ?", [.text(channel.rawValue)])) }
        if let to = filter.to { clauses.append(("recipient = ? COLLATE NOCASE", [.text(to)])) }
        if let purpose = filter.purpose { clauses.append(("purpose = ?", [.text(purpose.rawValue)])) }
        return try db.withConnection { c in
            try newest(c, in: "messages", clauses, limit: filter.list.limit).map(Message.init(row:))
        }
    }

    /// One message by id.
    public func message(id: String) throws -> Message? {
        try db.withConnection { try $0.first("SELECT * FROM messages WHERE id = ?", [.text(id)]).map(Message.init(row:)) }
    }

    /// Empties the outbox (of one tenant, or all); returns how many were removed.
    @discardableResult
    public func deleteMessages(tenant: String? = nil) throws -> Int {
        try db.withConnection { c in
            if let tenant { try c.run("DELETE FROM messages WHERE tenant = ?", [.text(tenant)]) }
            else { try c.run("DELETE FROM messages") }
        }
    }
}
