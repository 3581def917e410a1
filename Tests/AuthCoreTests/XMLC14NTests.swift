import Foundation
import Testing
import AuthCore

/// One exclusive C14N case: a document, the element to canonicalize (by name) with its document
/// context, an InclusiveNamespaces PrefixList, and the canonical bytes.
struct C14NVector: Sendable, CustomTestStringConvertible {
    var name: String
    var target: String
    var namespace: String?
    var prefixes: [String]
    var input: String
    var expected: String

    init(_ name: String, target: String, namespace: String?, prefixes: [String], input: String, expected: String) {
        (self.name, self.target, self.namespace) = (name, target, namespace)
        (self.prefixes, self.input, self.expected) = (prefixes, input, expected)
    }

    var testDescription: String { name }
}

@Suite("SAML toolkit: exclusive XML canonicalization")
struct SAMLC14NTests {
    /// Expected outputs are libxml2's (lxml `tostring(method="c14n", exclusive=True, with_comments=False)`)
    /// on the element inside its document. Two come from the W3C spec's §2.2 example: the same
    /// `n1:elem2` in two different documents canonicalizes to the same bytes. One exception,
    /// `inclusivePrefixes`: lxml silently drops `#default` from a PrefixList (a token not in the
    /// document's dictionary), so its `xmlns="urn:d"` is written by hand from RFC 3741 §3 (prefixes in the
    /// list, the default one included, are rendered as inclusive C14N renders them).
    static let vectors: [C14NVector] = [
        C14NVector("w3cDoc1", target: "elem2", namespace: "http://example.net", prefixes: [],
                   input: "<n0:local xmlns:n0=\"foo:bar\" xmlns:n3=\"ftp://example.org\"><n1:elem2 xmlns:n1=\"http://example.net\" xml:lang=\"en\"><n3:stuff xmlns:n3=\"ftp://example.org\"/></n1:elem2></n0:local>",
                   expected: "<n1:elem2 xmlns:n1=\"http://example.net\" xml:lang=\"en\"><n3:stuff xmlns:n3=\"ftp://example.org\"></n3:stuff></n1:elem2>"),
        C14NVector("w3cDoc2", target: "elem2", namespace: "http://example.net", prefixes: [],
                   input: "<n2:pdu xmlns:n1=\"http://example.com\" xmlns:n2=\"http://foo.example\" xml:lang=\"fr\" xml:space=\"retain\"><n1:elem2 xmlns:n1=\"http://example.net\" xml:lang=\"en\"><n3:stuff xmlns:n3=\"ftp://example.org\"/></n1:elem2></n2:pdu>",
                   expected: "<n1:elem2 xmlns:n1=\"http://example.net\" xml:lang=\"en\"><n3:stuff xmlns:n3=\"ftp://example.org\"></n3:stuff></n1:elem2>"),
        C14NVector("pushdown", target: "root", namespace: "urn:a", prefixes: [],
                   input: "<a:root xmlns:a=\"urn:a\" xmlns:b=\"urn:b\" xmlns:unused=\"urn:u\" xmlns=\"urn:default\">\n  <a:child>\n    <b:leaf b:attr=\"1\"/>\n    <plain/>\n  </a:child>\n</a:root>",
                   expected: "<a:root xmlns:a=\"urn:a\">\n  <a:child>\n    <b:leaf xmlns:b=\"urn:b\" b:attr=\"1\"></b:leaf>\n    <plain xmlns=\"urn:default\"></plain>\n  </a:child>\n</a:root>"),
        C14NVector("pushdownSubtree", target: "child", namespace: "urn:a", prefixes: [],
                   input: "<a:root xmlns:a=\"urn:a\" xmlns:b=\"urn:b\" xmlns:unused=\"urn:u\" xmlns=\"urn:default\">\n  <a:child>\n    <b:leaf b:attr=\"1\"/>\n    <plain/>\n  </a:child>\n</a:root>",
                   expected: "<a:child xmlns:a=\"urn:a\">\n    <b:leaf xmlns:b=\"urn:b\" b:attr=\"1\"></b:leaf>\n    <plain xmlns=\"urn:default\"></plain>\n  </a:child>"),
        C14NVector("attributeOrder", target: "e", namespace: "urn:d", prefixes: [],
                   input: "<e xmlns=\"urn:d\" xmlns:z=\"urn:z\" xmlns:a=\"urn:a\" z:b=\"1\" a:c=\"2\" b=\"3\" a=\"4\" z:a=\"5\" xml:lang=\"en\"/>",
                   expected: "<e xmlns=\"urn:d\" xmlns:a=\"urn:a\" xmlns:z=\"urn:z\" a=\"4\" b=\"3\" xml:lang=\"en\" a:c=\"2\" z:a=\"5\" z:b=\"1\"></e>"),
        C14NVector("escaping", target: "doc", namespace: nil, prefixes: [],
                   input: "<doc attr=\"tab&#x9;lf&#xA;cr&#xD;quote&quot;lt&lt;gt&gt;amp&amp;apos'\" literal=\"a\tb\nc\r\nd\">text &amp; &lt; &gt; \"quotes\" 'apos' cr&#xD; crlf\r\nend<![CDATA[ <cdata> & ]]></doc>",
                   expected: "<doc attr=\"tab&#x9;lf&#xA;cr&#xD;quote&quot;lt&lt;gt>amp&amp;apos'\" literal=\"a b c d\">text &amp; &lt; &gt; \"quotes\" 'apos' cr&#xD; crlf\nend &lt;cdata&gt; &amp; </doc>"),
        C14NVector("emptyAndUndeclare", target: "root", namespace: "urn:d", prefixes: [],
                   input: "<root xmlns=\"urn:d\"><inner xmlns=\"\"><leaf></leaf></inner><again/></root>",
                   expected: "<root xmlns=\"urn:d\"><inner xmlns=\"\"><leaf></leaf></inner><again></again></root>"),
        C14NVector("undeclareSubtree", target: "inner", namespace: nil, prefixes: [],
                   input: "<root xmlns=\"urn:d\"><inner xmlns=\"\"><leaf></leaf></inner><again/></root>",
                   expected: "<inner><leaf></leaf></inner>"),
        C14NVector("inclusivePrefixes", target: "sub", namespace: "urn:r", prefixes: ["b", "#default"],
                   input: "<r:root xmlns:r=\"urn:r\" xmlns:b=\"urn:b\" xmlns:c=\"urn:c\" xmlns=\"urn:d\"><r:sub><r:leaf attr=\"x\">text</r:leaf></r:sub></r:root>",
                   expected: "<r:sub xmlns=\"urn:d\" xmlns:b=\"urn:b\" xmlns:r=\"urn:r\"><r:leaf attr=\"x\">text</r:leaf></r:sub>"),
        C14NVector("inclusiveUnknownPrefix", target: "sub", namespace: "urn:r", prefixes: ["b", "nope"],
                   input: "<r:root xmlns:r=\"urn:r\" xmlns:b=\"urn:b\"><r:sub><b:x/></r:sub></r:root>",
                   expected: "<r:sub xmlns:b=\"urn:b\" xmlns:r=\"urn:r\"><b:x></b:x></r:sub>"),
        C14NVector("commentsAndPIs", target: "doc", namespace: nil, prefixes: [],
                   input: "<?xml version=\"1.0\"?>\n<!-- before -->\n<doc><!-- inside --><?pi some data?><?empty?><a>x<!-- c -->y</a></doc>\n<!-- after -->",
                   expected: "<doc><?pi some data?><?empty?><a>xy</a></doc>"),
        C14NVector("redeclared", target: "a", namespace: "urn:one", prefixes: [],
                   input: "<p:a xmlns:p=\"urn:one\"><p:b xmlns:p=\"urn:two\"><p:c xmlns:p=\"urn:one\"/></p:b></p:a>",
                   expected: "<p:a xmlns:p=\"urn:one\"><p:b xmlns:p=\"urn:two\"><p:c xmlns:p=\"urn:one\"></p:c></p:b></p:a>"),
        C14NVector("xmlAttributes", target: "inner", namespace: nil, prefixes: [],
                   input: "<outer xml:lang=\"fr\"><inner xml:space=\"preserve\" id=\"1\"/></outer>",
                   expected: "<inner id=\"1\" xml:space=\"preserve\"></inner>"),
    ]

    @Test(arguments: vectors)
    func knownAnswer(_ vector: C14NVector) throws {
        let root = try XMLDocumentParser.parse(vector.input)
        let located = try #require(root.located(named: vector.target, namespace: vector.namespace).first)
        let canonical = ExclusiveC14N.canonicalize(located.element, inScope: located.inScope, inclusivePrefixes: vector.prefixes)
        #expect(String(decoding: canonical, as: UTF8.self) == vector.expected)
    }

    @Test func excludedElementsAndCommentsOption() throws {
        let root = try XMLDocumentParser.parse("<a><b>1</b><!--note--><c>2</c><b>3</b></a>")
        let withoutB = ExclusiveC14N.canonicalize(root, excluding: { $0.localName == "b" })
        #expect(String(decoding: withoutB, as: UTF8.self) == "<a><c>2</c></a>")
        let withComments = ExclusiveC14N.canonicalize(root, withComments: true)
        #expect(String(decoding: withComments, as: UTF8.self) == "<a><b>1</b><!--note--><c>2</c><b>3</b></a>")
    }

    /// A nested element canonicalized from a built tree (no declarations anywhere) and from the parsed
    /// text of that tree give the same bytes: signatures made over built trees verify over their text.
    @Test func builtTreeAndItsTextCanonicalizeAlike() throws {
        let inner = XMLElement("saml:Assertion", namespaceURI: "urn:oasis:names:tc:SAML:2.0:assertion", attributes: [("ID", "_x")],
                               children: [.element(XMLElement("saml:Issuer", namespaceURI: "urn:oasis:names:tc:SAML:2.0:assertion", text: "me"))])
        let outer = XMLElement("samlp:Response", namespaceURI: "urn:oasis:names:tc:SAML:2.0:protocol", children: [.element(inner)])
        let parsed = try XMLDocumentParser.parse(outer.serialized())
        let located = try #require(parsed.element(withID: "_x"))
        #expect(ExclusiveC14N.canonicalize(inner) == ExclusiveC14N.canonicalize(located.element, inScope: located.inScope))
        #expect(String(decoding: ExclusiveC14N.canonicalize(inner), as: UTF8.self)
            == #"<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_x"><saml:Issuer>me</saml:Issuer></saml:Assertion>"#)
    }
}
