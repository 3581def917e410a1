import Foundation
import Testing
@testable import AuthCore

/// The fault rule engine as a pure state machine: no HTTP, a frozen clock, seeded streams.
@Suite struct FaultEngineTests {
    let clock = EmulatorClock(frozenAt: Date(timeIntervalSince1970: 1_800_000_000))

    func engine(_ rules: [JSON]) throws -> FaultEngine {
        let engine = FaultEngine(clock: clock, generator: Generator(seed: 1))
        engine.add(try rules.map(engine.parse))
        return engine
    }

    func target(_ operation: String = "supabase:token.password", identifier: String? = "a@example.com", dialect: Dialect = .supabase) -> FaultTarget {
        FaultTarget(dialect: dialect, operation: operation, tenant: "default", identifier: identifier, method: "POST", path: "/auth/v1/token")
    }

    /// Which rule fires for each of `count` identical requests (nil: none).
    func firings(_ engine: FaultEngine, _ count: Int, _ target: FaultTarget? = nil) -> [String?] {
        (0..<count).map { _ in engine.decide(target ?? self.target())?.rule.id }
    }

    @Test func theFirstMatchingRuleThatIsDueFiresAndTimesRetireIt() throws {
        let engine = try engine([
            ["id": "wrong-op", "match": ["operation": "supabase:otp"], "effect": ["type": "close"]],
            ["id": "twice", "match": ["operation": "supabase:token.*"], "effect": ["type": "reset"], "schedule": ["times": 2]],
            ["id": "then", "effect": ["type": "error", "error": "server_error"], "schedule": ["after": 1, "times": 1]],
        ])
        // "then" sees only the requests "twice" did not take: it lets the first through, fires on the second.
        #expect(firings(engine, 5) == ["twice", "twice", nil, "then", nil])
        let states = engine.rules().map { ($0.rule.id, $0.matched, $0.fired, $0.retired) }
        #expect(states.map(\.0) == ["wrong-op", "twice", "then"])
        #expect(states.map(\.2) == [0, 2, 1] && states.map(\.3) == [false, true, true] && states.map(\.1) == [0, 2, 2])
        #expect(engine.journal().map(\.rule.id) == ["twice", "twice", "then"])
    }

    @Test func matchingCoversDialectTenantIdentifierGlobsClientMethodPathAndHeader() throws {
        let rule = try FaultEngine(clock: clock, generator: Generator(seed: 1)).parse([
            "effect": ["type": "close"],
            "match": ["dialect": "cognito", "operation": ["cognito:Initiate*", "cognito:oauth2.token"], "tenant": "us-east-1_x", "identifier": "*@test.dev",
                      "client_id": "c1", "method": "post", "path": "/**", "header": ["name": "X-Test", "value": "yes"]],
        ])
        var t = FaultTarget(dialect: .cognito, operation: "cognito:InitiateAuth", tenant: "us-east-1_x", identifier: "Pat@Test.dev", clientId: "c1",
                            method: "POST", path: "/", headers: ["x-test": "yes"])
        #expect(rule.match.matches(t))
        t.operation = "cognito:oauth2.token"; #expect(rule.match.matches(t))
        t.operation = "cognito:SignUp"; #expect(!rule.match.matches(t))
        t.operation = "cognito:InitiateAuth"; t.identifier = "pat@test.dev.evil"; #expect(!rule.match.matches(t))
        t.identifier = "pat@test.dev"; t.headers = [:]; #expect(!rule.match.matches(t))
        t.headers = ["x-test": "yes"]; t.dialect = .firebase; #expect(!rule.match.matches(t))
    }

    @Test func probabilityDrawsFromTheRulesOwnStream() throws {
        let coin: JSON = ["id": "coin", "match": ["operation": "supabase:token.password"], "effect": ["type": "close"],
                          "schedule": ["probability": .double(0.5), "seed": 77]]
        let other: JSON = ["id": "other", "match": ["operation": "supabase:otp"], "effect": ["type": "close"], "schedule": ["probability": .double(0.5), "seed": 5]]
        let alone = firings(try engine([coin]), 40)
        // Another rule, drawing on requests of its own in between, does not change this rule's draws.
        let crowded = try engine([other, coin])
        let interleaved = (0..<40).map { _ -> String? in
            _ = crowded.decide(target("supabase:otp"))
            return crowded.decide(target())?.rule.id
        }
        #expect(alone == interleaved)
        #expect((10...30).contains(alone.compactMap { $0 }.count))
    }

    @Test func aQuotaLetsTheLimitThroughPerWindowAndSaysWhenItRollsOver() throws {
        let engine = try engine([["id": "quota", "schedule": ["quota": ["limit": 2, "window": 60]]]])
        #expect(firings(engine, 3) == [nil, nil, "quota"])
        clock.advance(by: 45)
        #expect(engine.decide(target())?.retryAfter == 15)
        clock.advance(by: 15)
        #expect(firings(engine, 3) == [nil, nil, "quota"])
        guard case .error(let kind, _, _) = engine.rules()[0].rule.effect else { Issue.record("a quota's default effect is the rate-limit error"); return }
        #expect(kind == .meaning(.rateLimited) && kind.name == "rate_limited")
    }

    @Test func windowsAndTTLFollowTheEmulatorClock() throws {
        let start = clock.now
        let engine = try engine([
            ["id": "later", "effect": ["type": "close"],
             "schedule": ["from": .string(RFC3339.string(from: start.addingTimeInterval(10))), "until": .string(RFC3339.string(from: start.addingTimeInterval(20)))]],
            ["id": "brief", "match": ["operation": "supabase:otp"], "effect": ["type": "close"], "schedule": ["ttl": 30]],
        ])
        #expect(engine.decide(target()) == nil && engine.decide(target("supabase:otp"))?.rule.id == "brief")
        clock.advance(by: 10)
        #expect(engine.decide(target())?.rule.id == "later")
        clock.advance(by: 10)
        #expect(engine.decide(target()) == nil)
        clock.advance(by: 10)
        #expect(engine.decide(target("supabase:otp")) == nil && engine.rules().map(\.rule.id) == ["later"])
    }

    @Test func startupRulesComeBackWithFreshCountersAndRuntimeOnesGo() throws {
        let engine = FaultEngine(clock: clock, generator: Generator(seed: 1))
        engine.setStartupRules([try engine.parse(["id": "boot", "effect": ["type": "close"], "schedule": ["times": 1]])])
        engine.add([try engine.parse(["id": "runtime", "effect": ["type": "close"]])])
        #expect(firings(engine, 2) == ["boot", "runtime"])
        engine.restoreStartupRules()
        #expect(engine.rules().map(\.rule.id) == ["boot"] && engine.journal().isEmpty)
        #expect(firings(engine, 2) == ["boot", nil])
    }

    @Test func badRulesSayWhatIsWrong() throws {
        let engine = FaultEngine(clock: clock, generator: Generator(seed: 1))
        let cases: [(JSON, String)] = [
            (["effect": ["type": "error"]], "effect.error"), (["effect": ["type": "delay", "ms": -1]], "effect.ms"),
            (["effect": ["type": "response", "status": 99]], "effect.status"), (["id": "bad id!", "effect": ["type": "close"]], "id"),
            (["effect": ["type": "close"], "schedule": ["quota": ["limit": 1]]], "schedule.quota"),
            (["effect": ["type": "close"], "schedule": ["from": "yesterday"]], "schedule.from"), (["effect": ["type": "close"], "match": ["operation": 3]], "match.operation"),
        ]
        for (rule, field) in cases {
            #expect(throws: AuthError.self) { try engine.parse(rule) }
            do { _ = try engine.parse(rule) } catch AuthError.invalidInput(let named, _) { #expect(named == field) }
        }
        let round = try engine.parse(["id": "r", "effect": ["type": "slow", "bytes": 4, "interval_ms": 5], "schedule": ["times": 3, "seed": 9]])
        #expect(try engine.parse(round.json) == round)
    }
}
