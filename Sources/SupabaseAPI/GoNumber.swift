/// Go's `strconv` number parsers as `envconfig` calls them for GoTrue's settings: `ParseInt(s, 0, 64)` for an `int`,
/// `ParseUint(s, 0, 64)` for a `uint` and `ParseFloat(s, 64)` for a `float64`. Base 0 is Go's literal syntax, so GoTrue
/// reads `GOTRUE_JWT_EXP=0x0e10` as 3600, `1_800` as 1800 and `0600` (a leading zero: octal) as 384, where Swift's
/// `Int("0600")` is 600. Read by hand on the UTF-8 bytes, as Go reads them; refusals carry Go's error text.
enum GoNumber {
    /// `ParseInt(s, 0, 64)`, or `ParseUint(s, 0, 64)` when `unsigned` (no sign at all), held to `Int`.
    static func parseInt(_ text: String, unsigned: Bool = false) -> Result<Int, GoDuration.Refusal> {
        let function = unsigned ? "strconv.ParseUint" : "strconv.ParseInt"
        let invalid = GoDuration.Refusal(message: "\(function): parsing \"\(text)\": invalid syntax")
        let outOfRange = GoDuration.Refusal(message: "\(function): parsing \"\(text)\": value out of range")
        var bytes = Array(text.utf8)[...]
        var negative = false
        if !unsigned, let sign = bytes.first, sign == plus || sign == minus {
            negative = sign == minus
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty else { return .failure(invalid) }
        let literal = bytes
        var base: UInt64 = 10
        if bytes.first == zero {
            // `0b`, `0o` and `0x` need a digit after them; a lone leading zero makes the rest octal.
            switch bytes.count >= 3 ? lower(bytes[bytes.startIndex + 1]) : 0 {
            case UInt8(ascii: "b"): base = 2; bytes = bytes.dropFirst(2)
            case UInt8(ascii: "o"): base = 8; bytes = bytes.dropFirst(2)
            case UInt8(ascii: "x"): base = 16; bytes = bytes.dropFirst(2)
            default: base = 8; bytes = bytes.dropFirst()
            }
        }
        var magnitude: UInt64 = 0, underscores = false
        for byte in bytes {
            let digit: UInt64
            switch byte {
            case underscore: underscores = true; continue
            case zero...UInt8(ascii: "9"): digit = UInt64(byte - zero)
            case _ where (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower(byte)): digit = UInt64(lower(byte) - UInt8(ascii: "a")) + 10
            default: return .failure(invalid)
            }
            guard digit < base else { return .failure(invalid) }
            // Go reports the overflow as soon as it happens, before a bad byte further on.
            let (shifted, over) = magnitude.multipliedReportingOverflow(by: base)
            let (sum, carried) = shifted.addingReportingOverflow(digit)
            guard !over, !carried else { return .failure(outOfRange) }
            magnitude = sum
        }
        guard !underscores || underscoresAllowed(literal) else { return .failure(invalid) }
        let limit = UInt64(Int.max)
        guard magnitude <= (negative ? limit + 1 : limit) else { return .failure(outOfRange) }
        return .success(negative ? Int(truncatingIfNeeded: 0 &- magnitude) : Int(magnitude))
    }

    /// `ParseFloat(s, 64)`: Go's decimal and hexadecimal float literals (a hexadecimal one needs its `p` exponent), `_`
    /// between digits, and `inf`, `infinity` (either signed) and `nan` in any case. A finite literal past a `Double`'s
    /// range is refused, where `Inf` itself is a value.
    static func parseFloat(_ text: String) -> Result<Double, GoDuration.Refusal> {
        let invalid = GoDuration.Refusal(message: "strconv.ParseFloat: parsing \"\(text)\": invalid syntax")
        let bytes = Array(text.utf8)[...]
        if let special = special(bytes) { return .success(special) }
        var at = bytes.startIndex
        if at < bytes.endIndex, bytes[at] == plus || bytes[at] == minus { at += 1 }
        var hex = false
        if bytes.endIndex - at > 2, bytes[at] == zero, lower(bytes[at + 1]) == UInt8(ascii: "x") { hex = true; at += 2 }
        func isDigit(_ byte: UInt8) -> Bool {
            (zero...UInt8(ascii: "9")).contains(byte) || hex && (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(lower(byte))
        }
        var digits = false, dot = false, underscores = false
        while at < bytes.endIndex {
            let byte = bytes[at]
            if byte == underscore { underscores = true } else if byte == UInt8(ascii: ".") {
                guard !dot else { break }
                dot = true
            } else if isDigit(byte) { digits = true } else { break }
            at += 1
        }
        guard digits else { return .failure(invalid) }
        if at < bytes.endIndex, lower(bytes[at]) == (hex ? UInt8(ascii: "p") : UInt8(ascii: "e")) {
            at += 1
            if at < bytes.endIndex, bytes[at] == plus || bytes[at] == minus { at += 1 }
            let exponentStart = at
            while at < bytes.endIndex, (zero...UInt8(ascii: "9")).contains(bytes[at]) || bytes[at] == underscore {
                if bytes[at] == underscore { underscores = true }
                at += 1
            }
            guard at > exponentStart else { return .failure(invalid) }
        } else if hex {
            return .failure(invalid)
        }
        guard at == bytes.endIndex, !underscores || underscoresAllowed(bytes) else { return .failure(invalid) }
        // The syntax is Go's; the value is the platform's correctly rounded conversion of the same literal.
        let literal = String(decoding: bytes.filter { $0 != underscore }, as: UTF8.self)
        guard let value = Double(literal) else { return .failure(invalid) }
        guard value.isFinite else { return .failure(GoDuration.Refusal(message: "strconv.ParseFloat: parsing \"\(text)\": value out of range")) }
        return .success(value)
    }

    /// Go's `special`: `[+-]inf`, `[+-]infinity` and `nan`, in any case, as the whole text.
    private static func special(_ bytes: ArraySlice<UInt8>) -> Double? {
        let word = String(decoding: bytes.map(lower), as: UTF8.self)
        switch word {
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        case "nan": return .nan
        default: return nil
        }
    }

    /// Go's `underscoreOK`: `_` only between digits, or between a base prefix and a digit, never last.
    private static func underscoresAllowed(_ literal: ArraySlice<UInt8>) -> Bool {
        var bytes = literal
        if let sign = bytes.first, sign == plus || sign == minus { bytes = bytes.dropFirst() }
        var saw: Character = "^", hex = false
        if bytes.count >= 2, bytes.first == zero, [UInt8(ascii: "b"), UInt8(ascii: "o"), UInt8(ascii: "x")].contains(lower(bytes[bytes.startIndex + 1])) {
            hex = lower(bytes[bytes.startIndex + 1]) == UInt8(ascii: "x")
            saw = "0"
            bytes = bytes.dropFirst(2)
        }
        for byte in bytes {
            if (zero...UInt8(ascii: "9")).contains(byte) || hex && (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(lower(byte)) {
                saw = "0"
            } else if byte == underscore {
                guard saw == "0" else { return false }
                saw = "_"
            } else {
                guard saw != "_" else { return false }
                saw = "!"
            }
        }
        return saw != "_"
    }

    private static func lower(_ byte: UInt8) -> UInt8 { byte | 0x20 }
    private static let zero = UInt8(ascii: "0"), plus = UInt8(ascii: "+"), minus = UInt8(ascii: "-"), underscore = UInt8(ascii: "_")
}
