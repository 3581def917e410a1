import AuthCore
@testable import SupabaseAPI
import Testing

/// GoTrue's numeric settings as `envconfig` reads them: Go's `strconv.ParseInt(s, 0, 64)`, `ParseUint(s, 0, 64)` and
/// `ParseFloat(s, 64)`, with Go's literal syntax (base prefixes, a leading zero for octal, `_` between digits) and
/// Go's words when refused. The cases are Go's own behaviour, as its `strconv` tests pin it.
@Suite struct GoNumberTests {
    @Test(arguments: [("0", 0), ("-0", 0), ("+7", 7), ("3600", 3600), ("0x0e10", 3600), ("0X10", 16), ("-0x10", -16), ("0600", 384),
                      ("0o10", 8), ("0O10", 8), ("0b101", 5), ("1_800", 1800), ("0x_1f", 31), ("0_7", 7),
                      ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min)])
    func readsGoIntegerLiterals(_ text: String, _ value: Int) {
        #expect(GoNumber.parseInt(text) == .success(value))
    }

    @Test(arguments: [("", "invalid syntax"), ("_12", "invalid syntax"), ("12_", "invalid syntax"), ("1__2", "invalid syntax"),
                      ("0x", "invalid syntax"), ("08", "invalid syntax"), ("0b2", "invalid syntax"), (" 1", "invalid syntax"),
                      ("1 ", "invalid syntax"), ("١", "invalid syntax"), ("1.5", "invalid syntax"), ("+", "invalid syntax"),
                      ("9223372036854775808", "value out of range"), ("-9223372036854775809", "value out of range"),
                      ("0x8000000000000000", "value out of range"), ("99999999999999999999x", "value out of range")])
    func refusesWhatParseIntRefuses(_ text: String, _ why: String) {
        #expect(GoNumber.parseInt(text) == .failure(GoDuration.Refusal(message: "strconv.ParseInt: parsing \"\(text)\": \(why)")))
    }

    @Test func parseUintTakesNoSign() {
        #expect(GoNumber.parseInt("0x10", unsigned: true) == .success(16))
        for text in ["+1", "-1", "-0"] {
            #expect(GoNumber.parseInt(text, unsigned: true) == .failure(GoDuration.Refusal(message: "strconv.ParseUint: parsing \"\(text)\": invalid syntax")))
        }
    }

    @Test(arguments: [("1", 1.0), ("+1", 1), ("-2.5", -2.5), ("1e23", 1e23), ("1_000.5", 1000.5), ("0x1p-2", 0.25), ("0x1.8p1", 3),
                      ("0X_1P+4", 16), (".5", 0.5), ("5.", 5), ("1e+2", 100), ("1E-2", 0.01), ("1e-400", 0), ("INF", .infinity),
                      ("+inf", .infinity), ("-Infinity", -.infinity)])
    func readsGoFloatLiterals(_ text: String, _ value: Double) {
        #expect(GoNumber.parseFloat(text) == .success(value))
    }

    @Test func nanIsAValue() throws {
        #expect(try GoNumber.parseFloat("nAn").get().isNaN)
    }

    @Test(arguments: [("", "invalid syntax"), ("0x1", "invalid syntax"), ("0x1e5", "invalid syntax"), ("1e", "invalid syntax"),
                      ("1e+", "invalid syntax"), ("_1", "invalid syntax"), ("1_", "invalid syntax"), ("1__0", "invalid syntax"),
                      ("1e_5", "invalid syntax"), ("+nan", "invalid syntax"), ("infin", "invalid syntax"), ("1x", "invalid syntax"),
                      (".", "invalid syntax"), ("e5", "invalid syntax"), ("1p5", "invalid syntax"), ("1..2", "invalid syntax"),
                      (" 1", "invalid syntax"), ("10/1m", "invalid syntax"), ("1e400", "value out of range"),
                      ("-1e400", "value out of range")])
    func refusesWhatParseFloatRefuses(_ text: String, _ why: String) {
        #expect(GoNumber.parseFloat(text) == .failure(GoDuration.Refusal(message: "strconv.ParseFloat: parsing \"\(text)\": \(why)")))
    }

    @Test func settingsAreReadAsGoTrueReadsThem() throws {
        // A leading zero is octal to Go: GoTrue mints hour-long tokens from 0x0e10 and 384-second ones from 0600.
        #expect(try SupabaseConfig(env: ["GOTRUE_JWT_EXP": "0x0e10"]).jwtExpiry == 3600)
        #expect(try SupabaseConfig(env: ["GOTRUE_JWT_EXP": "0600"]).jwtExpiry == 384)
        #expect(try SupabaseConfig(env: ["GOTRUE_MAILER_OTP_EXP": "1_800"]).mailerOTPExpiry == 1800)
        // A uint takes no sign; an int does, and GoTrue puts its default in place of a negative length.
        #expect(GoTrueVariableTests.refusal(["GOTRUE_SMS_OTP_EXP": "+60"])?.reason.hasSuffix(#"strconv.ParseUint: parsing "+60": invalid syntax"#) == true)
        #expect(try SupabaseConfig(env: ["GOTRUE_MAILER_OTP_LENGTH": "-8"]).mailerOTPLength == 6)
        #expect(try SupabaseConfig(env: ["GOTRUE_PASSWORD_MIN_LENGTH": "+010"]).passwordPolicy.minLength == 8)
        // GOTRUE_MFA_MAX_ENROLLED_FACTORS is a float64 GoTrue compares whole.
        #expect(try SupabaseConfig(env: ["GOTRUE_MFA_MAX_ENROLLED_FACTORS": "2.5"]).mfaMaxFactors == 2)
        #expect(try SupabaseConfig(env: ["GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "6e2"]).mfaChallengeExpiry == 600)
        #expect(try SupabaseConfig(env: ["GOTRUE_RATE_LIMIT_VERIFY": "1_000"]).requestLimits[.verify] == RateLimit(count: 1000, window: 300))
        // A finite number past a float64 stops GoTrue at start-up, where Inf itself is a value.
        let huge = try #require(GoTrueVariableTests.refusal(["GOTRUE_RATE_LIMIT_VERIFY": "1e400"]))
        #expect(huge.reason.hasSuffix(#"strconv.ParseFloat: parsing "1e400": value out of range"#))
    }
}
