import Foundation
import Synchronization
import Testing
@testable import AuthCore

/// The rules the three vendors share, each written once in the core: the sign-in gate, TOTP with replay
/// refused, assurance levels, per-user send cooldowns and confirmed address changes.
@Suite struct SharedRulesTests {
    /// The tenant's `signin.failed` events, oldest first.
    private func failures(_ emulator: Emulator) throws -> [Event] {
        try emulator.events(type: EventType.signInFailed.rawValue, filter: ListFilter(tenant: "proj")).reversed()
    }

    // MARK: The sign-in gate

    @Test func theGateRefusesDisabledAndBannedUsersAndRecordsWhy() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(disabled: true))
        #expect(throws: AuthError.userDisabled) { try emulator.checkCanSignIn(alice, stage: .token) }
        let banned = try emulator.updateUser(in: "proj", id: "u-alice",
                                             UserChanges(bannedUntil: .some(emulator.clock.now.addingTimeInterval(60)), disabled: false))
        #expect(throws: AuthError.userBanned) { try emulator.checkCanSignIn(banned) }
        let recorded = try failures(emulator).map { [$0.detail["reason"]?.stringValue, $0.detail["stage"]?.stringValue] }
        #expect(recorded.contains(["disabled", "token"]))
        #expect(recorded.contains(["banned", "first_factor"]))
        emulator.clock.advance(by: 61)
        try emulator.checkCanSignIn(try emulator.requireUser(in: "proj", id: "u-alice"))
    }

    @Test func anAccountsStateMayBeToldBeforeItsPassword() throws {
        let emulator = try makeEmulator()
        _ = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(disabled: true))
        let wrong = PasswordSignIn(identifier: .email("alice@example.com"), password: "nope", requireVerified: true)
        // By default only the right password hears the state (Cognito's way); GoTrue and Firebase tell it first.
        #expect(throws: AuthError.invalidCredentials) { try emulator.authenticate(in: "proj", wrong) }
        var first = wrong
        first.refusesStateFirst = true
        #expect(throws: AuthError.userDisabled) { try emulator.authenticate(in: "proj", first) }
        #expect(try failures(emulator).last?.detail["reason"] == "disabled")
        // Confirmation is still told only after the password: an unconfirmed user with a wrong password hears that.
        var bob = PasswordSignIn(identifier: .email("bob@example.com"), password: "nope", requireVerified: true)
        bob.refusesStateFirst = true
        #expect(throws: AuthError.invalidCredentials) { try emulator.authenticate(in: "proj", bob) }
    }

    @Test func aPasswordForAUserTheDialectFoundPassesTheSameGate() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        #expect(try emulator.authenticate(in: "proj", user: alice, password: "pw-alice").id == "u-alice")
        #expect(throws: AuthError.invalidCredentials) { try emulator.authenticate(in: "proj", user: alice, password: "nope") }
        #expect(throws: AuthError.invalidCredentials) { try emulator.authenticate(in: "proj", user: alice, method: "srp") { false } }
        #expect(try failures(emulator).map { $0.detail["method"] } == ["password", "srp"])
        #expect(try emulator.authenticate(in: "proj", user: alice, method: "srp") { true }.id == "u-alice")
        let disabled = try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(disabled: true))
        #expect(throws: AuthError.userDisabled) { try emulator.authenticate(in: "proj", user: disabled, password: "pw-alice") }
    }

    @Test func aRefreshOfADisabledUserIsRefusedByTheGate() throws {
        let emulator = try makeEmulator()
        let issued = try emulator.startSession(for: try emulator.requireUser(in: "proj", id: "u-alice"), method: "password") { _ in "token-one-aaaa" }
        try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(disabled: true))
        #expect(throws: AuthError.userDisabled) {
            try emulator.refresh(in: "proj", token: issued.refreshToken, policy: RefreshPolicy()) { _ in "token-two-bbbb" }
        }
        #expect(throws: AuthError.userDisabled) { try emulator.continueSession(in: "proj", token: issued.refreshToken, maxAge: nil) }
        #expect(try failures(emulator).filter { $0.detail["stage"] == "refresh" }.count == 2)
    }

    // MARK: Refresh tokens of ended sessions

    @Test func anEndedSessionsTokensAreUnknownWhereTheVendorDeletesSessions() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        let forgetting = RefreshPolicy(endedSessionsForgetTokens: true)
        let loggedOut = try emulator.startSession(for: alice, method: "password") { _ in "logged-out-aaaa" }
        try emulator.revokeSessions(in: "proj", userId: alice.id, .only(loggedOut.session.id), reason: "logout")
        #expect(throws: AuthError.refreshTokenNotFound) { try emulator.refresh(in: "proj", token: loggedOut.refreshToken, policy: forgetting) { _ in "x-aaaaaaaaaaaa" } }
        #expect(throws: AuthError.sessionNotFound) { try emulator.refresh(in: "proj", token: loggedOut.refreshToken, policy: RefreshPolicy()) { _ in "y-aaaaaaaaaaaa" } }
        // A family revoked for reuse answers as reuse, whichever of its tokens comes back.
        let reused = try emulator.startSession(for: alice, method: "password") { _ in "family-one-aaaa" }
        _ = try emulator.refresh(in: "proj", token: reused.refreshToken, policy: forgetting) { _ in "family-two-aaaa" }
        _ = try emulator.refresh(in: "proj", token: "family-two-aaaa", policy: forgetting) { _ in "family-three-a" }
        #expect(throws: AuthError.refreshTokenReused) { try emulator.refresh(in: "proj", token: reused.refreshToken, policy: forgetting) { _ in "z-aaaaaaaaaaaa" } }
        #expect(throws: AuthError.refreshTokenReused) { try emulator.refresh(in: "proj", token: "family-three-a", policy: forgetting) { _ in "w-aaaaaaaaaaaa" } }
    }

    // MARK: TOTP

    private func verifiedTOTP(_ emulator: Emulator) throws -> Factor {
        let factor = try emulator.enrollTOTP(in: "proj", userId: "u-alice", friendlyName: nil, maxFactors: 10)
        return try emulator.markFactorVerified(in: "proj", userId: "u-alice", id: factor.id, friendlyName: nil)
    }

    /// The factor limit is checked in the same transaction that adds the factor: concurrent enrolments
    /// cannot both take the last place (they were three lock acquisitions apart).
    @Test func concurrentEnrolmentsDoNotPassTheFactorLimit() throws {
        let emulator = try makeEmulator()
        let enrolled = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if (try? emulator.enrollTOTP(in: "proj", userId: "u-alice", friendlyName: nil, maxFactors: 1)) != nil {
                enrolled.withLock { $0 += 1 }
            }
        }
        #expect(enrolled.withLock { $0 } == 1)
        #expect(try emulator.factors(in: "proj", userId: "u-alice").count == 1)
    }

    @Test func aTOTPCodeIsGoodOnceAndOlderStepsAfterIt() throws {
        let emulator = try makeEmulator()
        let factor = try verifiedTOTP(emulator)
        let totp = try #require(factor.totp)
        let now = emulator.clock.now
        try emulator.verifyTOTP(in: "proj", factor: factor, code: totp.code(at: now))
        let spent = try emulator.requireFactor(in: "proj", userId: "u-alice", id: factor.id)
        #expect(throws: AuthError.codeReused) { try emulator.verifyTOTP(in: "proj", factor: spent, code: totp.code(at: now)) }
        // The previous step's code is within the drift window but older than the one used.
        #expect(throws: AuthError.codeReused) { try emulator.verifyTOTP(in: "proj", factor: spent, code: totp.code(at: now.addingTimeInterval(-30))) }
        #expect(throws: AuthError.mfaVerificationFailed) { try emulator.verifyTOTP(in: "proj", factor: spent, code: "000000" == totp.code(at: now) ? "111111" : "000000") }
        emulator.clock.advance(by: 30)
        try emulator.verifyTOTP(in: "proj", factor: spent, code: totp.code(at: emulator.clock.now))
        #expect(try failures(emulator).compactMap { $0.detail["reason"]?.stringValue } == ["mfa_code_reused", "mfa_code_reused", "mfa_code_invalid"])
    }

    @Test func aFactorReadBeforeItsCodeWasUsedCannotUseItAgain() throws {
        let emulator = try makeEmulator()
        let factor = try verifiedTOTP(emulator)
        let code = try #require(factor.totp).code(at: emulator.clock.now)
        try emulator.verifyTOTP(in: "proj", factor: factor, code: code)
        // `factor` still says no step was used: the store's conditional update catches the second use.
        #expect(throws: AuthError.codeReused) { try emulator.verifyTOTP(in: "proj", factor: factor, code: code) }
    }

    @Test func aFactorEnrolledWithItsFirstCodeHasThatCodeSpent() throws {
        let emulator = try makeEmulator()
        let secret = Emulator.newTOTPSecret(emulator.generator)
        let code = TOTP(secret: try #require(Base32.decode(secret))).code(at: emulator.clock.now)
        #expect(throws: AuthError.mfaVerificationFailed) {
            try emulator.enrollVerifiedTOTP(in: "proj", userId: "u-alice", secret: secret, code: "12345", friendlyName: nil, maxFactors: 5)
        }
        let factor = try emulator.enrollVerifiedTOTP(in: "proj", userId: "u-alice", secret: secret, code: code, friendlyName: "phone", maxFactors: 5)
        #expect(factor.verified && factor.friendlyName == "phone")
        #expect(throws: AuthError.codeReused) { try emulator.verifyTOTP(in: "proj", factor: factor, code: code) }
    }

    @Test func aChallengeAnsweredWithASpentCodeIsRefused() throws {
        let emulator = try makeEmulator()
        let factor = try verifiedTOTP(emulator)
        let code = try #require(factor.totp).code(at: emulator.clock.now)
        let first = try emulator.challenge(in: "proj", factor: factor, ip: nil)
        _ = try emulator.verifyChallenge(in: "proj", factor: factor, challengeId: first.id, ip: nil, expiry: 300, proof: .totp(code))
        let second = try emulator.challenge(in: "proj", factor: factor, ip: nil)
        let reread = try emulator.requireFactor(in: "proj", userId: "u-alice", id: factor.id)
        #expect(throws: AuthError.codeReused) {
            try emulator.verifyChallenge(in: "proj", factor: reread, challengeId: second.id, ip: nil, expiry: 300, proof: .totp(code))
        }
    }

    // MARK: Assurance levels

    @Test func aUserWithAVerifiedFactorChangesCredentialsOnlyFromAnAAL2Session() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        let session = try emulator.startSession(for: alice, method: "password") { _ in "aal-one-aaaaa" }.session
        try emulator.requireAssurance(.credentialChange, session: session)
        let unverified = try emulator.enrollTOTP(in: "proj", userId: alice.id, friendlyName: nil, maxFactors: 10)
        try emulator.requireAssurance(.credentialChange, session: session)
        try emulator.requireAssurance(.verifiedFactorRemoval, session: session, factor: unverified)
        let verified = try emulator.markFactorVerified(in: "proj", userId: alice.id, id: unverified.id, friendlyName: nil)
        for requirement in [AssuranceRequirement.credentialChange, .factorEnrollment] {
            #expect(throws: AuthError.insufficientAAL(requirement)) { try emulator.requireAssurance(requirement, session: session) }
        }
        #expect(throws: AuthError.insufficientAAL(.verifiedFactorRemoval)) {
            try emulator.requireAssurance(.verifiedFactorRemoval, session: session, factor: verified)
        }
        let elevated = try emulator.elevate(in: "proj", sessionId: session.id, method: "totp")
        for requirement in AssuranceRequirement.allCases { try emulator.requireAssurance(requirement, session: elevated, factor: verified) }
    }

    // MARK: Send cooldowns

    @Test func aCooldownReadsTheUsersStampAndKeepsTheRefusedMessage() throws {
        let emulator = try makeEmulator()
        let cooldown = SendCooldown(window: 60, per: .user(.recovery), source: "GOTRUE_SMTP_MAX_FREQUENCY")
        let message = OutgoingMessage(tenant: "proj", channel: .email, to: "alice@example.com", from: "x@y.z", subject: "Reset", text: "",
                                      purpose: .resetPassword)
        try emulator.checkCooldown(cooldown, for: message, userId: "u-alice")
        try emulator.markSent(.recovery, in: "proj", userId: "u-alice")
        emulator.clock.advance(by: 20)
        #expect(throws: AuthError.sendCooldown(.email, retryAfter: 40)) { try emulator.checkCooldown(cooldown, for: message, userId: "u-alice") }
        // Another kind's stamp is another clock.
        try emulator.checkCooldown(SendCooldown(window: 60, per: .user(.emailChange), source: "GOTRUE_SMTP_MAX_FREQUENCY"), for: message,
                                   userId: "u-alice")
        let kept = try #require(try emulator.messages(MessageFilter(list: ListFilter(tenant: "proj"))).first)
        #expect(kept.status == .suppressed && kept.reason?.hasPrefix("GOTRUE_SMTP_MAX_FREQUENCY") == true)
        emulator.clock.advance(by: 40)
        try emulator.checkCooldown(cooldown, for: message, userId: "u-alice")
    }

    /// GoTrue's `UpdatePassword`: a new password clears the stamps, so their cooldowns end with them, and retires the
    /// user's unused codes but MFA challenges'.
    @Test func aPasswordThatRetiresCodesEndsTheirCooldowns() throws {
        let emulator = try makeEmulator()
        let cooldown = SendCooldown(window: 60, per: .user(.recovery), source: "GOTRUE_SMTP_MAX_FREQUENCY")
        let message = OutgoingMessage(tenant: "proj", channel: .email, to: "alice@example.com", from: "x@y.z", text: "", purpose: .resetPassword)
        for purpose in [MessagePurpose.resetPassword, .mfa] {
            _ = try emulator.issueCode(in: "proj", CodeRequest(userId: "u-alice", purpose: purpose, channel: .email, target: "alice@example.com",
                                                               lifetime: 3600))
        }
        try emulator.markSent(.recovery, in: "proj", userId: "u-alice")
        var keeping = UserChanges(password: "another-pw")
        try emulator.updateUser(in: "proj", id: "u-alice", keeping)
        #expect(try emulator.requireUser(in: "proj", id: "u-alice").sentAt == [.recovery: emulator.clock.now])
        #expect(throws: AuthError.self) { try emulator.checkCooldown(cooldown, for: message, userId: "u-alice") }
        keeping.passwordRetiresCodes = true
        try emulator.updateUser(in: "proj", id: "u-alice", keeping)
        #expect(try emulator.requireUser(in: "proj", id: "u-alice").sentAt.isEmpty)
        try emulator.checkCooldown(cooldown, for: message, userId: "u-alice")
        #expect(try emulator.liveCodeTargets(in: "proj", userId: "u-alice", purpose: .resetPassword).isEmpty)
        #expect(try emulator.liveCodeTargets(in: "proj", userId: "u-alice", purpose: .mfa) == ["alice@example.com"])
    }

    @Test func aRecipientCooldownCountsPerNumberAndFlow() throws {
        let emulator = try makeEmulator()
        let cooldown = { (flow: String) in SendCooldown(window: 30, per: .recipient(flow: flow), source: "phone_resend_interval") }
        let text = OutgoingMessage(tenant: "proj", channel: .sms, to: "+15555550100", from: "x", text: "", purpose: .otp)
        try emulator.checkCooldown(cooldown("sign-in"), for: text, userId: nil)
        #expect(throws: AuthError.sendCooldown(.sms, retryAfter: 30)) { try emulator.checkCooldown(cooldown("sign-in"), for: text, userId: nil) }
        try emulator.checkCooldown(cooldown("mfa-sign-in"), for: text, userId: nil)
        emulator.clock.advance(by: 30)
        try emulator.checkCooldown(cooldown("sign-in"), for: text, userId: nil)
        #expect(try emulator.messages(MessageFilter(list: ListFilter(tenant: "proj"))).map(\.reason) == ["phone_resend_interval: the last one went less than 30 s ago"])
    }

    // MARK: Address changes

    @Test func aConfirmedAddressEndsAnonymityAndIsVerifiedOnItsIdentity() throws {
        let emulator = try makeEmulator()
        let anonymous = try emulator.createUser(in: "proj", NewUser(isAnonymous: true))
        try emulator.setPendingEmail(in: "proj", userId: anonymous.id, "new@example.com")
        let user = try emulator.confirmAddressChange(in: "proj", userId: anonymous.id, channel: .email, address: "new@example.com")
        #expect(!user.isAnonymous && user.email == "new@example.com" && user.emailVerifiedAt != nil && user.pendingEmail == nil)
        let identity = try #require(user.identities.first { $0.provider == "email" })
        #expect(identity.data["email_verified"] == true && identity.data["email"] == "new@example.com")
        let phoned = try emulator.confirmAddressChange(in: "proj", userId: anonymous.id, channel: .sms, address: "+15555550123")
        #expect(phoned.phone == "+15555550123" && phoned.phoneVerifiedAt != nil)
        #expect(phoned.identities.first { $0.provider == "phone" }?.data["phone_verified"] == true)
        #expect(throws: AuthError.emailTaken) {
            try emulator.confirmAddressChange(in: "proj", userId: anonymous.id, channel: .email, address: "ALICE@example.com")
        }
    }
}
