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
        (#"{"tenant": []}"#, "$.tenant", "unknown key (did you mean tenants?) (expected tenants or identity_providers)"),
        (#"{"identity_providers": [{"id": "Google"}]}"#, "$.identity_providers[0].id", "must be 1-64 lowercase letters, digits, '_' or '-'"),
        (#"{"identity_providers": [{"id": "corp", "kind": "ldap"}]}"#, "$.identity_providers[0].kind", "must be google, apple, oidc or saml"),
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
        let merged = try a.merged(with: b)
        #expect(merged.tenants.map(\.id) == ["x", "y"])
        #expect(merged.tenants.first?.name == "B")
    }

    private func refusal(_ json: String) -> SeedError? {
        do { _ = try Seed.parse(Data(json.utf8), file: "s.json"); return nil } catch { return error as? SeedError }
    }

    @Test func unknownKeysAreRefusedWithTheirPathAndTheNearestKnownKey() {
        let typo = refusal(#"{"tenants": [{"id": "p", "dialect": "supabase", "gotrue_evn": {}}]}"#)
        #expect(typo?.path == "$.tenants[0].gotrue_evn")
        #expect(typo?.reason == "unknown key for a supabase tenant (did you mean gotrue_env?)")
        let elsewhere = refusal(#"{"tenants": [{"id": "p", "dialect": "supabase", "api_keys": ["k"]}]}"#)
        #expect(elsewhere?.reason == "applies to firebase tenants, not supabase ones")
        #expect(refusal(#"{"tenant": []}"#)?.reason.hasPrefix("unknown key (did you mean tenants?)") == true)
        let user = refusal(#"{"tenants": [{"id": "p", "dialect": "supabase", "users": [{"email": "a@b.c", "pasword": "x"}]}]}"#)
        #expect(user?.path == "$.tenants[0].users[0].pasword" && user?.reason.hasPrefix("unknown key (did you mean password?)") == true)
    }

    @Test func aTenantThatExtendsAnEarlierOneChangesOnlyWhatItSays() throws {
        let base = try Seed.parse(Data(#"""
            {"tenants": [{"id": "default", "dialect": "supabase", "name": "Base",
              "gotrue_env": {"GOTRUE_JWT_SECRET": "s", "GOTRUE_EXTERNAL_PHONE_ENABLED": "false"},
              "users": [{"email": "alice@example.com", "password": "one"}, {"email": "bob@example.com"}]}]}
            """#.utf8), file: "base")
        let change = try Seed.parse(Data(#"""
            {"tenants": [{"id": "default", "dialect": "supabase", "extends": "default",
              "gotrue_env": {"GOTRUE_EXTERNAL_PHONE_ENABLED": "true"}, "users": [{"email": "ALICE@example.com", "password": "two"}]},
             {"id": "copy", "dialect": "supabase", "extends": "default"}]}
            """#.utf8), file: "change")
        let merged = try base.merged(with: change)
        #expect(merged.tenants.map(\.id) == ["default", "copy"])
        let tenant = merged.tenants[0]
        #expect(tenant.name == "Base")
        #expect(tenant.settings["gotrue_env"] == ["GOTRUE_JWT_SECRET": "s", "GOTRUE_EXTERNAL_PHONE_ENABLED": "true"])
        #expect(tenant.users.map(\.email) == ["bob@example.com", "ALICE@example.com"] && tenant.users[1].password == "two")
        // The copy extends the changed tenant: seeds apply in order.
        #expect(merged.tenants[1].settings["gotrue_env"]?["GOTRUE_EXTERNAL_PHONE_ENABLED"] == "true")
    }

    @Test func extendingAMissingTenantOrAnotherDialectIsRefused() throws {
        let base = try Seed.parse(Data(#"{"tenants": [{"id": "default", "dialect": "supabase"}]}"#.utf8), file: "base")
        let missing = try Seed.parse(Data(#"{"tenants": [{"id": "x", "dialect": "supabase", "extends": "defualt"}]}"#.utf8), file: "m.json")
        #expect(throws: SeedError(file: "m.json", path: "$.tenants[0].extends", reason: "no earlier seed has a tenant defualt to extend (did you mean default?)")) {
            try base.merged(with: missing)
        }
        let other = try Seed.parse(Data(#"{"tenants": [{"id": "x", "dialect": "cognito", "extends": "default"}]}"#.utf8), file: "o.json")
        #expect(throws: SeedError(file: "o.json", path: "$.tenants[0].dialect", reason: "default is a supabase tenant, not cognito")) {
            try base.merged(with: other)
        }
    }

    /// The keys the reader knows are the ones `seed/schema.json` documents, so neither drifts from the other.
    @Test func theKnownTenantKeysAreTheSchemasProperties() throws {
        let schemaPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("seed/schema.json")
        let schema = try JSON.parse(try Data(contentsOf: schemaPath))
        let documented = Set(schema["$defs"]?["tenant"]?["properties"]?.objectValue?.keys.map { $0 } ?? [])
        let known = SeedReaderKeys.all
        #expect(documented == known)
    }
}
