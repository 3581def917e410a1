import Foundation
import Testing
@testable import AuthCore

/// `usersByID(in:after:limit:matching:)` filters in SQLite with the answers Swift's own comparison gives:
/// a walk through every page finds exactly the users, in the order, that filtering all of them in Swift
/// finds, on a tenant of 20,000 users and a few with text SQLite would compare otherwise.
@Suite struct UserFilterTests {
    static let count = 20_000

    /// 20,000 users written straight into the store (the public path hashes a password for each), and the
    /// odd ones: a Kelvin sign, a decomposed é, LIKE's wildcards, metadata that is malformed, not an object,
    /// or not a string.
    static func populated() throws -> Emulator {
        let emulator = try makeEmulator()
        let insert = """
            INSERT INTO users (tenant, id, email, phone, username, disabled, user_metadata, app_metadata, created_at, updated_at)
            VALUES ('other', ?, ?, ?, ?, ?, ?, ?, 0, 0)
            """
        try emulator.db.transaction { c in
            for i in 0..<count {
                let metadata: JSON = ["name": .string("Name \(i)"), "given_name": .string(i % 7 == 0 ? "Zoë" : "Ann")]
                let app: JSON = i % 5 == 0 ? ["cognito:user_status": "UNCONFIRMED"] : [:]
                try c.run(insert, [.text(String(format: "%08x-user", i * 7919 % count)), .text("User\(i)@Example.com"),
                                   i % 3 == 0 ? .text("+1555\(String(format: "%07d", i))") : .null, i % 2 == 0 ? .text("name\(i)") : .null,
                                   .int(i % 11 == 0 ? 1 : 0), SQLValue(metadata), SQLValue(app)])
            }
            let odd: [(String, String?, String)] = [
                ("odd-kelvin", "\u{212A}elvin", #"{"name":"\u212Aelvin"}"#), ("odd-e-acute", "e\u{301}clair", #"{"name":"e\u0301clair"}"#),
                ("odd-percent", "100%_sure", #"{"name":"100%_sure"}"#), ("odd-malformed", nil, "{not json"),
                ("odd-array", nil, #"["name"]"#), ("odd-number", nil, #"{"name":42}"#),
            ]
            for (id, username, metadata) in odd {
                try c.run(insert, [.text(id), .null, .null, SQLValue(username), .int(0), .text(metadata), .text("{\"cognito:user_status\":7}")])
            }
        }
        return emulator
    }

    /// The filters to check, and how Swift answers each one for a user.
    static let cases: [(UserFilter, @Sendable (User) -> String?)] = [
        (UserFilter(.email, value: "USER123@example.COM", ignoringCase: true), { $0.email }),
        (UserFilter(.email, value: "user1", prefix: true, ignoringCase: true), { $0.email }),
        (UserFilter(.usernameOrID, value: "name1", prefix: true), { $0.username ?? $0.id }),
        (UserFilter(.usernameOrID, value: "NAME12", prefix: true, ignoringCase: true), { $0.username ?? $0.id }),
        (UserFilter(.usernameOrID, value: "kelvin", ignoringCase: true), { $0.username ?? $0.id }),
        (UserFilter(.usernameOrID, value: "Kelvin"), { $0.username ?? $0.id }),
        (UserFilter(.usernameOrID, value: "\u{E9}clair"), { $0.username ?? $0.id }),
        (UserFilter(.usernameOrID, value: "e", prefix: true), { $0.username ?? $0.id }),
        (UserFilter(.usernameOrID, value: "100%_", prefix: true), { $0.username ?? $0.id }),
        (UserFilter(.usernameOrID, value: "1%", prefix: true), { $0.username ?? $0.id }),
        (UserFilter(.phone, value: "+15550000", prefix: true), { $0.phone }),
        (UserFilter(.id, value: "00000a1f-user"), { $0.id }),
        (UserFilter(.disabledFlag(disabled: "Disabled", enabled: "Enabled"), value: "disabled", ignoringCase: true),
         { $0.disabled ? "Disabled" : "Enabled" }),
        (UserFilter(.appMetadata("cognito:user_status", otherwise: "CONFIRMED"), value: "confirmed", ignoringCase: true),
         { $0.appMetadata["cognito:user_status"]?.stringValue ?? "CONFIRMED" }),
        (UserFilter(.appMetadata("cognito:user_status", otherwise: "CONFIRMED"), value: "UNCONFIRMED"),
         { $0.appMetadata["cognito:user_status"]?.stringValue ?? "CONFIRMED" }),
        (UserFilter(.userMetadata("name"), value: "Name 19", prefix: true), { $0.userMetadata["name"]?.stringValue }),
        (UserFilter(.userMetadata("name"), value: "\u{212A}", prefix: true), { $0.userMetadata["name"]?.stringValue }),
        (UserFilter(.userMetadata("given_name"), value: "Zoe\u{308}"), { $0.userMetadata["given_name"]?.stringValue }),
        (UserFilter(.userMetadata("family_name"), value: ""), { $0.userMetadata["family_name"]?.stringValue }),
    ]

    @Test func everyPageOfAFilteredWalkIsWhatSwiftFinds() throws {
        let emulator = try Self.populated()
        let everyone = try emulator.usersByID(in: "other", limit: Int.max)
        #expect(everyone.count == Self.count + 6)
        for (filter, field) in Self.cases {
            let expected = everyone.filter { user in field(user).map { Self.swiftMatches($0, filter) } ?? false }.map(\.id)
            #expect(try Self.walk(emulator, filter) == expected, "\(filter)")
        }
    }

    /// Users come with their identities, as the unfiltered list gives them.
    @Test func filteredUsersCarryTheirIdentities() throws {
        let emulator = try makeEmulator()
        let found = try emulator.usersByID(in: "proj", limit: 10, matching: UserFilter(.email, value: "ALICE@example.com", ignoringCase: true))
        #expect(found.map(\.id) == ["u-alice"])
        #expect(found.first?.identities == (try emulator.requireUser(in: "proj", id: "u-alice")).identities)
        #expect(found.first?.identities.isEmpty == false)
    }

    /// A member of a list in `app_metadata` (Cognito's groups): any string in the array, exactly; a member that is
    /// a string, not an array, a malformed document, or a non-string item does not count.
    @Test func aListMemberOfAppMetadataMatchesAnyOfItsStrings() throws {
        let emulator = try makeEmulator()
        let rows: [(String, String)] = [
            ("g-both", #"{"cognito:groups":["crew","admins"]}"#), ("g-crew", #"{"cognito:groups":["crew"]}"#),
            ("g-case", #"{"cognito:groups":["Crew"]}"#), ("g-string", #"{"cognito:groups":"crew"}"#),
            ("g-number", #"{"cognito:groups":[7,"x"]}"#), ("g-malformed", "{not json"), ("g-none", "{}"), ("g-array", #"["crew"]"#),
        ]
        try emulator.db.transaction { c in
            for (id, app) in rows {
                try c.run("INSERT INTO users (tenant, id, app_metadata, created_at, updated_at) VALUES ('other', ?, ?, 0, 0)", [.text(id), .text(app)])
            }
        }
        func members(_ value: String, ignoringCase: Bool = false) throws -> [String] {
            try emulator.usersByID(in: "other", limit: 100, matching: UserFilter(.appMetadataList("cognito:groups"), value: value,
                                                                                  ignoringCase: ignoringCase)).map(\.id)
        }
        #expect(try members("crew") == ["g-both", "g-crew"])
        #expect(try members("admins") == ["g-both"])
        #expect(try members("crew", ignoringCase: true) == ["g-both", "g-case", "g-crew"])
        #expect(try members("7").isEmpty)
        #expect(try members("x") == ["g-number"])
    }

    /// GoTrue's admin `filter`: the email as Postgres' LIKE reads it (case kept, `%` and `_` wildcards, `\` escaping) or
    /// the metadata's `full_name` in any case; never the phone or username, as the console's search also reads.
    @Test func goTrueFiltersAsFindUsersInAudience() throws {
        let emulator = try makeEmulator()
        try emulator.createUser(in: "other", NewUser(email: "Ada@Fauxth.test", userMetadata: ["full_name": "Ada Lovelace"]))
        try emulator.createUser(in: "other", NewUser(email: "grace@fauxth.test", userMetadata: ["full_name": "Grace Hopper"]))
        try emulator.createUser(in: "other", NewUser(email: "x_y*@fauxth.test"))
        try emulator.createUser(in: "other", NewUser(phone: "+15550001111", userMetadata: ["full_name": 42]))
        func found(_ search: UserSearch) throws -> [String] {
            try emulator.users(in: "other", search: search).map { $0.email ?? $0.phone ?? "" }.sorted()
        }
        #expect(try found(.goTrueFilter("fauxth")) == ["grace@fauxth.test", "x_y*@fauxth.test"])
        #expect(try found(.goTrueFilter("LOVELACE")) == ["Ada@Fauxth.test"])
        #expect(try found(.goTrueFilter("gr_ce")) == ["grace@fauxth.test"])
        #expect(try found(.goTrueFilter(#"x\_y"#)) == ["x_y*@fauxth.test"])
        #expect(try found(.goTrueFilter(#"r\_c"#)).isEmpty)
        #expect(try found(.goTrueFilter("y*@")) == ["x_y*@fauxth.test"])
        #expect(try found(.goTrueFilter("a*e")).isEmpty, "GLOB's star is a character here")
        #expect(try found(.goTrueFilter("4")) == ["+15550001111"], "a full name that is a number is its text")
        #expect(try found(.goTrueFilter("555")).isEmpty)
        #expect(try found(.names("555")) == ["+15550001111"])
        #expect(try found(.names("ada@fauxth")) == ["Ada@Fauxth.test"])
        #expect(try emulator.userCount(in: "other", search: .goTrueFilter("%")) == 4)
    }

    /// The admin lists: a search and its count agree, in both orders, at any offset, and every user of a page comes
    /// with its identities (read for the page in one query); with each user's factors and last session beside it.
    @Test func listsCountAndPageInTheStore() throws {
        let emulator = try makeEmulator()
        for i in 0..<12 {
            emulator.clock.advance(by: 1)
            try emulator.createUser(in: "proj", NewUser(email: "list\(i)@example.com", password: "pw"))
        }
        let all = try emulator.users(in: "proj", limit: 1_000)
        #expect(try emulator.userCount(in: "proj", search: nil) == all.count)
        #expect(try emulator.userCount(in: "proj", search: .names("list1")) == 3) // list1, list10, list11
        let oldest = try emulator.users(in: "proj", search: .names("list"), limit: 5, offset: 2)
        #expect(oldest.map(\.email) == (2..<7).map { "list\($0)@example.com" })
        let newest = try emulator.users(in: "proj", search: .names("list"), limit: 3, newestFirst: true)
        #expect(newest.map(\.email) == ["list11@example.com", "list10@example.com", "list9@example.com"])
        for user in oldest + newest {
            #expect(user.identities == (try emulator.requireUser(in: "proj", id: user.id)).identities)
            #expect(!user.identities.isEmpty)
        }
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        _ = try emulator.startSession(for: alice, method: "password") { $0.lowerAlphanumeric(12) }
        let activity = try emulator.activity(in: "proj", of: [alice] + oldest)
        #expect(activity["u-alice"]?.lastRefreshAt == emulator.clock.now)
        #expect(activity[oldest[0].id] == AccountActivity(factors: [], lastRefreshAt: nil))
    }

    /// Each query finds its users through the index meant for it: a sign-in's lookup by address through the
    /// address's index (not a walk of the tenant in creation order), the admin lists along creation order.
    @Test func lookupsAndListsUseTheirIndexes() throws {
        let emulator = try makeEmulator()
        func plan(_ selection: Accounts.Selection, _ order: Accounts.Order) throws -> String {
            let (sql, arguments) = Accounts.listing(selection, order, limit: 1)
            return try emulator.db.withConnection { c in
                try c.query("EXPLAIN QUERY PLAN \(sql)", arguments).compactMap { $0.string("detail") }.joined(separator: "; ")
            }
        }
        #expect(try plan(Accounts.having(.email("a@example.com"), in: "proj"), .oldestFound).contains("INDEX users_email (tenant=? AND email=?)"))
        #expect(try plan(Accounts.having(.phone("+15550001"), in: "proj"), .oldestFound).contains("INDEX users_phone (tenant=? AND phone=?)"))
        #expect(try plan(Accounts.having(.username("ann"), in: "proj"), .oldestFound).contains("INDEX users_username"))
        #expect(try plan(Accounts.Selection(tenant: "proj").and("users.id = ?", [.text("u")]), .oldestFound).contains("(tenant=? AND id=?)"))
        for order in [Accounts.Order.oldestFirst, .newestFirst] {
            let listed = try plan(Accounts.Selection(tenant: "proj"), order)
            #expect(listed.contains("INDEX users_created") && !listed.contains("TEMP B-TREE"), "\(listed)")
        }
    }

    /// Every page of `filter`, 60 at a time as Cognito pages, joined.
    static func walk(_ emulator: Emulator, _ filter: UserFilter) throws -> [String] {
        var ids: [String] = []
        var after: String?
        while true {
            let page = try emulator.usersByID(in: "other", after: after, limit: 60, matching: filter)
            ids += page.map(\.id)
            guard page.count == 60 else { return ids }
            after = page.last?.id
        }
    }

    /// The comparison the Cognito dialect made in Swift before the store filtered.
    static func swiftMatches(_ actual: String, _ filter: UserFilter) -> Bool {
        let actual = filter.ignoringCase ? actual.lowercased() : actual
        let wanted = filter.ignoringCase ? filter.value.lowercased() : filter.value
        return filter.prefix ? actual.hasPrefix(wanted) : actual == wanted
    }
}
