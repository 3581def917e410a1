import Foundation

/// Why a text is not JSON, with the byte offset where reading stopped.
public struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

/// A JSON reader and writer over UTF-8 bytes. Foundation's JSONDecoder and JSONEncoder (through
/// Codable) were a quarter of a sign-in's time under load (scripts/bench, perf): every request parses
/// its body and rows' JSON columns and writes its answer and a token's claims.
enum JSONCodec {
    /// Deeper documents are refused rather than risk the stack (a hostile body of `[[[[…`).
    static let maxDepth = 512

    // MARK: Reading

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSON {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw reader.fail("unexpected text after the JSON value") }
        return value
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        func fail(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, reason: reason) }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: String, _ value: JSON) throws(JSONSyntaxError) -> JSON {
            for byte in literal.utf8 {
                guard index < bytes.count, bytes[index] == byte else { throw fail(index < bytes.count ? "unexpected character" : "unexpected end of input") }
                index += 1
            }
            return value
        }

        mutating func value(depth: Int) throws(JSONSyntaxError) -> JSON {
            guard depth < JSONCodec.maxDepth else { throw fail("nested more than \(JSONCodec.maxDepth) levels deep") }
            guard let byte = peek else { throw fail("unexpected end of input") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw fail("unexpected character")
            }
        }

        mutating func object(depth: Int) throws(JSONSyntaxError) -> JSON {
            index += 1
            var object: [String: JSON] = [:]
            skipSpace()
            if peek == UInt8(ascii: "}") { index += 1; return .object(object) }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                skipSpace()
                // A repeated key keeps its last value, as JSONDecoder did.
                object[key] = try value(depth: depth + 1)
                skipSpace()
                switch peek {
                case UInt8(ascii: ",")?: index += 1
                case UInt8(ascii: "}")?: index += 1; return .object(object)
                default: throw fail("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(JSONSyntaxError) -> JSON {
            index += 1
            var array: [JSON] = []
            skipSpace()
            if peek == UInt8(ascii: "]") { index += 1; return .array(array) }
            while true {
                skipSpace()
                array.append(try value(depth: depth + 1))
                skipSpace()
                switch peek {
                case UInt8(ascii: ",")?: index += 1
                case UInt8(ascii: "]")?: index += 1; return .array(array)
                default: throw fail("expected ',' or ']'")
                }
            }
        }

        mutating func string() throws(JSONSyntaxError) -> String {
            index += 1
            let start = index
            // The common case, no escapes: one copy of the bytes, validated as UTF-8.
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 { index += 1 }
            guard index < bytes.count else { throw fail("unterminated string") }
            if bytes[index] == UInt8(ascii: "\"") {
                defer { index += 1 }
                return try validated(UnsafeRawBufferPointer(rebasing: bytes[start..<index]), at: start)
            }
            var out = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
            while true {
                guard index < bytes.count else { throw fail("unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { index += 1; break }
                guard byte >= 0x20 else { throw fail("control character in a string") }
                if byte != UInt8(ascii: "\\") { out.append(byte); index += 1; continue }
                index += 1
                guard let escaped = peek else { throw fail("unterminated string") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw fail("invalid escape")
                }
            }
            guard let text = String(validating: out, as: UTF8.self) else { throw JSONSyntaxError(offset: start, reason: "invalid UTF-8 in a string") }
            return text
        }

        func validated(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws(JSONSyntaxError) -> String {
            let bytes = buffer.bindMemory(to: UInt8.self)
            // ASCII (names, emails, ids, tokens) is valid UTF-8: decoded without the validator, a fifth of its cost.
            if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw JSONSyntaxError(offset: offset, reason: "invalid UTF-8 in a string")
            }
            return text
        }

        mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail("invalid \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = bytes[index].hexDigitValue else { throw fail("invalid \\u escape") }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        mutating func number() throws(JSONSyntaxError) -> JSON {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw fail("invalid number") }
            if first == UInt8(ascii: "0") { index += 1 } else { digits() }
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                index += 1
                guard digits() > 0 else { throw fail("invalid number") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw fail("invalid number") }
            }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if integral, let int = Int(text) { return .int(int) }
            guard let double = Double(text), double.isFinite else { throw JSONSyntaxError(offset: start, reason: "number out of range") }
            return .double(double)
        }

        @discardableResult
        mutating func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
    }

    // MARK: Writing

    /// Compact text with keys sorted, `/` not escaped, non-ASCII written as UTF-8 (JSONEncoder's output with
    /// `.sortedKeys` and `.withoutEscapingSlashes`).
    static func serialize(_ value: JSON) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// `serialize`'s text as UTF-8 bytes, for what sends or signs bytes (an answer's body, a token's parts): the
    /// text is never made a `String` only to be taken apart again.
    static func bytes(_ value: JSON) -> [UInt8] {
        var out: [UInt8] = []
        // A sign-in's answer is one to two KiB: room for it at once rather than doubling up to it.
        out.reserveCapacity(1024)
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSON, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): integer(i, into: &out)
        case .double(let d): out.append(contentsOf: number(d).utf8)
        case .string(let s): string(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            // Sorted pairs rather than sorted keys looked up again: no second hash per member.
            var first = true
            for member in object.count > 1 ? object.sorted(by: { $0.key < $1.key }) : Array(object) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                string(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Whole numbers without a fraction (as JSONEncoder writes them); the rest in Swift's shortest form.
    private static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return "\(d)"
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Decimal digits, written in place: `String(i)` made a string per number.
    private static func integer(_ i: Int, into out: inout [UInt8]) {
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = i.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for the 20 digits of the largest magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            var at = buffer.count
            repeat {
                at -= 1
                buffer[at] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[at...]))
        }
    }

    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Native and small strings lend their bytes without a copy of the string; only a bridged one needs `withUTF8`.
        if s.utf8.withContiguousStorageIfAvailable({ bytes in escaped(bytes, into: &out) }) == nil {
            var s = s
            s.withUTF8 { bytes in escaped(bytes, into: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func escaped(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        // Most strings (ids, emails, timestamps, tokens) need no escape: found eight bytes at a time, then one
        // copy. A sign-in's answer carries its tokens, about a kilobyte, so the scan is much of the writing.
        guard let escape = firstEscape(in: bytes) else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<escape]))
        for byte in bytes[escape...] {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
    }

    /// The index of the first byte JSON must escape (a control character, `"` or `\`), if any. Eight bytes at a
    /// time: a word has such a byte when one of its bytes is below 0x20 or equals 0x22 or 0x5C, each found with
    /// the "has a zero byte" test (x - 0x01…) & ~x & 0x80…, where a byte at or above 0x80 (UTF-8) is no match.
    static func firstEscape(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                // Below 0x20: subtracting 0x20 borrows into the high bit only for such bytes (when the byte's own
                // high bit is clear, which `& ~word` checks).
                let found = ((word &- ones &* 0x20) | (quote &- ones) | (backslash &- ones)) & ~word & highs
                if found != 0 { break }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return nil
    }
}
