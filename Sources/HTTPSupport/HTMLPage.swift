import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The pages dialects serve to people (Firebase's action page, Cognito's hosted UI), filled from
/// templates under `web/`: `{{name}}` placeholders get escaped text, `<!--name-->…<!--/name-->`
/// sections are kept or dropped.
public enum HTMLPage {
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// Fills `template`: sections named in `sections` kept or dropped (others left as they are),
    /// `values` escaped into their placeholders, `markup` inserted as it is (markup the caller built
    /// from escaped parts), and placeholders nobody filled emptied.
    public static func fill(_ template: String, values: [String: String], markup: [String: String] = [:], sections: [String: Bool] = [:]) -> String {
        var html = template
        for (name, keep) in sections { html = section(name, in: html, keep: keep) }
        for (key, value) in markup { html = html.replacingOccurrences(of: "{{\(key)}}", with: value) }
        for (key, value) in values { html = html.replacingOccurrences(of: "{{\(key)}}", with: escape(value)) }
        return html.replacing(#/\{\{[A-Za-z_]+\}\}/#, with: "")
    }

    /// The template between `<!--name-->` and `<!--/name-->`, kept (markers removed) or dropped; every
    /// occurrence.
    static func section(_ name: String, in html: String, keep: Bool) -> String {
        var html = html
        while let start = html.range(of: "<!--\(name)-->"), let end = html.range(of: "<!--/\(name)-->", range: start.upperBound..<html.endIndex) {
            html = keep ? html.replacingCharacters(in: end, with: "").replacingCharacters(in: start, with: "")
                : html.replacingCharacters(in: start.lowerBound..<end.upperBound, with: "")
        }
        return html
    }

    /// An HTML response that may load nothing from elsewhere, nor be framed. Its forms post only to this
    /// server unless `formsMayRedirect`: browsers apply `form-action` to the redirects that follow a
    /// post too, and a sign-in page's post ends on the app's callback URL.
    /// A page that must run a script or load something gives its own `contentSecurityPolicy`.
    public static func response(_ html: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:],
                                formsMayRedirect: Bool = false, contentSecurityPolicy: String? = nil) -> Response {
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
            ?? "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'" + (formsMayRedirect ? "" : "; form-action 'self'")
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
