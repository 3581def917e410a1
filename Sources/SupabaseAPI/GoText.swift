/// Go's renderings that GoTrue's messages quote: `%q` (`strconv.Quote`), and gofrs/uuid's refusals of a UUID in a JSON
/// body (v4.3.1, `codec.go`), so a message reads as GoTrue's reads.
enum GoText {
    /// `strconv.Quote`: printable characters as they are, the usual backslash escapes, other controls as `\xNN`, other
    /// unprintable characters as `\uNNNN` or `\UNNNNNNNN`.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{07}": out += "\\a"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0B}": out += "\\v"
            default:
                if scalar == " " || isPrintable(scalar) {
                    out.unicodeScalars.append(scalar)
                } else if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\x" + hex(scalar.value, width: 2)
                } else if scalar.value > 0xFFFF {
                    out += "\\U" + hex(scalar.value, width: 8)
                } else {
                    out += "\\u" + hex(scalar.value, width: 4)
                }
            }
        }
        return out + "\""
    }

    /// Go's `unicode.IsPrint`: letters, marks, numbers, punctuation and symbols (the one space it allows is handled above).
    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator, .spaceSeparator: false
        default: true
        }
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Why gofrs/uuid's `UnmarshalText` refuses `text`, in its words: a length none of its forms has, a canonical-length
    /// text with misplaced dashes, or `encoding/hex`'s complaint about the first byte that is no hex digit. Nil for what
    /// it reads (the braced, URN and dashless forms are left to the lookup, which finds no provider by them).
    static func uuidRefusal(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard [32, 34, 36, 38, 41, 45].contains(bytes.count) else { return "uuid: incorrect UUID length \(bytes.count) in string \(quote(text))" }
        guard bytes.count == 36 else { return nil }
        let dashes = [8, 13, 18, 23]
        guard dashes.allSatisfy({ bytes[$0] == UInt8(ascii: "-") }) else { return "uuid: incorrect UUID format in string \(quote(text))" }
        // `InvalidByteError` prints the byte as a rune (`%#U`), so a byte of a longer character shows as Latin-1.
        for (index, byte) in bytes.enumerated() where !dashes.contains(index) {
            let scalar = Unicode.Scalar(byte)
            guard !scalar.properties.isASCIIHexDigit else { continue }
            let code = "U+" + hex(scalar.value, width: 4).uppercased()
            return "encoding/hex: invalid byte: " + (isPrintable(scalar) ? "\(code) '\(scalar)'" : code)
        }
        return nil
    }
}
