import Foundation

/// The lexical layer: character data, references, comments, PIs, names, and errors that say where.
extension XMLParserState {
    // MARK: Character data and markup

    /// Text up to the next `<` or `&`, with line ends normalized to LF.
    mutating func characterData(into text: inout [UInt8]) throws(XMLError) {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { return }
            if byte == UInt8(ascii: "]"), at(XMLLiteral.cdataClose) { throw fail("]]> is not allowed in text") }
            try appendNormalized(byte, to: &text)
            index += 1
        }
    }

    /// A quoted attribute value, normalized as XML 1.0 §3.3.3 does for CDATA attributes: each literal
    /// tab, LF, CR or CRLF becomes one space; characters from references stay what they are.
    mutating func attributeValue() throws(XMLError) -> String {
        guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw fail("expected a quoted value") }
        index += 1
        var value: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("the document ends inside an attribute value") }
            switch byte {
            case quote:
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "<"):
                throw fail("`<` is not allowed in an attribute value")
            case UInt8(ascii: "&"):
                try reference(into: &value)
            case 0x0D:
                index += peek(1) == 0x0A ? 2 : 1
                value.append(0x20)
            case 0x09, 0x0A:
                index += 1
                value.append(0x20)
            default:
                guard byte >= 0x20 else { throw fail("control character \(byte) is not allowed in XML") }
                index += 1
                value.append(byte)
            }
        }
    }

    /// `&…;` at `index`: a character reference or one of the five predefined entities.
    mutating func reference(into out: inout [UInt8]) throws(XMLError) {
        index += 1
        let start = index
        while let byte = peek(), byte != UInt8(ascii: ";") {
            guard index - start < 12 else { throw fail("unterminated entity or character reference") }
            index += 1
        }
        guard peek() == UInt8(ascii: ";") else { throw fail("unterminated entity or character reference") }
        let body = String(decoding: bytes[start..<index], as: UTF8.self)
        index += 1
        switch body {
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "amp": out.append(UInt8(ascii: "&"))
        case "apos": out.append(UInt8(ascii: "'"))
        case "quot": out.append(UInt8(ascii: "\""))
        default:
            guard body.hasPrefix("#") else {
                throw fail("undefined entity &\(body); (documents with a DTD are refused, so only &lt; &gt; &amp; &apos; &quot; exist)")
            }
            let hex = body.hasPrefix("#x")
            let digits = body.dropFirst(hex ? 2 : 1)
            guard !digits.isEmpty, let code = UInt32(digits, radix: hex ? 16 : 10), let scalar = Unicode.Scalar(code),
                  Self.isXMLCharacter(code) else {
                throw fail("&\(body); does not name a character XML allows")
            }
            out += Array(String(Character(scalar)).utf8)
        }
    }

    /// `<!--…-->`, its text returned.
    mutating func comment() throws(XMLError) -> String {
        index += XMLLiteral.commentOpen.count
        let text = try content(until: XMLLiteral.commentClose, what: "comment")
        if text.last == UInt8(ascii: "-") || zip(text, text.dropFirst()).contains(where: { $0 == 0x2D && $1 == 0x2D }) {
            throw fail("`--` is not allowed inside a comment")
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `<?target data?>`.
    mutating func processingInstruction() throws(XMLError) -> (String, String) {
        index += 2
        let target = try name()
        guard target.lowercased() != "xml" else { throw fail("an XML declaration is only allowed at the very start") }
        if at(XMLLiteral.piClose) { index += 2; return (target, "") }
        guard skipWhitespace() else { throw fail("expected whitespace after the PI target \(target)") }
        return (target, String(decoding: try content(until: XMLLiteral.piClose, what: "processing instruction"), as: UTF8.self))
    }

    /// Raw content up to `terminator` (consumed), line ends normalized.
    mutating func content(until terminator: [UInt8], what: String) throws(XMLError) -> [UInt8] {
        var out: [UInt8] = []
        while !at(terminator) {
            guard let byte = peek() else { throw fail("the document ends inside a \(what)") }
            try appendNormalized(byte, to: &out)
            index += 1
        }
        index += terminator.count
        return out
    }

    /// Appends `byte` (at `index`) with CRLF and lone CR read as LF (XML 1.0 §2.11).
    func appendNormalized(_ byte: UInt8, to out: inout [UInt8]) throws(XMLError) {
        switch byte {
        case 0x0D:
            if peek(1) != 0x0A { out.append(0x0A) }
        case 0x09, 0x0A:
            out.append(byte)
        default:
            guard byte >= 0x20 else { throw fail("control character \(byte) is not allowed in XML") }
            out.append(byte)
        }
    }

    // MARK: Tokens

    mutating func name() throws(XMLError) -> String {
        let start = index
        guard let first = peek(), Self.isNameStart(first) else { throw fail("expected a name") }
        index += 1
        while let byte = peek(), Self.isNameStart(byte) || Self.isNameRest(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func expect(_ byte: UInt8) throws(XMLError) {
        guard peek() == byte else { throw fail("expected `\(Character(Unicode.Scalar(byte)))`") }
        index += 1
    }

    /// Skips whitespace and says whether there was any.
    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = index
        while let byte = peek(), isWhitespace(byte) { index += 1 }
        return index > start
    }

    func peek(_ offset: Int = 0) -> UInt8? {
        let at = index + offset
        return at < bytes.count ? bytes[at] : nil
    }

    func at(_ literal: [UInt8]) -> Bool {
        guard index + literal.count <= bytes.count else { return false }
        for (offset, byte) in literal.enumerated() where bytes[index + offset] != byte { return false }
        return true
    }

    func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Letters, `_`, `:` and anything non-ASCII (the input is valid UTF-8, and XML's name ranges cover
    /// nearly all of it; being lenient there cannot change what a name means).
    static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x3A || byte >= 0x80
    }

    static func isNameRest(_ byte: UInt8) -> Bool { (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E }

    /// XML 1.0 §2.2 `Char`.
    static func isXMLCharacter(_ code: UInt32) -> Bool {
        code == 0x9 || code == 0xA || code == 0xD || (0x20...0xD7FF).contains(code) || (0xE000...0xFFFD).contains(code)
            || (0x10000...0x10FFFF).contains(code)
    }

    func dtdRefused() -> XMLError {
        fail("a DOCTYPE or other markup declaration was found: SAML forbids DTDs, and they are refused to rule out entity expansion and external entities")
    }

    /// An error that says where: line and column (in bytes) of `index`.
    func fail(_ message: String) -> XMLError {
        let upTo = bytes[..<min(index, bytes.count)]
        let line = upTo.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let column = (upTo.lastIndex(of: 0x0A).map { upTo.endIndex - $0 } ?? upTo.count + 1)
        return XMLError(message: "\(message) (line \(line), column \(column))")
    }
}

enum XMLLiteral {
    static let xmlDeclaration = Array("<?xml".utf8)
    static let commentOpen = Array("<!--".utf8)
    static let commentClose = Array("-->".utf8)
    static let cdataOpen = Array("<![CDATA[".utf8)
    static let cdataClose = Array("]]>".utf8)
    static let piOpen = Array("<?".utf8)
    static let piClose = Array("?>".utf8)
    static let markupDeclaration = Array("<!".utf8)
    static let endTagOpen = Array("</".utf8)
    static let emptyClose = Array("/>".utf8)
}
