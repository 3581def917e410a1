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
