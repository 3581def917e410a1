import Foundation

extension XMLElement {
    /// The element as XML text: declarations where the tree has them, plus any a prefix in use lacks
    /// (so a built tree need not declare everything), attributes in tree order, text escaped as
    /// canonical XML escapes it (so `\r` survives a round trip as `&#xD;`). Empty elements are written
    /// `<a></a>`. With `declaration`, an `<?xml version="1.0" encoding="UTF-8"?>` line comes first.
    ///
    /// Parsing the result gives back the same tree, which is what lets a signature made over the tree
    /// verify over the text.
    public func serialized(declaration: Bool = false) -> String {
        var out: [UInt8] = declaration ? Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8) : []
        write(to: &out, bound: ["xml": XMLNamespace.xml])
        return String(decoding: out, as: UTF8.self)
    }

    /// `bound` maps each prefix in scope in the output ("" for the default namespace) to its URI.
    private func write(to out: inout [UInt8], bound outer: [String: String]) {
        var bound = outer
        var declarations: [XMLNamespaceDeclaration] = []
        for declaration in namespaceDeclarations where declaration.prefix != "xml" {
            let key = declaration.prefix ?? ""
            guard !declarations.contains(where: { ($0.prefix ?? "") == key }) else { continue }
            declarations.append(declaration)
            bound[key] = declaration.uri
        }
        // Prefixes the tree uses but never declared (a built tree): declared here.
        func need(_ prefix: String?, _ uri: String?) {
            let key = prefix ?? ""
            guard key != "xml" else { return }
            let wanted = uri ?? ""
            guard bound[key, default: ""] != wanted, prefix == nil || !wanted.isEmpty else { return }
            // A built tree may declare the prefix with another URI than it uses: the use wins.
            declarations.removeAll { ($0.prefix ?? "") == key }
            declarations.append(XMLNamespaceDeclaration(prefix: prefix, uri: wanted))
            bound[key] = wanted
        }
        need(prefix, namespaceURI)
        for attribute in attributes where attribute.prefix != nil { need(attribute.prefix, attribute.namespaceURI) }

        out.append(UInt8(ascii: "<"))
        out += qualifiedName.utf8
        for declaration in declarations {
            out += (declaration.prefix.map { " xmlns:\($0)=\"" } ?? " xmlns=\"").utf8
            XMLEscaping.attribute(declaration.uri, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        for attribute in attributes { XMLEscaping.write(attribute, into: &out) }
        out.append(UInt8(ascii: ">"))
        for child in children {
            switch child {
            case .element(let element): element.write(to: &out, bound: bound)
            case .text(let text): XMLEscaping.text(text, into: &out)
            case .comment(let text): out += "<!--\(text)-->".utf8
            case .processingInstruction(let target, let data): out += (data.isEmpty ? "<?\(target)?>" : "<?\(target) \(data)?>").utf8
            }
        }
        out += "</\(qualifiedName)>".utf8
    }
}

/// Escaping as Canonical XML writes it (C14N 1.0 §2.3), which is also valid, round-trippable XML.
enum XMLEscaping {
    /// ` name="value"`, the value escaped as canonical XML writes it (so the serialization is already canonical).
    static func write(_ attribute: XMLAttribute, into out: inout [UInt8]) {
        out.append(UInt8(ascii: " "))
        out += attribute.qualifiedName.utf8
        out += "=\"".utf8
        Self.attribute(attribute.value, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    static func text(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += "&amp;".utf8
            case UInt8(ascii: "<"): out += "&lt;".utf8
            case UInt8(ascii: ">"): out += "&gt;".utf8
            case 0x0D: out += "&#xD;".utf8
            default: out.append(byte)
            }
        }
    }

    static func attribute(_ value: String, into out: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += "&amp;".utf8
            case UInt8(ascii: "<"): out += "&lt;".utf8
            case UInt8(ascii: "\""): out += "&quot;".utf8
            case 0x09: out += "&#x9;".utf8
            case 0x0A: out += "&#xA;".utf8
            case 0x0D: out += "&#xD;".utf8
            default: out.append(byte)
            }
        }
    }
}
