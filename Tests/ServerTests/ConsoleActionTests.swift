import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Server
import Testing

/// The control API routes behind the console's actions: what a tester does to users, sessions, fault
/// rules and snapshots from the page.
@Suite struct ConsoleActionTests {
    let bob = "00000000-0000-4000-8000-000000000b0b"
    let alice = "00000000-0000-4000-8000-00000000a11c"

    @Test func aTesterVerifiesDisablesAndSetsThePasswordOfAUser() async throws {
        let harness = try Harness()
        try await harness.run { client async throws in
            let verified = try await client.send(.patch, "/_emu/v1/tenants/default/users/\(bob)", json: ["email_verified": true])
            #expect(verified.json["email_verified"] == true)
            #expect(verified.json["factors"] == [])
            let changed = try await client.send(.patch, "/_emu/v1/tenants/default/users/\(bob)", json: ["password": "brand-new-1"])
            #expect(changed.json["email_verified"] == true, "\(changed.text)")
            let signIn = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "bob@example.com", "password": "brand-new-1"],
                                         headers: .supabaseClient)
            #expect(signIn.status == .ok, "\(signIn.text)")
            _ = try await client.send(.patch, "/_emu/v1/tenants/default/users/\(bob)", json: ["disabled": true])
            let refused = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "bob@example.com", "password": "brand-new-1"],
                                                headers: .supabaseClient)
            #expect(refused.json["code"] == "user_banned")
            #expect(try await client.send(.patch, "/_emu/v1/tenants/default/users/\(bob)", json: ["color": "red"]).status == .badRequest)
            #expect(try await client.send(.patch, "/_emu/v1/tenants/default/users/\(bob)", json: ["password": ""]).status == .badRequest)
            #expect(try await client.send(.patch, "/_emu/v1/tenants/default/users/nobody", json: ["disabled": true]).status == .notFound)
        }
    }

    @Test func sessionsAreListedAcrossUsersAndRevokedOneUserOrAllAtOnce() async throws {
        let harness = try Harness()
        try await harness.run { client async throws in
            for email in ["alice@example.com", "carol@example.com", "alice@example.com"] {
                _ = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": .string(email), "password": "password123"])
            }
            let listed = try await client.send(.get, "/_emu/v1/tenants/default/sessions").json["sessions"]?.arrayValue ?? []
            #expect(listed.count == 3)
            #expect(Set(listed.compactMap { $0["user"]?["email"]?.stringValue }) == ["alice@example.com", "carol@example.com"])
            #expect(try await client.send(.delete, "/_emu/v1/tenants/default/users/\(alice)/sessions").json["revoked"] == 2)
            #expect(try await client.send(.delete, "/_emu/v1/tenants/default/sessions").json["revoked"] == 1)
            #expect(try await client.send(.get, "/_emu/v1/tenants/default/sessions").json["sessions"] == [])
        }
    }

    @Test func aFaultRuleIsToggledInPlaceAndTheStateDownloads() async throws {
        let harness = try Harness()
        try await harness.run { client async throws in
            _ = try await client.send(.post, "/_emu/v1/faults", json: ["id": "down", "match": ["dialect": "supabase"], "effect": ["type": "error", "error": "unavailable"]])
            #expect(try await client.send(.get, "/auth/v1/settings").status == .serviceUnavailable)
            #expect(try await client.send(.patch, "/_emu/v1/faults/down", json: ["enabled": false]).json["enabled"] == false)
            #expect(try await client.send(.get, "/auth/v1/settings").status == .ok)
            #expect(try await client.send(.patch, "/_emu/v1/faults/down", json: ["enabled": "yes"]).status == .badRequest)
            #expect(try await client.send(.patch, "/_emu/v1/faults/nope", json: ["enabled": true]).status == .notFound)
            let download = try await client.send(.get, "/_emu/v1/snapshots/download")
            #expect(download.status == .ok)
            #expect(download.headers[.contentType] == "application/vnd.sqlite3")
            #expect(download.text.hasPrefix("SQLite format 3"))
        }
    }
}
