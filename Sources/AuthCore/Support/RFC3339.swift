import Foundation

extension DateFormatter {
    /// A formatter for a fixed, machine-read format: English names, UTC, whatever the machine's locale.
    public static func posixUTC(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter
    }
}

/// RFC 3339 timestamps as the vendors write them: UTC, `Z`, with fractional seconds.
public enum RFC3339 {
    /// The instants a four-digit year can write, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z: the emulator clock
    /// stays within them.
    public static let representable = Date(timeIntervalSince1970: -62_135_596_800)...Date(timeIntervalSince1970: 253_402_300_799)

    /// Formats with microseconds, as GoTrue does (`2026-01-01T00:00:00.123456Z`).
    public static func string(from date: Date, fractionalDigits: Int = 6) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = seconds.rounded(.down)
        let scale = pow(10.0, Double(fractionalDigits))
        var fraction = ((seconds - whole) * scale).rounded()
        if fraction >= scale { whole += 1; fraction = 0 }
        // Every date a run makes is after 1970 and before 10000: formatted with integer arithmetic (the
        // calendar took a few percent of a sign-in). Others go through the calendar, which is Julian
        // before 1582 as Foundation's is.
        if whole >= 0, whole < 253_402_300_800, fractionalDigits <= 9 {
            return fast(seconds: Int64(whole), fraction: Int(fraction), fractionalDigits: fractionalDigits)
        }
        let components = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: whole))
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = padded(components.year!, 4) + "-" + padded(components.month!, 2) + "-" + padded(components.day!, 2) + "T"
            + padded(components.hour!, 2) + ":" + padded(components.minute!, 2) + ":" + padded(components.second!, 2)
        if fractionalDigits > 0 { text += "." + padded(Int(fraction), fractionalDigits) }
        return text + "Z"
    }

    /// `seconds` since 1970 as a proleptic Gregorian UTC date (Howard Hinnant's `civil_from_days`).
    private static func fast(seconds: Int64, fraction: Int, fractionalDigits: Int) -> String {
        let days = seconds / 86_400
        let time = Int(seconds % 86_400)
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        let length = 20 + (fractionalDigits > 0 ? fractionalDigits + 1 : 0)
        return String(unsafeUninitializedCapacity: length) { out in
            var at = 0
            func put(_ value: Int, _ width: Int) {
                var value = value
                for index in stride(from: at + width - 1, through: at, by: -1) {
                    out[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                at += width
            }
            func put(_ character: Unicode.Scalar) { out[at] = UInt8(ascii: character); at += 1 }
            put(year, 4); put("-"); put(month, 2); put("-"); put(day, 2); put("T")
            put(time / 3600, 2); put(":"); put(time / 60 % 60, 2); put(":"); put(time % 60, 2)
            if fractionalDigits > 0 { put("."); put(fraction, fractionalDigits) }
            put("Z")
            return at
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil for anything else.
    public static func date(from text: String) -> Date? {
        let pattern = #/^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$/#
        guard let m = text.wholeMatch(of: pattern) else { return nil }
        var components = DateComponents()
        components.year = Int(m.1); components.month = Int(m.2); components.day = Int(m.3)
        components.hour = Int(m.4); components.minute = Int(m.5); components.second = Int(m.6)
        guard let month = components.month, (1...12).contains(month),
              let day = components.day, (1...31).contains(day),
              let hour = components.hour, hour < 24, let minute = components.minute, minute < 60,
              let second = components.second, second < 61,
              let base = calendar.date(from: components) else { return nil }
        let fraction = m.7.map { Double("0" + $0) ?? 0 } ?? 0
        var offset: TimeInterval = 0
        let zone = String(m.8)
        if zone != "Z" && zone != "z" {
            let sign: Double = zone.hasPrefix("-") ? -1 : 1
            let hm = zone.dropFirst().split(separator: ":").compactMap { Double($0) }
            offset = sign * (hm[0] * 3600 + hm[1] * 60)
        }
        return base.addingTimeInterval(fraction - offset)
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
