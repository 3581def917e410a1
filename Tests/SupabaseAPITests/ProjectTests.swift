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
            #expect(unknown.text == "404 page not found\n")
        }
        // Projects keep their own users: the main port's /auth/v1 serves the other project.
        #expect(try harness.emulator.user(in: "second", .email("root@example.com")) != nil)
        #expect(try harness.emulator.user(in: "p", .email("root@example.com")) == nil)
        let main = try await harness.run { try await $0.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "root@example.com", "password": "secret123"]) }
        #expect(main.status == .badRequest)
    }

    @Test func aProjectMadeAtRunTimeIsServedAtOnceUnderItsPrefix() async throws {
        let harness = try Harness(seed: project())
        try await harness.run { client in
            // Made through the control API with no JWT secret: the CLI's, so the well-known keys work.
            let made = try await client.send(.post, "/_emu/v1/tenants", json: ["id": "w1", "dialect": "supabase",
                                                                               "gotrue_env": ["GOTRUE_SITE_URL": "http://127.0.0.1:3000"]])
            #expect(made.status == .created)
            let signup = try await client.send(.post, "/projects/w1/auth/v1/signup", json: ["email": "w1@example.com", "password": "secret123"],
                                               headers: .supabaseClient)
            #expect(signup.status == .ok && signup.json["email"] == "w1@example.com")
            let message = try #require(try harness.emulator.messages(MessageFilter(list: ListFilter(tenant: "w1"))).first)
            // The confirmation link goes back through the same prefix.
            let link = try #require(message.links.first { $0.contains("/verify?") })
            #expect(link.contains("/projects/w1/auth/v1/verify?token="))
            let verified = try await client.send(.post, "/projects/w1/auth/v1/verify", json: ["type": "signup", "email": "w1@example.com",
                                                                                              "token": .string(message.codes.first ?? "")])
            #expect(verified.status == .ok)
            let token = verified.json["access_token"]?.stringValue ?? ""
            let key = SigningKey.hmac(secret: Array("super-secret-jwt-token-with-at-least-32-characters-long".utf8), kid: nil)
            #expect(throws: Never.self) { try JWS.verify(token, keys: [key.verificationKey]) }
            #expect(try await client.send(.get, "/projects/w1/auth/v1/user", headers: [.authorization: "Bearer \(token)"]).json["email"] == "w1@example.com")
            // The project keeps its users to itself.
            #expect(try harness.emulator.user(in: "p", .email("w1@example.com")) == nil)
            #expect(try await client.send(.post, "/auth/v1/token?grant_type=password",
                                          json: ["email": "w1@example.com", "password": "secret123"]).status == .badRequest)
            // An unknown path under the prefix is GoTrue's 404 (its router's plain text).
            let unknown = try await client.send(.get, "/projects/w1/auth/v1/nothing", headers: .supabaseClient)
            #expect(unknown.status == .notFound && unknown.text == "404 page not found\n")
            // A project that is not there, or a tenant of another dialect, is no GoTrue.
            for missing in ["nosuch", "demo-fauxth"] {
                let gone = try await client.send(.get, "/projects/\(missing)/auth/v1/settings", headers: .supabaseClient)
                #expect(gone.status == .notFound, "\(missing): \(gone.status)")
            }
        }
    }

    @Test func oneTenantGoesBackToANamedSnapshotAndTheOthersStay() async throws {
        var seed = twoProjects()
        seed.tenants[1].settings["port"] = nil
        let harness = try Harness(seed: seed)
        try await harness.run { client in
            #expect(try await client.send(.post, "/_emu/v1/snapshots", json: ["name": "start"]).status == .created)
            for (prefix, email) in [("/auth/v1", "in-p@example.com"), ("/projects/second/auth/v1", "in-second@example.com")] {
                #expect(try await client.send(.post, "\(prefix)/signup", json: ["email": .string(email), "password": "secret123"]).status == .ok)
            }
            #expect(try harness.emulator.user(in: "second", .email("in-second@example.com")) != nil)
            let restored = try await client.send(.post, "/_emu/v1/snapshots/start/restore?tenant=second")
            #expect(restored.json == ["restored": "start", "tenant": "second"])
            #expect(try harness.emulator.user(in: "second", .email("in-second@example.com")) == nil)
            #expect(try harness.emulator.user(in: "p", .email("in-p@example.com")) != nil)
            #expect(try await client.send(.post, "/_emu/v1/snapshots/start/restore?tenant=nosuch").status == .notFound)
        }
    }
}
