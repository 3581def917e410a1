import AuthCore
import Testing

@testable import SupabaseAPI

/// How `envconfig` hands GoTrue's variables to Go's parsers: a `bool` is `strconv.ParseBool` and nothing kinder, and a
/// variable set to nothing is not unset (every parser but a string's refuses ""). GoTrue stops at start-up on either.
@Suite struct GoTrueVariableTests {
    static func refusal(_ env: [String: String]) -> SupabaseConfigError? {
        do {
            _ = try SupabaseConfig(env: env)
            return nil
        } catch {
            return error as? SupabaseConfigError
        }
    }

    @Test(arguments: ["1", "t", "T", "TRUE", "true", "True"])
    func goTrueSpellingsOfTrue(_ value: String) throws {
        #expect(try SupabaseConfig(env: ["GOTRUE_DISABLE_SIGNUP": value]).disableSignup)
        #expect(try SupabaseConfig(env: ["GOTRUE_EXTERNAL_GOOGLE_ENABLED": value]).externalProviders["google"]?.enabled == true)
    }

    @Test(arguments: ["0", "f", "F", "FALSE", "false", "False"])
    func goTrueSpellingsOfFalse(_ value: String) throws {
        #expect(try !SupabaseConfig(env: ["GOTRUE_EXTERNAL_EMAIL_ENABLED": value]).emailEnabled)
    }

    /// Each of the three places a GoTrue boolean is read: the settings, a provider's switch, a hook's.
    @Test(arguments: ["GOTRUE_DISABLE_SIGNUP", "GOTRUE_EXTERNAL_GOOGLE_ENABLED", "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED"],
          ["yes", "no", "on", "tRuE", " true", ""])
    func otherSpellingsStopGoTrue(_ variable: String, _ value: String) throws {
        let error = try #require(Self.refusal([variable: value]), "\(variable)=\(value) was accepted")
        #expect(error.variable == variable)
        #expect(error.reason.hasSuffix("strconv.ParseBool: parsing \"\(value)\": invalid syntax"))
    }

    @Test(arguments: [("GOTRUE_MAILER_OTP_LENGTH", #"strconv.ParseInt: parsing "": invalid syntax"#),
                      ("GOTRUE_JWT_EXP", #"strconv.ParseInt: parsing "": invalid syntax"#),
                      ("GOTRUE_SMS_OTP_EXP", #"strconv.ParseUint: parsing "": invalid syntax"#),
                      ("GOTRUE_MFA_MAX_ENROLLED_FACTORS", #"strconv.ParseFloat: parsing "": invalid syntax"#),
                      ("GOTRUE_SMTP_MAX_FREQUENCY", #"time: invalid duration """#),
                      ("GOTRUE_SESSIONS_TIMEBOX", #"time: invalid duration """#),
                      ("GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION", #"strconv.ParseFloat: parsing "": invalid syntax"#),
                      ("GOTRUE_RATE_LIMIT_EMAIL_SENT", #"rate: value does not match rate syntax """#),
                      ("GOTRUE_RATE_LIMIT_VERIFY", #"strconv.ParseFloat: parsing "": invalid syntax"#)])
    func aTypedVariableSetToNothingStopsGoTrue(_ variable: String, _ parser: String) throws {
        let error = try #require(Self.refusal([variable: ""]), "\(variable)= was accepted")
        #expect(error.variable == variable)
        #expect(error.reason == "is set but empty, which GoTrue refuses (leave it out for its default): \(parser)")
    }

    /// Only the two send limits are a `Rate` with `N/duration`; the others are a `float64`, which `10/1m` is not.
    @Test func rateLimitsAreReadByTheirGoType() throws {
        let sent = try SupabaseConfig(env: ["GOTRUE_RATE_LIMIT_EMAIL_SENT": "2/1h", "GOTRUE_RATE_LIMIT_SMS_SENT": "5"])
        #expect(sent.emailSentLimit == RateLimit(count: 2, window: 3600))
        #expect(sent.smsSentLimit == RateLimit(count: 5, window: 3600))
        let verify = try #require(Self.refusal(["GOTRUE_RATE_LIMIT_VERIFY": "10/1m"]))
        #expect(verify.variable == "GOTRUE_RATE_LIMIT_VERIFY")
        #expect(verify.reason.hasSuffix(#"strconv.ParseFloat: parsing "10/1m": invalid syntax"#))
        #expect(try SupabaseConfig(env: ["GOTRUE_RATE_LIMIT_VERIFY": "12.5"]).requestLimits[.verify] == RateLimit(count: 12, window: 300))
        #expect(Self.refusal(["GOTRUE_RATE_LIMIT_EMAIL_SENT": "1.5/1h"])?.variable == "GOTRUE_RATE_LIMIT_EMAIL_SENT")
        #expect(Self.refusal(["GOTRUE_RATE_LIMIT_EMAIL_SENT": "2/1h/1h"])?.variable == "GOTRUE_RATE_LIMIT_EMAIL_SENT")
        #expect(Self.refusal(["GOTRUE_RATE_LIMIT_OTP": "NaN"])?.variable == "GOTRUE_RATE_LIMIT_OTP")
        #expect(Self.refusal(["GOTRUE_RATE_LIMIT_OTP": "-1"])?.variable == "GOTRUE_RATE_LIMIT_OTP")
    }

    /// A count no `Int` holds ended the process when the project was made (a control API request could do it).
    @Test(arguments: ["1e300", "Inf", "infinity"])
    func aLimitPastAnyCountIsNoLimitInPractice(_ value: String) throws {
        let limit = try #require(try SupabaseConfig(env: ["GOTRUE_RATE_LIMIT_VERIFY": value, "GOTRUE_RATE_LIMIT_EMAIL_SENT": value]).requestLimits[.verify])
        #expect(limit == RateLimit(count: 1 << 52, window: 300))
    }

    @Test func aStringVariableSetToNothingIsEmpty() throws {
        #expect(try SupabaseConfig(env: ["GOTRUE_SITE_URL": ""]).siteURL == "")
    }
}

/// `GOTRUE_PASSWORD_REQUIRED_CHARACTERS` as GoTrue's `PasswordRequiredCharacters.Decode` splits it, escaped colons kept.
@Suite struct RequiredCharacterTests {
    @Test(arguments: [
        ("abc:0123456789", ["abc", "0123456789"]),
        // The dashboard's "letters, digits and symbols": the colon among the symbols is escaped.
        (#"abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789:!@#$%^&*()_+-=[]{};'\:"|<>?,./`~"#,
         ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", #"!@#$%^&*()_+-=[]{};':"|<>?,./`~"#]),
        (#"!@#\:$"#, ["!@#:$"]), (#"a\:b\:c"#, [#"a:b\"#, "c"]), ("::x::", ["x"]), ("", []),
    ])
    func setsAreSplitAsGoTrueSplitsThem(_ value: String, _ sets: [String]) {
        #expect(SupabaseConfig.requiredCharacterSets(value) == sets)
    }
}
