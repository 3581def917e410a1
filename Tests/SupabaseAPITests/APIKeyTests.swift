import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Server
import Testing

/// The opaque API keys `supabase start` prints (`sb_publishable_…`, `sb_secret_…`), as the gateway in front of GoTrue
/// maps them (the CLI's Kong `request-transformer`): supabase-js and supabase-py send the key as `apikey` and, with
/// no session, as `Authorization: Bearer <key>` too.
private let apikey = HTTPField.Name("apikey")!

@Suite struct APIKeyTests {
    static let secret = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"
    static let publishable = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH"

    static func keyed(_ key: String, bearer: String? = nil) -> HTTPFields {
        var fields = HTTPFields.supabaseClient
        fields[apikey] = key
        fields[.authorization] = "Bearer \(bearer ?? key)"
        return fields
    }

    @Test func theSecretKeyIsTheServiceRoleAndThePublishableKeyIsAnon() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let created = try await client.send(.post, "/auth/v1/admin/users", json: ["email": "made@example.com", "email_confirm": true],
                                                headers: Self.keyed(Self.secret))
            #expect(created.status == .ok && created.json["email"] == "made@example.com")
            // Only the apikey header matters once the Authorization is a key (or absent).
            #expect(try await client.send(.get, "/auth/v1/admin/users", headers: HTTPFields.supabaseClient + [apikey: Self.secret]).status == .ok)

            // The anon role is no admin, and no user: GoTrue's own answers for an anon JWT.
            let anonAdmin = try await client.send(.get, "/auth/v1/admin/users", headers: Self.keyed(Self.publishable))
            #expect(anonAdmin.status == .forbidden && anonAdmin.json["code"] == "not_admin")
            let anonUser = try await client.send(.get, "/auth/v1/user", headers: Self.keyed(Self.publishable))
            #expect(anonUser.status == .forbidden && anonUser.json["code"] == "bad_jwt")

            // A signed-in client sends its access token, which the gateway passes on untouched.
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"],
                                                headers: Self.keyed(Self.publishable))
            let token = session.json["access_token"]?.stringValue ?? ""
            let me = try await client.send(.get, "/auth/v1/user", headers: Self.keyed(Self.publishable, bearer: token))
            #expect(me.status == .ok && me.json["email"] == "done@example.com")
        }
    }

    @Test func aKeyTheProjectDoesNotHaveIsNoCredential() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            // The gateway passes the unknown key on as `Authorization` without a scheme: no Bearer token for GoTrue.
            let wrong = try await client.send(.get, "/auth/v1/admin/users", headers: Self.keyed("sb_secret_not-this-one"))
            #expect(wrong.status == .unauthorized && wrong.json["code"] == "no_authorization")
            let bare = try await client.send(.get, "/auth/v1/admin/users", headers: HTTPFields.supabaseClient + [.authorization: "Bearer \(Self.secret)"])
            #expect(bare.status == .unauthorized && bare.json["code"] == "no_authorization")
        }
    }

    @Test func aProjectCanHaveItsOwnKeysAndTheBannerShowsThem() async throws {
        var seed = project()
        seed.tenants[0].settings["secret_key"] = "sb_secret_own"
        seed.tenants[0].settings["publishable_key"] = "sb_publishable_own"
        let harness = try Harness(seed: seed)
        try await harness.run { client in
            #expect(try await client.send(.get, "/auth/v1/admin/users", headers: Self.keyed("sb_secret_own")).status == .ok)
            #expect(try await client.send(.get, "/auth/v1/admin/users", headers: Self.keyed(Self.secret)).status == .unauthorized)
            let hints = try await client.send(.get, "/_emu/v1/info").json["tenants"]?.arrayValue?.first { $0["id"] == "p" }?["hints"]
            #expect(hints?["SUPABASE_SECRET_KEY"] == "sb_secret_own" && hints?["SUPABASE_PUBLISHABLE_KEY"] == "sb_publishable_own")
        }
        let refused = #expect(throws: SeedError.self) {
            try Seed.parse(Data(#"{"tenants": [{"id": "p", "dialect": "supabase", "secret_key": "eyJ.not.opaque"}]}"#.utf8), file: "s.json")
        }
        #expect(refused?.path == "$.tenants[0].secret_key" && refused?.reason == "expected a key starting with sb_secret_")
    }

    @Test func theKeysRoleTokenExpiresWhenTheCLIsDoes() async throws {
        // The CLI mints its key JWTs with exp 1983812996 (2032-11-11); GoTrue checks it like any other.
        let harness = try Harness(seed: project()) { $0.clock = EmulatorClock(frozenAt: Date(timeIntervalSince1970: 1_983_812_997)) }
        try await harness.run { client in
            let late = try await client.send(.get, "/auth/v1/admin/users", headers: Self.keyed(Self.secret))
            #expect(late.status == .forbidden && late.json["code"] == "bad_jwt")
        }
    }
}
