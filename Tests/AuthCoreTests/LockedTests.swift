import Foundation
import Testing
@testable import AuthCore

@Suite struct LockedTests {
    /// Threads, not tasks: more of them than cores, all after the same lock, so waiters go through
    /// the yield-and-retry path and, past its bound, sleep on the mutex.
    @Test func contendedUpdatesAreNeitherLostNorDoubled() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 160_000)
    }

    @Test func aThrowingBodyReleasesTheLock() {
        struct Refused: Error {}
        let value = Locked([Int]())
        #expect(throws: Refused.self) { try value.withLock { _ in throw Refused() } }
        // Taken again on the same thread: a lock left held would hang here rather than fail.
        value.withLock { $0.append(1) }
        #expect(value.withLock { $0 } == [1])
    }
}
