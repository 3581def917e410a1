/// A list's free-text search: the console's, which finds a user by any of its names, or GoTrue's admin `filter`, which
/// is narrower and keeps Postgres' rules of case.
public enum UserSearch: Sendable, Equatable {
    /// An email, phone or username containing the text, in any case, or the id itself.
    case names(String)
    /// GoTrue's `FindUsersInAudience`: `email LIKE '%text%' OR raw_user_meta_data->>'full_name' ILIKE '%text%'`. The text
    /// is a LIKE pattern (`%`, `_`, and `\` escaping either), and only the full name ignores case.
    case goTrueFilter(String)

    /// The WHERE condition on `users`, or nil for everyone (an empty text).
    var condition: (sql: String, arguments: [SQLValue])? {
        switch self {
        case .names(let text):
            guard !text.isEmpty else { return nil }
            let like = SQLValue.text("%\(text)%")
            return ("users.email LIKE ? OR users.phone LIKE ? OR users.username LIKE ? OR users.id = ?", [like, like, like, .text(text)])
        case .goTrueFilter(let text):
            guard !text.isEmpty else { return nil }
            // SQLite's LIKE ignores ASCII case, as ILIKE does; its GLOB keeps case, as Postgres' LIKE does.
            return (#"users.email GLOB ? OR json_extract(users.user_metadata, '$.full_name') LIKE ? ESCAPE '\'"#,
                    [.text("*" + Self.glob(like: text) + "*"), .text("%\(text)%")])
        }
    }

    /// A Postgres LIKE pattern as a GLOB pattern: `%` any run, `_` any one character, `\` making the next one literal;
    /// GLOB's own `*`, `?` and `[` literal.
    static func glob(like pattern: String) -> String {
        var glob = "", escaped = false
        for character in pattern {
            switch character {
            case "\\" where !escaped: escaped = true; continue
            case "%" where !escaped: glob += "*"
            case "_" where !escaped: glob += "?"
            case "*", "?", "[": glob += "[\(character)]"
            default: glob.append(character)
            }
            escaped = false
        }
        return glob
    }
}
