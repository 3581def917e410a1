import Foundation

/// A namespace-aware XML 1.0 parser for documents from strangers (SAML messages, metadata).
///
/// It refuses what SAML never needs and attackers love: any `<!DOCTYPE` (so no external entities and no
/// entity expansion: only the five predefined entities and character references exist), encodings other
/// than UTF-8, undeclared prefixes, and nesting deeper than `maximumDepth`. It never recurses, so
/// hostile input cannot exhaust the stack; how many bytes to accept is the caller's decision.
public enum XMLDocumentParser {
    /// Deeper than any SAML message or metadata (a Response with a signed Assertion is about 7 deep).
    public static let maximumDepth = 64

    /// Parses a whole document and returns its root element; the XML declaration, comments and PIs
    /// outside the root are dropped.
    public static func parse(_ bytes: [UInt8]) throws(XMLError) -> XMLElement {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw XMLError(message: "the document is not valid UTF-8")
        }
        var parser = XMLParserState(bytes: bytes)
        return try parser.document()
    }

    /// Parses a document held in a string.
    public static func parse(_ text: String) throws(XMLError) -> XMLElement {
        try parse(Array(text.utf8))
    }
}

/// One open element while its content is read.
struct XMLOpenElement {
    var element: XMLElement
    var qualifiedName: [UInt8]
    /// Prefix ("" for the default namespace) → URI, as in scope inside this element.
    var bindings: [String: String]
    /// Character data not yet appended as a text node (CDATA sections and references join it).
    var text: [UInt8] = []

    mutating func flushText() {
        guard !text.isEmpty else { return }
        element.children.append(.text(String(decoding: text, as: UTF8.self)))
        text.removeAll(keepingCapacity: true)
    }
}

/// The parser's cursor over the document bytes; its token readers are in XMLParserState+Tokens.swift.
struct XMLParserState {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Document

    mutating func document() throws(XMLError) -> XMLElement {
        if at([0xEF, 0xBB, 0xBF]) { index += 3 }
        // Strictly the declaration comes first; a newline pasted before it is forgiven.
        skipWhitespace()
        if at(XMLLiteral.xmlDeclaration), let next = peek(5), isWhitespace(next) { try xmlDeclaration() }
        try misc()
        guard peek() == UInt8(ascii: "<") else { throw fail("expected the root element") }
        let root = try elementTree()
        try misc()
        guard index >= bytes.count else { throw fail("unexpected content after the root element") }
        return root
    }

    /// Whitespace, comments and PIs outside the root element, all dropped.
    mutating func misc() throws(XMLError) {
        while true {
            skipWhitespace()
            if at(XMLLiteral.commentOpen) {
                _ = try comment()
            } else if at(XMLLiteral.piOpen) {
                _ = try processingInstruction()
            } else if at(XMLLiteral.markupDeclaration) {
                throw dtdRefused()
            } else {
                return
            }
        }
    }

    mutating func xmlDeclaration() throws(XMLError) {
        index += 5
        while true {
            skipWhitespace()
            if at(XMLLiteral.piClose) { index += 2; return }
            let name = try name()
            skipWhitespace()
            try expect(UInt8(ascii: "="))
            skipWhitespace()
            let value = try attributeValue()
            if name == "encoding", !["utf-8", "utf8", "us-ascii", "ascii"].contains(value.lowercased()) {
                throw fail("the document declares encoding \(value); only UTF-8 is accepted")
            }
            if name == "version", !value.hasPrefix("1.") { throw fail("XML version \(value) is not supported") }
        }
    }

    // MARK: Elements

    /// The root element and everything inside it, read with an explicit stack.
    mutating func elementTree() throws(XMLError) -> XMLElement {
        var stack: [XMLOpenElement] = []
        let initial = ["xml": XMLNamespace.xml]
        let first = try startTag(bindings: initial)
        if first.selfClosing { return first.open.element }
        stack.append(first.open)
        while !stack.isEmpty {
            guard let byte = peek() else {
                throw fail("the document ends inside <\(String(decoding: stack[stack.count - 1].qualifiedName, as: UTF8.self))>")
            }
            let top = stack.count - 1
            if byte == UInt8(ascii: "&") {
                try reference(into: &stack[top].text)
            } else if byte != UInt8(ascii: "<") {
                try characterData(into: &stack[top].text)
            } else if at(XMLLiteral.endTagOpen) {
                stack[top].flushText()
                let closed = try endTag(closing: stack[top])
                stack.removeLast()
                if stack.isEmpty { return closed }
                stack[stack.count - 1].element.children.append(.element(closed))
            } else if at(XMLLiteral.cdataOpen) {
                index += XMLLiteral.cdataOpen.count
                stack[top].text += try content(until: XMLLiteral.cdataClose, what: "CDATA section")
            } else if at(XMLLiteral.commentOpen) {
                stack[top].flushText()
                stack[top].element.children.append(.comment(try comment()))
            } else if at(XMLLiteral.piOpen) {
                stack[top].flushText()
                let (target, data) = try processingInstruction()
                stack[top].element.children.append(.processingInstruction(target: target, data: data))
            } else if at(XMLLiteral.markupDeclaration) {
                throw dtdRefused()
            } else {
                stack[top].flushText()
                guard stack.count < XMLDocumentParser.maximumDepth else {
                    throw fail("elements are nested more than \(XMLDocumentParser.maximumDepth) deep")
                }
                let child = try startTag(bindings: stack[top].bindings)
                if child.selfClosing {
                    stack[top].element.children.append(.element(child.open.element))
                } else {
                    stack.append(child.open)
                }
            }
        }
        throw fail("no root element")
    }

    mutating func endTag(closing open: XMLOpenElement) throws(XMLError) -> XMLElement {
        let tagStart = index
        index += 2
        let start = index
        _ = try name()
        let closing = bytes[start..<index]
        skipWhitespace()
        try expect(UInt8(ascii: ">"))
        guard closing.elementsEqual(open.qualifiedName) else {
            index = tagStart
            throw fail("</\(String(decoding: closing, as: UTF8.self))> does not close <\(String(decoding: open.qualifiedName, as: UTF8.self))>")
        }
        return open.element
    }

    /// A start tag (the `<` not yet consumed), its namespaces resolved against `bindings`.
    mutating func startTag(bindings outer: [String: String]) throws(XMLError) -> (open: XMLOpenElement, selfClosing: Bool) {
        index += 1
        let nameStart = index
        let qualifiedName = try name()
        let qualifiedBytes = Array(bytes[nameStart..<index])
        var raw: [(name: String, value: String)] = []
        var selfClosing = false
        while true {
            let spaced = skipWhitespace()
            if at(XMLLiteral.emptyClose) { index += 2; selfClosing = true; break }
            if peek() == UInt8(ascii: ">") { index += 1; break }
            guard spaced else { throw fail("expected whitespace, `>` or `/>` in the tag of <\(qualifiedName)>") }
            let attributeName = try name()
            skipWhitespace()
            try expect(UInt8(ascii: "="))
            skipWhitespace()
            raw.append((attributeName, try attributeValue()))
        }
        var bindings = outer
        let declarations = try namespaceDeclarations(raw, bindings: &bindings)
        let (prefix, local) = try split(qualifiedName)
        let namespaceURI: String?
        if let prefix {
            guard let uri = bindings[prefix] else { throw fail("the prefix \(prefix) of <\(qualifiedName)> is not declared") }
            namespaceURI = uri
        } else {
            namespaceURI = bindings[""].flatMap { $0.isEmpty ? nil : $0 }
        }
        let attributes = try resolvedAttributes(raw, bindings: bindings, element: qualifiedName)
        let element = XMLElement(prefix: prefix, localName: local, namespaceURI: namespaceURI, attributes: attributes,
                                 namespaceDeclarations: declarations)
        return (XMLOpenElement(element: element, qualifiedName: qualifiedBytes, bindings: bindings), selfClosing)
    }

    func namespaceDeclarations(_ raw: [(name: String, value: String)], bindings: inout [String: String]) throws(XMLError) -> [XMLNamespaceDeclaration] {
        var declarations: [XMLNamespaceDeclaration] = []
        var seen: Set<String> = []
        for (name, value) in raw where name == "xmlns" || name.hasPrefix("xmlns:") {
            let prefix = name == "xmlns" ? nil : String(name.dropFirst(6))
            let key = prefix ?? ""
            guard seen.insert(key).inserted else { throw fail("\(name) is declared twice on one element") }
            if value == XMLNamespace.xmlns || (value == XMLNamespace.xml && prefix != "xml") {
                throw fail("\(name) binds a reserved namespace")
            }
            if let prefix {
                guard !prefix.isEmpty, !prefix.contains(":") else { throw fail("\(name) is not a valid declaration") }
                guard prefix != "xmlns" else { throw fail("the xmlns prefix cannot be declared") }
                guard !value.isEmpty else { throw fail("\(name)=\"\" undeclares a prefix, which XML 1.0 namespaces forbid") }
                if prefix == "xml" {
                    guard value == XMLNamespace.xml else { throw fail("the xml prefix cannot be bound to another namespace") }
                    continue
                }
            }
            bindings[key] = value
            declarations.append(XMLNamespaceDeclaration(prefix: prefix, uri: value))
        }
        return declarations
    }

    func resolvedAttributes(_ raw: [(name: String, value: String)], bindings: [String: String], element: String) throws(XMLError) -> [XMLAttribute] {
        var attributes: [XMLAttribute] = []
        var seen: Set<String> = []
        for (name, value) in raw where name != "xmlns" && !name.hasPrefix("xmlns:") {
            let (prefix, local) = try split(name)
            var uri: String?
            if let prefix {
                guard let bound = bindings[prefix] else { throw fail("the prefix \(prefix) of attribute \(name) on <\(element)> is not declared") }
                uri = bound
            }
            // Two attributes are the same when their expanded names are (Namespaces in XML §6.3).
            guard seen.insert("\(uri ?? "")\u{0}\(local)").inserted else { throw fail("attribute \(name) appears twice on <\(element)>") }
            attributes.append(XMLAttribute(prefix: prefix, localName: local, namespaceURI: uri, value: value))
        }
        return attributes
    }

    /// `prefix:local` or `local`, with at most one colon and neither part empty.
    func split(_ qualifiedName: String) throws(XMLError) -> (String?, String) {
        let parts = qualifiedName.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (nil, qualifiedName)
        case 2 where !parts[0].isEmpty && !parts[1].isEmpty: return (String(parts[0]), String(parts[1]))
        default: throw fail("\(qualifiedName) is not a namespace-well-formed name")
        }
    }
}
