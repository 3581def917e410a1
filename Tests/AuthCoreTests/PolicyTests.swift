import Foundation
import Testing
@testable import AuthCore

/// The lockout state machine on its own: no HTTP, no storage.
@Suite struct LockoutStateTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    let escalating = LockoutPolicy(maxAttempts: 3, window: 600, durations: [60, 300, 900, 3600, 86400], resetAfter: 86400)

    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test func theThresholdFailureStartsTheFirstLockout() {
        var state = LockoutState()
        #expect(state.recordFailure(at: at(0), policy: escalating) == .counted(remaining: 2))
        #expect(state.recordFailure(at: at(1), policy: escalating) == .counted(remaining: 1))
        #expect(state.recordFailure(at: at(2), policy: escalating) == .locked(until: at(62), duration: 60, level: 1))
        #expect(state.lockedUntil(at: at(61)) == at(62))
        #expect(state.lockedUntil(at: at(62)) == nil)
    }

    @Test func eachFailureAfterALockoutEscalatesThroughTheSchedule() {
        var state = LockoutState()
        for i in 0..<3 { _ = state.recordFailure(at: at(Double(i)), policy: escalating) }
        // Failures stay in the window, so one more failure once the lockout ends locks again, longer.
        #expect(state.recordFailure(at: at(70), policy: escalating) == .locked(until: at(370), duration: 300, level: 2))
        #expect(state.recordFailure(at: at(400), policy: escalating) == .locked(until: at(1300), duration: 900, level: 3))
        // Failures older than the window drop out: three fresh ones are needed, and the level holds.
        #expect(state.recordFailure(at: at(2000), policy: escalating) == .counted(remaining: 2))
        _ = state.recordFailure(at: at(2001), policy: escalating)
        #expect(state.recordFailure(at: at(2002), policy: escalating) == .locked(until: at(5602), duration: 3600, level: 4))
    }

    @Test func theLastDurationRepeats() {
        let policy = LockoutPolicy(maxAttempts: 1, window: 600, durations: [10, 20], resetAfter: 86400)
        var state = LockoutState()
        #expect(state.recordFailure(at: at(0), policy: policy) == .locked(until: at(10), duration: 10, level: 1))
        #expect(state.recordFailure(at: at(10), policy: policy) == .locked(until: at(30), duration: 20, level: 2))
        #expect(state.recordFailure(at: at(30), policy: policy) == .locked(until: at(50), duration: 20, level: 3))
    }

    @Test func aQuietResetAfterStartsTheEscalationOver() {
        let policy = LockoutPolicy(maxAttempts: 2, window: 600, durations: [60, 300], resetAfter: 3600)
        var state = LockoutState()
        _ = state.recordFailure(at: at(0), policy: policy)
        _ = state.recordFailure(at: at(1), policy: policy)
        #expect(state.level == 1)
        #expect(state.recordFailure(at: at(3601), policy: policy) == .counted(remaining: 1))
        #expect(state.level == 0)
        #expect(state.recordFailure(at: at(3602), policy: policy) == .locked(until: at(3662), duration: 60, level: 1))
    }

    @Test func cognitosLockoutDoublesFromOneSecondAfterFiveFailures() {
        let policy = TenantPolicies.cognitoSignInLockout
        var state = LockoutState()
        for i in 0..<4 { #expect(state.recordFailure(at: at(Double(i)), policy: policy) == .counted(remaining: 4 - i)) }
        #expect(state.recordFailure(at: at(4), policy: policy) == .locked(until: at(5), duration: 1, level: 1))
        #expect(state.recordFailure(at: at(5), policy: policy) == .locked(until: at(7), duration: 2, level: 2))
        #expect(state.recordFailure(at: at(7), policy: policy) == .locked(until: at(11), duration: 4, level: 3))
        // Fifteen quiet minutes forget it all.
        #expect(state.recordFailure(at: at(11 + 900), policy: policy) == .counted(remaining: 4))
    }
}

@Suite struct TenantPolicyTests {
    @Test func aSettingOverlaysTheVendorsPolicies() throws {
        let vendor = TenantPolicies(lockouts: [.password: TenantPolicies.cognitoSignInLockout],
                                    limits: [.codeDeliveries: RateLimit(count: 5, window: 3600)])
        let policies = try vendor.overlaid(with: [
            "lockout": false,
            "mfa_lockout": ["max_attempts": 3, "durations": [300], "error": "generic", "notify": true],
            "rate_limits": ["resend_cooldown": 30, "code_deliveries": .null, "email_sent": ["count": 2, "window": 3600]],
        ])
        #expect(policies.lockouts[.password] == nil)
        #expect(policies.lockouts[.mfa] == LockoutPolicy(maxAttempts: 3, window: 900, durations: [300], resetAfter: 86400, style: .generic, notify: true))
        #expect(policies.limits == [.resendCooldown: RateLimit(count: 1, window: 30), .emailSent: RateLimit(count: 2, window: 3600)])
    }

    @Test func malformedSettingsNameTheField() {
        let cases: [(JSON, String)] = [
            (["lockout": ["window": 60]], "policies.lockout.max_attempts"),
            (["lockout": ["max_attempts": 3, "durations": []]], "policies.lockout.durations"),
            (["lockout": ["max_attempts": 3, "durations": [60, -1]]], "policies.lockout.durations[1]"),
            // Longer than 100 years: a lockout of 1e300 seconds ended the process when its Retry-After was written.
            (["lockout": ["max_attempts": 3, "durations": [.double(1e300)]]], "policies.lockout.durations[0]"),
            (["lockout": ["max_attempts": 3, "window": .double(4e9)]], "policies.lockout.window"),
            (["rate_limits": ["resend_cooldown": .double(1e20)]], "policies.rate_limits.resend_cooldown"),
            (["lockout": ["max_attempts": 3, "error": "loud"]], "policies.lockout.error"),
            (["lockout": ["max_attempts": 3, "color": "red"]], "policies.lockout.color"),
            (["lockouts": [:]], "policies.lockouts"),
            (["rate_limits": ["emails": ["count": 1, "window": 1]]], "policies.rate_limits.emails"),
            (["rate_limits": ["email_sent": ["count": 1]]], "policies.rate_limits.email_sent.window"),
            ("on", "policies"),
        ]
        for (setting, field) in cases {
            #expect {
                _ = try TenantPolicies().overlaid(with: setting)
            } throws: { error in
                guard case AuthError.invalidInput(let named, _) = error else { return false }
                return named == field
            }
        }
    }

    @Test func aLimitTheDialectDoesNotApplyIsRefused() {
        #expect(throws: AuthError.self) {
            _ = try TenantPolicies().overlaid(with: ["rate_limits": ["resend_cooldown": 30]], allowed: [.emailSent])
        }
    }
}

/// The emulator's side: attempts, lockouts on the emulator clock, notices and send limits.
@Suite struct EmulatorPolicyTests {
    func emulator(_ policies: JSON) throws -> Emulator {
        let emulator = try makeEmulator()
        try emulator.setPolicies(in: "proj", policies)
        return emulator
    }

    func signIn(_ emulator: Emulator, _ password: String) throws -> User {
        try emulator.authenticate(in: "proj", PasswordSignIn(identifier: .email("alice@example.com"), password: password, requireVerified: false))
    }

    @Test func wrongPasswordsLockTheAccountUntilTheClockPassesTheLockout() throws {
        let emulator = try emulator(["lockout": ["max_attempts": 2, "durations": [60, 300]]])
        for _ in 0..<2 { #expect(throws: AuthError.invalidCredentials) { try signIn(emulator, "wrong") } }
        // Locked: even the right password is refused, with when to retry.
        #expect(throws: AuthError.lockedOut(.password, until: emulator.clock.now.addingTimeInterval(60), retryAfter: 60)) {
            try signIn(emulator, "pw-alice")
        }
        #expect(try emulator.lockoutRecords(in: "proj").map(\.subject) == ["u-alice"])
        emulator.clock.advance(by: 60)
        #expect(try signIn(emulator, "pw-alice").id == "u-alice")
        #expect(try emulator.lockoutRecords(in: "proj").isEmpty)
        let started = try emulator.events(type: "lockout.started")
        #expect(started.count == 1 && started[0].userId == "u-alice")
    }

    /// A snapshot (a file, or a named one in memory) carries the lockouts and rate windows it was taken with:
    /// restored, a locked-out user is still locked out, and a window still counts.
    @Test func lockoutsAndRateWindowsSurviveASnapshotFileAndANamedRestore() throws {
        let emulator = try emulator(["lockout": ["max_attempts": 2, "durations": [600]],
                                     "rate_limits": ["token_per_ip": ["count": 1, "window": 300]]])
        for _ in 0..<2 { #expect(throws: AuthError.invalidCredentials) { try signIn(emulator, "wrong") } }
        try emulator.checkRequestLimit(.tokenPerIP, in: try emulator.requireTenant("proj"), client: "10.0.0.1")
        let path = temporaryPath("locked.sqlite")
        try emulator.saveSnapshot(to: path)
        try emulator.takeSnapshot(named: "locked")
        for restore in [{ try emulator.loadSnapshot(from: path) }, { try emulator.restoreSnapshot(named: "locked") }] {
            // Forgotten in the live state (a signed-in user's password sign-in also forgets the failures).
            try emulator.forgetTransientState(in: "proj")
            #expect(try signIn(emulator, "pw-alice").id == "u-alice")
            try restore()
            #expect(throws: AuthError.lockedOut(.password, until: emulator.clock.now.addingTimeInterval(600), retryAfter: 600)) {
                try signIn(emulator, "pw-alice")
            }
            #expect(throws: (any Error).self) { try emulator.checkRequestLimit(.tokenPerIP, in: try emulator.requireTenant("proj"), client: "10.0.0.1") }
        }
        // Another process starting from the file gets them too.
        let elsewhere = try makeEmulator()
        try elsewhere.setPolicies(in: "proj", ["lockout": ["max_attempts": 2, "durations": [600]]])
        try elsewhere.loadSnapshot(from: path)
        #expect(try elsewhere.lockoutRecords(in: "proj").map(\.subject) == ["u-alice"])
    }

    @Test func theGenericStyleAnswersAsAWrongPasswordWouldAndOnlyNotifies() throws {
        let emulator = try emulator(["lockout": ["max_attempts": 1, "durations": [60], "error": "generic", "notify": true]])
        #expect(throws: AuthError.invalidCredentials) { try signIn(emulator, "wrong") }
        #expect(throws: AuthError.invalidCredentials) { try signIn(emulator, "pw-alice") }
        let notice = try #require(try emulator.messages(MessageFilter(purpose: .notification)).first)
        #expect(notice.to == "alice@example.com" && notice.subject == "Your account has been temporarily locked")
    }

    @Test func aNewPasswordLiftsAPasswordLockout() throws {
        let emulator = try emulator(["lockout": ["max_attempts": 1, "durations": [3600]]])
        #expect(throws: AuthError.invalidCredentials) { try signIn(emulator, "wrong") }
        try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(password: "new-password"))
        #expect(try signIn(emulator, "new-password").id == "u-alice")
        #expect(try emulator.events(type: "lockout.cleared").first?.detail["reason"] == "password_changed")
    }

    @Test func wrongCodesLockTheAddressTheyWentTo() throws {
        let emulator = try emulator(["code_lockout": ["max_attempts": 2, "durations": [300]]])
        let issued = try emulator.issueCode(in: "proj", CodeRequest(userId: "u-alice", purpose: .otp, channel: .email, target: "alice@example.com",
                                                                    lifetime: 3600))
        for _ in 0..<2 {
            #expect(throws: AuthError.wrongCode) {
                try emulator.consumeCode(in: "proj", purposes: [.otp], .code("000000", target: "alice@example.com"))
            }
        }
        #expect(throws: AuthError.lockedOut(.code, until: emulator.clock.now.addingTimeInterval(300), retryAfter: 300)) {
            try emulator.consumeCode(in: "proj", purposes: [.otp], .code(issued.code, target: "alice@example.com"))
        }
        emulator.clock.advance(by: 300)
        #expect(try emulator.consumeCode(in: "proj", purposes: [.otp], .code(issued.code, target: "alice@example.com")).userId == "u-alice")
    }

    @Test func sendLimitsKeepTheRefusedMessageAsSuppressed() throws {
        let emulator = try emulator(["rate_limits": ["resend_cooldown": 30, "code_deliveries": ["count": 2, "window": 3600]]])
        let message = OutgoingMessage(tenant: "proj", channel: .email, to: "alice@example.com", from: "a@b", subject: "Code", text: "", purpose: .otp)
        try emulator.admitSend(message, userId: "u-alice")
        #expect(throws: AuthError.sendLimited(.resendCooldown, retryAfter: 30)) { try emulator.admitSend(message, userId: "u-alice") }
        emulator.clock.advance(by: 30)
        try emulator.admitSend(message, userId: "u-alice")
        emulator.clock.advance(by: 30)
        #expect(throws: AuthError.sendLimited(.codeDeliveries, retryAfter: 3540)) { try emulator.admitSend(message, userId: "u-alice") }
        let suppressed = try emulator.messages().filter { $0.status == .suppressed }
        #expect(suppressed.map(\.reason) == [
            "code_deliveries: 2 codes per 3600 s reached for this recipient",
            "resend_cooldown: another code was sent to this recipient less than 30 s ago",
        ])
        #expect(suppressed.allSatisfy { $0.codes.isEmpty })
    }

    @Test func aRefusedSendCountsAgainstNoOtherLimit() throws {
        let emulator = try emulator(["rate_limits": ["email_sent": ["count": 1, "window": 3600], "resend_cooldown": 30]])
        let first = OutgoingMessage(tenant: "proj", channel: .email, to: "alice@example.com", from: "a@b", text: "", purpose: .otp)
        try emulator.admitSend(first, userId: nil)
        var other = first
        other.to = "bob@example.com"
        #expect(throws: AuthError.sendLimited(.emailSent, retryAfter: 3600)) { try emulator.admitSend(other, userId: nil) }
        emulator.clock.advance(by: 3600)
        // bob's cooldown was never started by the refused send.
        try emulator.admitSend(other, userId: nil)
    }

    @Test func clearingLockoutsLetsTheUserBackIn() throws {
        let emulator = try emulator(["lockout": ["max_attempts": 1, "durations": [3600]]])
        #expect(throws: AuthError.invalidCredentials) { try signIn(emulator, "wrong") }
        emulator.clearLockouts(in: "proj", reason: "test")
        #expect(try signIn(emulator, "pw-alice").id == "u-alice")
    }
}
