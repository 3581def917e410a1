import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Server
import Testing

@Suite struct TenantAPITests {
    @Test func tenantsAndUsersCanBeManagedAcrossDialects() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await client.send(.post, "/_emu/v1/tenants", json: [
                "id": "second", "dialect": "supabase", "gotrue_env": ["GOTRUE_JWT_SECRET": "another-secret-at-least-32-characters"],
            ])
            #expect(created.status == .created)
            #expect(created.json["settings"]?["gotrue_env"]?["GOTRUE_JWT_SECRET"] != nil)
            #expect(try await client.send(.post, "/_emu/v1/tenants", json: ["id": "second", "dialect": "supabase"]).status == .conflict)
            #expect(try await client.send(.post, "/_emu/v1/tenants", json: ["id": "x", "dialect": "parse"]).status == .badRequest)

            let user = try await client.send(.post, "/_emu/v1/tenants/second/users", json: [
                "email": "u@example.com", "password": "secret123", "email_verified": true, "user_metadata": ["a": 1],
            ])
            #expect(user.status == .created)
            #expect(user.json["email_verified"] == true)
            let id = try #require(user.json["id"]?.stringValue)
            #expect(try await client.send(.post, "/_emu/v1/tenants/second/users", json: ["email": "U@example.com"]).status == .conflict)
            #expect(try await client.send(.get, "/_emu/v1/tenants/second/users?email=U@EXAMPLE.com").json["users"]?[0]?["id"] == .string(id))
            #expect(try await client.send(.get, "/_emu/v1/tenants/second/users?q=example").json["users"]?.arrayValue?.count == 1)
            #expect(try await client.send(.get, "/_emu/v1/tenants/second/users/\(id)").json["email"] == "u@example.com")
            #expect(try await client.send(.get, "/_emu/v1/tenants/second").json["user_count"] == 1)
            #expect(try await client.send(.delete, "/_emu/v1/tenants/second/users/\(id)").status == .noContent)
            #expect(try await client.send(.get, "/_emu/v1/tenants/second/users/\(id)").status == .notFound)
            #expect(try await client.send(.get, "/_emu/v1/tenants").json["tenants"]?.arrayValue?.map { $0["id"] } == ["default", "demo-fauxth", "us-east-1_fauxth001", "second"])
            #expect(try await client.send(.delete, "/_emu/v1/tenants/second").status == .noContent)
            #expect(try await client.send(.get, "/_emu/v1/tenants/second").status == .notFound)
            #expect(try await client.send(.get, "/_emu/v1/tenants/nope/users").json["error"]?["code"] == "tenant_not_found")
        }
    }

    /// A tenant's settings are checked as the seed's are at start-up: before, the control API made a project whose
    /// `gotrue_env` GoTrue would refuse, and every request to it answered 500.
    /// A Firebase tenant's id has a colon, which clients encode in a path (`encodeURIComponent` makes it `%3A`): the
    /// control API finds the tenant and its users either way.
    @Test func aTenantIdEncodedInThePathIsFound() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let signedUp = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake-api-key",
                                                 json: ["tenantId": "tenant-a", "returnSecureToken": true])
            let uid = try #require(signedUp.json["localId"]?.stringValue)
            for tenant in ["demo-fauxth:tenant-a", "demo-fauxth%3Atenant-a", "demo-fauxth%3atenant-a"] {
                #expect(try await client.send(.get, "/_emu/v1/tenants/\(tenant)").json["id"] == "demo-fauxth:tenant-a")
                #expect(try await client.send(.get, "/_emu/v1/tenants/\(tenant)/users/\(uid)").json["id"] == .string(uid))
            }
            #expect(try await client.send(.get, "/_emu/v1/tenants/demo-fauxth%3Atenant-b").status == .notFound)
        }
    }

    @Test func aTenantTheVendorWouldRefuseIsNotMade() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let refused = try await client.send(.post, "/_emu/v1/tenants", json: [
                "id": "bad", "dialect": "supabase", "gotrue_env": ["GOTRUE_SMTP_MAX_FREQUENCY": "60"],
            ])
            #expect(refused.status == .badRequest)
            let message = try #require(refused.json["error"]?["message"]?.stringValue)
            #expect(message.contains("GOTRUE_SMTP_MAX_FREQUENCY") && message.contains("missing unit"))
            #expect(try await client.send(.get, "/_emu/v1/tenants/bad").status == .notFound)
            let pool = try await client.send(.post, "/_emu/v1/tenants", json: ["id": "pool-1", "dialect": "cognito"])
            #expect(pool.status == .badRequest)
            #expect(pool.json["error"]?["message"]?.stringValue?.contains("us-east-1_AbCdEf123") == true)
        }
    }

    /// Without an id, a Cognito tenant gets a pool id in Cognito's form, which amazon-cognito-identity-js's
    /// `CognitoUserPool` insists on (`/^[\w-]+_[0-9a-zA-Z]+$/`); other dialects get `t-` and twelve hex digits.
    @Test func aTenantWithoutAnIdGetsOneInItsVendorsForm() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let pool = try #require(try await client.send(.post, "/_emu/v1/tenants", json: ["dialect": "cognito"]).json["id"]?.stringValue)
            #expect(pool.wholeMatch(of: #/us-east-1_[0-9A-Za-z]{9}/#) != nil)
            let project = try #require(try await client.send(.post, "/_emu/v1/tenants", json: ["dialect": "supabase"]).json["id"]?.stringValue)
            #expect(project.wholeMatch(of: #/t-[0-9a-f]{12}/#) != nil)
        }
    }

    @Test func usersAreListedAcrossTenantsEachWithItsOwnIdentities() async throws {
        let harness = try Harness()
        try await harness.run { client in
            // The seed has an alice in every tenant: one listing finds each, with that tenant's identities.
            let all = try await client.send(.get, "/_emu/v1/users?q=alice@example.com")
            #expect(all.status == .ok)
            let alices = try #require(all.json["users"]?.arrayValue)
            #expect(Set(alices.compactMap { $0["tenant"]?.stringValue }) == ["default", "demo-fauxth", "us-east-1_fauxth001"])
            #expect(all.json["total"] == 3)
            for alice in alices {
                let tenant = try #require(alice["tenant"]?.stringValue), id = try #require(alice["id"]?.stringValue)
                let own = try await client.send(.get, "/_emu/v1/tenants/\(tenant)/users/\(id)")
                #expect(alice["identities"] == own.json["identities"], "identities of \(tenant)'s alice")
                #expect(alice["identities"]?.arrayValue?.isEmpty == false)
            }
            let everyone = try await client.send(.get, "/_emu/v1/users?limit=2")
            #expect(everyone.json["users"]?.arrayValue?.count == 2)
            #expect((everyone.json["total"]?.intValue ?? 0) > 3)
            let one = try await client.send(.get, "/_emu/v1/users?tenant=demo-fauxth&q=alice")
            #expect(one.json["users"]?.arrayValue?.map { $0["tenant"] } == ["demo-fauxth"])
            #expect(try await client.send(.get, "/_emu/v1/users?tenant=nope").json["error"]?["code"] == "tenant_not_found")
            #expect(try await client.send(.get, "/_emu/v1/users?limit=0").status == .badRequest)
        }
    }

    @Test func phoneSearchFindsTheSeededUser() async throws {
        let harness = try Harness()
        let reply = try await harness.run { try await $0.send(.get, "/_emu/v1/tenants/default/users?phone=%2B15555550100") }
        #expect(reply.json["users"]?[0]?["email"] == "carol@example.com")
    }
}

@Suite struct SnapshotAPITests {
    @Test func namedSnapshotsRestoreAndResetReturnsToTheSeed() async throws {
        let harness = try Harness()
        try await harness.run { client in
            #expect(try await client.send(.post, "/_emu/v1/snapshots", json: ["name": "before"]).status == .created)
            try await client.send(.post, "/auth/v1/signup", json: ["email": "temp@example.com", "password": "secret123"])
            #expect(try await client.send(.get, "/_emu/v1/tenants/default").json["user_count"] == 4)
            #expect(try await client.send(.post, "/_emu/v1/snapshots/before/restore").status == .ok)
            #expect(try await client.send(.get, "/_emu/v1/tenants/default").json["user_count"] == 3)
            #expect(try await client.send(.get, "/_emu/v1/snapshots").json["snapshots"] == [["name": "before"]])
            #expect(try await client.send(.post, "/_emu/v1/snapshots/missing/restore").status == .notFound)
            #expect(try await client.send(.post, "/_emu/v1/snapshots", json: [:]).status == .badRequest)

            try await client.send(.post, "/_emu/v1/tenants/default/users", json: ["email": "x@example.com"])
            #expect(try await client.send(.post, "/_emu/v1/reset?tenant=default").status == .ok)
            #expect(try await client.send(.get, "/_emu/v1/tenants/default").json["user_count"] == 3)
            #expect(try await client.send(.post, "/_emu/v1/reset?tenant=ghost").status == .notFound)
            #expect(try await client.send(.post, "/_emu/v1/reset").json["status"] == "reset")
        }
    }

    /// Fault rules go into a snapshot, named or saved to a file, unless the request says `"faults": false`. The
    /// control API read the flag as false when absent, which left them out by default.
    @Test func faultRulesGoIntoASnapshotUnlessLeftOut() async throws {
        let harness = try Harness()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-faults-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await harness.run { client in
            func rules() async throws -> [String] {
                try await client.send(.get, "/_emu/v1/faults").json["rules"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            }
            _ = try await client.send(.post, "/_emu/v1/faults", json: ["id": "down", "match": ["dialect": "supabase"], "effect": ["type": "error", "error": "unavailable"]])
            #expect(try await client.send(.post, "/_emu/v1/snapshots", json: ["name": "with"]).status == .created)
            #expect(try await client.send(.post, "/_emu/v1/snapshots/save", json: ["path": .string(path)]).status == .ok)
            #expect(try await client.send(.delete, "/_emu/v1/faults").status == .noContent)
            #expect(try await client.send(.post, "/_emu/v1/snapshots", json: ["name": "without", "faults": false]).status == .created)
            #expect(try await client.send(.post, "/_emu/v1/snapshots/with/restore").status == .ok)
            #expect(try await rules() == ["down"])
            try await client.send(.delete, "/_emu/v1/faults")
            #expect(try await client.send(.post, "/_emu/v1/snapshots/load", json: ["path": .string(path)]).status == .ok)
            #expect(try await rules() == ["down"])
            #expect(try await client.send(.post, "/_emu/v1/snapshots/without/restore").status == .ok)
            #expect(try await rules() == ["down"])
        }
    }

    @Test func snapshotFilesSaveAndLoadThroughTheAPI() async throws {
        let harness = try Harness()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-api-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await harness.run { client in
            try await client.send(.post, "/_emu/v1/tenants/default/users", json: ["email": "kept@example.com"])
            #expect(try await client.send(.post, "/_emu/v1/snapshots/save", json: ["path": .string(path)]).status == .ok)
            try await client.send(.post, "/_emu/v1/reset")
            #expect(try await client.send(.get, "/_emu/v1/tenants/default/users?email=kept@example.com").json["users"] == [])
            #expect(try await client.send(.post, "/_emu/v1/snapshots/load", json: ["path": .string(path)]).status == .ok)
            #expect(try await client.send(.get, "/_emu/v1/tenants/default/users?email=kept@example.com").json["users"]?.arrayValue?.count == 1)
            let missing = try await client.send(.post, "/_emu/v1/snapshots/load", json: ["path": "/nonexistent/nope.sqlite"])
            #expect(missing.status == .notFound)
            #expect(missing.json["error"]?["code"] == "snapshot_not_found")
        }
    }

    /// A snapshot written by an older Fauxth may hold a project GoTrue would refuse (a duration without a unit, which
    /// Fauxth once read as seconds). Loaded at run time it would answer 500 at every request to that project; it is
    /// refused whole instead, naming the tenant and the setting, and the state stays as it was.
    @Test func aSnapshotWithATenantItsVendorRefusesIsNotLoaded() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-refused-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let older = try Harness()
        // The core alone makes it, as the control API did before it checked a tenant's settings.
        try older.emulator.createTenant(id: "unitless", dialect: .supabase, settings: ["gotrue_env": ["GOTRUE_SMTP_MAX_FREQUENCY": "60"]])
        try older.emulator.saveSnapshot(to: path)
        let harness = try Harness()
        try await harness.run { client in
            try await client.send(.post, "/_emu/v1/tenants/default/users", json: ["email": "kept@example.com"])
            let refused = try await client.send(.post, "/_emu/v1/snapshots/load", json: ["path": .string(path)])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json["error"]?["code"] == "snapshot_invalid")
            let message = try #require(refused.json["error"]?["message"]?.stringValue)
            #expect(message.contains("unitless") && message.contains("GOTRUE_SMTP_MAX_FREQUENCY"))
            #expect(try await client.send(.get, "/_emu/v1/tenants/unitless").status == .notFound)
            #expect(try await client.send(.get, "/_emu/v1/tenants/default/users?email=kept@example.com").json["users"]?.arrayValue?.count == 1)
        }
    }

    @Test func aSnapshotGivenAtStartIsLoaded() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-start-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try Harness()
        try first.emulator.createUser(in: "default", NewUser(email: "persisted@example.com"))
        try first.emulator.saveSnapshot(to: path)
        let second = try Harness { $0.snapshotPath = path }
        #expect(try second.emulator.user(in: "default", .email("persisted@example.com")) != nil)
    }
}
