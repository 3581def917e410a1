import ArgumentParser
import AuthCore
import Foundation
import Synchronization

/// `fauxth bench-signing` (hidden): how many Cognito token pairs this machine can sign per second, on every
/// core, the way the server signs them: `JWS.sign` of an ID token and an access token with two freshly made
/// 2048-bit RS256 keys (as a pool's are), through the system's OpenSSL 3 when it loads and BoringSSL
/// otherwise. A Cognito password sign-in pays exactly these two signatures, so the rate is the bound its
/// throughput is measured against (`scripts/bench`). Prints one JSON object.
///
/// A command of the release binary rather than a control endpoint or a benchmark target: it runs the very
/// code and build the server runs, no HTTP cost blurs the figure, and the server's API gains nothing a user
/// could call by mistake.
struct SigningBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-signing",
        abstract: "Measure how many Cognito sign-ins' RS256 signatures (an ID and an access token) this machine makes per second.",
        shouldDisplay: false)

    @Option(help: "Signing threads (default: one per core).")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: ArgumentHelp("How long to sign.", valueName: "seconds"))
    var seconds: Double = 3

    func validate() throws {
        guard threads >= 1, seconds > 0 else { throw ValidationError("--threads and --seconds: expected positive numbers") }
    }

    func run() throws {
        // The claims' times and ids come from an emulator clock and generator, as the server's do.
        let source = TokenPair.Source(clock: EmulatorClock(), generator: Generator())
        let keys = (id: try SigningKey.generate(.RS256, generator: source.generator),
                    access: try SigningKey.generate(.RS256, generator: source.generator))
        // The first signature loads libcrypto and warms its tables: not part of the rate.
        _ = try TokenPair.sign(keys, source)
        let signed = Tally()
        let begin = ContinuousClock.now
        let deadline = begin + .milliseconds(Int(seconds * 1000))
        try Self.onThreads(threads) {
            var pairs = 0
            while ContinuousClock.now < deadline {
                _ = try TokenPair.sign(keys, source)
                pairs += 1
            }
            signed.pairs.add(pairs, ordering: .relaxed)
        }
        let elapsed = (ContinuousClock.now - begin) / .seconds(1)
        let total = signed.pairs.load(ordering: .relaxed)
        let report: JSON = [
            "threads": .int(threads), "seconds": .double(elapsed), "sign_ins": .int(total),
            "sign_ins_per_s": .double(Double(total) / elapsed), "signatures_per_s": .double(Double(2 * total) / elapsed),
            "library": .string(keys.id.signsWithSystemCrypto ? "system OpenSSL 3" : "BoringSSL"),
        ]
        print(report.serialized())
    }

    /// The pairs the signing threads signed, together.
    final class Tally: Sendable {
        let pairs = Atomic<Int>(0)
    }

    /// The first error a thread met.
    final class FirstError: Sendable {
        let error = Mutex<(any Error)?>(nil)
    }

    /// Runs `body` on `count` threads at once and waits for all of them; the first error is rethrown.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable () throws -> Void) throws {
        let failure = FirstError()
        let done = DispatchGroup()
        for _ in 0..<count {
            done.enter()
            Thread {
                do { try body() } catch { failure.error.withLock { $0 = $0 ?? error } }
                done.leave()
            }.start()
        }
        done.wait()
        if let error = failure.error.withLock({ $0 }) { throw error }
    }
}

/// The two tokens of a Cognito password sign-in, with claims of the size Cognito's have (see CognitoTokens).
enum TokenPair {
    /// Where the claims' times and ids come from.
    struct Source: Sendable {
        let clock: EmulatorClock
        let generator: Generator
    }

    static func sign(_ keys: (id: SigningKey, access: SigningKey), _ source: Source) throws -> (id: String, access: String) {
        let now = Int(source.clock.now.timeIntervalSince1970)
        let common: [String: JSON] = [
            "sub": "6f1c1f1e-8a3b-4c55-9e0f-1d2c3b4a5e6f", "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_fauxth001",
            "origin_jti": .string(source.generator.uuid()), "event_id": .string(source.generator.uuid()),
            "auth_time": .int(now), "iat": .int(now), "exp": .int(now + 3600), "jti": .string(source.generator.uuid()),
        ]
        let id = common.merging(["aud": "fauxthlocalclient000000001", "token_use": "id", "cognito:username": "alice",
                                 "email": "alice@example.com", "email_verified": true]) { $1 }
        let access = common.merging(["client_id": "fauxthlocalclient000000001", "token_use": "access",
                                     "scope": "aws.cognito.signin.user.admin", "username": "alice"]) { $1 }
        return (try JWS.sign(id, with: keys.id), try JWS.sign(access, with: keys.access))
    }
}
