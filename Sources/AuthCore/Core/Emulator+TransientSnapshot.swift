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
        try db.transaction { c in
            try c.run("DELETE FROM transient_state")
            if includeFaults {
                try c.run("INSERT INTO transient_state (kind, key, value) VALUES ('faults', 'included', 'true')")
                for (index, rule) in rules.enumerated() {
                    try c.run("INSERT INTO transient_state (kind, key, value) VALUES ('fault', ?, ?)",
                              [.text(String(format: "%06d", index)), SQLValue(rule.json)])
                }
            }
            for (key, window) in windows {
                try c.run("INSERT INTO transient_state (kind, key, value) VALUES ('rate', ?, ?)", [.text(key), SQLValue(JSON.object([
                    "events": .array(window.events.map { .double($0.timeIntervalSince1970) }), "window": .double(window.window),
                ]))])
            }
            for (key, entry) in lockouts {
                let name = JSON.array([.string(key.tenant), .string(key.kind.rawValue), .string(key.subject)]).serialized()
                try c.run("INSERT INTO transient_state (kind, key, value) VALUES ('lockout', ?, ?)", [.text(name), SQLValue(JSON.object([
                    "failures": .array(entry.state.failures.map { .double($0.timeIntervalSince1970) }), "level": .int(entry.state.level),
                    "locked_until": entry.state.lockedUntil.map { .double($0.timeIntervalSince1970) } ?? .null,
                    "user_id": entry.userId.map(JSON.string) ?? .null,
                ]))])
            }
        }
    }

    /// Replaces the lockouts and windows with those the (just restored) database holds.
    func readTransientState() throws {
        let rows = try db.withConnection { try $0.query("SELECT kind, key, value FROM transient_state ORDER BY kind, key") }
        var windows: [String: RateWindow] = [:]
        var rules: [FaultRule] = []
        var faultsIncluded = false
        var lockouts: [LockoutBook.Key: LockoutBook.Entry] = [:]
        func dates(_ value: JSON?) -> [Date] { (value?.arrayValue ?? []).compactMap { $0.doubleValue.map(Date.init(timeIntervalSince1970:)) } }
        for row in rows {
            let value = row.json("value")
            switch row.string("kind") {
            case "rate"?:
                guard let key = row.string("key") else { continue }
                windows[key] = RateWindow(events: dates(value["events"]), window: value["window"]?.doubleValue ?? 0)
            case "lockout"?:
                guard let parts = (try? JSON.parse(Array((row.string("key") ?? "").utf8)))?.arrayValue?.compactMap(\.stringValue), parts.count == 3,
                      let kind = LockoutKind(rawValue: parts[1]) else { continue }
                var entry = LockoutBook.Entry()
                entry.state = LockoutState(failures: dates(value["failures"]), level: value["level"]?.intValue ?? 0,
                                           lockedUntil: value["locked_until"]?.doubleValue.map(Date.init(timeIntervalSince1970:)))
                entry.userId = value["user_id"]?.stringValue
                lockouts[LockoutBook.Key(tenant: parts[0], kind: kind, subject: parts[2])] = entry
            case "faults"?:
                faultsIncluded = true
            case "fault"?:
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
