import Foundation
import Synchronization

/// The ordered fault rules and their state. For each request the first enabled rule that matches and is
/// due fires; everything time-based reads the emulator clock, and each probability rule draws from its
/// own seeded stream, so adding a rule never changes another's draws and a run repeats exactly.
/// Pure state: it knows no HTTP (the server applies the effect the dialect renders).
public final class FaultEngine: Sendable {
    /// A rule and what it has seen.
    struct Entry {
        var rule: FaultRule
        var addedAt: Date
        var matched = 0
        var fired = 0
        var stream: SeedStream
        var windowStart: Date?
        var windowCount = 0

        var retired: Bool { rule.schedule.times.map { fired >= $0 } ?? false }

        func expired(at now: Date) -> Bool { rule.schedule.ttl.map { now >= addedAt.addingTimeInterval(Double($0)) } ?? false }
    }

    /// One firing: the rule, and the request it fired on.
    public struct Firing: Sendable, Equatable {
        public var id: String
        public var rule: FaultRule
        public var target: FaultTarget
        public var at: Date
        /// Seconds until a quota's window rolls over, for `Retry-After`.
        public var retryAfter: Int?
    }

    private let state = Mutex<(entries: [Entry], journal: [Firing], startup: [FaultRule])>(([], [], []))
    let clock: EmulatorClock
    let generator: Generator
    /// How many firings the journal keeps.
    public let journalLimit: Int

    init(clock: EmulatorClock, generator: Generator, journalLimit: Int = 1000) {
        self.clock = clock
        self.generator = generator
        self.journalLimit = journalLimit
    }

    /// Whether any rule could fire: the server skips classifying requests when none is enabled.
    public var isArmed: Bool { state.withLock { $0.entries.contains { $0.rule.enabled && !$0.retired } } }

    /// The operations and error codes rules may name; the server sets it once the dialects exist.
    public var vocabulary: FaultVocabulary {
        get { names.withLock { $0 } }
        set { names.withLock { $0 = newValue } }
    }
    private let names = Mutex(FaultVocabulary())

    /// Reads a rule (an id is made when it has none).
    public func parse(_ json: JSON) throws -> FaultRule {
        try FaultRule(json: json, vocabulary: vocabulary, newID: { "fault_" + generator.lowerAlphanumeric(10) })
    }

    /// Reads a list of rules, naming the one that is wrong by its place and id: `rules[2] (id "x") match.operaton`.
    public func parse(list: [JSON], place: String = "rules") throws -> [FaultRule] {
        try list.enumerated().map { index, json in
            do { return try parse(json) } catch AuthError.invalidInput(let field, let reason) {
                let id = json["id"]?.stringValue.map { " (id \"\($0)\")" } ?? ""
                throw AuthError.invalidInput(field: "\(place)[\(index)]\(id) \(field)", reason: reason)
            }
        }
    }

    /// Adds rules at the end, or replaces the rule with the same id in place (its state starts over).
    public func add(_ rules: [FaultRule]) {
        let now = clock.now
        state.withLock { s in
            for rule in rules {
                let entry = Entry(rule: rule, addedAt: now, stream: SeedStream(seed: rule.schedule.seed ?? generator.bytes(8).reduce(0) { $0 << 8 | UInt64($1) }))
                if let index = s.entries.firstIndex(where: { $0.rule.id == rule.id }) { s.entries[index] = entry } else { s.entries.append(entry) }
            }
        }
    }

    /// The rules `--faults` loaded: added now, and restored by `restoreStartupRules` (a reset).
    public func setStartupRules(_ rules: [FaultRule]) {
        state.withLock { $0.startup = rules }
        add(rules)
    }

    /// Back to the start-up rules with fresh state, and an empty journal.
    public func restoreStartupRules() {
        let rules = state.withLock { s in
            s.entries = []
            s.journal = []
            return s.startup
        }
        add(rules)
    }

    /// Replaces every rule with `rules` (a restored snapshot's), each with fresh state; the journal is kept.
    public func replace(with rules: [FaultRule]) {
        state.withLock { $0.entries = [] }
        add(rules)
    }

    @discardableResult
    public func remove(_ id: String) -> Bool {
        state.withLock { s in
            guard let index = s.entries.firstIndex(where: { $0.rule.id == id }) else { return false }
            s.entries.remove(at: index)
            return true
        }
    }

    public func removeAll() { state.withLock { $0.entries = [] } }

    /// Turns a rule on or off in place, keeping its counters; false when no rule has `id`.
    @discardableResult
    public func setEnabled(_ id: String, _ enabled: Bool) -> Bool {
        state.withLock { s in
            guard let index = s.entries.firstIndex(where: { $0.rule.id == id }) else { return false }
            s.entries[index].rule.enabled = enabled
            return true
        }
    }

    /// The rules in order, each with its counters.
    public func rules() -> [(rule: FaultRule, matched: Int, fired: Int, retired: Bool, expiresAt: Date?)] {
        state.withLock { s in
            s.entries.map { e in (e.rule, e.matched, e.fired, e.retired, e.rule.schedule.ttl.map { e.addedAt.addingTimeInterval(Double($0)) }) }
        }
    }

    /// The firings, oldest first.
    public func journal() -> [Firing] { state.withLock { $0.journal } }

    /// The rule that fires on `target`, if one is due; its counters and the journal are updated.
    public func decide(_ target: FaultTarget) -> Firing? {
        let now = clock.now
        return state.withLock { s -> Firing? in
            s.entries.removeAll { $0.expired(at: now) }
            for index in s.entries.indices {
                guard s.entries[index].rule.enabled, !s.entries[index].retired, s.entries[index].rule.match.matches(target) else { continue }
                guard let retryAfter = Self.due(&s.entries[index], now: now) else { continue }
                s.entries[index].fired += 1
                let firing = Firing(id: "firing_" + generator.lowerAlphanumeric(12), rule: s.entries[index].rule, target: target, at: now,
                                    retryAfter: retryAfter > 0 ? retryAfter : nil)
                s.journal.append(firing)
                if s.journal.count > journalLimit { s.journal.removeFirst(s.journal.count - journalLimit) }
                return firing
            }
            return nil
        }
    }

    /// Whether a matching request is due, counting it; answers the seconds left in a quota's window (0
    /// without a quota), or nil when the rule lets the request through.
    static func due(_ entry: inout Entry, now: Date) -> Int? {
        let schedule = entry.rule.schedule
        entry.matched += 1
        if entry.matched <= schedule.after { return nil }
        if let from = schedule.from, now < from { return nil }
        if let until = schedule.until, now >= until { return nil }
        var retryAfter = 0
        if let quota = schedule.quota {
            if let start = entry.windowStart, now < start.addingTimeInterval(Double(quota.window)) {
                entry.windowCount += 1
            } else {
                entry.windowStart = now
                entry.windowCount = 1
            }
            if entry.windowCount <= quota.limit { return nil }
            let left = (entry.windowStart ?? now).addingTimeInterval(Double(quota.window)).timeIntervalSince(now)
            retryAfter = max(1, Int(left.rounded(.up)))
        }
        if let probability = schedule.probability, entry.stream.nextUnit() >= probability { return nil }
        return retryAfter
    }
}

/// A rule's own random stream (SplitMix64): seeded per rule, so draws do not depend on other rules.
struct SeedStream: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A draw in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
