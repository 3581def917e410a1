import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// The Auth emulator's own endpoints: clearing accounts clears what was counted against them too.
@Suite struct EmulatorEndpointsTests {
    static let lockout: JSON = ["lockout": ["max_attempts": 1, "durations": [3600]]]

    /// Project `p` (30 s between texts to a number, a lockout after one wrong password) with alice, and
    /// its tenant `t` (the same lockout) with tina.
    static let seed: Seed = {
        let tina = Seed.UserSeed(id: "tina-uid", email: "tina@example.com", password: "secret123", emailVerified: true)
        let tenant = Seed.TenantSeed(id: "p:t", dialect: .firebase, name: "t",
                                     settings: ["tenant_config": ["allowPasswordSignup": true], "policies": lockout], users: [tina])
        return firebaseProject(["phone_resend_interval": 30, "policies": lockout], users: [alice], tenants: [tenant])
    }()

    func wrongPassword(_ client: Client, _ email: String, tenant: String? = nil) async throws {
        var body: [String: JSON] = ["email": .string(email), "password": "wrong-one", "returnSecureToken": true]
        body["tenantId"] = tenant.map(JSON.string)
        #expect(try await client.send(.post, accounts("signInWithPassword"), json: .object(body)).status == .badRequest)
    }

    func sendCode(_ client: Client) async throws -> Reply {
        try await client.send(.post, accounts("sendVerificationCode"), json: ["phoneNumber": "+15550100009"])
    }

    /// The Firebase emulator's project-level clear empties the project's own store and leaves its
    /// tenants' (each has its own; `/tenants/{t}/accounts` clears one), so the windows and lockouts go the same way.
    @Test func clearingAccountsForgetsTheSendWindowsAndLockoutsOfThatProjectOrTenantOnly() async throws {
        let harness = try Harness(seed: Self.seed)
        try await harness.run { client in
            #expect(try await sendCode(client).status == .ok)
            #expect(errorMessage(try await sendCode(client)) == "TOO_MANY_ATTEMPTS_TRY_LATER")
            try await wrongPassword(client, "alice@example.com")
            try await wrongPassword(client, "tina@example.com", tenant: "t")
            #expect(try harness.emulator.lockoutRecords(in: "p").count == 1)
            #expect(try harness.emulator.lockoutRecords(in: "p:t").count == 1)

            #expect(try await client.send(.delete, "/emulator/v1/projects/p/accounts").status == .ok)
            #expect(try await sendCode(client).status == .ok)
            #expect(try harness.emulator.lockoutRecords(in: "p").isEmpty)
            #expect(try harness.emulator.lockoutRecords(in: "p:t").count == 1)
            #expect(try harness.emulator.users(in: "p:t").map(\.id) == ["tina-uid"])

            #expect(try await client.send(.delete, "/emulator/v1/projects/p/tenants/t/accounts").status == .ok)
            #expect(try harness.emulator.lockoutRecords(in: "p:t").isEmpty)
            #expect(try harness.emulator.users(in: "p:t").isEmpty)
        }
    }
}
