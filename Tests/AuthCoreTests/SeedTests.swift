import Foundation
import Testing
@testable import AuthCore

@Suite struct SeedTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theDefaultSeedLoads() throws {
        let seed = try Seed.load(path: Self.repository.appendingPathComponent("seed/default.json").path)
        let tenant = try #require(seed.tenants.first)
        #expect(tenant.dialect == .supabase)
        #expect(tenant.users.contains { $0.emailVerified })
        #expect(tenant.users.contains { !$0.emailVerified })
        #expect(tenant.users.contains { $0.phone != nil })
        let emulator = try makeEmulator(seed: seed)
        #expect(try emulator.userCount(in: tenant.id) == tenant.users.count)
    }

    @Test(arguments: [
        (#"{"tenants": [{"id": "a", "dialect": "parse"}]}"#, "$.tenants[0].dialect", "must be one of supabase, firebase, cognito"),
        (#"{"tenants": [{"dialect": "supabase"}]}"#, "$.tenants[0].id", "is required"),
        (#"{"tenants": [{"id": "a", "dialect": "supabase", "users": [{"email": 3}]}]}"#, "$.tenants[0].users[0].email", "expected a string, got a number"),
        (#"{"tenants": [{"id": "a", "dialect": "supabase", "users": [{"password": "x"}]}]}"#, "$.tenants[0].users[0]", "a user needs an email, phone or username"),
        (#"{"tenants": [{"id": "a", "dialect": "supabase", "gotrue_env": {"GOTRUE_JWT_EXP": 3600}}]}"#, "$.tenants[0].gotrue_env.GOTRUE_JWT_EXP", "expected a string, got a number"),
        (#"{"tenants": [{"id": "a", "dialect": "supabase"}, {"id": "a", "dialect": "supabase"}]}"#, "$.tenants[1].id", "duplicate tenant id a"),
        (#"{"tenant": []}"#, "$.tenant", "unknown key (expected tenants or identity_providers)"),
        (#"{"identity_providers": [{"id": "Google"}]}"#, "$.identity_providers[0].id", "must be 1-64 lowercase letters, digits, '_' or '-'"),
        (#"{"identity_providers": [{"id": "corp", "kind": "saml"}]}"#, "$.identity_providers[0].kind", "must be google, apple or oidc"),
        (#"{"identity_providers": [{"id": "corp", "accounts": [{"sub": ""}]}]}"#, "$.identity_providers[0].accounts[0].sub", "expected a non-empty string"),
        (#"{"tenants": [{"id": "a", "dialect": "supabase", "users": [{"email": "x@y.z", "verified": true}]}]}"#, "$.tenants[0].users[0].verified",
         "unknown key (expected one of app_metadata, disabled, email, email_verified, id, password, password_hash, phone, phone_verified, user_metadata, username)"),
        (#"{"tenants": [{"id": "a", "dialect": "supabase", "users": [{"email": "x@y.z", "password_hash": "md5:abc"}]}]}"#,
         "$.tenants[0].users[0].password_hash", "not a bcrypt hash ($2a$, $2b$ or $2y$)"),
        (#"{"tenants": [{"id": "a", "dialect": "supabase", "users": [{"email": "x@y.z", "password": "x", "password_hash": "$2b$04$/38xmF/uz8yh1QOoIh5j1ONZI6kjmNCbT5ke/0Tv.6t43oNI.kVS."}]}]}"#,
         "$.tenants[0].users[0].password_hash", "give password or password_hash, not both"),
    ])
    func invalidSeedsNameTheJSONPathAndTheReason(_ json: String, _ path: String, _ reason: String) {
        #expect(throws: SeedError(file: "test.json", path: path, reason: reason)) { try Seed.parse(Data(json.utf8), file: "test.json") }
    }

    @Test func seededBcryptHashesCheckTheirPassword() throws {
        let seed = try Seed.parse(Data(#"{"tenants": [{"id": "a", "dialect": "supabase", "users": [{"email": "x@y.z", "password_hash": "$2b$04$/38xmF/uz8yh1QOoIh5j1ONZI6kjmNCbT5ke/0Tv.6t43oNI.kVS."}]}]}"#.utf8), file: "t")
        let emulator = try makeEmulator(seed: seed)
        let user = try #require(try emulator.user(in: "a", .email("x@y.z")))
        #expect(try emulator.checkPassword("password123", in: "a", userId: user.id))
        #expect(try !emulator.checkPassword("password12", in: "a", userId: user.id))
    }

    @Test func malformedJSONIsReportedAtTheRoot() {
        #expect { try Seed.parse(Data("{nope".utf8), file: "bad.json") } throws: { error in
            (error as? SeedError)?.path == "$" && (error as? SeedError)?.reason.hasPrefix("not valid JSON") == true
        }
    }

    @Test func laterSeedsReplaceTenantsWithTheSameId() throws {
        let a = try Seed.parse(Data(#"{"tenants":[{"id":"x","dialect":"supabase","name":"A"},{"id":"y","dialect":"supabase"}]}"#.utf8), file: "a")
        let b = try Seed.parse(Data(#"{"tenants":[{"id":"x","dialect":"supabase","name":"B"}]}"#.utf8), file: "b")
        let merged = a.merged(with: b)
        #expect(merged.tenants.map(\.id) == ["x", "y"])
        #expect(merged.tenants.first?.name == "B")
    }
}
