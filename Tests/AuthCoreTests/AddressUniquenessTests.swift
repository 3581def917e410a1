import Foundation
import Testing
@testable import AuthCore

/// Which addresses a tenant keeps to one user: both by default (Supabase, Firebase), as its dialect's
/// rule says otherwise (a Cognito pool: only the ones it signs in with or makes aliases).
@Suite struct AddressUniquenessTests {
    /// An emulator whose `cognito` tenants keep `unique` addresses unique, with one such tenant `pool`
    /// beside the sample seed's Supabase tenant `proj`.
    static func emulator(unique: UniqueAddresses) throws -> Emulator {
        let emulator = try Emulator(EmulatorOptions(clock: EmulatorClock(frozenAt: Date(timeIntervalSince1970: 1_767_225_600)),
                                                    generator: Generator(seed: 24), passwordHasher: PasswordHasher(rounds: 1), seed: sampleSeed,
                                                    addressUniqueness: [.cognito: { _ in unique }]))
        try emulator.createTenant(id: "pool", dialect: .cognito, name: "Pool", settings: [:])
        return emulator
    }

    @Test func withoutARuleEmailAndPhoneBelongToOneUser() throws {
        let emulator = try Self.emulator(unique: UniqueAddresses())
        #expect(throws: AuthError.emailTaken) { try emulator.createUser(in: "proj", NewUser(email: "ALICE@example.com")) }
        #expect(throws: AuthError.phoneTaken) { try emulator.createUser(in: "proj", NewUser(phone: "+15555550100")) }
        let carol = try emulator.createUser(in: "proj", NewUser(email: "carol@example.com"))
        #expect(throws: AuthError.emailTaken) { try emulator.updateUser(in: "proj", id: carol.id, UserChanges(email: "alice@example.com")) }
        #expect(throws: AuthError.phoneTaken) { try emulator.updateUser(in: "proj", id: carol.id, UserChanges(phone: "+15555550100")) }
        #expect(throws: AuthError.emailTaken) { try emulator.setPendingEmail(in: "proj", userId: carol.id, "alice@example.com") }
        #expect(throws: AuthError.phoneTaken) { try emulator.setPendingPhone(in: "proj", userId: carol.id, "+15555550100") }
        // A user keeps its own address through an update.
        try emulator.updateUser(in: "proj", id: "u-alice", UserChanges(email: "Alice@Example.com", userMetadata: ["k": "v"]))
    }

    @Test func aTenantWhoseRuleFreesTheAddressesLetsUsersShareThem() throws {
        let emulator = try Self.emulator(unique: UniqueAddresses())
        let first = try emulator.createUser(in: "pool", NewUser(email: "family@example.com", phone: "+15555550199"))
        let second = try emulator.createUser(in: "pool", NewUser(email: "FAMILY@example.com", phone: "+15555550199"))
        let third = try emulator.createUser(in: "pool", NewUser(email: "third@example.com"))
        try emulator.updateUser(in: "pool", id: third.id, UserChanges(email: "family@example.com", phone: "+15555550199"))
        try emulator.setPendingEmail(in: "pool", userId: third.id, "family@example.com")
        #expect(try emulator.users(in: "pool", having: .email("family@example.com")).map(\.id) == [first.id, second.id, third.id])
        #expect(try emulator.users(in: "pool", having: .phone("+15555550199")).map(\.id) == [first.id, second.id, third.id])
        #expect(try emulator.user(in: "pool", .email("family@example.com"))?.id == first.id, "a single lookup answers the oldest")
    }

    @Test func aRuleMayKeepOneAddressUnique() throws {
        let emulator = try Self.emulator(unique: UniqueAddresses(always: [.sms]))
        try emulator.createUser(in: "pool", NewUser(email: "family@example.com", phone: "+15555550199"))
        try emulator.createUser(in: "pool", NewUser(email: "family@example.com"))
        #expect(throws: AuthError.phoneTaken) { try emulator.createUser(in: "pool", NewUser(email: "other@example.com", phone: "+15555550199")) }
        #expect(try emulator.userCount(in: "pool") == 2)
    }

    /// Codes go to an address but belong to a user: one user's code does not retire another's at the same
    /// address, and a code checked for a user is only that user's.
    @Test func codesToASharedAddressStayTheirUsers() throws {
        let emulator = try Self.emulator(unique: UniqueAddresses())
        let ann = try emulator.createUser(in: "pool", NewUser(email: "family@example.com"))
        let ben = try emulator.createUser(in: "pool", NewUser(email: "family@example.com"))
        func issue(_ user: User) throws -> String {
            try emulator.issueCode(in: "pool", CodeRequest(userId: user.id, purpose: .verifyEmail, channel: .email, target: "family@example.com",
                                                           lifetime: 600)).code
        }
        let annCode = try issue(ann)
        let benCode = try issue(ben)
        #expect(throws: AuthError.wrongCode) {
            try emulator.consumeCode(in: "pool", purposes: [.verifyEmail], .code(benCode, target: "family@example.com"), forUser: ann.id)
        }
        #expect(try emulator.consumeCode(in: "pool", purposes: [.verifyEmail], .code(annCode, target: "family@example.com"), forUser: ann.id).userId == ann.id)
        #expect(try emulator.consumeCode(in: "pool", purposes: [.verifyEmail], .code(benCode, target: "family@example.com"), forUser: ben.id).userId == ben.id)
    }

    /// Cognito's aliases: users share an unverified address; verifying it is refused while another user has it
    /// verified, or moves it (the other user's stays, unverified) when the change says so.
    @Test func anAddressUniqueWhenVerifiedIsClaimedByVerifyingIt() throws {
        let emulator = try Self.emulator(unique: UniqueAddresses(whenVerified: [.email, .sms]))
        let ann = try emulator.createUser(in: "pool", NewUser(email: "family@example.com", emailVerified: true))
        let ben = try emulator.createUser(in: "pool", NewUser(email: "FAMILY@example.com", phone: "+15555550199"))
        #expect(throws: AuthError.emailTaken) { try emulator.updateUser(in: "pool", id: ben.id, UserChanges(emailVerified: true)) }
        #expect(throws: AuthError.emailTaken) {
            try emulator.createUser(in: "pool", NewUser(email: "family@example.com", emailVerified: true))
        }
        #expect(throws: AuthError.emailTaken) {
            try emulator.confirmAddressChange(in: "pool", userId: ben.id, channel: .email, address: "family@example.com")
        }
        // An address nobody else has verified is claimed; a verified phone is claimed the same way.
        try emulator.updateUser(in: "pool", id: ben.id, UserChanges(phoneVerified: true))
        #expect(throws: AuthError.phoneTaken) {
            try emulator.createUser(in: "pool", NewUser(phone: "+15555550199", phoneVerified: true))
        }
        var moving = UserChanges(emailVerified: true)
        moving.takeVerifiedAddresses = true
        try emulator.updateUser(in: "pool", id: ben.id, moving)
        #expect(try emulator.requireUser(in: "pool", id: ben.id).emailVerifiedAt != nil)
        let left = try emulator.requireUser(in: "pool", id: ann.id)
        #expect(left.email == "family@example.com" && left.emailVerifiedAt == nil)
        var new = NewUser(email: "family@example.com", emailVerified: true)
        new.takeVerifiedAddresses = true
        let cy = try emulator.createUser(in: "pool", new)
        #expect(try emulator.users(in: "pool", having: .email("family@example.com")).filter { $0.emailVerifiedAt != nil }.map(\.id) == [cy.id])
    }
}
