import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Server
import Testing

/// What `/_emu/v1/info` and the start-up banner tell a developer to set for each Firebase project: an
/// API key only when that key reaches the project (client calls find their project by key alone).
@Suite struct ConnectionHintsTests {
    /// The built-in seed (`demo-fauxth`, key `fake-api-key`), plus `keyless` with no key of its own and
    /// `shop` (key `shop-key`) with its Identity Platform tenant `eu`.
    static func seed() throws -> Seed {
        var seed = try SeedLoader.builtIn()
        seed.tenants += [
            Seed.TenantSeed(id: "keyless", dialect: .firebase, name: "Key-less"),
            Seed.TenantSeed(id: "shop", dialect: .firebase, name: "Shop", settings: ["api_keys": ["shop-key"]]),
            Seed.TenantSeed(id: "shop:eu", dialect: .firebase, name: "eu", settings: ["tenant_config": ["allowPasswordSignup": true]]),
        ]
        return seed
    }

    func hints(_ harness: Harness) async throws -> [String: JSON] {
        let info = try await harness.run { try await $0.send(.get, "/_emu/v1/info") }.json
        return Dictionary(uniqueKeysWithValues: (info["tenants"]?.arrayValue ?? []).map { ($0["id"]?.stringValue ?? "", $0) })
    }

    /// Signs up through the client API with `key` (and `tenantId`); answers the core tenant the user landed in.
    func landing(_ harness: Harness, key: String, tenantId: String? = nil) async throws -> String? {
        var fields: [String: JSON] = ["email": "landing@example.com", "password": "secret123"]
        fields["tenantId"] = tenantId.map(JSON.string)
        let body = JSON.object(fields)
        let reply = try await harness.run { client in
            try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=\(key)", json: body)
        }
        let id = try #require(reply.json["localId"]?.stringValue)
        return try harness.emulator.tenants().first { try harness.emulator.user(in: $0.id, id: id) != nil }?.id
    }

    @Test func aKeylessProjectThatNoKeyReachesGetsNoKeyButAWayToGetOne() async throws {
        let harness = try Harness(seed: try Self.seed())
        let tenants = try await hints(harness)
        #expect(tenants["demo-fauxth"]?["hints"]?["FIREBASE_API_KEY"] == "fake-api-key")
        #expect(tenants["shop"]?["hints"]?["FIREBASE_API_KEY"] == "shop-key")
        // `fake-api-key` is demo-fauxth's: it would sign users up there, not in `keyless`.
        #expect(try await landing(harness, key: "fake-api-key") == "demo-fauxth")
        #expect(tenants["keyless"]?["hints"]?["FIREBASE_API_KEY"] == nil)
        #expect(tenants["keyless"]?["hints"]?["GCLOUD_PROJECT"] == "keyless")
        let note = try #require(tenants["keyless"]?["notes"]?[0]?.stringValue)
        #expect(note.contains("--firebase-project keyless") && note.contains("api_keys"))
    }

    @Test func theDefaultProjectIsReachedByAnyKeyNoProjectLists() async throws {
        let harness = try Harness(seed: try Self.seed()) { $0.firebaseProject = "keyless" }
        let key = try #require(try await hints(harness)["keyless"]?["hints"]?["FIREBASE_API_KEY"]?.stringValue)
        #expect(!["fake-api-key", "shop-key"].contains(key))
        #expect(try await landing(harness, key: key) == "keyless")
    }

    /// A tenant is reached with its project's key and its tenant id.
    @Test func anIdentityPlatformTenantIsNamedByItsProjectsKeyAndItsId() async throws {
        let harness = try Harness(seed: try Self.seed())
        let eu = try await hints(harness)["shop:eu"]?["hints"]
        #expect(eu?["GCLOUD_PROJECT"] == "shop")
        #expect(eu?["FIREBASE_TENANT_ID"] == "eu")
        #expect(eu?["FIREBASE_API_KEY"] == "shop-key")
        #expect(try await landing(harness, key: "shop-key", tenantId: "eu") == "shop:eu")
    }
}
