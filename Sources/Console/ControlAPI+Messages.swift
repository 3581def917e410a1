import AuthCore
import Foundation
import Hummingbird
import ServiceLifecycle

extension ControlAPI {
    /// `/messages`: the outbox, with a long-poll for the next matching message.
    func addMessageRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { request, _ in
            let messages = try emulator.messages(try messageFilter(ControlRequest(request: request)))
            return ControlJSON.response(["messages": .array(messages.map(ControlJSON.message))])
        }
        group.delete { request, _ in
            let removed = try emulator.deleteMessages(tenant: ControlRequest(request: request).query("tenant"))
            return ControlJSON.response(["deleted": .int(removed)])
        }
        group.get("wait") { request, _ in
            let control = ControlRequest(request: request)
            var limited = try messageFilter(control)
            limited.list.limit = 1
            let filter = limited
            let found = try await waitFor(timeout: try control.timeout(), current: { try emulator.messages(filter).first }) { item in
                if case .message(let m) = item, filter.matches(m) { m } else { nil }
            }
            guard let found else { throw ControlError(.requestTimeout, "timeout", "no matching message arrived in time") }
            return ControlJSON.response(ControlJSON.message(found))
        }
        group.get(":id") { _, context in
            let id = try context.parameters.decoded("id")
            guard let message = try emulator.message(id: id) else { throw ControlError.notFound("no message \(id)") }
            return ControlJSON.response(ControlJSON.message(message))
        }
    }

    private func messageFilter(_ request: ControlRequest) throws -> MessageFilter {
        MessageFilter(channel: try request.enumQuery("channel", as: Channel.self), to: request.query("to"),
                      purpose: try request.enumQuery("purpose", as: MessagePurpose.self), list: try request.listFilter())
    }

    /// Answers at once when `current` finds something; otherwise waits (real seconds) for the first feed
    /// item `match` accepts. Subscribes before looking, so nothing published in between is missed.
    /// Throws `shutting_down` when the server starts stopping: a graceful shutdown waits for every request
    /// in progress, and a wait of up to five minutes would otherwise hold the process (and its snapshot).
    func waitFor<T: Sendable>(timeout: Double, current: () throws -> T?, match: @escaping @Sendable (FeedItem) -> T?) async throws -> T? {
        let stream = emulator.feed.subscribe()
        if let found = try current() { return found }
        let outcome = await withTaskGroup(of: WaitOutcome<T>.self) { group in
            group.addTask {
                for await item in stream { if let found = match(item) { return .found(found) } }
                return .timedOut
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
                return .timedOut
            }
            group.addTask {
                do { try await gracefulShutdown() } catch { return .timedOut }  // cancelled: another task finished first
                return .stopping
            }
            let first = await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
        switch outcome {
        case .found(let value): return value
        case .timedOut: return nil
        case .stopping: throw ControlError(.serviceUnavailable, "shutting_down", "the emulator is stopping")
        }
    }
}

/// How a long poll ended.
private enum WaitOutcome<T: Sendable>: Sendable {
    case found(T)
    case timedOut
    case stopping
}
