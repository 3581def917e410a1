import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import HTTPSupport

/// The control API's JSON: the core's model in neutral terms (snake_case, RFC 3339 times).
enum ControlJSON {
    static func response(_ value: JSON, status: HTTPResponse.Status = .ok) -> Response {
        .json(value, status: status, headers: [.cacheControl: "no-store"])
    }

    static func time(_ date: Date?) -> JSON { date.map { .string(RFC3339.string(from: $0, fractionalDigits: 3)) } ?? .null }

    static func message(_ m: Message) -> JSON {
        ["id": .string(m.id), "channel": .string(m.channel.rawValue), "tenant": .string(m.tenant), "to": .string(m.to),
         "from": .string(m.from), "subject": JSON(m.subject), "text": .string(m.text), "html": JSON(m.html),
         "purpose": .string(m.purpose.rawValue), "codes": .array(m.codes.map(JSON.string)), "links": .array(m.links.map(JSON.string)),
         "status": .string(m.status.rawValue), "reason": JSON(m.reason), "created_at": time(m.createdAt)]
    }

    static func deepLink(_ d: DeepLink) -> JSON {
        let components = URLComponents(string: d.url)
        return ["id": .string(d.id), "url": .string(d.url), "scheme": .string(d.scheme), "host": JSON(components?.host),
         "path": .string(components?.path ?? ""), "params": .object(d.params.mapValues(JSON.string)),
         "source": .string(d.source), "tenant": .string(d.tenant), "user_id": JSON(d.userId), "created_at": time(d.createdAt)]
    }

    static func event(_ e: Event) -> JSON {
        ["id": .string(e.id), "type": .string(e.type.rawValue), "tenant": JSON(e.tenant), "user_id": JSON(e.userId),
         "ip": JSON(e.ip), "user_agent": JSON(e.userAgent), "detail": .object(e.detail), "created_at": time(e.createdAt)]
    }

    static func tenant(_ t: Tenant, userCount: Int) -> JSON {
        ["id": .string(t.id), "dialect": .string(t.dialect.rawValue), "name": .string(t.name), "settings": .object(t.settings),
         "user_count": .int(userCount), "created_at": time(t.createdAt)]
    }

    static func user(_ u: User) -> JSON {
        ["id": .string(u.id), "tenant": .string(u.tenant), "email": JSON(u.email), "phone": JSON(u.phone),
         "username": JSON(u.username), "email_verified": .bool(u.emailVerifiedAt != nil), "phone_verified": .bool(u.phoneVerifiedAt != nil),
         "disabled": .bool(u.disabled), "banned_until": time(u.bannedUntil), "is_anonymous": .bool(u.isAnonymous),
         "user_metadata": .object(u.userMetadata), "app_metadata": .object(u.appMetadata),
         "identities": .array(u.identities.map { ["id": .string($0.id), "provider": .string($0.provider), "subject": .string($0.subject),
                                                    "email": JSON($0.email), "created_at": time($0.createdAt)] }),
         "created_at": time(u.createdAt), "updated_at": time(u.updatedAt), "last_sign_in_at": time(u.lastSignInAt)]
    }

    static func session(_ s: Session) -> JSON {
        ["id": .string(s.id), "user_id": .string(s.userId), "aal": .string(s.aal),
         "amr": .array(s.amr.map { ["method": .string($0.method), "at": time($0.at)] }),
         "user_agent": JSON(s.userAgent), "ip": JSON(s.ip), "created_at": time(s.createdAt),
         "refreshed_at": time(s.refreshedAt), "revoked_at": time(s.revokedAt), "active": .bool(s.revokedAt == nil)]
    }

    static func clock(_ clock: EmulatorClock) -> JSON {
        ["now": .string(RFC3339.string(from: clock.now, fractionalDigits: 3)), "mode": .string(clock.mode.rawValue)]
    }

    /// A feed item as an SSE frame: `event: <kind>` and one JSON `data:` line.
    static func sseFrame(_ item: FeedItem) -> String {
        let (kind, body): (String, JSON) = switch item {
        case .event(let e): ("event", event(e))
        case .message(let m): ("message", message(m))
        case .deepLink(let d): ("deeplink", deepLink(d))
        }
        return "event: \(kind)\ndata: \(body.serialized())\n\n"
    }
}
