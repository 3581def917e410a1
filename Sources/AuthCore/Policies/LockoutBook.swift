import Foundation
import Synchronization

/// Every account's lockout state, by tenant, kind and subject (a user id, or the address a code went
/// to). Transient, like the rate-limit windows: a reset or a snapshot restore clears it.
public final class LockoutBook: Sendable {
    struct Key: Hashable, Sendable {
        var tenant: String
        var kind: LockoutKind
        var subject: String
    }

    private let states = Mutex<[Key: Entry]>([:])

    struct Entry: Sendable {
        var state = LockoutState()
        var userId: String?
    }

    init() {}

    func state(_ key: Key) -> LockoutState? { states.withLock { $0[key]?.state } }

    /// Counts a failure under `policy`, remembering the user it belongs to.
    func recordFailure(_ key: Key, userId: String?, at now: Date, policy: LockoutPolicy) -> LockoutState.Decision {
        states.withLock { states in
            var entry = states[key] ?? Entry()
            entry.userId = entry.userId ?? userId
            let decision = entry.state.recordFailure(at: now, policy: policy)
            states[key] = entry
            return decision
        }
    }

    /// Forgets a subject's failures; answers whether a lockout was on at `now`.
    @discardableResult
    func clear(_ key: Key, at now: Date) -> Bool {
        states.withLock { $0.removeValue(forKey: key)?.state.lockedUntil(at: now) != nil }
    }

    /// Forgets every state matching `filter`; answers those that were locked at `now`.
    func clear(at now: Date, where filter: (Key, Entry) -> Bool) -> [(Key, Entry)] {
        states.withLock { states in
            let matching = states.filter { filter($0.key, $0.value) }
            for key in matching.keys { states.removeValue(forKey: key) }
            return matching.filter { $0.value.state.lockedUntil(at: now) != nil }.map { ($0.key, $0.value) }
        }
    }

    /// Every state of `tenant` (all tenants when nil).
    func entries(tenant: String?) -> [(Key, Entry)] {
        states.withLock { states in states.filter { tenant == nil || $0.key.tenant == tenant }.map { ($0.key, $0.value) } }
    }

    func removeAll() { states.withLock { $0.removeAll() } }

    /// Replaces every state with a snapshot's.
    func replace(with restored: [Key: Entry]) { states.withLock { $0 = restored } }

    /// Forgets the states `isSpent` says have nothing left to remember; answers how many. `isSpent` runs
    /// outside the lock (it reads policies), so a state that changed meanwhile is kept.
    func prune(isSpent: (Key, LockoutState) -> Bool) -> Int {
        let spent = states.withLock { $0.map { ($0.key, $0.value.state) } }.filter { isSpent($0.0, $0.1) }
        return states.withLock { states in
            spent.reduce(0) { count, item in
                guard states[item.0]?.state == item.1 else { return count }
                states.removeValue(forKey: item.0)
                return count + 1
            }
        }
    }
}
