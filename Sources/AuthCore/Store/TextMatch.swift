import CSQLite

/// `fauxth_text_matches(actual, wanted, flags)`: Swift's own comparison of two strings, as an SQL function, so
/// a list query filters in SQLite with exactly the answers the same comparison gave in Swift. SQLite's `=`,
/// `LIKE` and `lower()` compare bytes and fold ASCII only, where Swift's `==` and `hasPrefix` compare
/// canonically equivalent strings as equal (U+212A KELVIN SIGN equals "K") and `lowercased()` folds all of
/// Unicode. `flags`: `prefix` (1) asks whether `actual` starts with `wanted`, else whether they are equal;
/// `ignoringCase` (2) compares both lowercased. A NULL `actual` matches nothing.
enum TextMatch {
    static let functionName = "fauxth_text_matches"
    static let prefix: Int64 = 1
    static let ignoringCase: Int64 = 2

    /// The comparison itself, in Swift.
    static func matches(_ actual: String, _ wanted: String, flags: Int64) -> Bool {
        let folding = flags & ignoringCase != 0
        let actual = folding ? actual.lowercased() : actual
        let wanted = folding ? wanted.lowercased() : wanted
        return flags & prefix != 0 ? actual.hasPrefix(wanted) : actual == wanted
    }

    /// Adds the function to a connection (deterministic, and harmless, so indexes and views may use it).
    static func register(on db: OpaquePointer) throws(SQLiteError) {
        let rc = sqlite3_create_function_v2(db, functionName, 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
                                            { context, _, arguments in TextMatch.call(context, arguments) }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(db))) }
    }

    private static func call(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let arguments, let actual = sqlite3_value_text(arguments[0]), let wanted = sqlite3_value_text(arguments[1]) else {
            sqlite3_result_int(context, 0)
            return
        }
        let found = matches(String(cString: actual), String(cString: wanted), flags: sqlite3_value_int64(arguments[2]))
        sqlite3_result_int(context, found ? 1 : 0)
    }
}
