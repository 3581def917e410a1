import Foundation

/// Lockouts and rate-limit windows (send cooldowns and quotas among them) live beside the database, where
/// every request reaches them without a write. A snapshot carries them all the same: they are written into
/// `transient_state` just before the database is copied, and read back when a snapshot is restored, so a
/// locked-out user is still locked out in the restored state. A snapshot saved before this has none, and
/// restores as before (nothing locked, nothing counted).
///
/// Fault rules go in too, unless the snapshot is taken without them: a CI scenario saved mid-run expects its
/// failures back when it is restored, so they are in by default. A snapshot without them (or saved before
/// they were kept) leaves the rules in force alone when it is restored; one with them replaces the rules
/// (their counters start over).
extension Emulator {
    /// Writes the current lockouts and windows (and fault rules, with `faults`) into the database, replacing
    /// what an earlier snapshot wrote.
    func writeTransientState(faults includeFaults: Bool) throws {
        let windows = rateLimiter.all()
        let lockouts = self.lockouts.entries(tenant: nil)
        let rules = includeFaults ? faults.rules().map(\.rule) : []
        var entries: [TransientState.Entry] = []
        if includeFaults {
            entries.append(.init(kind: "faults", key: "included", value: true))
            for (index, rule) in rules.enumerated() {
                entries.append(.init(kind: "fault", key: String(format: "%06d", index), value: rule.json))
            }
        }
        for (key, window) in windows {
            entries.append(.init(kind: "rate", key: key, value: [
                "events": .array(window.events.map { .double($0.timeIntervalSince1970) }), "window": .double(window.window),
            ]))
        }
        for (key, entry) in lockouts {
            let name = JSON.array([.string(key.tenant), .string(key.kind.rawValue), .string(key.subject)]).serialized()
            entries.append(.init(kind: "lockout", key: name, value: [
                "failures": .array(entry.state.failures.map { .double($0.timeIntervalSince1970) }), "level": .int(entry.state.level),
                "locked_until": entry.state.lockedUntil.map { .double($0.timeIntervalSince1970) } ?? .null,
                "user_id": entry.userId.map(JSON.string) ?? .null,
            ]))
        }
        try db.transaction { c in try TransientState.replace(c, with: entries) }
    }

    /// Replaces the lockouts and windows with those the (just restored) database holds.
    func readTransientState() throws {
        let entries = try db.withConnection { c in try TransientState.all(c) }
        var windows: [String: RateWindow] = [:]
        var rules: [FaultRule] = []
        var faultsIncluded = false
        var lockouts: [LockoutBook.Key: LockoutBook.Entry] = [:]
        func dates(_ value: JSON?) -> [Date] { (value?.arrayValue ?? []).compactMap { $0.doubleValue.map(Date.init(timeIntervalSince1970:)) } }
        for stored in entries {
            let value = stored.value
            switch stored.kind {
            case "rate":
                windows[stored.key] = RateWindow(events: dates(value["events"]), window: value["window"]?.doubleValue ?? 0)
            case "lockout":
                guard let parts = (try? JSON.parse(text: stored.key))?.arrayValue?.compactMap(\.stringValue), parts.count == 3,
                      let kind = LockoutKind(rawValue: parts[1]) else { continue }
                var entry = LockoutBook.Entry()
                entry.state = LockoutState(failures: dates(value["failures"]), level: value["level"]?.intValue ?? 0,
                                           lockedUntil: value["locked_until"]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
                entry.userId = value["user_id"]?.stringValue
                lockouts[LockoutBook.Key(tenant: parts[0], kind: kind, subject: parts[2])] = entry
            case "faults":
                faultsIncluded = true
            case "fault":
                // A rule this build cannot read (a newer vocabulary) is left out rather than failing the restore.
                if let rule = try? faults.parse(value) { rules.append(rule) }
            default: continue
            }
        }
        rateLimiter.replace(with: windows)
        self.lockouts.replace(with: lockouts)
        if faultsIncluded { faults.replace(with: rules) }
    }
}
