import Foundation
import Synchronization

/// A limit of `count` events per `window` seconds, as the vendors configure them.
public struct RateLimit: Sendable, Equatable {
    public var count: Int
    public var window: TimeInterval

    public init(count: Int, window: TimeInterval) {
        self.count = count
        self.window = window
    }
}

/// A sliding-window counter on the emulator clock: a pure value, tested without HTTP or storage.
public struct RateWindow: Sendable, Equatable {
    /// When each counted event happened, oldest first.
    private(set) var events: [Date] = []

    public init() {}

    /// What `record` decided.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Over the limit; the event was not counted. `retryAfter` is when the oldest event in the
        /// window leaves it.
        case limited(retryAfter: TimeInterval)
    }

    /// The window of the limit last recorded under, so a sweep knows when nothing is left to count.
    private(set) var window: TimeInterval = 0

    /// A window as a snapshot kept it.
    init(events: [Date], window: TimeInterval) {
        self.events = events
        self.window = window
    }

    /// Counts an event at `now` if the limit allows it.
    public mutating func record(at now: Date, limit: RateLimit) -> Decision {
        window = limit.window
        events.removeAll { now.timeIntervalSince($0) >= limit.window }
        guard events.count < limit.count else {
            let oldest = events.first ?? now
            return .limited(retryAfter: max(1, limit.window - now.timeIntervalSince(oldest)))
        }
        events.append(now)
        return .allowed
    }

    /// Whether every counted event has left the window at `now`.
    func isEmpty(at now: Date) -> Bool {
        guard let newest = events.last else { return true }
        return now.timeIntervalSince(newest) >= window
    }
}

/// The emulator's rate-limit windows, by key: the tenant's id, a colon, then the limit's name and, for
/// per-client limits, the client. Transient: a reset clears them, a tenant's reset that tenant's.
public final class RateLimiter: Sendable {
    private let windows = Mutex<[String: RateWindow]>([:])

    public init() {}

    /// Counts one event under `key`, or answers `rateLimited` with when to retry.
    public func consume(_ key: String, limit: RateLimit, at now: Date) throws {
        let decision = windows.withLock { windows in windows[key, default: RateWindow()].record(at: now, limit: limit) }
        if case .limited(let retryAfter) = decision { throw AuthError.rateLimited(retryAfter: retryAfter) }
    }

    /// Counts one event under every key when all their limits allow it; otherwise counts none and
    /// answers the first that refused, with when to retry.
    public func consumeAll(_ checks: [(key: String, limit: RateLimit)], at now: Date) -> (index: Int, retryAfter: TimeInterval)? {
        windows.withLock { windows in
            for (index, check) in checks.enumerated() {
                var probe = windows[check.key, default: RateWindow()]
                if case .limited(let retryAfter) = probe.record(at: now, limit: check.limit) { return (index, retryAfter) }
            }
            for check in checks { _ = windows[check.key, default: RateWindow()].record(at: now, limit: check.limit) }
            return nil
        }
    }

    func clear() { windows.withLock { $0.removeAll() } }

    /// Every window, for a snapshot.
    func all() -> [String: RateWindow] { windows.withLock { $0 } }

    /// Replaces every window with a snapshot's.
    func replace(with restored: [String: RateWindow]) { windows.withLock { $0 = restored } }

    /// Forgets the windows whose key `isForgotten` picks.
    func clear(where isForgotten: (String) -> Bool) {
        windows.withLock { windows in
            for key in windows.keys where isForgotten(key) { windows.removeValue(forKey: key) }
        }
    }

    /// Forgets windows with nothing left in them at `now`; answers how many.
    func prune(at now: Date) -> Int {
        windows.withLock { windows in
            let spent = windows.filter { $0.value.isEmpty(at: now) }.map(\.key)
            for key in spent { windows.removeValue(forKey: key) }
            return spent.count
        }
    }
}
