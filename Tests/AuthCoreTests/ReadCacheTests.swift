import Testing
@testable import AuthCore

/// Answers kept until the store changes: once it has, none of them can be used again, and none is held.
@Suite struct ReadCacheTests {
    @Test func answersOfAnOlderGenerationGoWhenOneIsKeptAtANewer() throws {
        let database = try Database()
        let cache = ReadCache<String?>(.accounts)
        var reads = 0
        func read(_ key: String) throws -> String? {
            try cache.value(key, in: database) { _ in reads += 1; return key == "nobody" ? nil : key.uppercased() }
        }
        #expect(try read("ada") == "ADA")
        #expect(try read("bob") == "BOB")
        #expect(try read("nobody") == nil)
        #expect(try read("ada") == "ADA")
        #expect(try read("nobody") == nil)
        #expect(reads == 3, "kept answers, a kept 'nobody' included, are not read again")
        #expect(cache.count == 3)
        // A change to the tables the answers depend on (here every table, as a restore or a reset makes).
        database.contentsReplaced()
        #expect(try read("cy") == "CY")
        #expect(cache.count == 1, "the answers of the older generation are gone, not kept until the cache is full")
        #expect(try read("ada") == "ADA")
        #expect(reads == 5)
    }

    @Test func aFullCacheStartsOver() throws {
        let database = try Database()
        let cache = ReadCache<Int>(.accounts, capacity: 3)
        for key in 0..<7 { _ = try cache.value("\(key)", in: database) { _ in key } }
        #expect(cache.count == 1)
    }
}
