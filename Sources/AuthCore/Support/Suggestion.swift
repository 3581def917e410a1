/// "Did you mean …?" for a name that is not one of the known ones: the nearest by edit distance, when
/// it is near enough to be a typo (a third of the name's length, at least 2).
public enum Suggestion {
    /// The known name nearest to `name`, or nil when none is close.
    public static func nearest(to name: String, in known: some Collection<String>) -> String? {
        let scored = known.map { ($0, distance(name.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return nil }
        return best.1 <= max(2, name.count / 3) ? best.0 : nil
    }

    /// ` (did you mean X?)`, or nothing.
    public static func hint(for name: String, in known: some Collection<String>) -> String {
        nearest(to: name, in: known).map { " (did you mean \($0)?)" } ?? ""
    }

    /// Levenshtein distance over characters.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
