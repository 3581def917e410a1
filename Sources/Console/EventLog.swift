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

    /// A line a person can scan; nil for items the text log leaves out (messages are announced by
    /// their `message.sent` event).
    public static func text(_ item: FeedItem) -> String? {
        guard case .event(let e) = item else { return nil }
        let time = RFC3339.string(from: e.createdAt, fractionalDigits: 3)
        var parts = [time, e.type.rawValue]
        if let tenant = e.tenant { parts.append("tenant=\(tenant)") }
        if let user = e.userId { parts.append("user=\(user)") }
        for (key, value) in e.detail.sorted(by: { $0.key < $1.key }) where !value.isNull {
            parts.append("\(key)=\(value.stringValue ?? value.serialized())")
        }
        return parts.joined(separator: " ")
    }
}
