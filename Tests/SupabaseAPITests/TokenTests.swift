import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct PasswordGrantTests {
    let unconfirmed = Seed.UserSeed(id: "22222222-2222-4222-8222-222222222222", email: "wait@example.com", phone: nil, username: nil,
                                    password: "secret123", emailVerified: false, phoneVerified: false, disabled: false,
                                    userMetadata: [:], appMetadata: [:])

    @Test func rightPasswordGivesASessionAndRecordsTheSignIn() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        let reply = try await harness.run { client in
            try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "DONE@example.com", "password": "secret123"],
                                  headers: [.userAgent: "pytest"])
        }
        #expect(reply.status == .ok)
        #expect(reply.json["user"]?["id"] == .string(confirmedUser.id!))
        #expect(reply.json["user"]?["last_sign_in_at"] == .string(RFC3339.string(from: Harness.epoch)))
        #expect(reply.json["access_token"]?.stringValue?.split(separator: ".").count == 3)
        let event = try #require(try harness.emulator.events(type: "signin.succeeded").first)
        #expect(event.userAgent == "pytest")
        #expect(try harness.emulator.sessions(in: "p", userId: confirmedUser.id!).count == 1)
    }

    @Test func wrongPasswordAndUnknownEmailLookTheSame() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        let (wrong, unknown) = try await harness.run { client in
            (try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "nope"], headers: .supabaseClient),
             try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "who@example.com", "password": "nope"], headers: .supabaseClient))
        }
        for reply in [wrong, unknown] {
            #expect(reply.status == .badRequest)
            #expect(reply.json == ["code": "invalid_credentials", "message": "Invalid login credentials"])
            #expect(reply.headers[HTTPField.Name("X-Supabase-Api-Version")!] == "2024-01-01")
        }
    }

    @Test func anUnconfirmedEmailCannotSignIn() async throws {
        let harness = try Harness(seed: project(users: [unconfirmed]))
        let reply = try await harness.run { client in
            try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "wait@example.com", "password": "secret123"])
        }
        #expect(reply.status == .badRequest)
        // Without X-Supabase-Api-Version GoTrue answers in its legacy shape.
        #expect(reply.json == ["code": 400, "error_code": "email_not_confirmed", "msg": "Email not confirmed"])
        #expect(reply.headers[HTTPField.Name("X-Supabase-Api-Version")!] == nil)
    }

    @Test func otherGrantTypesAreNotYetServed() async throws {
        let harness = try Harness(seed: project())
        let reply = try await harness.run { client in
            try await client.send(.post, "/auth/v1/token?grant_type=magic", json: [:], headers: .supabaseClient)
        }
        #expect(reply.status == .badRequest)
        #expect(reply.json == ["code": "invalid_credentials", "message": "unsupported_grant_type"])
    }
}

@Suite struct BadInputTests {
    @Test(arguments: [
        ("{", "bad_json"),
        ("[1,2]", "bad_json"),
        (#"{"email": 42, "password": "secret123"}"#, "bad_json"),
        (#"{"email": "not-an-email", "password": "secret123"}"#, "validation_failed"),
        (#"{"email": "a@example.com"}"#, "validation_failed"),
        ("", "bad_json"),
    ])
    func malformedSignupBodiesGetAGoTrue400(_ body: String, _ code: String) async throws {
        let harness = try Harness(seed: project())
        let reply = try await harness.run { try await $0.send(.post, "/auth/v1/signup", raw: body, headers: .supabaseClient) }
        #expect(reply.status == .badRequest)
        #expect(reply.json["code"] == .string(code))
    }

    @Test func aBodyOverOneMegabyteIs413() async throws {
        let harness = try Harness(seed: project())
        let huge = #"{"email":"a@example.com","password":""# + String(repeating: "x", count: 1 << 20) + #""}"#
        let reply = try await harness.run { try await $0.send(.post, "/auth/v1/signup", raw: huge, headers: .supabaseClient) }
        #expect(reply.status == .contentTooLarge)
        #expect(reply.json["code"] == "request_entity_too_large")
    }

    @Test func invalidUTF8IsBadJSON() async throws {
        let harness = try Harness(seed: project())
        let reply = try await harness.run { try await $0.send(.post, "/auth/v1/signup", bytes: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]) }
        #expect(reply.status == .badRequest)
        #expect(reply.json["error_code"] == "bad_json")
    }

    @Test func unknownRoutesAndWrongMethodsAnswerInGoTruesFormat() async throws {
        let harness = try Harness(seed: project())
        let (unknown, wrongMethod) = try await harness.run { client in
            (try await client.send(.get, "/auth/v1/nothing-here", headers: .supabaseClient),
             try await client.send(.get, "/auth/v1/signup", headers: .supabaseClient))
        }
        // GoTrue's router's own answers (chi): Go's plain-text 404, and 405 with the path's methods in Allow.
        #expect(unknown.status == .notFound)
        #expect(unknown.text == "404 page not found\n")
        #expect(unknown.headers[.contentType] == "text/plain; charset=utf-8")
        #expect(wrongMethod.status == .methodNotAllowed)
        #expect(wrongMethod.text.isEmpty)
        #expect(wrongMethod.headers[values: .allow] == ["POST"])
    }

    /// GoTrue's `/admin` router checks the admin token first (`r.Use(requireAdminCredentials)`), so a path it serves
    /// nothing at is 401 or 403 without an admin token, and the router's 404 with one; a served admin path still works.
    @Test func anUnknownAdminPathChecksTheAdminTokenFirst() async throws {
        let harness = try Harness(seed: project(users: [confirmedUser]))
        try await harness.run { client in
            let anonymous = try await client.send(.get, "/auth/v1/admin/nothing-here", headers: .supabaseClient)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.json["code"] == "no_authorization")
            let session = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "done@example.com", "password": "secret123"]).json
            var userToken = bearer(session)
            userToken[HTTPField.Name("X-Supabase-Api-Version")!] = "2024-01-01"
            let notAdmin = try await client.send(.post, "/auth/v1/admin/users/\(confirmedUser.id!)/nothing", headers: userToken)
            #expect(notAdmin.status == .forbidden)
            #expect(notAdmin.json["code"] == "not_admin")
            let admin = try await client.send(.get, "/auth/v1/admin/nothing-here", headers: serviceRole)
            #expect(admin.status == .notFound)
            #expect(admin.text == "404 page not found\n")
            #expect(try await client.send(.get, "/auth/v1/admin/users", headers: serviceRole).status == .ok)
        }
    }
}
