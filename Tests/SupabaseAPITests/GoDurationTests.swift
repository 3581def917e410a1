import AuthCore
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
        #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "٣s"]) }
    }

    /// `envconfig` reads a `time.Duration` with `time.ParseDuration`, so a plain number stops GoTrue at start-up.
    @Test(arguments: ["GOTRUE_SMTP_MAX_FREQUENCY", "GOTRUE_SMS_MAX_FREQUENCY", "GOTRUE_MFA_PHONE_MAX_FREQUENCY",
                      "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION", "GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD",
                      "GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION", "GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL", "GOTRUE_SESSIONS_TIMEBOX",
                      "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT", "GOTRUE_SESSIONS_ALLOW_LOW_AAL"])
    func aDurationNeedsAUnit(_ variable: String) throws {
        do {
            _ = try SupabaseConfig(env: [variable: "45"])
            Issue.record("\(variable)=45 was accepted")
        } catch let error as SupabaseConfigError {
            #expect(error.variable == variable)
            #expect(error.reason.hasSuffix(#"time: missing unit in duration "45""#))
        }
        _ = try SupabaseConfig(env: [variable: "45m"])
    }
}

/// What GoTrue's `ApplyDefaults` and `Validate` make of a project's settings before it serves a request.
@Suite struct GoTrueConfigDefaultsTests {
    @Test func zeroMeansTheDefaultForFrequenciesAndExpiries() throws {
        let config = try SupabaseConfig(env: ["GOTRUE_SMTP_MAX_FREQUENCY": "0", "GOTRUE_SMS_MAX_FREQUENCY": "0s", "GOTRUE_MFA_PHONE_MAX_FREQUENCY": "0",
                                              "GOTRUE_MAILER_OTP_EXP": "0", "GOTRUE_SMS_OTP_EXP": "0", "GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD": "0s"])
        #expect(config.smtpMaxFrequency == 60)
        #expect(config.smsMaxFrequency == 60)
        #expect(config.mfaPhoneMaxFrequency == 60)
        #expect(config.mailerOTPExpiry == 86400)
        #expect(config.smsOTPExpiry == 60)
        #expect(config.saml.relayStateValidity == 120)
    }

    @Test func floorsAreGoTruesDefaults() throws {
        let low = try SupabaseConfig(env: ["GOTRUE_PASSWORD_MIN_LENGTH": "4", "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "60",
                                           "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION": "1m"])
        #expect(low.passwordPolicy.minLength == 6)
        #expect(low.mfaChallengeExpiry == 300)
        #expect(low.flowStateExpiry == 300)
        let high = try SupabaseConfig(env: ["GOTRUE_PASSWORD_MIN_LENGTH": "12", "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "600.5",
                                            "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION": "10m"])
        #expect(high.passwordPolicy.minLength == 12)
        #expect(high.mfaChallengeExpiry == 600.5)
        #expect(high.flowStateExpiry == 600)
    }

    /// A float64 of seconds in GoTrue: Go's `strconv.ParseFloat` refuses a unit.
    @Test func theMFAChallengeExpiryIsSecondsWithoutAUnit() {
        #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: ["GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "5m"]) }
    }

    @Test(arguments: [("4", 6), ("6", 6), ("8", 8), ("10", 10), ("11", 6), ("12", 6)])
    func anOTPLengthOutsideSixToTenIsSix(_ text: String, _ length: Int) throws {
        let config = try SupabaseConfig(env: ["GOTRUE_MAILER_OTP_LENGTH": text, "GOTRUE_SMS_OTP_LENGTH": text, "GOTRUE_MFA_PHONE_OTP_LENGTH": text])
        #expect([config.mailerOTPLength, config.smsOTPLength, config.mfaPhoneOTPLength] == [length, length, length])
    }

    @Test(arguments: ["GOTRUE_SESSIONS_TIMEBOX", "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT", "GOTRUE_SESSIONS_ALLOW_LOW_AAL"])
    func aSessionLimitWhenSetIsPositive(_ variable: String) throws {
        for text in ["0", "0s", "-1h"] {
            #expect(throws: SupabaseConfigError.self) { try SupabaseConfig(env: [variable: text]) }
        }
        let unset = try SupabaseConfig(env: [:]).refreshPolicy
        #expect([unset.timebox, unset.inactivityTimeout, unset.lowAssuranceAllowance] == [nil, nil, nil])
        let policy = try SupabaseConfig(env: [variable: "90m"]).refreshPolicy
        #expect([policy.timebox, policy.inactivityTimeout, policy.lowAssuranceAllowance].compactMap { $0 } == [5400])
    }

    /// GoTrue validates the SAML settings only when SAML is on.
    @Test func aNegativeRelayStateValidityIsRefusedWithSAMLOn() throws {
        #expect(throws: SupabaseConfigError.self) {
            try SupabaseConfig(env: ["GOTRUE_SAML_ENABLED": "true", "GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD": "-1m"])
        }
        _ = try SupabaseConfig(env: ["GOTRUE_SAML_RELAY_STATE_VALIDITY_PERIOD": "-1m"])
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
