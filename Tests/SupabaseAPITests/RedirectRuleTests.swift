import AuthCore
@testable import SupabaseAPI
import Testing

/// GoTrue's `IsRedirectURLValid`, case by case: the same-origin table of its `request_test.go`
/// (`TestIsRedirectURLValidSameOrigin`), its allow-list table (`TestGetReferrer`), and the hosts it refuses before
/// the allow list is read (IP literals but loopback ones, decimal addresses, odd host names), at supabase/auth bc32168.
@Suite struct RedirectRuleTests {
    func allowed(_ url: String, site: String, allowList: String = "") throws -> Bool {
        Redirects.isAllowed(url, config: try SupabaseConfig(env: ["GOTRUE_SITE_URL": site, "GOTRUE_URI_ALLOW_LIST": allowList]))
    }

    @Test(arguments: [
        ("https://example.com", "https://example.com/path", true),
        ("https://example.com", "http://example.com/path", false),
        ("http://example.com", "https://example.com/path", false),
        ("https://example.com", "https://example.com:8443/path", false),
        ("https://example.com:9000", "https://example.com:9000/path", true),
        ("https://example.com:9000", "https://example.com/path", false),
        ("https://example.com:9000", "https://example.com:9001/path", false),
        ("http://localhost:3000", "http://localhost:8080/callback", true),
        ("http://127.0.0.1:3000", "http://127.0.0.1:8080/callback", true),
        ("http://localhost:3000", "http://localhost/callback", true),
        ("https://localhost:3000", "http://localhost:8080/callback", false),
        // Hosts compare as written, and localhost is no IP address: another scheme on it is refused.
        ("http://localhost:3000", "https://localhost:3000/x", false),
        ("http://localhost:3000", "HTTP://LOCALHOST:3000/x", false),
    ])
    func theSiteURLsOriginIsAllowed(_ site: String, _ url: String, _ expected: Bool) throws {
        #expect(try allowed(url, site: site) == expected)
    }

    @Test(arguments: [
        ("http://localhost:8000/path", true), ("http://localhost:3000", false), ("http://localhost:8000", false),
        ("http://localhost:8000/path/to/page", false), ("http://localhost:8000/path?param=1", true),
        ("http://123?.localhost:8000/path", false), ("http://123.123.123.123?localhost:8000/path", false),
        ("http://127.0.0.1:12345/path", true), ("http://[0:0:0:0:0:0:0:1]:12345/path", true),
        ("https://example.com/dashboard", true), ("http://example.com/dashboard", false), ("https://example.com:8443/dashboard", false),
    ])
    func theAllowListIsReadAsGoTrueReadsIt(_ url: String, _ expected: Bool) throws {
        let list = "http://localhost:8000/*,http://*.localhost:8000/*,http://*:12345/*,http://**:12345/*"
        #expect(try allowed(url, site: "https://example.com", allowList: list) == expected)
    }

    @Test(arguments: [
        // An IP address is allowed when it is a loopback one and refused otherwise, whatever the list says.
        ("http://192.168.1.5/cb", false), ("http://127.0.0.2:4000/cb", true), ("http://[::1]:4000/cb", true),
        ("http://[::ffff:127.0.0.1]/cb", true), ("http://[2001:db8::1]/cb", false), ("http://0.0.0.0:3000/cb", false),
        // Decimal addresses and host names with other characters never get as far as the list.
        ("http://2130706433/cb", false), ("https://foo_bar.example.com/cb", false),
        ("https://a.example.com/cb", true), ("https://a.b.example.com/cb", false), ("https://app.example.org/cb", true),
        ("https://app.example.org/cb?x=1", false), ("https://app.example.org/cb#frag", true), ("https://localhost.evil.com/", false),
        ("myapp://auth/callback", true), ("otherapp://auth/callback", false),
    ])
    func hostsAreSortedBeforeTheListIsRead(_ url: String, _ expected: Bool) throws {
        let list = "http://192.168.1.5/**,http://2130706433/**,https://*.example.com/**,https://app.example.org/cb,myapp://**,http://0.0.0.0:3000/**"
        #expect(try allowed(url, site: "http://localhost:3000", allowList: list) == expected)
    }
}
