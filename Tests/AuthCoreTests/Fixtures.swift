import Foundation
import Testing
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

/// A path in a fresh temporary directory, inside this test process's own, which goes when the process ends: one left
/// per test, the snapshots of every run piled up in /tmp (a gigabyte over a day of runs).
func temporaryPath(_ name: String) -> String {
    let directory = testRoot.appendingPathComponent(UUID().uuidString)
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name).path
}

private let testRoot: URL = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("fauxth-tests-\(UUID().uuidString)")
    atexit { removeTestRoot() }
    return root
}()

private func removeTestRoot() { try? FileManager.default.removeItem(at: testRoot) }

/// Runs `body` on another thread while the test holds `database`'s connection, having run `inside` on it first;
/// answers what `body` answered if it finished while the store was still held, nil if it waited for the store
/// (then it finishes once the store is let go, so the test fails rather than hangs).
func whileHeld<T: Sendable>(_ database: Database, inside: @escaping @Sendable (borrowing Connection) throws -> Void = { _ in },
                             _ body: @escaping @Sendable () throws -> T) throws -> T? {
    let held = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
    let holder = DispatchSemaphore(value: 0)
    let insideError = Locked<(any Error)?>(nil)
    DispatchQueue.global().async {
        _ = try? database.withConnection { c in
            do { try inside(c) } catch { insideError.withLock { $0 = error } }
            held.signal()
            letGo.wait()
        }
        holder.signal()
    }
    held.wait()
    let result = Locked<Result<T, any Error>?>(nil)
    DispatchQueue.global().async {
        result.withLock { $0 = Result { try body() } }
        finished.signal()
    }
    let inTime = finished.wait(timeout: .now() + 10) == .success
    letGo.signal()
    holder.wait()
    if !inTime { finished.wait() }
    if let error = insideError.withLock({ $0 }) { throw error }
    let answer = try #require(result.withLock { $0 }).get()
    return inTime ? answer : nil
}
