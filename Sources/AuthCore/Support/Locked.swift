#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a plain pthread mutex. Synchronization's `Mutex` is a priority-inheriting futex on
/// Linux, whose contended path goes through the kernel's rt_mutex: under 16 concurrent sign-ins that
/// slow path was a tenth of the server's time (scripts/bench, perf). The store's connection and the
/// generator, taken on every request, use this instead.
///
/// A thread that finds it held yields its core and tries again a bounded number of times before it
/// sleeps on the mutex. The store is held for tens of microseconds per request by a thread that is
/// running; sleeping instead costs a futex wake-up and a trip through the scheduler, and meanwhile the
/// sleeper's event loop, with every connection on it, waits. With two event loops on two cores, 16
/// concurrent sign-ins left a fifth of the machine idle that way; yielding first served 15-40% more
/// sign-ins and refreshes per second, across runs, with a lower p99 (scripts/bench). Yielding, not
/// spinning in place, so the holder or the client can have the core meanwhile.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        acquire()
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// `body`'s answer if the lock is free now, nil without waiting if it is held.
    public func withLockIfFree<T>(_ body: (inout Value) throws -> T) rethrows -> T? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    private func acquire() {
        if pthread_mutex_trylock(mutex) == 0 { return }
        for _ in 0..<yieldsBeforeSleeping {
            sched_yield()
            if pthread_mutex_trylock(mutex) == 0 { return }
        }
        pthread_mutex_lock(mutex)
    }
}

/// How many times a waiter on a `Locked` yields before it sleeps: a few hundred microseconds at most when
/// nothing else wants the core, more than the store's usual hold, far less than a snapshot save's.
private let yieldsBeforeSleeping = 1_000
