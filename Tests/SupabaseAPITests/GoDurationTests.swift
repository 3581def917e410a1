@testable import SupabaseAPI
import Testing

/// GoTrue's durations (`GOTRUE_SMTP_MAX_FREQUENCY`, a rate limit's window, a ban) as Go's `time.ParseDuration` reads
/// them, refusals worded as Go words them.
@Suite struct GoDurationTests {
    @Test(arguments: [("60s", 60.0), ("1m", 60), ("1h30m", 5400), ("1.5h", 5400), ("250ms", 0.25), ("1m0.5s", 60.5), ("24h", 86400),
                      ("1ms1s", 1.001), ("0", 0), ("+0", 0), ("-1h", -3600), ("+1s", 1), (".5s", 0.5), ("1.m", 60), ("90us", 0.00009),
                      ("3µs", 0.000003), ("3μs", 0.000003), ("7ns", 0.000000007), ("2562047h", 9_223_369_200)])
    func readsGoDurations(_ text: String, _ seconds: Double) {
        #expect(GoDuration.seconds(text) == seconds)
    }

    @Test(arguments: [
        ("", #"time: invalid duration """#), ("1", #"time: missing unit in duration "1""#), ("h", #"time: invalid duration "h""#),
        ("1x", #"time: unknown unit "x" in duration "1x""#), ("1m ", #"time: unknown unit "m " in duration "1m ""#),
        (" 1m", #"time: invalid duration " 1m""#), ("-", #"time: invalid duration "-""#), (".s", #"time: invalid duration ".s""#),
        ("1e3s", #"time: unknown unit "e" in duration "1e3s""#), ("١h", #"time: invalid duration "\xd9\xa1h""#),
        ("1٠s", #"time: unknown unit "\xd9\xa0s" in duration "1\xd9\xa0s""#), ("2562048h", #"time: invalid duration "2562048h""#),
        (String(repeating: "9", count: 400) + "h", "time: invalid duration \"" + String(repeating: "9", count: 400) + "h\""),
        ("1\"h", #"time: unknown unit "\"h" in duration "1\"h""#),
    ])
    func refusesWhatGoRefusesInItsWords(_ text: String, _ message: String) {
        #expect(GoDuration.parse(text) == .failure(GoDuration.Refusal(message: message)))
    }

    @Test func aProjectsDurationVariablesAreRead() throws {
        #expect(try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "1m30s"]).smtpMaxFrequency == 90)
        #expect(try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "45"]).smtpMaxFrequency == 45)
        #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "٣s"]) }
    }
}

/// A project's seconds stay within Go's longest duration: `GOTRUE_JWT_EXP` near `Int.max` overflowed a token's `exp`,
/// and a plain `1e300` where a duration goes was an infinite window.
@Suite struct ProjectSecondsTests {
    @Test(arguments: ["GOTRUE_JWT_EXP", "GOTRUE_MAILER_OTP_EXP", "GOTRUE_SMS_OTP_EXP", "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL"])
    func wholeSecondsAreBounded(_ variable: String) throws {
        #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: [variable: String(Int.max)]) }
        _ = try SupabaseConfig(env: [variable: "9223372036"])
    }

    @Test func plainNumbersForDurationsAreBounded() throws {
        #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: ["GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "1e300"]) }
        #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "inf"]) }
        #expect(try SupabaseConfig(env: ["GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "600"]).mfaChallengeExpiry == 600)
    }
}
