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
        let composed = Message(id: id, tenant: outgoing.tenant, channel: outgoing.channel, to: outgoing.to, from: outgoing.from,
                               subject: outgoing.subject, text: outgoing.text, html: outgoing.html, purpose: outgoing.purpose, codes: codes,
                               links: links, status: status, reason: reason, createdAt: clock.now, sequence: 0)
        let message = try db.withConnection { c in try History.insert(c, composed, keep: retention.messages) }
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
        var selection = History.Selection(.messages, filter.list)
        if let channel = filter.channel { selection.and("channel = ?", [.text(channel.rawValue)]) }
        if let to = filter.to { selection.and("recipient = ? COLLATE NOCASE", [.text(to)]) }
        if let purpose = filter.purpose { selection.and("purpose = ?", [.text(purpose.rawValue)]) }
        return try db.withConnection { c in try History.messages(c, selection, limit: filter.list.limit) }
    }

    /// One message by id.
    public func message(id: String) throws -> Message? {
        try db.withConnection { c in try History.message(c, id: id) }
    }

    /// Empties the outbox (of one tenant, or all); returns how many were removed.
    @discardableResult
    public func deleteMessages(tenant: String? = nil) throws -> Int {
        try db.withConnection { c in try History.deleteMessages(c, tenant: tenant) }
    }
}
