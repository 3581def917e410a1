import Testing
@testable import AuthCore

@Suite struct RedirectURLTests {
    @Test(arguments: [
        "https://evil.example\\@127.0.0.1:3000/", "https://127.0.0.1:3000\\@evil.example/", "https://evil.example\t/",
        " https://evil.example", "https://evil.example\n.localhost/", "https:evil.example", "https:/evil.example",
        "//evil.example", "/\\evil.example", "evil.example", "",
    ])
    func urlsABrowserReadsOtherwiseAreNoTarget(_ text: String) {
        #expect(RedirectURL(text) == nil)
    }

    @Test func theHostIsTheOneABrowserGoesTo() throws {
        let userinfo = try #require(RedirectURL("https://127.0.0.1:3000@evil.example/cb"))
        #expect(userinfo.host == "evil.example")
        let upper = try #require(RedirectURL("HTTPS://EVIL.EXAMPLE:8443/"))
        #expect(upper.scheme == "https" && upper.host == "evil.example" && upper.port == 8443 && upper.isWeb)
        let app = try #require(RedirectURL("myapp://auth/callback?x=1"))
        #expect(app.scheme == "myapp" && !app.isWeb)
    }

    /// The check for URLs Fauxth calls or sends a browser to (functions, upstreams, assertion consumers): the command
    /// line took `http:127.0.0.1:3001`, which names no host, before it went through this.
    @Test func aWebURLHasAWebSchemeAndAHost() {
        for text in ["http://127.0.0.1:3001", "HTTPS://functions.example/beforeCreate", "https://[::1]:8443/acs"] { #expect(RedirectURL.isWeb(text)) }
        for text in ["http:127.0.0.1:3001", "https:/functions.example", "ftp://files.example", "myapp://cb", "127.0.0.1:3001",
                     "https://a.example\\@b.example/", ""] {
            #expect(!RedirectURL.isWeb(text), "\(text)")
        }
    }
}
