import Foundation
import Testing
import AuthCore

@Suite("SAML toolkit: XML parser and tree")
struct SAMLXMLParserTests {
    @Test func resolvesNamespacesAndKeepsAttributeOrder() throws {
        let root = try XMLDocumentParser.parse(#"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- leading comment -->
        <p:root xmlns:p="urn:p" xmlns="urn:d" b="2" p:a="1" a="3"><child xml:lang="en"/><q:x xmlns:q="urn:q" xmlns=""><y/></q:x></p:root>
        """#)
        #expect(root.prefix == "p" && root.localName == "root" && root.namespaceURI == "urn:p")
        #expect(root.namespaceDeclarations == [.init(prefix: "p", uri: "urn:p"), .init(prefix: nil, uri: "urn:d")])
        #expect(root.attributes.map(\.qualifiedName) == ["b", "p:a", "a"])
        #expect(root.attribute("a") == "3" && root.attribute("a", namespace: "urn:p") == "1")
        let child = try #require(root.firstChild(named: "child", namespace: "urn:d"))
        #expect(child.attribute("lang", namespace: XMLNamespace.xml) == "en")
        let x = try #require(root.firstChild(named: "x", namespace: "urn:q"))
        // xmlns="" undeclares the default namespace: <y/> is in no namespace.
        #expect(x.firstChild(named: "y", namespace: nil) != nil)
        #expect(root.descendants(named: "y", namespace: nil).count == 1)
    }

    @Test func normalizesLineEndsReferencesAndAttributeValues() throws {
        let root = try XMLDocumentParser.parse(Array("<a v=\"one\ttwo\r\nthree&#x9;four&#xA;&amp;&lt;&quot;&apos;\">x\r\ny\rz&#xD;<![CDATA[<&>]]>&#x1F600;&gt;</a>".utf8))
        #expect(root.attribute("v") == "one two three\tfour\n&<\"'")
        #expect(root.text == "x\ny\nz\r<&>😀>")
        #expect(root.children.count == 1)  // character data, references and CDATA merge into one text node
    }

    @Test func textIsRecursiveAndSkipsComments() throws {
        let root = try XMLDocumentParser.parse("<a>1<b>2<!-- no -->3</b><?pi data?>4</a>")
        #expect(root.text == "1234")
        #expect(root.children.contains { if case .processingInstruction("pi", "data") = $0 { true } else { false } })
    }

    /// XXE and entity-expansion bombs start with a DOCTYPE: refused, whatever follows.
    @Test(arguments: [
        #"<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>"#,
        #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><lolz>&lol2;</lolz>"#,
        "<a><!DOCTYPE b></a>",
        "<a><!ENTITY x \"y\"></a>",
    ])
    func refusesDTDs(_ document: String) {
        #expect { try XMLDocumentParser.parse(document) } throws: { error in
            (error as? XMLError)?.message.contains("DTD") == true
        }
    }

    @Test(arguments: [
        ("<a>&nbsp;</a>", "undefined entity"),
        ("<p:a/>", "not declared"),
        ("<a p:b=\"1\"/>", "not declared"),
        ("<a><b></a></b>", "does not close"),
        ("<a>", "ends inside"),
        ("<a b=\"1\" b=\"2\"/>", "twice"),
        ("<a xmlns:p=\"urn:x\" xmlns:q=\"urn:x\" p:b=\"1\" q:b=\"2\"/>", "twice"),
        ("<a xmlns:p=\"\"/>", "forbid"),
        ("<a/><b/>", "after the root"),
        ("<a>&#0;</a>", "does not name a character"),
        ("<a>\u{1}</a>", "control character"),
        ("<a>]]></a>", "]]>"),
        ("<a><!-- a -- b --></a>", "--"),
        ("<a b=\"<\"/>", "`<`"),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", "only UTF-8"),
        ("<a:b:c xmlns:a=\"urn:a\"/>", "namespace-well-formed"),
        ("", "expected the root"),
    ])
    func refusesMalformedInput(_ document: String, _ fragment: String) {
        #expect { try XMLDocumentParser.parse(document) } throws: { error in
            (error as? XMLError)?.message.contains(fragment) == true
        }
    }

    @Test func refusesInvalidUTF8AndSaysWhere() {
        #expect(throws: XMLError(message: "the document is not valid UTF-8")) { try XMLDocumentParser.parse([0x3C, 0x61, 0xFF, 0x2F, 0x3E]) }
        #expect { try XMLDocumentParser.parse("<a>\n<b>\n</c>") } throws: { error in
            (error as? XMLError)?.message.hasSuffix("(line 3, column 1)") == true
        }
    }

    @Test func limitsDepth() throws {
        let depth = XMLDocumentParser.maximumDepth
        let fits = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect(throws: Never.self) { try XMLDocumentParser.parse(fits) }
        let deeper = String(repeating: "<a>", count: depth + 1) + String(repeating: "</a>", count: depth + 1)
        #expect { try XMLDocumentParser.parse(deeper) } throws: { ($0 as? XMLError)?.message.contains("nested more than") == true }
        // A hostile document a million levels deep fails fast instead of overflowing the stack.
        #expect(throws: XMLError.self) { try XMLDocumentParser.parse(String(repeating: "<a>", count: 1_000_000)) }
    }

    /// Truncations and single-byte corruptions all over a real document are either parsed or refused,
    /// never a crash.
    @Test func survivesTruncationAndCorruption() throws {
        let bytes = Array(SAMLFixtures.handmadeResponse.utf8)
        for length in stride(from: 0, to: bytes.count, by: 3) { _ = try? XMLDocumentParser.parse(Array(bytes[..<length])) }
        for index in stride(from: 0, to: bytes.count, by: 17) {
            for replacement: UInt8 in [0x00, 0x26, 0x3C, 0x3E, 0x22, 0x3A, 0xFF] {
                var copy = bytes
                copy[index] = replacement
                _ = try? XMLDocumentParser.parse(copy)
            }
        }
    }

    @Test func serializationRoundTrips() throws {
        for document in [SAMLFixtures.handmadeResponse, SAMLFixtures.signxmlAssertion,
                         "<a xmlns=\"urn:d\" t=\"&#x9;&#xA;&#xD;&quot;&lt;&amp;\">&lt;&gt;&amp;&#xD;<?pi x?><!--c--><b xmlns=\"\"/></a>"] {
            let tree = try XMLDocumentParser.parse(document)
            #expect(try XMLDocumentParser.parse(tree.serialized()) == tree)
            #expect(try XMLDocumentParser.parse(tree.serialized(declaration: true)) == tree)
        }
    }

    /// A built tree declares nothing; its text declares what each prefix in use needs, once.
    @Test func builtTreesGetTheDeclarationsTheyNeed() throws {
        let tree = XMLElement("md:EntityDescriptor", namespaceURI: "urn:md", attributes: [("entityID", "e"), ("xml:lang", "en")], children: [
            .element(XMLElement("md:Child", namespaceURI: "urn:md", attributes: [("ds:x", "1")], namespaces: [.init(prefix: "ds", uri: "urn:ds")])),
            .element(XMLElement("Plain", text: "t")),
        ])
        #expect(tree.serialized() == #"<md:EntityDescriptor xmlns:md="urn:md" entityID="e" xml:lang="en"><md:Child xmlns:ds="urn:ds" ds:x="1"></md:Child><Plain>t</Plain></md:EntityDescriptor>"#)
        let parsed = try XMLDocumentParser.parse(tree.serialized())
        #expect(parsed.childElements[0].attribute("x", namespace: "urn:ds") == "1")
    }

    @Test func findsElementsByIDWithTheirPlace() throws {
        let root = try XMLDocumentParser.parse(#"<r xmlns:a="urn:a" ID="root"> <a:x xmlns:b="urn:b"><b:y ID="target"/></a:x><z Id="dup"/><z id="dup"/></r>"#)
        let located = try #require(root.element(withID: "target"))
        #expect(located.path == [1, 0])
        #expect(located.inScope.contains(.init(prefix: "a", uri: "urn:a")) && located.inScope.contains(.init(prefix: "b", uri: "urn:b")))
        #expect(root.element(at: located.path) == located.element)
        #expect(root.element(withID: "root")?.path == [])
        // Two elements claim "dup": ambiguous, so no answer.
        #expect(root.elements(withID: "dup").count == 2 && root.element(withID: "dup") == nil)
        #expect(root.element(withID: "absent") == nil)
    }
}
