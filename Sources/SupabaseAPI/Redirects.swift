import AuthCore
import Foundation
import HTTPTypes
import Hummingbird

/// GoTrue's redirect rules (`utilities/request.go`, `GetReferrer` and `IsRedirectURLValid`): `redirect_to` from a
/// header or the query, else the `Referer` header, whichever is valid first; otherwise GoTrue silently falls back to
/// the site URL, and so do we.
enum Redirects {
    /// The redirect to use. A refused `redirect_to` is recorded as a `redirect.rejected` event, so a tester can see
    /// why a link went elsewhere.
    static func target(for request: Request, project: SupabaseProject, emulator: Emulator) -> String {
        let config = project.config
        let requested = request.headers[.redirectTo] ?? request.uri.queryParameters.get("redirect_to").map { String($0) }
        if let requested, isAllowed(requested, config: config) { return requested }
        // A browser's fetch sends the page's origin as its Referer, so a web app's links come back to it.
        let referer = request.headers[.referer].flatMap { isAllowed($0, config: config) ? $0 : nil }
        if let requested, !requested.isEmpty {
            emulator.record(.redirectRejected, tenant: project.storeTenant, detail: [
                "requested": .string(requested), "used": .string(referer ?? config.siteURL),
                "reason": "not the site URL's scheme and host (and port, but for loopback hosts), a loopback IP address, or on GOTRUE_URI_ALLOW_LIST",
            ])
        }
        return referer ?? config.siteURL
    }

    /// GoTrue's `IsRedirectURLValid`, in its order. A URL a browser could read differently from us (`RedirectURL`)
    /// is never allowed, nor is anything when the site URL itself does not parse.
    static func isAllowed(_ url: String, config: SupabaseConfig) -> Bool {
        guard let target = RedirectURL(url), let site = RedirectURL(config.siteURL) else { return false }
        let host = target.hostAsWritten
        // Back to the site: scheme, host and port, the port free on loopback hosts (RFC 8252 §7.3). Hosts compare as
        // written, as Go's do.
        if host == site.hostAsWritten, target.scheme == site.scheme, target.port == site.port || isLocalhost(host) { return true }
        if !host.isEmpty, host.allSatisfy({ $0.isASCII && $0.isNumber }) { return false }
        if let loopback = IPAddress.isLoopback(host) { return loopback }
        if target.isWeb, !isRegularHostname(host) { return false }
        let withoutFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        return config.uriAllowList.contains { Glob.matches($0, withoutFragment) }
    }

    /// GoTrue's `isLocalhost` (`utilities/url_validator.go`).
    static func isLocalhost(_ host: String) -> Bool {
        let host = host.lowercased()
        return ["localhost", "127.0.0.1", "::1", "0.0.0.0", "::"].contains(host) || host.hasSuffix(".localhost")
    }

    /// `^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$`, which GoTrue asks of a web URL's host.
    static func isRegularHostname(_ host: String) -> Bool {
        func alphanumeric(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber) }
        guard let first = host.first, let last = host.last, alphanumeric(first), alphanumeric(last) else { return false }
        return host.allSatisfy { alphanumeric($0) || $0 == "." || $0 == "-" }
    }
}

extension HTTPField.Name {
    static let redirectTo = Self("redirect_to")!
    static let referer = Self("Referer")!
}
