import Foundation

/// Pulls links and codes out of message bodies. Unlike the mail catchers' `http(s)://` matchers, any
/// scheme counts, so `myapp://auth/callback?code=…` links in mail are found too.
public enum LinkExtractor {
    /// Every distinct link in `text`, in order of first appearance; `href`/`src` attribute values
    /// (HTML-unescaped) and bare `scheme://…` runs.
    public static func links(in text: String) -> [String] {
        var found: [String] = []
        for match in text.matches(of: #/(?:href|src)\s*=\s*["']([^"']+)["']/#.ignoresCase()) {
            found.append(unescapeHTML(String(match.1)))
        }
        for match in text.matches(of: #/\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s"'<>]+/#) {
            found.append(unescapeHTML(String(match.0)).trimmingCharacters(in: CharacterSet(charactersIn: ".,;:!?)]}")))
        }
        var seen = Set<String>()
        return found.filter { link in
            !link.hasPrefix("#") && !link.lowercased().hasPrefix("mailto:") && seen.insert(link).inserted
        }
    }

    /// Standalone runs of 4 to 10 digits: OTPs in messages whose composer did not say which codes
    /// they hold (the app's own mail through the SMTP sink).
    public static func codes(in text: String) -> [String] {
        var seen = Set<String>()
        let range = NSRange(text.startIndex..., in: text)
        return codePattern.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
            .filter { seen.insert($0).inserted }
    }

    // Swift Regex has no lookbehind yet; Foundation's engine does.
    private static let codePattern = try! NSRegularExpression(pattern: #"(?<![\w/=.&?-])\d{4,10}(?![\w/=&-]|\.\d)"#)

    private static func unescapeHTML(_ s: String) -> String {
        s.replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#x3D;", with: "=")
            .replacingOccurrences(of: "&#61;", with: "=").replacingOccurrences(of: "&quot;", with: "\"")
    }
}
