import AuthCore
import Foundation
import Hummingbird
import NIOCore

/// `application/x-www-form-urlencoded` bodies and query strings.
public enum FormBody {
    /// `a=1&b=2`, decoded (`+` is a space); a repeated name keeps its first value, a name without `=` has the
    /// empty value. A malformed escape (`%` without two hex digits) or escapes that are not UTF-8 make the whole
    /// text unreadable: no fields, as Go's `url.ParseQuery` (GoTrue) refuses it. By hand, in one pass over the
    /// bytes: through `URLComponents` a refresh's form body was a tenth of the request's time, and every query
    /// string (an API key, a grant type) is read this way.
    public static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        var utf8 = text.utf8[...]
        while !utf8.isEmpty {
            let end = utf8.firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            let item = utf8[..<end]
            utf8 = end == utf8.endIndex ? utf8[end...] : utf8[utf8.index(after: end)...]
            let equals = item.firstIndex(of: UInt8(ascii: "="))
            guard let name = unescape(item[..<(equals ?? item.endIndex)]) else { return [:] }
            var value = ""
            if let equals {
                guard let decoded = unescape(item[item.index(after: equals)...]) else { return [:] }
                value = decoded
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// One name or value: `+` is a space, `%XX` a byte; nil for a malformed escape or bytes that are not UTF-8.
    private static func unescape(_ bytes: Substring.UTF8View) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(Substring(bytes)) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                let high = bytes.index(after: index)
                guard high != bytes.endIndex, bytes.index(after: high) != bytes.endIndex,
                      let h = bytes[high].hexDigitValue, let l = bytes[bytes.index(after: high)].hexDigitValue else { return nil }
                out.append(h << 4 | l)
                index = bytes.index(after: high)
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Encodes pairs in order, escaping everything but unreserved characters.
    public static func encode(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return pairs.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }
            .joined(separator: "&")
    }
}

extension Request {
    /// Whether the body is a form: `application/x-www-form-urlencoded` in any case, with or without parameters.
    public var hasFormBody: Bool {
        headers.first(.contentType)?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }

    /// A form body (up to `limit` bytes); empty when the body is not a form.
    public func formFields(limit: Int = 1 << 16) async throws -> [String: String] {
        guard hasFormBody else { return [:] }
        let buffer = try await body.collect(upTo: limit)
        return FormBody.decode(String(buffer: buffer))
    }

    /// The query parameters, first value of each, decoded as a form (`+` is a space, as browsers and
    /// `requests` encode it).
    public var queryFields: [String: String] { FormBody.decode(uri.query ?? "") }
}
