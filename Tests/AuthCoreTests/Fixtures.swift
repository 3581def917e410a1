import Foundation
@testable import AuthCore

/// A fresh core for one test: frozen clock, seeded generator, one-round hashing, one Supabase tenant
/// with a verified and an unverified user.
func makeEmulator(seed: Seed = sampleSeed, generatorSeed: UInt64 = 7) throws -> Emulator {
    try Emulator(EmulatorOptions(clock: EmulatorClock(frozenAt: Date(timeIntervalSince1970: 1_767_225_600)),
                                 generator: Generator(seed: generatorSeed), passwordHasher: PasswordHasher(rounds: 1), seed: seed))
}

let sampleSeed = Seed(tenants: [
    Seed.TenantSeed(id: "proj", dialect: .supabase, name: "Project", settings: ["gotrue_env": ["GOTRUE_JWT_SECRET": "s"]], users: [
        Seed.UserSeed(id: "u-alice", email: "alice@example.com", phone: nil, username: nil, password: "pw-alice", emailVerified: true,
                      phoneVerified: false, disabled: false, userMetadata: ["name": "Alice"], appMetadata: [:]),
        Seed.UserSeed(id: "u-bob", email: "bob@example.com", phone: "+15555550100", username: nil, password: "pw-bob",
                      emailVerified: false, phoneVerified: false, disabled: false, userMetadata: [:], appMetadata: [:]),
    ]),
    Seed.TenantSeed(id: "other", dialect: .supabase, name: nil, settings: [:], users: []),
])

/// A path in a fresh temporary directory.
func temporaryPath(_ name: String) -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name).path
}
