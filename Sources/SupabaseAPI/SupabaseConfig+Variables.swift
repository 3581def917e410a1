import AuthCore
import Foundation

/// How GoTrue reads each kind of variable: `envconfig`'s parsers (Go's `time.ParseDuration` for a `time.Duration`,
/// `strconv` for numbers) and the values `ApplyDefaults` and `Validate` put in place or refuse (`conf/configuration.go`).
/// `SupabaseConfig.init` reads each variable through one of these.
extension SupabaseConfig {
    /// A variable's value, nil when it is not set. Set but empty is not unset: `envconfig` hands `""` to the field's
    /// parser, and every parser but a string's refuses it (`strconv.ParseBool: parsing "": invalid syntax`), so GoTrue
    /// stops at start-up. `refusal` is that parser's message.
    static func value(_ env: [String: String], _ name: String, emptyRefusedBy refusal: String) throws -> String? {
        guard let raw = env[name] else { return nil }
        guard !raw.isEmpty else { throw SupabaseConfigError(variable: name, reason: "is set but empty, which GoTrue refuses (leave it out for its default): \(refusal)") }
        return raw
    }

    /// GoTrue's request limits. `GOTRUE_RATE_LIMIT_EMAIL_SENT` and `_SMS_SENT` are a `Rate` (`rate.go`, `burst`): `N` an
    /// hour, or `N/<Go duration>` with a whole N. The others are a `float64` of requests in the limit's own window, read
    /// by `strconv.ParseFloat`, so `10/1m` stops GoTrue there. A count past anything a window could see (`1e300`,
    /// `Inf`, which ended the process when made an `Int`) is no limit in practice, and is held to 2^52 as a `Rate`'s
    /// own parser holds N.
    static func rateLimit(_ env: [String: String], _ name: String, default value: RateLimit, burst: Bool = false) throws -> RateLimit {
        let rateSyntax = { (raw: String) in "rate: value does not match rate syntax \"\(raw)\"" }
        guard let raw = try Self.value(env, name, emptyRefusedBy: burst ? rateSyntax("") : parseFloatEmpty) else { return value }
        switch GoNumber.parseFloat(raw) {
        case .success(let count):
            // Not NaN, nor a negative count.
            guard count >= 0 else { throw SupabaseConfigError(variable: name, reason: "expected a number of requests, 0 or more, got \(raw)") }
            return RateLimit(count: Int(min(count, largestRateCount)), window: burst ? 3600 : value.window)
        case .failure(let refusal) where !burst:
            throw SupabaseConfigError(variable: name, reason: "expected a number of requests (N/duration is only for GOTRUE_RATE_LIMIT_EMAIL_SENT and _SMS_SENT): \(refusal.message)")
        case .failure: break
        }
        let parts = raw.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { throw SupabaseConfigError(variable: name, reason: "expected N or N/duration such as 10/1m: \(rateSyntax(raw))") }
        guard !parts[0].isEmpty, parts[0].allSatisfy(\.isASCIIDigit), let count = Int(parts[0]), Double(count) < largestRateCount else {
            throw SupabaseConfigError(variable: name, reason: "expected a whole number of events before the /, got \(raw)")
        }
        guard let window = GoDuration.seconds(parts[1]), window > 0 else {
            throw SupabaseConfigError(variable: name, reason: "expected N/duration such as 10/1m, got \(raw)")
        }
        return RateLimit(count: count, window: window)
    }

    /// 2^52, the largest N GoTrue's `Rate` takes ("because the uint needs to fit in a float64").
    static let largestRateCount = Double(1 << 52)

    /// `15551234567:123456,15557654321:654321`.
    static func testOTPs(_ text: String?) throws -> [String: String] {
        var map: [String: String] = [:]
        for entry in (text ?? "").split(separator: ",") where !entry.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = entry.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigit) else {
                throw SupabaseConfigError(variable: "GOTRUE_SMS_TEST_OTP", reason: "expected phone:code pairs separated by commas, got \(entry)")
            }
            map[parts[0].hasPrefix("+") ? String(parts[0].dropFirst()) : parts[0]] = parts[1]
        }
        return map
    }

    /// Go's `strconv.ParseBool`, which is all GoTrue reads a `bool` with: `yes`, `on` or `tRuE` stop it at start-up.
    static func bool(_ env: [String: String], _ name: String, default value: Bool) throws -> Bool {
        let refusal = { (raw: String) in "strconv.ParseBool: parsing \"\(raw)\": invalid syntax" }
        guard let raw = try Self.value(env, name, emptyRefusedBy: refusal("")) else { return value }
        switch raw {
        case "1", "t", "T", "TRUE", "true", "True": return true
        case "0", "f", "F", "FALSE", "false", "False": return false
        default: throw SupabaseConfigError(variable: name, reason: "expected true or false (1, t, T, TRUE, true, True or their opposites): \(refusal(raw))")
        }
    }

    /// An `int` setting (with `unsigned`, a `uint`: no sign at all), read as `envconfig` reads it: Go's base-0 literal
    /// syntax (`GoNumber`). `minimum`: what Fauxth refuses below, where GoTrue would run with a setting that cannot work
    /// (a negative expiry or limit); nil where GoTrue's `ApplyDefaults` puts its default in place of a negative.
    static func int(_ env: [String: String], _ name: String, default value: Int, unsigned: Bool = false, minimum: Int? = 0) throws -> Int {
        let parser = unsigned ? "strconv.ParseUint" : "strconv.ParseInt"
        guard let raw = try Self.value(env, name, emptyRefusedBy: "\(parser): parsing \"\": invalid syntax") else { return value }
        switch GoNumber.parseInt(raw, unsigned: unsigned) {
        case .success(let n):
            if let minimum, n < minimum { throw SupabaseConfigError(variable: name, reason: "expected a whole number, \(minimum) or more, got \(raw)") }
            return n
        case .failure(let refusal): throw SupabaseConfigError(variable: name, reason: "expected a whole number: \(refusal.message)")
        }
    }

    /// A whole number of seconds GoTrue multiplies into a Go duration (`GOTRUE_JWT_EXP`, the OTP expiries): at most Go's
    /// longest, which the multiplication would overflow past. Unbounded, `GOTRUE_JWT_EXP` near `Int.max` overflowed the
    /// token's `exp` and ended the process at the first sign-in of a project made at run time (`POST /_emu/v1/tenants`).
    /// `zeroMeans`: what GoTrue's `ApplyDefaults` puts in place of a 0 (`GOTRUE_MAILER_OTP_EXP=0` is a day, not codes that
    /// are dead on arrival).
    static func seconds(_ env: [String: String], _ name: String, default value: Int, unsigned: Bool = false, zeroMeans zero: Int? = nil) throws -> Int {
        let seconds = try int(env, name, default: value, unsigned: unsigned)
        guard TimeInterval(seconds) <= longestGoDuration else {
            throw SupabaseConfigError(variable: name, reason: "expected at most \(Int(longestGoDuration)) seconds (Go's longest duration), got \(seconds)")
        }
        return seconds == 0 ? zero ?? 0 : seconds
    }

    /// A `time.Duration` of GoTrue's config, which `envconfig` reads with Go's `time.ParseDuration`: a unit is required
    /// (`60s`, not `60`, which stops GoTrue at start-up with Go's "missing unit"). `zeroMeans` as in `seconds`.
    static func duration(_ env: [String: String], _ name: String, default value: TimeInterval, zeroMeans zero: TimeInterval? = nil) throws -> TimeInterval {
        guard let raw = try Self.value(env, name, emptyRefusedBy: #"time: invalid duration """#) else { return value }
        switch GoDuration.parse(raw) {
        case .success(let seconds): return seconds == 0 ? zero ?? 0 : seconds
        case .failure(let refusal): throw SupabaseConfigError(variable: name, reason: "expected a Go duration such as 60s or 1m30s: \(refusal.message)")
        }
    }

    /// A `float64` setting, read by Go's `strconv.ParseFloat` (`GoNumber`); `expected` says what it holds.
    static func float(_ env: [String: String], _ name: String, default value: Double, expected: String) throws -> Double {
        guard let raw = try Self.value(env, name, emptyRefusedBy: parseFloatEmpty) else { return value }
        switch GoNumber.parseFloat(raw) {
        case .success(let number): return number
        case .failure(let refusal): throw SupabaseConfigError(variable: name, reason: "expected \(expected): \(refusal.message)")
        }
    }

    /// A `float64` of seconds (`GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION`, a duration only in name): a unit is refused, as
    /// Go's `strconv.ParseFloat` refuses it; within Go's longest duration, which GoTrue multiplies it into.
    static func floatSeconds(_ env: [String: String], _ name: String, default value: TimeInterval) throws -> TimeInterval {
        let seconds = try float(env, name, default: value, expected: "a number of seconds such as 300 (no unit)")
        guard seconds.isFinite, abs(seconds) <= longestGoDuration else {
            throw SupabaseConfigError(variable: name, reason: "expected at most \(Int(longestGoDuration)) seconds (Go's longest duration), got \(env[name] ?? "")")
        }
        return seconds
    }

    /// A `float64` count GoTrue compares whole (`GOTRUE_MFA_MAX_ENROLLED_FACTORS`, as `int(MaxEnrolledFactors)`): `2.5`
    /// allows two. Past 2^52 it is no limit in practice and held there; NaN and negatives, which no count can reach
    /// in any useful way, are refused.
    static func wholeCount(_ env: [String: String], _ name: String, default value: Int) throws -> Int {
        let count = try float(env, name, default: Double(value), expected: "a number")
        guard count >= 0 else { throw SupabaseConfigError(variable: name, reason: "expected a number, 0 or more, got \(env[name] ?? "")") }
        return Int(min(count, largestRateCount))
    }

    static let parseFloatEmpty = #"strconv.ParseFloat: parsing "": invalid syntax"#

    /// An OTP's length: GoTrue puts 6 in place of one outside 6 to 10, rather than the nearest.
    static func otpLength(_ env: [String: String], _ name: String) throws -> Int {
        let length = try int(env, name, default: 6, minimum: nil)
        return (6...10).contains(length) ? length : 6
    }

    /// `GOTRUE_SESSIONS_TIMEBOX`, `_INACTIVITY_TIMEOUT` and `_ALLOW_LOW_AAL`: none when unset; when set, positive, or GoTrue refuses to start.
    static func sessionLimit(_ env: [String: String], _ name: String, named what: String) throws -> TimeInterval? {
        guard let raw = try Self.value(env, name, emptyRefusedBy: #"time: invalid duration """#) else { return nil }
        let limit = try duration(env, name, default: 0)
        guard limit > 0 else { throw SupabaseConfigError(variable: name, reason: "conf: \(what) duration must be positive when set, was \(raw)") }
        return limit
    }

    /// 2^63-1 nanoseconds, in whole seconds.
    static let longestGoDuration: TimeInterval = 9_223_372_036

    /// `GOTRUE_PASSWORD_REQUIRED_CHARACTERS` as GoTrue's `PasswordRequiredCharacters.Decode` reads it: sets split on `:`,
    /// where a set ending in `\` takes the `:` and the next set into it (the dashboard's "letters, digits and symbols"
    /// value escapes the colon among its symbols), one join at a time, as Go's loop does.
    static func requiredCharacterSets(_ value: String) -> [String] {
        var parts = value.components(separatedBy: ":")
        var index = 0
        while index < parts.count - 1 {
            if parts[index].hasSuffix("\\") {
                parts[index] = String(parts[index].dropLast()) + ":" + parts[index + 1]
                parts[index + 1] = ""
            }
            index += 1
        }
        return parts.filter { !$0.isEmpty }
    }
}
