import AuthCore
import Foundation

/// Formats the live feed for the process's stdout: NDJSON (`--log-format json`) or one readable line
/// per item (`text`).
public enum EventLog {
    /// One JSON object per item: `{"kind":"event|message|deeplink", …the control API's JSON}`.
    public static func json(_ item: FeedItem) -> String {
        let (kind, body): (String, JSON) = switch item {
        case .event(let e): ("event", ControlJSON.event(e))
        case .message(let m): ("message", ControlJSON.message(m))
        case .deepLink(let d): ("deeplink", ControlJSON.deepLink(d))
        }
        var object = body.objectValue ?? [:]
        object["kind"] = .string(kind)
        return JSON.object(object).serialized()
    }

    /// A line a person can scan: each event, and each message with the code and the link it carries (what
    /// a tester reads off the terminal), its `message.sent`/`message.suppressed` event then left out as the
    /// same line. Long values (tokens, hashes) are cut short; nil for items the text log leaves out.
    public static func text(_ item: FeedItem) -> String? {
        // One string appended to rather than parts joined: every sign-in writes a line.
        var line = ""
        line.reserveCapacity(192)
        func add(_ part: String) {
            if !line.isEmpty { line += " " }
            line += part
        }
        func addTenantAndUser(_ tenant: String?, _ user: String?) {
            if let tenant, !tenant.isEmpty { add("tenant="); line += tenant }
            if let user, !user.isEmpty { add("user="); line += user }
        }
        switch item {
        case .event(let e):
            guard e.type != .messageSent, e.type != .messageSuppressed else { return nil }
            add(RFC3339.string(from: e.createdAt, fractionalDigits: 3))
            add(e.type.rawValue)
            addTenantAndUser(e.tenant, e.userId)
            for (key, value) in e.detail.sorted(by: { $0.key < $1.key }) where !value.isNull {
                add(key)
                line += "="
                line += short(value.stringValue ?? value.serialized())
            }
        case .message(let m):
            add(RFC3339.string(from: m.createdAt, fractionalDigits: 3))
            add(m.status == .suppressed ? "message.suppressed" : "message.sent")
            addTenantAndUser(m.tenant, nil)
            add(m.channel.rawValue)
            add("to=\(m.to)")
            add("purpose=\(m.purpose.rawValue)")
            if let code = m.codes.first { add("code=\(code)") }
            if let link = m.links.first { add("link=\(shortLink(link))") }
            if let reason = m.reason { add("reason=\"\(reason)\"") }
        case .deepLink:
            return nil
        }
        return line
    }

    /// A value cut to its first characters when it is long (a JWT, a refresh token, a hash).
    static func short(_ value: String, keep: Int = 24) -> String {
        // Bytes first: a string of few bytes has no more characters, and counting characters walks the whole string.
        value.utf8.count <= keep + 16 || value.count <= keep + 16 ? value : value.prefix(keep) + "…"
    }

    /// A link with its long query values cut (the token a verify link carries), the rest as it is: a line to
    /// read, not a link to follow (the console and the control API have it whole).
    static func shortLink(_ link: String) -> String {
        guard let question = link.firstIndex(of: "?") else { return short(link, keep: 80) }
        let query = link[link.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "="), pair[..<equals] != "redirect_to" else { return String(pair) }
            let value = pair[pair.index(after: equals)...]
            return value.count > 24 ? pair[...equals] + value.prefix(12) + "…" : String(pair)
        }
        return link[...question] + query.joined(separator: "&")
    }
}
