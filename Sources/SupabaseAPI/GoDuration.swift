import Foundation

/// Go's `time.ParseDuration`, which GoTrue reads its durations with (`60s`, `1h30m`, `1.5h`, a ban's `-1h`): an optional
/// sign, then one or more decimal numbers, each with an optional fraction and a unit (`ns`, `us`, `µs`, `ms`, `s`, `m`,
/// `h`); `0` alone; at most 2^63-1 nanoseconds (about 292 years). Refusals carry Go's error text, which GoTrue puts in
/// its messages. Read by hand on the UTF-8 bytes, as Go reads them: the regular expressions this replaced cost start-up
/// a millisecond, took other scripts' digits for digits (a crash on `"١h"`) and any number of them (an infinite
/// duration, another crash).
enum GoDuration {
    /// Go's error for a string it refuses, e.g. `time: invalid duration "1x"`.
    struct Refusal: Error, Equatable {
        let message: String
    }

    /// The duration in seconds.
    static func seconds(_ text: String) -> TimeInterval? { try? parse(text).get() }

    /// The duration in seconds, or Go's refusal.
    static func parse(_ text: String) -> Result<TimeInterval, Refusal> {
        let bytes = Array(text.utf8)
        let invalid = Refusal(message: "time: invalid duration " + quote(bytes[...]))
        var at = 0, negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            at = 1
        }
        if bytes[at...].elementsEqual([UInt8(ascii: "0")]) { return .success(0) }
        guard at < bytes.count else { return .failure(invalid) }
        var total: UInt64 = 0
        while at < bytes.count {
            guard bytes[at] == dot || isDigit(bytes[at]) else { return .failure(invalid) }
            // The whole part: any overflow is invalid.
            let wholeStart = at
            var whole: UInt64 = 0
            while at < bytes.count, isDigit(bytes[at]) {
                guard whole <= limit / 10 else { return .failure(invalid) }
                whole = whole * 10 + UInt64(bytes[at] - UInt8(ascii: "0"))
                guard whole <= limit else { return .failure(invalid) }
                at += 1
            }
            let hasWhole = at != wholeStart
            // The fraction: digits past what fits are dropped, as Go drops them.
            var fraction: UInt64 = 0, scale = 1.0, hasFraction = false
            if at < bytes.count, bytes[at] == dot {
                at += 1
                let fractionStart = at
                var overflowed = false
                while at < bytes.count, isDigit(bytes[at]) {
                    if !overflowed {
                        if fraction > (limit - 1) / 10 {
                            overflowed = true
                        } else {
                            let next = fraction * 10 + UInt64(bytes[at] - UInt8(ascii: "0"))
                            if next > limit { overflowed = true } else { fraction = next; scale *= 10 }
                        }
                    }
                    at += 1
                }
                hasFraction = at != fractionStart
            }
            guard hasWhole || hasFraction else { return .failure(invalid) }
            // The unit: everything up to the next number.
            let unitStart = at
            while at < bytes.count, bytes[at] != dot, !isDigit(bytes[at]) { at += 1 }
            let unitBytes = bytes[unitStart..<at]
            guard !unitBytes.isEmpty else { return .failure(Refusal(message: "time: missing unit in duration " + quote(bytes[...]))) }
            guard let unit = units[String(decoding: unitBytes, as: UTF8.self)] else {
                return .failure(Refusal(message: "time: unknown unit " + quote(unitBytes) + " in duration " + quote(bytes[...])))
            }
            guard whole <= limit / unit else { return .failure(invalid) }
            var value = whole * unit
            if fraction > 0 {
                value += UInt64(Double(fraction) * (Double(unit) / scale))
                guard value <= limit else { return .failure(invalid) }
            }
            let (sum, overflowed) = total.addingReportingOverflow(value)
            guard !overflowed, sum <= limit else { return .failure(invalid) }
            total = sum
        }
        if !negative, total > limit - 1 { return .failure(invalid) }
        let nanoseconds = negative ? -Double(total) : Double(total)
        return .success(nanoseconds / 1e9)
    }

    /// 1<<63: a duration's magnitude in nanoseconds stays at or under it (2^63-1 when positive).
    private static let limit: UInt64 = 1 << 63
    private static let dot = UInt8(ascii: ".")
    private static let units: [String: UInt64] = [
        "ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "m": 60_000_000_000,
        "h": 3_600_000_000_000,
    ]

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Go's `time.quote`: in double quotes, `"` and `\` escaped, and every byte of a control or non-ASCII character as
    /// `\xNN`.
    private static func quote(_ bytes: ArraySlice<UInt8>) -> String {
        var out = "\""
        for byte in bytes {
            if byte >= 0x80 || byte < 0x20 {
                out += String(format: "\\x%02x", byte)
            } else {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out += "\\" }
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out + "\""
    }
}
