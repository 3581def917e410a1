@testable import SupabaseAPI
import Testing

/// GoTrue's durations (`GOTRUE_SMTP_MAX_FREQUENCY`, a rate limit's window, a ban): a plain number is seconds, else one
/// or more ASCII numbers, each with an optional fraction, and a unit of ms, s, m or h.
@Suite struct GoDurationTests {
    @Test(arguments: [("60s", 60.0), ("1m", 60), ("1h30m", 5400), ("1.5h", 5400), ("250ms", 0.25), ("1m0.5s", 60.5), ("24h", 86400),
                      ("1ms1s", 1.001)])
    func readsGoDurations(_ text: String, _ seconds: Double) {
        #expect(GoDuration.seconds(text) == seconds)
    }

    @Test(arguments: ["", "1", "h", "1x", "1.m", ".5s", "1m ", " 1m", "-1h", "1h-", "١h", "1٠s", "２m", "1e3s", "5\u{301}s"])
    func refusesAnythingElse(_ text: String) {
        #expect(GoDuration.seconds(text) == nil)
    }

    @Test func aProjectsDurationVariablesAreRead() throws {
        #expect(try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "1m30s"]).smtpMaxFrequency == 90)
        #expect(try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "45"]).smtpMaxFrequency == 45)
        #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "٣s"]) }
    }
}
