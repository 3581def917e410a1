import Foundation

/// Glob patterns as GoTrue compiles its redirect allow list (gobwas/glob): `*` matches within a segment
/// (it stops at `separators`), `**` crosses them, `?` is one character of a segment. Redirect allow
/// lists, app-link patterns and fault rules' paths all use it.
public enum Glob {
    /// With no `separators`, `*` matches anything.
    public static func matches(_ pattern: String, _ text: String, separators: String = "./") -> Bool {
        let segment = separators.isEmpty ? "." : "[^" + NSRegularExpression.escapedPattern(for: separators) + "]"
        var regex = "^"
        var chars = Array(pattern)[...]
        while let c = chars.popFirst() {
            if c == "*" {
                if chars.first == "*" { chars.removeFirst(); regex += ".*" } else { regex += segment + "*" }
            } else if c == "?" {
                regex += segment
            } else {
                regex += NSRegularExpression.escapedPattern(for: String(c))
            }
        }
        return (try? NSRegularExpression(pattern: regex + "$"))?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
