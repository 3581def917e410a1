import Foundation

/// Pulls links and codes out of message bodies. Unlike the mail catchers' `http(s)://` matchers, any
/// scheme counts, so `myapp://auth/callback?code=…` links in mail are found too.
public enum LinkExtractor {
    /// Every distinct link in `text`, in order of first appearance; `href`/`src` attribute values
    /// (HTML-unescaped) and bare `scheme://…` runs.
    public static func links(in text: String) -> [String] {
        var found: [String] = []
        let range = NSRange(text.startIndex..., in: text)
        for match in attributePattern.matches(in: text, range: range) {
            if let value = Range(match.range(at: 1), in: text) { found.append(unescapeHTML(String(text[value]))) }
        }
        for match in bareLinkPattern.matches(in: text, range: range) {
            if let link = Range(match.range, in: text) {
                found.append(unescapeHTML(String(text[link])).trimmingCharacters(in: CharacterSet(charactersIn: ".,;:!?)]}")))
            }
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

    // Compiled once, in Foundation's engine: Swift Regex literals here were parsed again on every message
    // and matched slowly, a third of a sign-up's time (scripts/bench, perf).
    private static let attributePattern = try! NSRegularExpression(pattern: #"(?:href|src)\s*=\s*["']([^"']+)["']"#,
                                                                   options: .caseInsensitive)
    private static let bareLinkPattern = try! NSRegularExpression(pattern: #"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s"'<>]+"#)

    // Swift Regex has no lookbehind yet; Foundation's engine does.
    private static let codePattern = try! NSRegularExpression(pattern: #"(?<![\w/=.&?-])\d{4,10}(?![\w/=&-]|\.\d)"#)

    private static func unescapeHTML(_ s: String) -> String {
        // Most links carry no entity; Foundation's replacing bridges through NSString four times.
        guard s.utf8.contains(UInt8(ascii: "&")) else { return s }
        // `&amp;` last, so an escaped entity ("&amp;quot;") comes out as the text it spelled ("&quot;").
        return s.replacingOccurrences(of: "&#x3D;", with: "=").replacingOccurrences(of: "&#61;", with: "=")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}
