import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// `PUT /user` as GoTrue's `UserUpdate` (user.go, bc32168) answers it: every check before any write, so a refused
/// update changes nothing; the current password where the project asks for it; the message channel.
@Suite struct UserUpdateFidelityTests {
    let other = Seed.UserSeed(id: "33333333-3333-4333-8333-333333333333", email: "taken@example.com", phone: "+15550100044",
                              password: "secret123", emailVerified: true, phoneVerified: true)

    func signIn(_ client: Client, _ email: String = "done@example.com", password: String = "secret123") async throws -> JSON {
        try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": .string(email), "password": .string(password)]).json
    }

    func update(_ client: Client, _ session: JSON, _ body: JSON) async throws -> Reply {
        var headers = bearer(session)
        headers[HTTPField.Name("X-Supabase-Api-Version")!] = "2024-01-01"
        return try await client.send(.put, "/auth/v1/user", json: body, headers: headers)
    }

    @Test func aRefusedUpdateWritesNothing() async throws {
        let harness = try Harness(seed: project(["GOTRUE_EXTERNAL_PHONE_ENABLED": "true"], users: [confirmedUser, other]))
        try await harness.run { client in
            let session = try await signIn(client), second = try await signIn(client)
            let takenEmail = try await update(client, session, ["email": "taken@example.com", "password": "another123", "data": ["x": 1]])
            #expect(takenEmail.status == .unprocessableContent)
            #expect(takenEmail.json == ["code": "email_exists", "message": "A user with this email address has already been registered"])
            let takenPhone = try await update(client, session, ["phone": "+15550100044", "password": "another123"])
            #expect(takenPhone.json == ["code": "phone_exists", "message": "A user with this phone number has already been registered"])
            #expect(try await signIn(client)["access_token"] != nil, "the old password still signs in")
            let refreshed = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": second["refresh_token"]!])
            #expect(refreshed.status == .ok, "no session was ended")

            #expect(try await update(client, session, ["email": "first@example.com"]).status == .ok)
            let tooSoon = try await update(client, session, ["email": "second@example.com", "data": ["y": 2]])
            #expect(tooSoon.status == .tooManyRequests)
            #expect(try harness.emulator.requireUser(in: "p", id: confirmedUser.id!).userMetadata["y"] == nil)

            let pigeon = try await update(client, session, ["phone": "+15550100055", "channel": "carrier_pigeon"])
            #expect(pigeon.json["message"]?.stringValue?.hasPrefix("Invalid channel, supported values are 'sms' or 'whatsapp'.") == true)
        }
    }

    /// `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`: a new password needs the current one (auth-js's
    /// `current_password`), but in a password reset's session.
    @Test func theCurrentPasswordIsAskedForWhereTheProjectSaysSo() async throws {
        let harness = try Harness(seed: project(["GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD": "true"], users: [confirmedUser]))
        try await harness.run { client in
            let session = try await signIn(client)
            let missing = try await update(client, session, ["password": "another123"])
            #expect(missing.status == .badRequest)
            #expect(missing.json == ["code": "current_password_required", "message": "Current password required when setting new password."])
            #expect(try await update(client, session, ["password": "another123", "current_password": "wrong-one"]).json["code"] == "current_password_mismatch")
            #expect(try await update(client, session, ["password": "another123", "current_password": "secret123"]).status == .ok)

            _ = try await client.send(.post, "/auth/v1/recover", json: ["email": "done@example.com"])
            let code = try #require(try harness.emulator.messages(MessageFilter(to: "done@example.com")).first?.codes.first)
            let recovery = try await client.send(.post, "/auth/v1/verify", json: ["type": "recovery", "email": "done@example.com", "token": .string(code)]).json
            #expect(try await update(client, recovery, ["password": "third-one-123"]).status == .ok)
        }
    }
}
