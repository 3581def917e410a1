import AuthCore
import Foundation
import HTTPTypes
import Hummingbird

/// GoTrue's redirect rules (`utilities/request.go`): `redirect_to` from a header or the query, kept
/// when it is on the site URL's host, a loopback address, or matches `GOTRUE_URI_ALLOW_LIST`;
/// otherwise GoTrue silently falls back to the site URL, and so do we.
enum Redirects {
    /// The redirect to use. A refused one is recorded as a `redirect.rejected` event, so a tester can see
    /// why a link went to the site URL instead.
    static func target(for request: Request, project: SupabaseProject, emulator: Emulator) -> String {
        let config = project.config
        let requested = request.headers[.redirectTo] ?? request.uri.queryParameters.get("redirect_to")
        guard let requested, !requested.isEmpty else { return config.siteURL }
        guard isAllowed(requested, config: config) else {
            emulator.record(.redirectRejected, tenant: project.storeTenant, detail: [
                "requested": .string(requested), "used": .string(config.siteURL),
                "reason": "not the site URL's host, a loopback address, or on GOTRUE_URI_ALLOW_LIST",
            ])
            return config.siteURL
        }
        return requested
    }

    /// A URL a browser could read differently from us (`RedirectURL`) is never allowed.
    static func isAllowed(_ url: String, config: SupabaseConfig) -> Bool {
        guard let target = RedirectURL(url) else { return false }
        let host = target.host
        if target.isWeb, ["localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0"].contains(host) || host.hasSuffix(".localhost") { return true }
        if let site = URLComponents(string: config.siteURL), site.scheme?.lowercased() == target.scheme, site.host?.lowercased() == host {
            return true
        }
        let withoutFragment = url.split(separator: "#", maxSplits: 1).first.map(String.init) ?? url
        return config.uriAllowList.contains { Glob.matches($0, withoutFragment) }
    }
}

extension HTTPField.Name {
    static let redirectTo = Self("redirect_to")!
}
