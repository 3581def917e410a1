import Testing
@testable import AuthCore

@Suite struct LinkExtractorTests {
    @Test func findsCustomSchemeLinksAsWellAsWebLinks() {
        let text = "Open myapp://auth/callback?code=abc123&state=x or https://example.com/verify?token=t1."
        #expect(LinkExtractor.links(in: text) == ["myapp://auth/callback?code=abc123&state=x", "https://example.com/verify?token=t1"])
    }

    @Test func readsHrefAttributesAndUnescapesAmpersands() {
        let html = #"<a href="http://h/verify?token=abc&amp;type=signup">Confirm</a> <a href='growbro://reset?t=1'>x</a>"#
        let links = LinkExtractor.links(in: html)
        #expect(links.contains("http://h/verify?token=abc&type=signup"))
        #expect(links.contains("growbro://reset?t=1"))
        #expect(links.count == 2)
    }

    @Test func unescapesEachEntityOnce() {
        // "&amp;quot;" is the escaped text "&quot;", not a quote; "&#61;" is "=".
        let html = #"<a href="https://h/cb?next&#61;a&amp;quot;b&amp;amp;c">x</a>"#
        #expect(LinkExtractor.links(in: html) == ["https://h/cb?next=a&quot;b&amp;c"])
    }

    @Test func ignoresMailtoAndFragments() {
        #expect(LinkExtractor.links(in: ##"<a href="mailto:a@b.c">m</a> <a href="#top">t</a>"##).isEmpty)
    }

    @Test func pullsStandaloneCodesButNotDigitsInsideLinksOrWords() {
        let text = "Your code is 123456. Ref A9999. Link https://x/y?token=778899 valid until 2026"
        #expect(LinkExtractor.codes(in: text) == ["123456", "2026"])
    }
}
