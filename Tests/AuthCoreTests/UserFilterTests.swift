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
