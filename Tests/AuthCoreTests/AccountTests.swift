import Foundation
import Testing
@testable import AuthCore

@Suite struct AccountTests {
    @Test func seedCreatesTenantsAndUsersWithHashedPasswords() throws {
        let emulator = try makeEmulator()
        #expect(try emulator.tenants().map(\.id) == ["proj", "other"])
        let alice = try #require(try emulator.user(in: "proj", .email("ALICE@example.com")))
        #expect(alice.id == "u-alice")
        #expect(alice.emailVerifiedAt != nil)
        #expect(alice.identities.map(\.provider) == ["email"])
        let hash = try #require(try emulator.passwordHash(in: "proj", userId: "u-alice"))
        #expect(!hash.contains("pw-alice"))
    }

    /// Deleting one user and clearing a tenant's accounts remove the same rows a user owns: clearing used to
    /// leave the users' devices, passkeys and OAuth consents behind, which nothing ever swept.
    @Test func deletingOneUserOrAllLeavesNothingTheyOwned() throws {
        let emulator = try makeEmulator()
        let now = emulator.clock.now
        for user in ["u-alice", "u-bob"] {
            _ = try emulator.registerDevice(Device(tenant: "proj", key: "dev-\(user)", userId: user, groupKey: "g", name: nil, remembered: true,
                                                   verifier: "v", lastIP: nil, createdAt: now, updatedAt: now, lastAuthenticatedAt: nil))
            _ = try emulator.db.withConnection { c in
                try c.run("INSERT INTO oauth_consents (tenant, user_id, client_id, scopes, granted_at) VALUES ('proj', ?, 'client', 'openid', 0)",
                          [.text(user)])
            }
        }
        func owned(_ user: String) throws -> Int {
            try emulator.db.withConnection { c in
                try Accounts.ownedTables.reduce(0) { total, table in
                    total + (try c.first("SELECT count(*) FROM \(table) WHERE tenant = 'proj' AND user_id = ?", [.text(user)])?.int(0) ?? 0)
                }
            }
        }
        #expect(try owned("u-bob") > 2)
        try emulator.deleteUser(in: "proj", id: "u-alice")
        #expect(try owned("u-alice") == 0)
        try emulator.deleteAllUsers(in: "proj")
        #expect(try owned("u-bob") == 0)
        #expect(try emulator.userCount(in: "proj") == 0)
    }

    @Test func emailsAreUniquePerTenantRegardlessOfCase() throws {
        let emulator = try makeEmulator()
        #expect(throws: AuthError.emailTaken) { try emulator.createUser(in: "proj", NewUser(email: "Alice@Example.com")) }
        #expect(try emulator.createUser(in: "other", NewUser(email: "alice@example.com")).tenant == "other")
    }

    @Test func aClashNamesTheAddressThatIsTaken() throws {
        let emulator = try makeEmulator()
        try emulator.createUser(in: "proj", NewUser(username: "carol"))
        #expect(throws: AuthError.invalidInput(field: "username", reason: "is taken")) { try emulator.createUser(in: "proj", NewUser(username: "carol")) }
        #expect(throws: AuthError.invalidInput(field: "id", reason: "is taken")) { try emulator.createUser(in: "proj", NewUser(id: "u-alice", email: "x@y.zz")) }
    }

    @Test func phonesAreNormalisedToE164AndUnique() throws {
        let emulator = try makeEmulator()
        let user = try emulator.createUser(in: "proj", NewUser(phone: "+1 (555) 555-0199"))
        #expect(user.phone == "+15555550199")
        #expect(throws: AuthError.phoneTaken) { try emulator.createUser(in: "proj", NewUser(phone: "15555550100")) }
        #expect(throws: AuthError.invalidPhone) { try emulator.createUser(in: "proj", NewUser(phone: "+0123")) }
        #expect(throws: AuthError.invalidEmail) { try emulator.createUser(in: "proj", NewUser(email: "not-an-email")) }
    }

    @Test(arguments: [("a@b", "a@b"), ("dev@localhost", "dev@localhost"), (" x@y.z\n", "x@y.z"), ("é@ü.de", "é@ü.de")])
    func emailsWithOneAtAndNoSpacesAreTaken(_ raw: String, _ kept: String) throws {
        #expect(try Identifiers.email(raw) == kept)
    }

    @Test(arguments: ["plain", "@b", "a@", "a@@b", "a@b@c", "a b@c", "a@b\tc", "a@b\u{A0}c", String(repeating: "a", count: 250) + "@b.com"])
    func otherEmailsAreRefused(_ raw: String) {
        #expect(throws: AuthError.invalidEmail) { try Identifiers.email(raw) }
    }

    @Test(arguments: [("+1 (555) 555-0199", "+15555550199"), ("447700900123", "+447700900123"), ("+12", "+12")])
    func phonesInE164AreTaken(_ raw: String, _ kept: String) throws {
        #expect(try Identifiers.phone(raw) == kept)
    }

    @Test(arguments: ["+0123", "+1", "+1234567890123456", "+12a4", "+١٢٣٤"])
    func otherPhonesAreRefused(_ raw: String) {
        #expect(throws: AuthError.invalidPhone) { try Identifiers.phone(raw) }
    }

    @Test func passwordSignInChecksThePasswordAndRecordsWhyItFailed() throws {
        let emulator = try makeEmulator()
        let user = try emulator.authenticate(in: "proj", PasswordSignIn(identifier: .email("alice@example.com"), password: "pw-alice", requireVerified: true))
        #expect(user.id == "u-alice")
        #expect(throws: AuthError.invalidCredentials) {
            try emulator.authenticate(in: "proj", PasswordSignIn(identifier: .email("alice@example.com"), password: "nope", requireVerified: true))
        }
        #expect(throws: AuthError.invalidCredentials) {
            try emulator.authenticate(in: "proj", PasswordSignIn(identifier: .email("nobody@example.com"), password: "x", requireVerified: true))
        }
        let reasons = try emulator.events(type: "signin.failed").compactMap { $0.detail["reason"]?.stringValue }
        #expect(reasons == ["unknown_user", "wrong_password"])
    }

    @Test func unverifiedEmailIsRefusedOnlyWhenTheDialectAsks() throws {
        let emulator = try makeEmulator()
        let attempt = PasswordSignIn(identifier: .email("bob@example.com"), password: "pw-bob", requireVerified: true)
        #expect(throws: AuthError.emailNotConfirmed) { try emulator.authenticate(in: "proj", attempt) }
        var lenient = attempt
        lenient.requireVerified = false
        #expect(try emulator.authenticate(in: "proj", lenient).id == "u-bob")
    }

    @Test func disabledUsersCannotSignIn() throws {
        let emulator = try makeEmulator()
        try emulator.createUser(in: "proj", NewUser(email: "off@example.com", password: "pw", emailVerified: true, disabled: true))
        #expect(throws: AuthError.userDisabled) {
            try emulator.authenticate(in: "proj", PasswordSignIn(identifier: .email("off@example.com"), password: "pw", requireVerified: true))
        }
    }

    @Test func sessionsStoreOnlyTheRefreshTokenHash() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        let issued = try emulator.startSession(for: alice, method: "password", origin: RequestOrigin(ip: "10.0.0.1", userAgent: "tests")) { $0.lowerAlphanumeric(12) }
        #expect(issued.refreshToken.count == 12)
        #expect(issued.session.amr.map(\.method) == ["password"])
        #expect(issued.session.ip == "10.0.0.1")
        let stored = try emulator.db.withConnection { try $0.query("SELECT token_hash FROM refresh_tokens").compactMap { $0.string("token_hash") } }
        #expect(stored == [Emulator.tokenHash(issued.refreshToken)])
        #expect(try emulator.user(in: "proj", id: "u-alice")?.lastSignInAt == emulator.clock.now)
    }

    @Test func issuingACodeRetiresTheEarlierOneForTheSamePurpose() throws {
        let emulator = try makeEmulator()
        let request = CodeRequest(userId: "u-bob", purpose: .verifyEmail, channel: .email, target: "bob@example.com", lifetime: 60)
        let first = try emulator.issueCode(in: "proj", request)
        let second = try emulator.issueCode(in: "proj", request)
        #expect(first.code.count == 6)
        #expect(second.expiresAt == emulator.clock.now.addingTimeInterval(60))
        let live = try emulator.db.withConnection { try $0.query("SELECT id FROM codes WHERE used_at IS NULL").compactMap { $0.string("id") } }
        #expect(live == [second.id])
    }

    @Test func deletingAUserRemovesItsIdentitiesAndSessions() throws {
        let emulator = try makeEmulator()
        let alice = try emulator.requireUser(in: "proj", id: "u-alice")
        _ = try emulator.startSession(for: alice, method: "password") { $0.lowerAlphanumeric(12) }
        try emulator.deleteUser(in: "proj", id: "u-alice")
        #expect(try emulator.user(in: "proj", id: "u-alice") == nil)
        #expect(try emulator.sessions(in: "proj", userId: "u-alice").isEmpty)
        #expect(throws: AuthError.userNotFound) { try emulator.deleteUser(in: "proj", id: "u-alice") }
    }

    @Test func passwordPolicyReportsEveryReason() {
        let policy = PasswordPolicy(minLength: 8, requiredCharacterSets: ["0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"])
        #expect(throws: AuthError.weakPassword(reasons: ["length", "characters"],
                                               message: "Password should be at least 8 characters. Password should contain at least one character of each: 0123456789, ABCDEFGHIJKLMNOPQRSTUVWXYZ.")) {
            try policy.check("abc")
        }
        #expect(throws: Never.self) { try policy.check("Abcdefg1") }
    }

    /// Each vendor counts a password's length its own way: GoTrue in UTF-8 bytes (and refuses more than 72), the Firebase
    /// emulator in UTF-16 code units, Cognito in characters. A set's characters count only inside the password when
    /// `countedOnlyInside` says so (Cognito's space).
    @Test func passwordLengthIsCountedInTheVendorsUnit() {
        let accented = "éééé" // 4 characters, 8 bytes, 4 UTF-16 units
        let emoji = "😀😀😀" // 3 characters, 12 bytes, 6 UTF-16 units
        #expect(PasswordPolicy(minLength: 6, unit: .characters).shortfalls(accented) == [.tooShort])
        #expect(PasswordPolicy(minLength: 6, unit: .utf8Bytes).shortfalls(accented) == [])
        #expect(PasswordPolicy(minLength: 6, unit: .utf16).shortfalls(emoji) == [])
        #expect(PasswordPolicy(minLength: 6, unit: .utf16).shortfalls(accented) == [.tooShort])
        let gotrue = PasswordPolicy(minLength: 6, maxLength: 72, unit: .utf8Bytes)
        #expect(gotrue.shortfalls(String(repeating: "é", count: 36)) == [])
        #expect(gotrue.shortfalls(String(repeating: "é", count: 37)) == [.tooLong])
        #expect(throws: AuthError.invalidInput(field: "Password", reason: "cannot be longer than 72 characters")) {
            try gotrue.check(String(repeating: "a", count: 73))
        }
        let spaced = PasswordPolicy(minLength: 1, requiredCharacterSets: ["abc", "!? "], countedOnlyInside: [" "])
        #expect(spaced.shortfalls(" a ") == [.missing(index: 1)])
        #expect(spaced.shortfalls("a b") == [])
        #expect(spaced.shortfalls("xyz") == [.missing(index: 0), .missing(index: 1)])
    }
}
