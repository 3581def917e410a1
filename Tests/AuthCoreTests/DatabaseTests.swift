import CSQLite
import Testing
@testable import AuthCore

@Suite struct DatabaseTests {
    /// SQLite counts every allocation under one global mutex unless told not to; both event loops
    /// allocate through it on every sign-in. With the statistics off, the library reports no memory in use.
    @Test func sqliteKeepsNoMemoryStatistics() throws {
        let database = try Database()
        try database.withConnection { c in
            try c.execute("CREATE TABLE t (v TEXT)")
            for i in 0..<100 { try c.run("INSERT INTO t VALUES (?)", [.text(String(repeating: "x", count: i))]) }
        }
        #expect(Connection.configured == SQLITE_OK)
        #expect(sqlite3_memory_used() == 0)
    }

    /// Text is bound as the string's own bytes with their length: an empty string is '' (never NULL), text after a
    /// NUL is kept, and non-ASCII and small strings (stored inline in the String) arrive whole.
    @Test func bindsTextByItsBytes() throws {
        let database = try Database()
        try database.withConnection { c in
            try c.execute("CREATE TABLE t (n INTEGER, v TEXT)")
            let texts = ["", "a", "short", "é😀 and more than fifteen bytes", "nul\u{0}after", String(repeating: "x", count: 5000)]
            for (n, text) in texts.enumerated() { try c.run("INSERT INTO t VALUES (?, ?)", [.int(Int64(n)), .text(text)]) }
            for (n, text) in texts.enumerated() {
                let row = try c.first("SELECT v, (v IS NULL) AS unset, length(CAST(v AS BLOB)) AS bytes FROM t WHERE n = ?", [.int(Int64(n))])
                #expect(row?.string("v") == text)
                #expect(row?.int("unset") == 0)
                #expect(row?.int("bytes") == text.utf8.count)
            }
        }
    }

    /// A cached statement run with fewer arguments than it takes has the rest NULL, not the last run's values.
    @Test func unboundParametersAreNull() throws {
        let database = try Database()
        let (both, one) = try database.withConnection { c in
            (try c.first("SELECT ? AS a, ? AS b", [.text("x"), .text("y")]), try c.first("SELECT ? AS a, ? AS b", [.text("x")]))
        }
        #expect(both?.string("b") == "y")
        #expect(one?.string("a") == "x")
        #expect(one?.string("b") == nil)
    }
}

@Suite struct StatementCacheTests {
    /// Statements are cached by SQL text; a text the code builds from varying parts would otherwise add
    /// one prepared statement per variant for the life of the connection.
    @Test func theCacheKeepsABoundedNumberOfStatements() throws {
        let database = try Database()
        try database.withConnection { c in
            for i in 0..<(Connection.statementCacheCapacity * 4) { _ = try c.first("SELECT \(i) AS n") }
            #expect(c.cachedStatementCount <= Connection.statementCacheCapacity)
        }
    }

    /// A statement evicted from a full cache is prepared again when it is next used, and the hot ones keep working.
    @Test func evictedStatementsArePreparedAgain() throws {
        let database = try Database()
        try database.withConnection { c in
            try c.execute("CREATE TABLE t (v INTEGER)")
            for i in 0..<(Connection.statementCacheCapacity * 2) {
                try c.run("INSERT INTO t VALUES (?)", [.int(Int64(i))])
                _ = try c.first("SELECT \(i) AS n")
            }
            #expect(try c.first("SELECT 0 AS n")?.int("n") == 0)
            #expect(try c.first("SELECT COUNT(*) AS n FROM t")?.int("n") == Connection.statementCacheCapacity * 2)
        }
    }
}
