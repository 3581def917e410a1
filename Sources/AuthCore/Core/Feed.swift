import Foundation
import Synchronization

/// Wakes whoever watches the set of tenants (listeners of projects made at run time) when tenants may have come
/// or gone: rare, so watching costs nothing on the hot path, unlike reading every event from the feed.
public final class TenantWatch: Sendable {
    private let watchers = Mutex<(next: Int, all: [Int: AsyncStream<Void>.Continuation])>((0, [:]))

    public init() {}

    /// A stream with an element after each change (changes in a burst may come as one).
    public func watch() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = watchers.withLock { state in
            let id = state.next
            state.next += 1
            state.all[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.watchers.withLock { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    func changed() {
        for continuation in watchers.withLock({ Array($0.all.values) }) { continuation.yield() }
    }
}

/// Fans out events, messages and deep links to every live subscriber (SSE streams, long-polls, logs).
public final class Feed: Sendable {
    private let subscribers = Mutex<(next: Int, all: [Int: AsyncStream<FeedItem>.Continuation])>((0, [:]))

    public init() {}

    /// A stream of every item published from now on. It ends when the consumer stops iterating.
    public func subscribe() -> AsyncStream<FeedItem> {
        let (stream, continuation) = AsyncStream<FeedItem>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = subscribers.withLock { state in
            let id = state.next
            state.next += 1
            state.all[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ item: FeedItem) {
        let targets = subscribers.withLock { Array($0.all.values) }
        for continuation in targets { continuation.yield(item) }
    }
}
