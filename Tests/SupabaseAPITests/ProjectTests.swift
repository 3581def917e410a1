import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Server
import Testing

@Suite struct ProjectTests {
    func twoProjects() -> Seed {
        var seed = project(users: [confirmedUser])
        seed.tenants.append(Seed.TenantSeed(id: "second", dialect: .supabase, settings: [
            "port": 0, "gotrue_env": ["GOTRUE_JWT_SECRET": "second-project-secret-with-32-characters", "GOTRUE_MAILER_AUTOCONFIRM": "true"],
        ]))
        return seed
    }

    @Test func aProjectWithItsOwnPortAnswersAtTheRootAndUnderAuthV1() async throws {
        let harness = try Harness(seed: twoProjects())
        #expect(harness.app.projectApplications.keys.sorted() == ["second"])
        try await harness.runProject("second") { client in
            #expect(try await client.send(.get, "/health").json["name"] == "GoTrue")
            let root = try await client.send(.post, "/signup", json: ["email": "root@example.com", "password": "secret123"])
            #expect(root.json["access_token"] != nil)
            let prefixed = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "root@example.com", "password": "secret123"])
            #expect(prefixed.status == .ok)
            let key = SigningKey.hmac(secret: Array("second-project-secret-with-32-characters".utf8), kid: nil)
            #expect(throws: Never.self) { try JWS.verify(prefixed.json["access_token"]!.stringValue!, keys: [key.verificationKey]) }
            let unknown = try await client.send(.get, "/nothing", headers: .supabaseClient)
            #expect(unknown.status == .notFound)
            #expect(unknown.json["code"] == "not_found")
        }
        // Projects keep their own users: the main port's /auth/v1 serves the other project.
        #expect(try harness.emulator.user(in: "second", .email("root@example.com")) != nil)
        #expect(try harness.emulator.user(in: "p", .email("root@example.com")) == nil)
        let main = try await harness.run { try await $0.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "root@example.com", "password": "secret123"]) }
        #expect(main.status == .badRequest)
    }
}
