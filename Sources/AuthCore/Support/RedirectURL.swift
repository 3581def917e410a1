import Foundation

/// A URL an emulator is asked to redirect a browser to, read as a browser reads it where that matters
/// for an allow list. `URLComponents` and a browser disagree on some spellings: a browser takes `\` for
/// `/` in web URLs (`https://evil.example\@127.0.0.1/` goes to evil.example, where `URLComponents`
/// sees the host 127.0.0.1) and drops tabs and newlines. Such a URL would be checked against one host
/// and followed to another, so it is no redirect target at all.
public struct RedirectURL: Sendable, Equatable {
    /// Lowercased.
    public let scheme: String
    /// Lowercased; empty for app schemes without one (`myapp:callback`).
    public let host: String
    public let port: Int?
    /// The host as written (Go's `url.Hostname()`: no brackets round an IPv6 address), for rules that compare
    /// hosts case-sensitively, as GoTrue's does.
    public let hostAsWritten: String
    /// The URL as given.
    public let text: String

    public init?(_ text: String) {
        let ambiguous = text.unicodeScalars.contains { $0 == "\\" || $0.value <= 0x20 || $0.value == 0x7F || $0.properties.isWhitespace }
        guard !ambiguous, let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), !scheme.isEmpty else {
            return nil
        }
        let host = components.host?.lowercased() ?? ""
        // A web URL needs a host, as `https:evil.example` or `https:/evil.example` is read as one by browsers.
        if ["http", "https"].contains(scheme), host.isEmpty || !text.lowercased().hasPrefix(scheme + "://") { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port
        let written = components.percentEncodedHost ?? ""
        hostAsWritten = written.hasPrefix("[") && written.hasSuffix("]") ? String(written.dropFirst().dropLast()) : written
        self.text = text
    }

    /// Whether this is an `http` or `https` URL.
    public var isWeb: Bool { scheme == "http" || scheme == "https" }

    /// Whether `text` is an `http` or `https` URL with a host, read as a browser would: the one check for every URL
    /// Fauxth is given to call or send a browser to (a function, an upstream, an assertion consumer).
    public static func isWeb(_ text: String) -> Bool { RedirectURL(text)?.isWeb == true }
}
