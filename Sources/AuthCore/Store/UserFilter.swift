/// One condition on a user's text, for list operations that filter in the store (Cognito `ListUsers`): a
/// field of the user, compared whole or as a prefix, with or without case, by Swift's own comparison
/// (`TextMatch`), in the list's single query.
public struct UserFilter: Sendable, Equatable {
    /// What of a user is compared.
    public enum Field: Sendable, Equatable {
        /// The username, or the id for a user without one.
        case usernameOrID
        case email
        case phone
        case id
        /// The disabled flag as text: `disabled` when set, else `enabled`.
        case disabledFlag(disabled: String, enabled: String)
        /// A string member of `app_metadata`; `otherwise` when it is missing or not a string.
        case appMetadata(String, otherwise: String)
        /// A string member of `user_metadata`; a user without one does not match.
        case userMetadata(String)
        /// Any string in an array member of `app_metadata` (Cognito's groups); a user without one does not match.
        case appMetadataList(String)
    }

    public var field: Field
    public var value: String
    public var prefix: Bool
    public var ignoringCase: Bool

    public init(_ field: Field, value: String, prefix: Bool = false, ignoringCase: Bool = false) {
        self.field = field
        self.value = value
        self.prefix = prefix
        self.ignoringCase = ignoringCase
    }

    /// The WHERE condition on `users` and its arguments.
    var condition: (sql: String, arguments: [SQLValue]) {
        let flags = (prefix ? TextMatch.prefix : 0) | (ignoringCase ? TextMatch.ignoringCase : 0)
        let (expression, arguments, items) = fieldSQL
        let match = "\(TextMatch.functionName)(\(expression), ?, ?)"
        let compared = arguments + [.text(value), .int(flags)]
        guard let items else { return (match, compared) }
        // Any string item matches; json_each of NULL (no such member) has no rows.
        return ("EXISTS (SELECT 1 FROM json_each(\(items)) AS item WHERE item.type = 'text' AND \(match))", compared)
    }

    /// The field as an SQL expression over a `users` row, or over `item`, each item of the array `items` gives,
    /// for a list. Metadata members are read with `json_each`, which takes the key as a bound value (a JSON path
    /// could not spell every key), behind `json_valid` in a `CASE` (which, unlike `AND`, stops at the first
    /// answer): the JSON functions raise an error on a malformed document, where the row's reader sees no members.
    private var fieldSQL: (expression: String, arguments: [SQLValue], items: String?) {
        switch field {
        case .usernameOrID: ("COALESCE(users.username, users.id)", [], nil)
        case .email: ("users.email", [], nil)
        case .phone: ("users.phone", [], nil)
        case .id: ("users.id", [], nil)
        case .disabledFlag(let disabled, let enabled): ("CASE WHEN users.disabled <> 0 THEN ? ELSE ? END", [.text(disabled), .text(enabled)], nil)
        case .appMetadata(let key, let otherwise): ("COALESCE(\(Self.member("app_metadata")), ?)", [.text(key), .text(otherwise)], nil)
        case .userMetadata(let key): (Self.member("user_metadata"), [.text(key)], nil)
        case .appMetadataList(let key): ("item.value", [.text(key)], Self.member("app_metadata", type: "array"))
        }
    }

    /// A member of a JSON object column of `type` (a string by default), by a key bound after it; NULL when
    /// there is none.
    private static func member(_ column: String, type: String = "text") -> String {
        """
        CASE WHEN NOT json_valid(users.\(column)) THEN NULL WHEN json_type(users.\(column)) = 'object' THEN \
        (SELECT value FROM json_each(users.\(column)) WHERE key = ? AND type = '\(type)' LIMIT 1) END
        """
    }
}
