import AuthCore
import Foundation
import HTTPSupport

/// `ListUsers`: the pool's users in a stable order, filtered by Cognito's one-condition grammar
/// (`attribute = "value"` or `attribute ^= "prefix"`), a page at a time (`Paging`), and only the
/// `AttributesToGet` when given.
enum ListUsers {
    /// The attributes Cognito can search, and whether their comparison ignores case.
    static let searchable: [String: Bool] = ["username": false, "email": true, "phone_number": false, "name": false, "given_name": false,
                                             "family_name": false, "preferred_username": false, "cognito:user_status": true, "status": true,
                                             "sub": false]

    struct Filter: Equatable {
        var attribute: String
        var prefix: Bool
        var value: String
    }

    static func handle(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let paging = try Paging(call, .users, scope: "ListUsers \(pool.id)")
        let filter = try parse(try call.body.string("Filter") ?? "")
        let only = try call.body.strings("AttributesToGet")
        var found: [User] = []
        var more = false
        var after = paging.after
        scan: while true {
            let page = try call.emulator.usersByID(in: pool.id, after: after, limit: 200)
            for user in page {
                after = user.id
                guard filter.map({ matches(user, $0, pool: pool) }) ?? true else { continue }
                if found.count == paging.size { more = true; break scan }
                found.append(user)
            }
            if page.count < 200 { break }
        }
        let users: [JSON] = found.map { user in
            var record = CognitoUsers.record(user, pool: pool)
            if let only {
                record["Attributes"] = .array((record["Attributes"]?.arrayValue ?? []).filter { only.contains($0["Name"]?.stringValue ?? "") })
            }
            return .object(record)
        }
        return paging.answer("Users", users, next: more ? found.last.map { paging.token(after: $0.id) } : nil)
    }

    /// The filter, or nil for an empty one; anything else is `InvalidParameterException`.
    static func parse(_ text: String) throws -> Filter? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        guard let match = trimmed.wholeMatch(of: #/([A-Za-z_:]+)\s*(\^?=)\s*"((?:[^"\\]|\\.)*)"/#) else {
            throw CognitoError.invalid("Error while parsing filter.")
        }
        let attribute = String(match.1)
        guard searchable[attribute] != nil else { throw CognitoError.invalid("Invalid search attribute: \(attribute)") }
        let value = String(match.3).replacing(#/\\(.)/#) { String($0.1) }
        return Filter(attribute: attribute, prefix: match.2 == "^=", value: value)
    }

    static func matches(_ user: User, _ filter: Filter, pool: CognitoPool) -> Bool {
        let actual: String? = switch filter.attribute {
        case "username": CognitoUsers.username(user, pool: pool)
        case "email": user.email
        case "phone_number": user.phone
        case "cognito:user_status": CognitoUsers.status(user)
        case "status": user.disabled ? "Disabled" : "Enabled"
        case "sub": user.id
        default: user.userMetadata[filter.attribute]?.stringValue
        }
        guard var actual else { return false }
        var wanted = filter.value
        if searchable[filter.attribute] == true || (filter.attribute == "username" && !pool.caseSensitive) {
            actual = actual.lowercased()
            wanted = wanted.lowercased()
        }
        return filter.prefix ? actual.hasPrefix(wanted) : actual == wanted
    }
}
