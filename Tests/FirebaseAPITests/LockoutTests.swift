import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A project's lockout and rate-limit policies, answered with Identity Toolkit's own codes.
@Suite struct LockoutTests {
    func signIn(_ client: Client, _ password: String) async throws -> Reply {
        try await client.send(.post, accounts("signInWithPassword"), json: ["email": "alice@example.com", "password": .string(password),
                                                                           "returnSecureToken": true])
    }

    @Test func aLockedAccountGetsTooManyAttemptsUntilTheClockMovesOn() async throws {
        let harness = try Harness(seed: firebaseProject(["policies": ["lockout": ["max_attempts": 3, "durations": [60, 300]]]], users: [alice]))
        try await harness.run { client async throws in
            for _ in 0..<3 { #expect(errorMessage(try await signIn(client, "wrong-one")) == "INVALID_PASSWORD") }
            let locked = try await signIn(client, "secret123")
            #expect(locked.status == .badRequest)
            #expect(errorMessage(locked) == "TOO_MANY_ATTEMPTS_TRY_LATER : " + FirebaseErrorText.passwordLockout)
            #expect(locked.headers[.retryAfter] == "60")
            harness.emulator.clock.advance(by: 60)
            // One more failure escalates to the next duration.
            #expect(errorMessage(try await signIn(client, "wrong-one")) == "INVALID_PASSWORD")
            #expect(try await signIn(client, "secret123").headers[.retryAfter] == "300")
            harness.emulator.clock.advance(by: 300)
            #expect(try await signIn(client, "secret123").json["idToken"] != nil)
        }
    }

    @Test func perIPTokenLimitsAndEmailCooldownsAnswerInFirebasesTerms() async throws {
        let harness = try Harness(seed: firebaseProject(["policies": ["rate_limits": [
            "token_per_ip": ["count": 2, "window": 60], "resend_cooldown": 30,
        ]]], users: [alice]))
        try await harness.run { client async throws in
            #expect(try await signIn(client, "secret123").status == .ok)
            #expect(try await signIn(client, "secret123").status == .ok)
            #expect(errorMessage(try await signIn(client, "secret123")) == "TOO_MANY_ATTEMPTS_TRY_LATER")
            let reset: JSON = ["requestType": "PASSWORD_RESET", "email": "alice@example.com"]
            #expect(try await client.send(.post, accounts("sendOobCode"), json: reset).status == .ok)
            #expect(errorMessage(try await client.send(.post, accounts("sendOobCode"), json: reset)) == "TOO_MANY_ATTEMPTS_TRY_LATER")
            let kept = try harness.emulator.messages()
            #expect(kept.map(\.status) == [.suppressed, .sent])
            harness.emulator.clock.advance(by: 30)
            #expect(try await client.send(.post, accounts("sendOobCode"), json: reset).status == .ok)
        }
    }

    /// `otp_per_ip` counts the operations that send a code; `anonymous_per_ip` the sign-ups that make an
    /// anonymous user, and only those.
    @Test func perIPSendAndAnonymousLimitsCountTheirOwnOperations() async throws {
        let harness = try Harness(seed: firebaseProject(["policies": ["rate_limits": [
            "otp_per_ip": ["count": 1, "window": 60], "anonymous_per_ip": ["count": 1, "window": 60],
        ]]], users: [alice]))
        try await harness.run { client async throws in
            let reset: JSON = ["requestType": "PASSWORD_RESET", "email": "alice@example.com"]
            #expect(try await client.send(.post, accounts("sendOobCode"), json: reset).status == .ok)
            #expect(errorMessage(try await client.send(.post, accounts("sendOobCode"), json: reset)) == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await client.send(.post, accounts("signUp"), json: ["returnSecureToken": true]).status == .ok)
            #expect(errorMessage(try await client.send(.post, accounts("signUp"), json: ["returnSecureToken": true])) == "TOO_MANY_ATTEMPTS_TRY_LATER")
            let named = try await client.send(.post, accounts("signUp"), json: ["email": "new@example.com", "password": "secret123"])
            #expect(named.status == .ok)
        }
    }
}

/// Production's lockout wording, as the tests expect it.
enum FirebaseErrorText {
    static let passwordLockout = "Access to this account has been temporarily disabled due to many failed login attempts. "
        + "You can immediately restore it by resetting your password or you can try again later."
}
