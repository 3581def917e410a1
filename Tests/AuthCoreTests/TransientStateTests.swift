import Foundation
import Testing
@testable import AuthCore

/// Rate-limit windows and lockouts live beside the database; what forgets them, and for which tenants.
@Suite struct TransientStateTests {
    /// A core with `proj` and `other` (from the sample seed), a tenant nested in `proj` (as Firebase's
    /// `project:tenant`), a code lockout in each and a spent one-per-minute window in each.
    func emulatorWithStateEverywhere() throws -> Emulator {
        let emulator = try makeEmulator()
        try emulator.createTenant(id: "proj:t", dialect: .firebase, name: "t", settings: [:])
        for tenant in Self.tenants {
            try emulator.setPolicies(in: tenant, ["code_lockout": ["max_attempts": 1, "durations": [3600]]])
            #expect(try emulator.attempt(.code, in: tenant, subject: "+15550100001", userId: nil) { false } == false)
            try emulator.rateLimiter.consume("\(tenant):sms:+15550100001", limit: Self.oncePerMinute, at: emulator.clock.now)
        }
        return emulator
    }

    static let tenants = ["proj", "other", "proj:t"]
    static let oncePerMinute = RateLimit(count: 1, window: 60)

    /// The tenants whose window and lockout are still there.
    func tenantsWithState(_ emulator: Emulator) -> [String] {
        Self.tenants.filter { tenant in
            let limited = (try? emulator.rateLimiter.consume("\(tenant):sms:+15550100001", limit: Self.oncePerMinute, at: emulator.clock.now)) == nil
            return limited && !emulator.lockouts.entries(tenant: tenant).isEmpty
        }
    }

    @Test func aTenantResetForgetsOnlyThatTenantsWindowsAndLockouts() throws {
        let emulator = try emulatorWithStateEverywhere()
        try emulator.reset(tenant: "other")
        #expect(tenantsWithState(emulator) == ["proj", "proj:t"])
        // A tenant's id being the start of another's (Firebase's `project:tenant`) does not make it that one's.
        try emulator.reset(tenant: "proj")
        #expect(tenantsWithState(emulator) == ["proj:t"])
    }

    @Test func aFullResetForgetsEveryTenantsWindowsAndLockouts() throws {
        let emulator = try emulatorWithStateEverywhere()
        try emulator.reset()
        #expect(emulator.lockouts.entries(tenant: nil).isEmpty)
        #expect(throws: Never.self) { try emulator.rateLimiter.consume("other:sms:+15550100001", limit: Self.oncePerMinute, at: emulator.clock.now) }
    }
}
