import Foundation
import Synchronization

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
        try insertEvent(c, newEvent(type, tenant: tenant, userId: userId, origin: origin, detail: detail))
    }

    /// An event with its id and time drawn now, to be stored later (`insertEvent(_:_:)`): a journaled write
    /// (`Database.deferWrite`) is made at a moment no test can predict, so it draws nothing itself.
    func newEvent(_ type: EventType, tenant: String? = nil, userId: String? = nil, origin: RequestOrigin = RequestOrigin(),
                  detail: [String: JSON] = [:]) -> Event {
        Event(id: newID(), type: type, tenant: tenant, userId: userId, ip: origin.ip, userAgent: origin.userAgent, detail: detail,
              createdAt: clock.now, sequence: 0)
    }

    /// Hands `write` and the event that records it to the store's journal (`Database.deferWrite`): the event is stored
    /// after the write and announced once the journal is made. A write that answers false (what it writes to went
    /// after the caller read it: the operation came first, and what ended it ends this too) keeps nothing, its event
    /// neither.
    func journal(_ event: Event, stampsAccounts: Bool = false, _ write: @escaping @Sendable (borrowing Connection) throws -> Bool) {
        db.scheduleJournal(afterQueuing: queueJournal(event, stampsAccounts: stampsAccounts, write))
    }

    /// `journal`'s first half (`Database.queue`): answers how many writes the journal holds, for
    /// `Database.scheduleJournal(afterQueuing:)`.
    func queueJournal(_ event: Event, stampsAccounts: Bool = false, _ write: @escaping @Sendable (borrowing Connection) throws -> Bool) -> Int {
        db.queue(stampsAccounts: stampsAccounts) { [self] c in
            guard try write(c) else { return nil }
            // An event insert that fails on its own (a constraint) undoes only itself, through SQLite's statement journal.
            guard let stored = try? insertEvent(c, event) else { return nil }
            return { self.announce(stored) }
        }
    }

    /// Stores `event`; answers it with its number in the trail.
    func insertEvent(_ c: borrowing Connection, _ event: Event) throws -> Event {
        var event = event
        event.sequence = try History.insert(c, event, keep: retention.events)
        return event
    }

    /// Publishes a stored event on the feed, and sweeps when a sweep is due.
    func announce(_ event: Event) {
        publishedSequence.max(event.sequence, ordering: .relaxed)
        feed.publish(.event(event))
        switch event.type {
        case .tenantCreated, .tenantDeleted, .emulatorReset, .snapshotRestored: tenantWatch.changed()
        default: break
        }
        sweepIfDue(at: event.createdAt)
    }

    /// The audit trail, newest first.
    public func events(type: String? = nil, filter: ListFilter = ListFilter()) throws -> [Event] {
        var selection = History.Selection(.events, filter)
        if let type { selection.and("(type = ? OR type LIKE ?)", [.text(type), .text(type + ".%")]) }
        return try db.withConnection { c in try History.events(c, selection, limit: filter.limit) }
    }
}
