import Crypto
import Foundation
import Synchronization

/// What an emulator is built from. Tests pass a frozen clock and a seeded generator.
public struct EmulatorOptions: Sendable {
    public var clock: EmulatorClock
    public var generator: Generator
    public var passwordHasher: PasswordHasher
    public var seed: Seed
    /// Per dialect, the extra credentials a password implies (Cognito's SRP verifier), stored whenever a
    /// password is set, seeds included.
    public var credentialDerivers: [Dialect: CredentialDeriver]
    /// Per dialect, the vendor's own lockout and rate-limit behaviour for a tenant, under its
    /// `policies` setting. A dialect without one gets only what the setting asks for.
    public var policyDerivers: [Dialect: PolicyDeriver]
    /// Per dialect, which addresses of a tenant belong to one user only. A dialect without a rule keeps
    /// both emails and phones unique; Cognito makes them unique only where a pool signs in with them.
    public var addressUniqueness: [Dialect: AddressUniqueness]
    /// How much history is kept and when spent rows are swept.
    public var retention: Retention
    /// Per dialect, a tenant's WebAuthn relying party, for the virtual authenticator's defaults.
    public var webAuthn: [Dialect: WebAuthnSettingsResolver]
    /// Where the store's journal is made when nothing else takes the store (`Database.deferWrite`): the server runs
    /// it on an event loop; without one, a queue of its own.
    public var journalScheduler: JournalScheduler?

    public init(clock: EmulatorClock = EmulatorClock(), generator: Generator = Generator(),
                passwordHasher: PasswordHasher = PasswordHasher(), seed: Seed = Seed(),
                credentialDerivers: [Dialect: CredentialDeriver] = [:], policyDerivers: [Dialect: PolicyDeriver] = [:],
                addressUniqueness: [Dialect: AddressUniqueness] = [:], retention: Retention = Retention(),
                webAuthn: [Dialect: WebAuthnSettingsResolver] = [:], journalScheduler: JournalScheduler? = nil) {
        self.clock = clock; self.generator = generator; self.passwordHasher = passwordHasher; self.seed = seed
        self.credentialDerivers = credentialDerivers; self.policyDerivers = policyDerivers
        self.addressUniqueness = addressUniqueness; self.retention = retention; self.webAuthn = webAuthn
        self.journalScheduler = journalScheduler
    }
}

/// Which addresses of a tenant one user at most may have (`.email`, `.sms` for the phone), and when.
public struct UniqueAddresses: Sendable, Equatable {
    /// One user's whether verified or not: what users sign in with.
    public var always: Set<Channel>
    /// One user's once verified, as Cognito's aliases are: any number of users may have the address unverified, and
    /// verifying it for one fails while another has it verified, unless it moves (`takeVerifiedAddresses`).
    public var whenVerified: Set<Channel>

    public init(always: Set<Channel> = [], whenVerified: Set<Channel> = []) {
        self.always = always; self.whenVerified = whenVerified
    }

    /// Both addresses always one user's: Supabase's and Firebase's rule, and the one without a dialect's.
    public static let both = UniqueAddresses(always: [.email, .sms])
}

/// A tenant's `UniqueAddresses`.
public typealias AddressUniqueness = @Sendable (Tenant) -> UniqueAddresses

/// Derives credentials from a plaintext password for a user of a tenant: kind → secret.
public typealias CredentialDeriver = @Sendable (_ tenant: Tenant, _ userId: String, _ username: String?, _ password: String,
                                                _ generator: Generator) -> [String: String]

/// The core: every tenant's accounts, sessions, codes, outbox, deep links and events, in one in-memory
/// SQLite database, with the clock and generator they are made with. Knows no HTTP and no vendor; the
/// dialects call it. Its operations live in `Emulator+<Family>.swift` files.
public final class Emulator: Sendable {
    public let clock: EmulatorClock
    public let generator: Generator
    public let passwordHasher: PasswordHasher
    /// The live feed of events, messages and deep links (the console's stream, long-polls, NDJSON logs).
    public let feed = Feed()
    /// Signals that tenants may have come or gone (created, deleted, a reset, a snapshot restored).
    public let tenantWatch = TenantWatch()
    /// The highest sequence number of an event published on the feed.
    let publishedSequence = Atomic<Int>(0)
    public var lastEventSequence: Int { publishedSequence.load(ordering: .relaxed) }
    /// The seed this emulator started from; `reset` returns to it.
    public let seed: Seed
    /// Rate-limit windows on the emulator clock.
    let rateLimiter = RateLimiter()
    /// Failed attempts and lockouts on the emulator clock.
    let lockouts = LockoutBook()
    /// RSA keys the dialects sign with.
    public let keyring = Keyring()
    /// Fault rules the server applies to the dialects' requests.
    public let faults: FaultEngine
    /// The app's hooks: how they are sent, how each dialect keeps them, the calls a user may replay.
    public let hooks = Hooks()
    /// How much history is kept and when spent rows are swept (see `sweep`).
    public let retention: Retention
    /// When the last sweep ran, on the emulator clock (nil until the first event).
    let lastSweep = Locked<Date?>(nil)
    let credentialDerivers: [Dialect: CredentialDeriver]
    let policyDerivers: [Dialect: PolicyDeriver]
    let addressUniqueness: [Dialect: AddressUniqueness]
    let webAuthnResolvers: [Dialect: WebAuthnSettingsResolver]
    let policyCache = Mutex<[String: (generation: Int, policies: TenantPolicies)]>([:])
    /// What the last rotations left, by the hash of each session's live token and of its parent (`KeptRotation`): the
    /// next refresh of either answers without the store, and a retry with the parent gets the live token's text back
    /// (`refresh`). Memory only: snapshots keep hashes, never usable tokens.
    let keptRotations = Locked<[String: KeptRotation]>([:])
    /// Password and hash pairs seen to match (see `verifyPassword`).
    let verifiedPasswords = Locked<Set<SHA256.Digest>>([])
    /// Tenants as last read, so a request does not parse its tenant's settings again; every tenant
    /// write moves the generation on, and a read that raced a write is not kept.
    let tenantCache = Locked(TenantCache())
    /// What a sign-in reads, kept until an account table changes (`ReadCache`): a user and password hash by address,
    /// a user's password hash, a user's factors.
    let signInReads = ReadCache<(user: User, hash: String?)?>(.accounts)
    let passwordReads = ReadCache<String?>(.accounts)
    let factorReads = ReadCache<[Factor]>(.accounts)
    /// What a refresh of a token that does not rotate reads (`continueSession`), and the tenant of a token, by its hash.
    let refreshReads = ReadCache<KeptRefresh?>(.accountsAndSessions)
    let tokenTenantReads = ReadCache<String?>(.accountsAndSessions)
    /// A user by id as a rotating refresh shows it, sign-in stamps included (`refresh`).
    let userReads = ReadCache<User?>(.accountsAsStamped)

    let db: Database
    /// The state right after seeding, in a shared in-memory database so a tenant-scoped reset can
    /// `ATTACH` it and copy that tenant's rows back.
    let seedState: Database
    let seedStateURI: String
    /// In-memory snapshots by name, each on a shared memdb name so one tenant can be restored from it by attaching it.
    let namedSnapshots = Mutex<[String: (database: Database, uri: String)]>([:])

    public init(_ options: EmulatorOptions = EmulatorOptions()) throws {
        clock = options.clock
        generator = options.generator
        passwordHasher = options.passwordHasher
        seed = options.seed
        credentialDerivers = options.credentialDerivers
        policyDerivers = options.policyDerivers
        addressUniqueness = options.addressUniqueness
        retention = options.retention
        webAuthnResolvers = options.webAuthn
        faults = FaultEngine(clock: options.clock, generator: options.generator)
        db = try Database(journalScheduler: options.journalScheduler)
        // On memdb like the store (whose connection ATTACHes it with its own VFS); the leading `/` shares it
        // between the two connections, and the counter keeps emulators in one process apart.
        seedStateURI = "file:/fauxth-seed-\(Emulator.instanceCounter.add(1, ordering: .relaxed).newValue)?vfs=memdb"
        seedState = try Database(path: seedStateURI)
        try db.withConnection { try Schema.create($0) }
        try apply(options.seed)
        try db.copy(into: seedState)
    }

    static let instanceCounter = Atomic<Int>(0)

    /// The schema version this build reads and writes.
    public static var schemaVersion: Int { Schema.version }

    /// Makes the current state the one `reset` returns to (after imports that extend the seed).
    public func captureSeedState() throws {
        try db.copy(into: seedState)
    }

    /// Back to the seeded state: everything, or only `tenant`'s rows, with the rate windows and lockouts
    /// of everything, or of that tenant only.
    public func reset(tenant: String? = nil) throws {
        if let tenant {
            try resetTenant(tenant)
            tenantsChanged()
            try forgetTransientState(in: tenant)
        } else {
            try db.replaceContents(withCopyOf: seedState)
            try continueEventNumbering()
            // Rules a test added go; the ones the server started with come back with fresh counters.
            faults.restoreStartupRules()
            clearTransientState()
        }
        record(.emulatorReset, tenant: tenant)
    }

    private func resetTenant(_ tenant: String) throws {
        try db.withConnection { c in try Tenants.restore(c, id: tenant, from: seedStateURI) }
    }

    /// A new unique id.
    func newID() -> String { generator.uuid() }

    /// After the state was replaced whole (a reset, a restore, a load): events go on numbering after the last one
    /// published (`History.continueNumbering`).
    func continueEventNumbering() throws {
        try db.withConnection { c in try History.continueNumbering(c, after: lastEventSequence) }
    }
}
