import Foundation

/// An email as its reader sees it: headers decoded (RFC 2047 words in any charset), the plain and HTML
/// bodies found through `multipart/alternative`, `mixed` and `related` nesting and decoded from
/// quoted-printable or base64 in their charset, and the names of the attachments.
public struct MIMEMessage: Sendable, Equatable {
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public var headers: [Header] = []
    public var text: String?
    public var html: String?
    public var attachments: [String] = []

    /// The first header named `name` (case-insensitive), decoded.
    public func header(_ name: String) -> String? { headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }

    public var subject: String? { header("Subject") }
    public var from: String? { header("From") }

    /// Parses a message as it came through SMTP's DATA (CRLF or LF line ends).
    public static func parse(_ raw: [UInt8]) -> MIMEMessage {
        var message = MIMEMessage()
        let part = Part(raw)
        message.headers = part.headers
        message.collect(part)
        return message
    }

    /// Walks a part: the first plain and HTML bodies that are not attachments are the message's bodies.
    private mutating func collect(_ part: Part) {
        let (type, params) = Self.split(part.header("Content-Type") ?? "text/plain")
        let disposition = Self.split(part.header("Content-Disposition") ?? "")
        let filename = disposition.params["filename"] ?? params["name"]
        if type.hasPrefix("multipart/"), let boundary = params["boundary"] {
            for child in Self.children(of: part.body, boundary: boundary) { collect(Part(child)) }
            return
        }
        let isAttachment = disposition.value == "attachment" || (filename != nil && !type.hasPrefix("text/"))
        let content = Self.decodeTransfer(part.body, encoding: part.header("Content-Transfer-Encoding"))
        switch type {
        case "text/plain" where !isAttachment && text == nil: text = Self.string(content, charset: params["charset"])
        case "text/html" where !isAttachment && html == nil: html = Self.string(content, charset: params["charset"])
        default: attachments.append(filename ?? type)
        }
    }

    // MARK: Parts

    /// One entity: its unfolded, decoded headers and its raw body.
    struct Part {
        var headers: [Header] = []
        var body: [UInt8] = []

        init(_ raw: [UInt8]) {
            var lines: [[UInt8]] = []
            var index = 0
            var bodyStart = raw.count
            while index < raw.count {
                let end = raw[index...].firstIndex(of: 0x0A) ?? raw.count
                var line = Array(raw[index..<end])
                if line.last == 0x0D { line.removeLast() }
                index = min(end + 1, raw.count)
                if line.isEmpty { bodyStart = index; break }
                lines.append(line)
            }
            body = bodyStart < raw.count ? Array(raw[bodyStart...]) : []
            for line in lines {
                let text = String(decoding: line, as: UTF8.self)
                if let first = text.first, first == " " || first == "\t", !headers.isEmpty {
                    headers[headers.count - 1].value += " " + text.trimmingCharacters(in: .whitespaces)
                } else if let colon = text.firstIndex(of: ":") {
                    headers.append(Header(name: String(text[..<colon]).trimmingCharacters(in: .whitespaces),
                                          value: String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
                }
            }
            headers = headers.map { Header(name: $0.name, value: MIMEMessage.decodeWords($0.value)) }
        }

        func header(_ name: String) -> String? { headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
    }

    /// The parts of a multipart body between `--boundary` lines, up to `--boundary--`.
    static func children(of body: [UInt8], boundary: String) -> [[UInt8]] {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [[UInt8]] = []
        var current: [UInt8]?
        var index = 0
        while index < body.count {
            let end = body[index...].firstIndex(of: 0x0A) ?? body.count
            var line = Array(body[index..<end])
            let lineWithEnding = Array(body[index..<min(end + 1, body.count)])
            index = min(end + 1, body.count)
            if line.last == 0x0D { line.removeLast() }
            while line.last == 0x20 || line.last == 0x09 { line.removeLast() }
            if line.starts(with: delimiter) {
                if var finished = current {
                    // The line break before a delimiter belongs to the delimiter.
                    if finished.last == 0x0A { finished.removeLast() }
                    if finished.last == 0x0D { finished.removeLast() }
                    parts.append(finished)
                }
                if line == delimiter + Array("--".utf8) { return parts }
                current = []
            } else if current != nil {
                current! += lineWithEnding
            }
        }
        if let current { parts.append(current) }
        return parts
    }

    // MARK: Decoding

    /// `type/subtype; name="value"; …` as the lowercased value and its parameters.
    static func split(_ header: String) -> (value: String, params: [String: String]) {
        var pieces = header.split(separator: ";", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
        let value = pieces.isEmpty ? "" : pieces.removeFirst().lowercased()
        var params: [String: String] = [:]
        for piece in pieces {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            var v = String(piece[piece.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
            if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
            params[piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()] = v
        }
        return (value, params)
    }

    static func decodeTransfer(_ body: [UInt8], encoding: String?) -> [UInt8] {
        switch encoding?.lowercased().trimmingCharacters(in: .whitespaces) {
        case "base64"?:
            let compact = String(decoding: body.filter { !($0 == 0x0D || $0 == 0x0A || $0 == 0x20 || $0 == 0x09) }, as: UTF8.self)
            return Data(base64Encoded: compact, options: .ignoreUnknownCharacters).map(Array.init) ?? body
        case "quoted-printable"?: return quotedPrintable(body, underscoreIsSpace: false)
        default: return body
        }
    }

    /// RFC 2045 quoted-printable (and, with `underscoreIsSpace`, RFC 2047's Q encoding).
    static func quotedPrintable(_ input: [UInt8], underscoreIsSpace: Bool) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < input.count {
            let byte = input[i]
            if byte == UInt8(ascii: "=") {
                if i + 1 < input.count, input[i + 1] == 0x0A { i += 2; continue }
                if i + 2 < input.count, input[i + 1] == 0x0D, input[i + 2] == 0x0A { i += 3; continue }
                if i + 2 < input.count, let value = UInt8(String(decoding: input[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                    out.append(value); i += 3; continue
                }
            }
            out.append(underscoreIsSpace && byte == UInt8(ascii: "_") ? 0x20 : byte)
            i += 1
        }
        return out
    }

    /// Bytes in a named charset; UTF-8 when it is absent or unknown.
    static func string(_ bytes: [UInt8], charset: String?) -> String {
        let encoding: String.Encoding = switch charset?.lowercased() {
        case "iso-8859-1"?, "latin1"?, "iso8859-1"?: .isoLatin1
        case "windows-1252"?, "cp1252"?: .windowsCP1252
        case "us-ascii"?, "ascii"?: .ascii
        case "utf-16"?: .utf16
        default: .utf8
        }
        if encoding != .utf8, let decoded = String(data: Data(bytes), encoding: encoding) { return decoded }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?ISO-8859-1?Q?…?=`); the space between two of them goes.
    static func decodeWords(_ value: String) -> String {
        guard value.contains("=?") else { return value }
        let pattern = #/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/#
        var result = ""
        var rest = Substring(value)
        var lastWasWord = false
        while let match = rest.firstMatch(of: pattern) {
            let between = rest[rest.startIndex..<match.range.lowerBound]
            if !(lastWasWord && between.allSatisfy(\.isWhitespace)) { result += between }
            let payload = Array(match.output.3.utf8)
            let bytes = match.output.2.lowercased() == "b"
                ? Data(base64Encoded: String(match.output.3), options: .ignoreUnknownCharacters).map(Array.init) ?? payload
                : quotedPrintable(payload, underscoreIsSpace: true)
            result += string(bytes, charset: String(match.output.1.split(separator: "*").first ?? ""))
            rest = rest[match.range.upperBound...]
            lastWasWord = true
        }
        return result + rest
    }
}
