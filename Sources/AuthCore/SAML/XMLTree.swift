import Foundation

/// Namespaces XML itself and XML Schema define.
public enum XMLNamespace {
    /// The namespace the `xml` prefix is bound to without any declaration (Namespaces in XML 1.0 §3).
    public static let xml = "http://www.w3.org/XML/1998/namespace"
    /// The namespace of `xmlns` declarations, which no prefix may be bound to.
    public static let xmlns = "http://www.w3.org/2000/xmlns/"
    /// XML Schema instance (`xsi:type`, `xsi:nil`).
    public static let xsi = "http://www.w3.org/2001/XMLSchema-instance"
    /// XML Schema (`xs:string` in `xsi:type` values).
    public static let xs = "http://www.w3.org/2001/XMLSchema"
}

/// A namespace declaration on an element: `xmlns:prefix="uri"`, or `xmlns="uri"` when `prefix` is nil
/// (an empty `uri` there undeclares the default namespace).
public struct XMLNamespaceDeclaration: Sendable, Hashable {
    public var prefix: String?
    public var uri: String

    public init(prefix: String?, uri: String) {
        self.prefix = prefix
        self.uri = uri
    }
}

/// An attribute with its namespace resolved. Namespace declarations are not attributes here: they are
/// in `XMLElement.namespaceDeclarations`.
public struct XMLAttribute: Sendable, Hashable {
    public var prefix: String?
    public var localName: String
    /// Nil for an unprefixed attribute, which is in no namespace (not the element's).
    public var namespaceURI: String?
    /// The normalized value (XML 1.0 §3.3.3): literal tabs and line ends became spaces, character
    /// references kept the characters they name.
    public var value: String

    public init(prefix: String? = nil, localName: String, namespaceURI: String? = nil, value: String) {
        self.prefix = prefix
        self.localName = localName
        self.namespaceURI = namespaceURI
        self.value = value
    }

    /// `prefix:localName`, or the local name alone.
    public var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }
}

/// A node of an element's content. CDATA sections arrive as text; adjacent text is merged.
public enum XMLNode: Sendable, Hashable {
    case element(XMLElement)
    case text(String)
    case comment(String)
    case processingInstruction(target: String, data: String)
}

/// An element with its namespace resolved, its attributes in document order and its content.
///
/// A value: editing a copy (say, removing a signature for the enveloped-signature transform) leaves the
/// original as it was.
public struct XMLElement: Sendable, Hashable {
    public var prefix: String?
    public var localName: String
    /// The resolved namespace; nil when the element is in no namespace.
    public var namespaceURI: String?
    public var attributes: [XMLAttribute]
    /// The declarations written on this very element, in document order.
    public var namespaceDeclarations: [XMLNamespaceDeclaration]
    public var children: [XMLNode]

    /// An element from its parts, as the parser makes them.
    public init(prefix: String?, localName: String, namespaceURI: String?, attributes: [XMLAttribute] = [],
                namespaceDeclarations: [XMLNamespaceDeclaration] = [], children: [XMLNode] = []) {
        self.prefix = prefix
        self.localName = localName
        self.namespaceURI = namespaceURI
        self.attributes = attributes
        self.namespaceDeclarations = namespaceDeclarations
        self.children = children
    }

    /// Builds an element the way it is written:
    ///
    /// ```swift
    /// XMLElement("saml:Issuer", namespaceURI: SAMLNamespace.assertion, children: [.text(issuer)])
    /// XMLElement("samlp:Response", namespaceURI: SAMLNamespace.protocol,
    ///            attributes: [("ID", id), ("Version", "2.0")],
    ///            namespaces: [.init(prefix: "samlp", uri: SAMLNamespace.protocol)], children: [...])
    /// ```
    ///
    /// `qualifiedName` is `prefix:local` or `local`. Attribute names are qualified names too: a prefixed
    /// one takes its namespace from `namespaces`, else from the element's own prefix, else `xml` and
    /// `xsi` are known; any other prefix leaves the attribute without a namespace. Declarations need not
    /// be complete: `serialized()` adds the ones the output needs.
    public init(_ qualifiedName: String, namespaceURI: String? = nil, attributes: [(String, String)] = [],
                namespaces: [XMLNamespaceDeclaration] = [], children: [XMLNode] = []) {
        let (prefix, local) = Self.split(qualifiedName)
        self.init(prefix: prefix, localName: local, namespaceURI: namespaceURI, namespaceDeclarations: namespaces, children: children)
        self.attributes = attributes.map { name, value in
            let (attributePrefix, attributeLocal) = Self.split(name)
            let uri: String? = attributePrefix.flatMap { p in
                if let declared = namespaces.first(where: { $0.prefix == p }) { return declared.uri }
                if p == prefix { return namespaceURI }
                return Self.wellKnownPrefixes[p]
            }
            return XMLAttribute(prefix: attributePrefix, localName: attributeLocal, namespaceURI: uri, value: value)
        }
    }

    /// An element whose only content is `text`.
    public init(_ qualifiedName: String, namespaceURI: String? = nil, attributes: [(String, String)] = [],
                namespaces: [XMLNamespaceDeclaration] = [], text: String) {
        self.init(qualifiedName, namespaceURI: namespaceURI, attributes: attributes, namespaces: namespaces, children: [.text(text)])
    }

    private static let wellKnownPrefixes = ["xml": XMLNamespace.xml, "xsi": XMLNamespace.xsi]

    private static func split(_ qualifiedName: String) -> (String?, String) {
        guard let colon = qualifiedName.firstIndex(of: ":") else { return (nil, qualifiedName) }
        return (String(qualifiedName[..<colon]), String(qualifiedName[qualifiedName.index(after: colon)...]))
    }

    /// `prefix:localName`, or the local name alone.
    public var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }
}

/// Why bytes are not a well-formed, namespace-well-formed XML document this parser accepts.
public struct XMLError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { "XML: \(message)" }
}
