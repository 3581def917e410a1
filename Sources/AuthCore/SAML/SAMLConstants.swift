import Foundation

/// The SAML 2.0 namespaces, written with the prefixes of the OASIS examples.
public enum SAMLNamespace {
    /// `samlp:`
    public static let `protocol` = "urn:oasis:names:tc:SAML:2.0:protocol"
    /// `saml:`
    public static let assertion = "urn:oasis:names:tc:SAML:2.0:assertion"
    /// `md:`
    public static let metadata = "urn:oasis:names:tc:SAML:2.0:metadata"
}

/// Top-level and second-level status codes (SAML core §3.2.2.2).
public enum SAMLStatusCode {
    public static let success = "urn:oasis:names:tc:SAML:2.0:status:Success"
    public static let requester = "urn:oasis:names:tc:SAML:2.0:status:Requester"
    public static let responder = "urn:oasis:names:tc:SAML:2.0:status:Responder"
    public static let versionMismatch = "urn:oasis:names:tc:SAML:2.0:status:VersionMismatch"
    public static let authnFailed = "urn:oasis:names:tc:SAML:2.0:status:AuthnFailed"
    public static let requestDenied = "urn:oasis:names:tc:SAML:2.0:status:RequestDenied"
    public static let noPassive = "urn:oasis:names:tc:SAML:2.0:status:NoPassive"
    public static let invalidNameIDPolicy = "urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy"

    /// The four codes allowed at the top level; any other goes inside one of them.
    public static let topLevel: Set<String> = [success, requester, responder, versionMismatch]
}

/// Name identifier formats (SAML core §8.3).
public enum SAMLNameIDFormat {
    public static let emailAddress = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"
    public static let unspecified = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified"
    public static let persistent = "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"
    public static let transient = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"
}

/// Protocol bindings (SAML bindings §3).
public enum SAMLBinding {
    public static let httpRedirect = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"
    public static let httpPOST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"
}

/// Other URIs the Web Browser SSO profile uses.
public enum SAMLURI {
    public static let bearer = "urn:oasis:names:tc:SAML:2.0:cm:bearer"
    public static let attributeNameFormatBasic = "urn:oasis:names:tc:SAML:2.0:attrname-format:basic"
    public static let attributeNameFormatURI = "urn:oasis:names:tc:SAML:2.0:attrname-format:uri"
    public static let passwordProtectedTransport = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
    public static let entityNameIDFormat = "urn:oasis:names:tc:SAML:2.0:nameid-format:entity"
}

/// xs:dateTime as SAML writes it: UTC with `Z` (SAML core §1.3.3).
public enum SAMLTime {
    /// `2026-11-26T07:00:00Z`: whole seconds, as most IdPs write them.
    public static func string(from date: Date) -> String {
        RFC3339.string(from: date, fractionalDigits: 0)
    }

    /// Parses an xs:dateTime with or without fractional seconds; a missing zone is read as UTC, which
    /// is what SAML means anyway.
    public static func date(from text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let date = RFC3339.date(from: trimmed) { return date }
        return RFC3339.date(from: trimmed + "Z")
    }
}
