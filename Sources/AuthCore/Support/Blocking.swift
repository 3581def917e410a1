import Dispatch

/// Work that blocks its thread for long (a snapshot's file I/O: seconds for a million users), run on a thread of
/// its own. Route handlers and services run on Swift's cooperative pool, which has one thread per core, here two:
/// a save run there held one of them for its whole write, and the requests queued behind it waited as long.
public enum Blocking {
    private static let queue = DispatchQueue(label: "fauxth.blocking", qos: .utility, attributes: .concurrent)

    /// Runs `body` on the blocking queue and waits for it without holding a cooperative thread.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
