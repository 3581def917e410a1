import Foundation
import Testing
@testable import AuthCore

/// `revokeTokens`: Firebase's `validSince`, in whole seconds.
@Suite struct TokenRevocationTests {
    @Test func revokingKeepsTheSessionsOfThisVerySecondAndEndsOlderOnes() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        let older = try emulator.startSession(for: alice, method: "password") { $0.lowerAlphanumeric(24) }
        emulator.clock.advance(by: 1.25)
        let current = try emulator.startSession(for: alice, method: "password") { $0.lowerAlphanumeric(24) }
        emulator.clock.advance(by: 0.5)
        try emulator.revokeTokens(in: "proj", userId: "u-alice", reason: "credentials_changed")
        // Tokens issued in the second of the change stay valid, as ID tokens with that `iat` do.
        #expect(try emulator.requireUser(in: "proj", id: "u-alice").tokensValidAfter == Date(timeIntervalSince1970: 1_767_225_601))
        #expect(try emulator.continueSession(in: "proj", token: current.refreshToken, maxAge: nil).session.id == current.session.id)
        #expect(throws: AuthError.sessionNotFound) { try emulator.continueSession(in: "proj", token: older.refreshToken, maxAge: nil) }
    }
}
