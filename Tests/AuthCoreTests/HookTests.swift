import Foundation
import Synchronization
import Testing
@testable import AuthCore

/// Counts signatures made, so a test can tell a replay was signed again.
final class HookSignCounter: Sendable {
    let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// A transport that answers every call the same way and counts what it was sent.
private final class RecordingTransport: HookTransport {
    let sent = Mutex<[[(name: String, value: String)]]>([])
    let answer: HookOutcome

    init(answer: HookOutcome) { self.answer = answer }

    func send(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> HookOutcome {
        sent.withLock { $0.append(headers) }
        return answer
    }
}

@Suite struct HookTests {
    static func request(signs counter: HookSignCounter = HookSignCounter()) -> HookRequest {
        HookRequest(dialect: .supabase, tenant: "proj", point: "custom_access_token", url: "http://127.0.0.1:1/hook", json: ["a": 1],
                    timeout: .seconds(5), identifier: "alice@example.com",
                    headers: [(name: "authorization", value: "Bearer secret")],
                    sign: { _, _ in
                        [(name: "webhook-signature", value: "v1,sig\(counter.next())")]
                    }, secretHeaders: ["authorization"])
    }

    @Test func aCallIsRecordedWithItsSecretsHiddenAndItsAnswer() async throws {
        let emulator = try makeEmulator()
        emulator.hooks.transport = RecordingTransport(answer: .answered(status: 200, contentType: "application/json", body: Array(#"{"ok":true}"#.utf8)))
        let outcome = await emulator.callHook(Self.request())
        #expect(outcome.json == ["ok": true])
        let event = try #require(try emulator.events(type: "hook.called").first)
        #expect(event.detail["outcome"] == "answered")
        #expect(event.detail["request"]?["headers"]?["authorization"] == "[redacted]")
        #expect(event.detail["request"]?["body"] == ["a": 1])
        #expect(event.detail["response"]?["status"] == 200)
    }

    @Test func theSignatureIsMadeAtTheWallClocksTimeNotTheEmulatorsFrozenOne() async throws {
        let wall = Date(timeIntervalSince1970: 1_800_000_000)
        let emulator = try Emulator(EmulatorOptions(clock: EmulatorClock(frozenAt: Date(timeIntervalSince1970: 0), wallClock: { wall }),
                                                    generator: Generator(seed: 1), passwordHasher: PasswordHasher(rounds: 1)))
        let signedAt = Mutex<Date?>(nil)
        var request = Self.request()
        request.sign = { _, at in
            signedAt.withLock { $0 = at }
            return []
        }
        _ = await emulator.callHook(request)
        #expect(signedAt.withLock { $0 } == wall)
    }

    @Test func withoutATransportEveryCallIsUnreachable() async throws {
        let emulator = try makeEmulator()
        guard case .unreachable = await emulator.callHook(Self.request()) else { Issue.record("expected unreachable"); return }
    }

    @Test(arguments: [
        (["type": "error", "error": "timeout_error"] as JSON, HookOutcome.timedOut),
        (["type": "error", "error": "server_error"] as JSON, .answered(status: 500, contentType: "application/json", body: Array(#"{"error":{"message":"Internal Server Error"}}"#.utf8))),
        (["type": "response", "status": 200, "headers": ["content-type": "application/json"], "body": "not json"] as JSON,
         .answered(status: 200, contentType: "application/json", body: Array("not json".utf8))),
        (["type": "reset"] as JSON, .unreachable("connection reset (fault rule)")),
    ])
    func aFaultRuleOnTheHookPointDecidesWhatTheHookDoes(effect: JSON, expected: HookOutcome) async throws {
        let emulator = try makeEmulator()
        let transport = RecordingTransport(answer: .answered(status: 200, contentType: nil, body: []))
        emulator.hooks.transport = transport
        emulator.faults.add([try emulator.faults.parse(["match": ["operation": "supabase:hook.custom_access_token"], "effect": effect])])
        #expect(await emulator.callHook(Self.request()) == expected)
        #expect(transport.sent.withLock { $0.isEmpty })
        let event = try #require(try emulator.events(type: "hook.called").first)
        #expect(event.detail["fault"] != nil)
        // A rule on another point leaves this one alone.
        emulator.faults.removeAll()
        emulator.faults.add([try emulator.faults.parse(["match": ["operation": "supabase:hook.send_email"], "effect": effect])])
        #expect(await emulator.callHook(Self.request()) == .answered(status: 200, contentType: nil, body: []))
    }

    @Test func aReplaySendsTheCallAgainSignedAfreshAsANewEvent() async throws {
        let emulator = try makeEmulator()
        let transport = RecordingTransport(answer: .answered(status: 204, contentType: nil, body: []))
        emulator.hooks.transport = transport
        let signatures = HookSignCounter()
        _ = await emulator.callHook(Self.request(signs: signatures))
        let first = try #require(try emulator.events(type: "hook.called").first)
        let replay = try #require(await emulator.replayHook(event: first.id))
        #expect(replay.event?.detail["replay_of"] == .string(first.id))
        let sent = transport.sent.withLock { $0 }
        #expect(sent.map { $0.last?.value } == ["v1,sig1", "v1,sig2"])
        #expect(await emulator.replayHook(event: "nope") == nil)
    }
}
