@testable import AuthCore
import Foundation
import Testing

/// The barrier a mirrored project's answers wait on: released by progress, never held past its timeout.
@Suite struct SequenceBarrierTests {
    @Test func aWaitEndsWhenTheSequenceIsReachedAndAtOnceWhenItAlreadyWas() async {
        let barrier = SequenceBarrier()
        barrier.advance(to: 3)
        await barrier.wait(for: 2, timeout: .seconds(60)) // reached already: returns at once
        let waiting = Task { await barrier.wait(for: 5, timeout: .seconds(60)); return true }
        barrier.advance(to: 4)
        barrier.advance(to: 5)
        #expect(await waiting.value)
    }

    @Test func aWaitThatIsNeverReachedEndsAtItsTimeout() async {
        let barrier = SequenceBarrier()
        let started = ContinuousClock.now
        await barrier.wait(for: 1, timeout: .milliseconds(50))
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        // A late advance finds no one left to wake.
        barrier.advance(to: 1)
    }
}
