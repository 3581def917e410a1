import AuthCore
import Foundation
import HTTPSupport

/// `ListUsers`: the pool's users in a stable order, filtered by Cognito's one-condition grammar
/// (`attribute = "value"` or `attribute ^= "prefix"`), a page at a time (`Paging`), and only the
/// `AttributesToGet` when given.
enum ListUsers {
    /// The attributes Cognito can search, and whether their comparison ignores case (the API reference marks `username`
    /// and `status` case-sensitive, `cognito:user_status` not).
    static let searchable: [String: Bool] = ["username": false, "email": true, "phone_number": false, "name": false, "given_name": false,
                                             "family_name": false, "preferred_username": false, "cognito:user_status": true, "status": false,
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
        // One more than a page: whether it comes back says whether there is a next page.
        let page = try call.emulator.usersByID(in: pool.id, after: paging.after, limit: paging.size + 1,
                                               matching: filter.map { storeFilter($0, pool: pool) })
        let found = Array(page.prefix(paging.size))
        let more = page.count > paging.size
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

    /// The filter as the store runs it: which of the user's fields the attribute is, and whether Cognito
    /// ignores case for it (an email, a status, and a username in a pool whose usernames ignore case).
    static func storeFilter(_ filter: Filter, pool: CognitoPool) -> UserFilter {
        let field: UserFilter.Field = switch filter.attribute {
        case "username": .usernameOrID
        case "email": .email
        case "phone_number": .phone
        case "cognito:user_status": .appMetadata(CognitoUsers.statusKey, otherwise: "CONFIRMED")
        case "status": .disabledFlag(disabled: "Disabled", enabled: "Enabled")
        case "sub": .id
        default: .userMetadata(filter.attribute)
        }
        let ignoringCase = searchable[filter.attribute] == true || (filter.attribute == "username" && !pool.caseSensitive)
        return UserFilter(field, value: filter.value, prefix: filter.prefix, ignoringCase: ignoringCase)
    }
}
