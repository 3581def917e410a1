import AuthCore
import Foundation

/// A fake SAML 2.0 identity provider: a declared provider of kind `saml`, served under
/// `/_emu/idp/saml/{id}` (metadata, and a sign-in page that answers the service provider with a signed
/// Response by the HTTP-POST binding). Its accounts are the provider's accounts: the NameID is the email
/// (or the `sub`, with `name_id_format: persistent`), every claim an attribute.
///
/// Settings (seed or control API): `entity_id` (default `urn:fauxth:idp:saml:{id}`, the same whatever host
/// the browser uses, so a service provider configured once keeps matching), `name_id_format` (`email`,
/// `persistent`, `transient` or a full URN), `sign` (`assertion`, `response` or `both`), `attributes` (an
/// object of attributes every assertion carries), `session_hours` (the assertion's `SessionNotOnOrAfter`).
struct FakeSAMLProvider: Sendable {
    let provider: FakeProvider

    var id: String { provider.id }
    var settings: [String: JSON] { provider.record.settings }

    var entityID: String {
        if let entity = settings["entity_id"]?.stringValue, !entity.isEmpty { return entity }
        return "urn:fauxth:idp:saml:\(id)"
    }

    func base(_ serverURL: String) -> String { "\(serverURL)/_emu/idp/saml/\(id)" }
    func metadataURL(_ serverURL: String) -> String { base(serverURL) + "/metadata" }
    func ssoURL(_ serverURL: String) -> String { base(serverURL) + "/sso" }

    static let formats = [
        "email": "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        "persistent": "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
        "transient": "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
        "unspecified": "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
    ]

    /// The NameID format this provider answers with: its setting, else what the request asked for (an IdP
    /// honours the SP's `NameIDPolicy` when it can), else an email.
    func nameIDFormat(requested: String?) -> String {
        if let setting = settings["name_id_format"]?.stringValue, !setting.isEmpty { return Self.formats[setting] ?? setting }
        if let requested, Self.formats.values.contains(requested) { return requested }
        return Self.formats["email"]!
    }

    /// The account's NameID in `format`: its email for the email format, a fresh id for transient, else its `sub`.
    func nameID(_ account: IdentityProviderAccount, format: String, generator: Generator) -> String {
        switch format {
        case Self.formats["email"]!, Self.formats["unspecified"]!: account.email ?? account.sub
        case Self.formats["transient"]!: "_" + generator.string(32, alphabet: "0123456789abcdef")
        default: account.sub
        }
    }

    /// The account's claims as attributes (arrays become multi-valued ones), then the provider's fixed ones.
    /// The email and name also go out under the claim URIs Azure AD and ADFS use, which many service
    /// providers (Cognito's attribute mappings among them) are set up for.
    func attributes(_ account: IdentityProviderAccount) -> [(name: String, values: [String])] {
        var attributes: [(name: String, values: [String])] = []
        func values(_ value: JSON) -> [String] {
            switch value {
            case .string(let text): [text]
            case .bool(let flag): [flag ? "true" : "false"]
            case .int(let number): [String(number)]
            case .double(let number): [String(number)]
            case .array(let items): items.flatMap(values)
            default: []
            }
        }
        for (name, value) in account.claims.sorted(by: { $0.key < $1.key }) where !values(value).isEmpty {
            attributes.append((name, values(value)))
        }
        let uris = ["email": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
                    "given_name": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname",
                    "family_name": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname",
                    "name": "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"]
        for (claim, uri) in uris.sorted(by: { $0.key < $1.key }) {
            if let value = account.claims[claim], !values(value).isEmpty { attributes.append((uri, values(value))) }
        }
        for (name, value) in (settings["attributes"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) where !values(value).isEmpty {
            attributes.append((name, values(value)))
        }
        return attributes
    }

    var signing: SAMLResponseBuilder.Signing {
        switch settings["sign"]?.stringValue {
        case "response"?: .response
        case "both"?: .both
        default: .assertion
        }
    }

    var sessionLifetime: TimeInterval { TimeInterval(settings["session_hours"]?.intValue ?? 8) * 3600 }
}

/// The ways the sign-in page (or a choice queued through the control API) ends a sign-in badly: refusals
/// a real IdP sends, and broken answers a service provider must refuse.
enum SAMLFailure: String, CaseIterable, Sendable {
    /// The person cancelled: status `Responder` / `AuthnFailed`.
    case accessDenied = "access_denied"
    /// The IdP failed: status `Responder`.
    case serverError = "server_error"
    /// A signed assertion whose validity ended an hour ago.
    case expired
    /// A signed assertion for another service provider.
    case wrongAudience = "wrong_audience"
    /// An assertion changed after it was signed.
    case badSignature = "bad_signature"
    /// An assertion with no signature at all.
    case unsigned

    var label: String {
        switch self {
        case .accessDenied: "Cancel (AuthnFailed)"
        case .serverError: "IdP error (Responder)"
        case .expired: "Expired assertion"
        case .wrongAudience: "Wrong audience"
        case .badSignature: "Tampered signature"
        case .unsigned: "Unsigned assertion"
        }
    }
}

/// Whether a metadata URL is one of Fauxth's fake SAML providers (which a dialect may read in process,
/// and over plain HTTP).
public enum FakeSAMLMetadataURL {
    public static func isFake(_ url: String) -> Bool { providerID(url) != nil }

    /// `{id}` of `…/_emu/idp/saml/{id}/metadata`.
    static func providerID(_ url: String) -> String? {
        guard let components = URLComponents(string: url), components.host != nil else { return nil }
        let parts = components.path.split(separator: "/").map(String.init)
        guard parts.count == 5, parts[0] == "_emu", parts[1] == "idp", parts[2] == "saml", parts[4] == "metadata" else { return nil }
        return parts[3]
    }

    /// `scheme://host:port` of the URL.
    static func server(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}
