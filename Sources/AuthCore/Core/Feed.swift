import Foundation
import Synchronization

/// Wakes whoever watches the set of tenants (listeners of projects made at run time) when tenants may have come
/// or gone: rare, so watching costs nothing on the hot path, unlike reading every event from the feed.
public final class TenantWatch: Sendable {
    private let watchers = Subscribers<Void>(buffering: 1)

    public init() {}

    /// A stream with an element after each change (changes in a burst may come as one).
    public func watch() -> AsyncStream<Void> { watchers.subscribe() }

    func changed() { watchers.send(()) }
}

/// Lets a request wait until a consumer of the feed has handled every event up to a sequence number (the
/// database mirror, so an app's trigger has run when its sign-up is answered, as under GoTrue). Bounded by a
/// timeout: a consumer that falls behind delays answers, never holds them.
public final class SequenceBarrier: Sendable {
    private struct Waiter {
        let target: Int
        let continuation: CheckedContinuation<Void, Never>
    }
    private let state = Mutex<(reached: Int, next: Int, waiters: [Int: Waiter])>((0, 0, [:]))

    public init() {}

    /// Records that everything up to `sequence` is handled, and wakes who waited for it.
    public func advance(to sequence: Int) {
        let ready = state.withLock { s -> [Waiter] in
            s.reached = max(s.reached, sequence)
            let done = s.waiters.filter { $0.value.target <= s.reached }
            for id in done.keys { s.waiters.removeValue(forKey: id) }
            return Array(done.values)
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once everything up to `target` is handled, or after `timeout`.
    public func wait(for target: Int, timeout: Duration) async {
        let id = state.withLock { s -> Int in s.next += 1; return s.next }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let handled = state.withLock { s -> Bool in
                guard s.reached < target else { return true }
                s.waiters[id] = Waiter(target: target, continuation: continuation)
                return false
            }
            if handled { continuation.resume(); return }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                if let waiter = self?.state.withLock({ $0.waiters.removeValue(forKey: id) }) { waiter.continuation.resume() }
            }
        }
    }
}

/// Fans out events, messages and deep links to every live subscriber (SSE streams, long-polls, logs).
public final class Feed: Sendable {
    private let subscribers = Subscribers<FeedItem>(buffering: 1024)
    private let observers = Mutex<[@Sendable (FeedItem) -> Void]>([])

    public init() {}

    /// A stream of every item published from now on. It ends when the consumer stops iterating.
    public func subscribe() -> AsyncStream<FeedItem> { subscribers.subscribe() }

    /// Calls `observer` with every item published from now on, on the publisher's thread, for as long as the feed
    /// lives: for a consumer that only hands items on without waiting (the process's log), which a stream would wake
    /// for every item, a task switch per sign-in.
    public func observe(_ observer: @escaping @Sendable (FeedItem) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    func publish(_ item: FeedItem) {
        for observer in observers.withLock({ $0 }) { observer(item) }
        subscribers.send(item)
    }
}

/// Live subscribers, each an `AsyncStream` that keeps the newest `buffering` elements a slow consumer has not read,
/// and leaves the list when its consumer stops.
final class Subscribers<Element: Sendable>: Sendable {
    private let state = Mutex<(next: Int, all: [Int: AsyncStream<Element>.Continuation])>((0, [:]))
    private let buffering: Int

    init(buffering: Int) { self.buffering = buffering }

    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(buffering))
        let id = state.withLock { state in
            let id = state.next
            state.next += 1
            state.all[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    func send(_ element: Element) {
        for continuation in state.withLock({ Array($0.all.values) }) { continuation.yield(element) }
    }
}
