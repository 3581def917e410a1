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
