import Foundation

/// An element found inside a tree, with where it is: signature checks must use the very element a
/// signature covers, in its own namespace context, never another one that happens to look alike.
public struct XMLLocatedElement: Sendable {
    /// The element itself.
    public var element: XMLElement
    /// Indices into `children` (all nodes, not only elements) from the element searched to this one;
    /// empty for that element itself.
    public var path: [Int]
    /// The namespace declarations in scope from this element's ancestors (its own excluded), nearest
    /// first-come: one entry per prefix, as canonicalization and signature checks want them.
    public var inScope: [XMLNamespaceDeclaration]
}

extension XMLElement {
    /// The element children, in order.
    public var childElements: [XMLElement] {
        children.compactMap { if case .element(let e) = $0 { e } else { nil } }
    }

    /// Whether this element is `localName` in `namespace` (nil: in no namespace).
    public func isNamed(_ localName: String, namespace: String?) -> Bool {
        self.localName == localName && namespaceURI == namespace
    }

    /// The element children named `localName` in `namespace`, in order.
    public func children(named localName: String, namespace: String?) -> [XMLElement] {
        childElements.filter { $0.isNamed(localName, namespace: namespace) }
    }

    /// The first element child named `localName` in `namespace`.
    public func firstChild(named localName: String, namespace: String?) -> XMLElement? {
        for case .element(let e) in children where e.isNamed(localName, namespace: namespace) { return e }
        return nil
    }

    /// Every element below this one (not itself) named `localName` in `namespace`, in document order.
    public func descendants(named localName: String, namespace: String?) -> [XMLElement] {
        var found: [XMLElement] = []
        walk { element, _ in
            if element.isNamed(localName, namespace: namespace) { found.append(element) }
        }
        return found
    }

    /// The value of the attribute `localName` in `namespace`; nil `namespace` means an unprefixed
    /// attribute (SAML's `ID`, `Destination`, …).
    public func attribute(_ localName: String, namespace: String? = nil) -> String? {
        attributes.first { $0.localName == localName && $0.namespaceURI == namespace }?.value
    }

    /// Sets (or adds) the unprefixed attribute `localName`.
    public mutating func setAttribute(_ localName: String, _ value: String) {
        if let index = attributes.firstIndex(where: { $0.localName == localName && $0.namespaceURI == nil }) {
            attributes[index].value = value
        } else {
            attributes.append(XMLAttribute(localName: localName, value: value))
        }
    }

    /// All text below this element, concatenated in document order (comments and PIs left out).
    public var text: String {
        var pieces: [String] = []
        collectText(into: &pieces)
        return pieces.joined()
    }

    private func collectText(into pieces: inout [String]) {
        for child in children {
            switch child {
            case .text(let t): pieces.append(t)
            case .element(let e): e.collectText(into: &pieces)
            case .comment, .processingInstruction: break
            }
        }
    }

    /// The element at `path` (indices into `children`, as `XMLLocatedElement.path`); nil when the path
    /// leads nowhere or to a non-element.
    public func element(at path: [Int]) -> XMLElement? {
        var current = self
        for index in path {
            guard current.children.indices.contains(index), case .element(let next) = current.children[index] else { return nil }
            current = next
        }
        return current
    }

    /// Every element in this tree (itself included) whose `ID`, `Id` or `id` attribute is `id`. More
    /// than one means the document is ambiguous, which signature wrapping attacks rely on.
    public func elements(withID id: String) -> [XMLLocatedElement] {
        var found: [XMLLocatedElement] = []
        walkLocated { located in
            if located.element.identifier == id { found.append(located) }
        }
        return found
    }

    /// Every element in this tree (itself included) named `localName` in `namespace`, with where it is
    /// and its ancestors' namespace declarations (what canonicalizing or verifying it needs).
    public func located(named localName: String, namespace: String?) -> [XMLLocatedElement] {
        var found: [XMLLocatedElement] = []
        walkLocated { located in
            if located.element.isNamed(localName, namespace: namespace) { found.append(located) }
        }
        return found
    }

    /// The only element with this ID; nil when there is none or more than one.
    public func element(withID id: String) -> XMLLocatedElement? {
        let found = elements(withID: id)
        return found.count == 1 ? found[0] : nil
    }

    /// The element's `ID` attribute (SAML), else `Id`, else `id` (unprefixed).
    public var identifier: String? {
        attribute("ID") ?? attribute("Id") ?? attribute("id")
    }

    /// Visits this element and every element below it in document order, with its path.
    func walk(_ visit: (XMLElement, [Int]) -> Void) {
        var stack: [(XMLElement, [Int])] = [(self, [])]
        while let (element, path) = stack.popLast() {
            if !path.isEmpty { visit(element, path) }
            // Pushed in reverse so that popping keeps document order.
            for (index, child) in element.children.enumerated().reversed() {
                if case .element(let e) = child { stack.append((e, path + [index])) }
            }
        }
    }

    /// Visits this element and every element below it, with its path and ancestors' declarations.
    func walkLocated(_ visit: (XMLLocatedElement) -> Void) {
        var stack: [XMLLocatedElement] = [XMLLocatedElement(element: self, path: [], inScope: [])]
        while let located = stack.popLast() {
            visit(located)
            let inner = Self.merging(located.inScope, located.element.namespaceDeclarations)
            for (index, child) in located.element.children.enumerated().reversed() {
                if case .element(let e) = child { stack.append(XMLLocatedElement(element: e, path: located.path + [index], inScope: inner)) }
            }
        }
    }

    /// The declarations of `outer` overridden by `inner` (a nearer element's), one per prefix.
    static func merging(_ outer: [XMLNamespaceDeclaration], _ inner: [XMLNamespaceDeclaration]) -> [XMLNamespaceDeclaration] {
        guard !inner.isEmpty else { return outer }
        let overridden = Set(inner.map(\.prefix))
        return outer.filter { !overridden.contains($0.prefix) } + inner
    }

    /// The declarations in scope inside this element when `inScope` holds its ancestors'.
    public func namespacesInScope(from inScope: [XMLNamespaceDeclaration]) -> [XMLNamespaceDeclaration] {
        Self.merging(inScope, namespaceDeclarations)
    }
}
