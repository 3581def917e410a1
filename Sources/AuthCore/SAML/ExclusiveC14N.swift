import Foundation

/// Exclusive XML Canonicalization 1.0 (https://www.w3.org/TR/xml-exc-c14n/) of an element subtree: the
/// byte string XML signatures digest and sign, which SAML signers all use.
///
/// Unlike inclusive C14N it does not drag in the namespaces of the enveloping document: a namespace is
/// written on the first output element that visibly uses it (its own prefix, or an attribute's), unless
/// an output ancestor already wrote the same binding. Prefixes in an `InclusiveNamespaces PrefixList`
/// are written as inclusive C14N would. `xml:` attributes of ancestors are not inherited (§3).
public enum ExclusiveC14N {
    /// `http://www.w3.org/2001/10/xml-exc-c14n#`: comments removed.
    public static let algorithm = "http://www.w3.org/2001/10/xml-exc-c14n#"
    /// `…#WithComments`: comments kept.
    public static let algorithmWithComments = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments"
    /// The namespace of `InclusiveNamespaces` (the same URI as the algorithm).
    public static let namespace = "http://www.w3.org/2001/10/xml-exc-c14n#"

    /// The canonical form of `element` and its content.
    ///
    /// - Parameters:
    ///   - inScope: the namespace declarations of its ancestors in the document (nearest last or
    ///     de-duplicated, as `XMLLocatedElement.inScope` gives them). Only prefixes in
    ///     `inclusivePrefixes` read them: a visibly used prefix takes its URI from the element or
    ///     attribute that uses it.
    ///   - excluding: descendants to leave out with their subtrees (the apex is always written).
    ///   - inclusivePrefixes: the `PrefixList`; `#default` names the default namespace.
    ///   - withComments: keep comments (`…#WithComments`).
    public static func canonicalize(_ element: XMLElement, inScope: [XMLNamespaceDeclaration] = [],
                                    excluding: (XMLElement) -> Bool = { _ in false }, inclusivePrefixes: [String] = [],
                                    withComments: Bool = false) -> [UInt8] {
        var declared: [String: String] = [:]
        for declaration in inScope { declared[declaration.prefix ?? ""] = declaration.uri }
        let inclusive = Set(inclusivePrefixes.map { $0 == "#default" ? "" : $0 })
        return withoutActuallyEscaping(excluding) { excluding in
            var writer = CanonicalWriter(inclusive: inclusive, withComments: withComments, excluding: excluding)
            writer.write(element, rendered: [:], declared: declared)
            return writer.out
        }
    }
}

private struct CanonicalWriter {
    /// Prefixes ("" for the default namespace) treated by inclusive rules.
    let inclusive: Set<String>
    let withComments: Bool
    let excluding: (XMLElement) -> Bool
    var out: [UInt8] = []

    init(inclusive: Set<String>, withComments: Bool, excluding: @escaping (XMLElement) -> Bool) {
        self.inclusive = inclusive
        self.withComments = withComments
        self.excluding = excluding
    }

    /// `rendered`: the bindings output ancestors wrote (prefix or "" → URI). `declared`: every binding in
    /// scope in the document, which only inclusive prefixes consult.
    mutating func write(_ element: XMLElement, rendered outer: [String: String], declared outerDeclared: [String: String]) {
        var declared = outerDeclared
        if !inclusive.isEmpty {
            for declaration in element.namespaceDeclarations { declared[declaration.prefix ?? ""] = declaration.uri }
        }
        var rendered = outer
        var namespaces: [(prefix: String, uri: String)] = []
        func consider(_ prefix: String, _ uri: String) {
            // "Not rendered" and "rendered as no namespace" are the same for the default namespace: an
            // unprefixed element in no namespace needs `xmlns=""` only under a non-empty default.
            guard prefix != "xml", rendered[prefix, default: ""] != uri, !namespaces.contains(where: { $0.prefix == prefix }) else { return }
            if !prefix.isEmpty && uri.isEmpty { return }
            namespaces.append((prefix, uri))
        }
        consider(element.prefix ?? "", element.namespaceURI ?? "")
        for attribute in element.attributes {
            if let prefix = attribute.prefix, let uri = attribute.namespaceURI { consider(prefix, uri) }
        }
        for prefix in inclusive.sorted() {
            if let uri = declared[prefix] { consider(prefix, uri) } else if prefix.isEmpty { consider("", "") }
        }
        namespaces.sort { Self.precedes($0.prefix, $1.prefix) }
        for (prefix, uri) in namespaces { rendered[prefix] = uri }

        out.append(UInt8(ascii: "<"))
        out += element.qualifiedName.utf8
        for (prefix, uri) in namespaces {
            out += (prefix.isEmpty ? " xmlns=\"" : " xmlns:\(prefix)=\"").utf8
            XMLEscaping.attribute(uri, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        // Namespace URI first, then local name; unprefixed attributes (no namespace) come first.
        let attributes = element.attributes.sorted {
            let (a, b) = ($0.namespaceURI ?? "", $1.namespaceURI ?? "")
            return a == b ? Self.precedes($0.localName, $1.localName) : Self.precedes(a, b)
        }
        for attribute in attributes { XMLEscaping.write(attribute, into: &out) }
        out.append(UInt8(ascii: ">"))
        for child in element.children {
            switch child {
            case .element(let inner):
                if !excluding(inner) { write(inner, rendered: rendered, declared: declared) }
            case .text(let text):
                XMLEscaping.text(text, into: &out)
            case .comment(let text):
                if withComments { out += "<!--\(text)-->".utf8 }
            case .processingInstruction(let target, let data):
                out += (data.isEmpty ? "<?\(target)?>" : "<?\(target) \(data)?>").utf8
            }
        }
        out += "</\(element.qualifiedName)>".utf8
    }

    /// Code point order, as C14N sorts (UTF-8 byte order is the same).
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
}
