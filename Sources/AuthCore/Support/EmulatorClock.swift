import Foundation
import Synchronization

/// The emulator's only source of "now".
///
/// Token `iat`/`exp`, code expiry, rate-limit and lockout windows all read `now` from here, so a test
/// (or the console) can freeze time, move it forward and watch codes expire without sleeping.
/// Three modes, after the "frozen vs running-with-offset" split testers ask for:
/// - `real`: the system's wall clock;
/// - `frozen`: a fixed instant that only `advance(by:)` moves;
/// - `offset`: the wall clock shifted by a fixed interval (what `advance` does to a running clock).
public final class EmulatorClock: Sendable {
    /// How the clock currently tells time.
    public enum Mode: String, Sendable, Codable {
        case real, frozen, offset
    }

    private enum State {
        case running(offset: TimeInterval)
        case frozen(at: Date)
    }

    private let state: Mutex<State>
    private let wallClock: @Sendable () -> Date
    /// How the clock started (`--clock`), which a reset returns to.
    private let initial: State

    /// A clock that reads the system time (shifted by `offset`), or is frozen at `frozenAt`.
    /// - Parameter wallClock: where real time comes from; injectable so the clock itself can be tested.
    public init(frozenAt: Date? = nil, offset: TimeInterval = 0, wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.wallClock = wallClock
        initial = frozenAt.map { .frozen(at: $0) } ?? .running(offset: offset)
        self.state = Mutex(initial)
    }

    /// The current emulator time.
    public var now: Date {
        state.withLock { state in
            switch state {
            case .running(let offset): wallClock().addingTimeInterval(offset)
            case .frozen(let at): at
            }
        }
    }

    /// Whether a JWT's `exp` (seconds since 1970) has come on this clock: a token is good strictly before it (RFC 7519
    /// §4.1.4), as GoTrue's, Identity Toolkit's and Cognito's checks have it. A token without one has not expired, unless
    /// `required` (Fauxth's own short-lived tokens always carry one).
    public func hasPassed(expiryOf claims: [String: JSON], required: Bool = false) -> Bool {
        guard let exp = claims["exp"]?.intValue else { return required }
        return Double(exp) <= now.timeIntervalSince1970
    }

    /// The wall clock itself, ignoring any freeze or offset: for times another machine checks against
    /// its own clock (a webhook signature's timestamp). Injected like the rest, so a test can fix it.
    public var wallTime: Date { wallClock() }

    /// The current mode: `offset` once a running clock has been advanced.
    public var mode: Mode {
        state.withLock { state in
            switch state {
            case .running(let offset): offset == 0 ? .real : .offset
            case .frozen: .frozen
            }
        }
    }

    /// Moves time forward (or back, with a negative interval) without changing the mode.
    public func advance(by seconds: TimeInterval) {
        state.withLock { state in
            switch state {
            case .running(let offset): state = .running(offset: offset + seconds)
            case .frozen(let at): state = .frozen(at: at.addingTimeInterval(seconds))
            }
        }
    }

    /// Stops time at `instant`, or at the current emulator time when `instant` is nil.
    public func freeze(at instant: Date? = nil) {
        let target = instant ?? now
        state.withLock { $0 = .frozen(at: target) }
    }

    /// Lets time run again from the current emulator instant (an offset clock), so a resume never
    /// makes time jump backwards to the wall clock.
    public func resume() {
        let current = now
        let wall = wallClock()
        state.withLock { $0 = .running(offset: current.timeIntervalSince(wall)) }
    }

    /// Back to the plain wall clock.
    public func reset() {
        state.withLock { $0 = .running(offset: 0) }
    }

    /// Back to how the clock started: real, frozen at the same instant, or the same offset from real time.
    public func restart() {
        state.withLock { [initial] in $0 = initial }
    }
}

extension EmulatorClock {
    /// Parses the `--clock` option: `real`, `frozen`, `frozen@<RFC 3339>` or `offset@<seconds>`.
    public static func parse(_ text: String) -> EmulatorClock? {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        switch (parts.first, parts.count) {
        case ("real", 1): return EmulatorClock()
        case ("frozen", 1): return EmulatorClock(frozenAt: EmulatorClock().now)
        case ("frozen", 2): return RFC3339.date(from: parts[1]).map { EmulatorClock(frozenAt: $0) }
        case ("offset", 2): return TimeInterval(parts[1]).map { EmulatorClock(offset: $0) }
        default: return nil
        }
    }
}
