import Foundation

/// `clientDataJSON` (WebAuthn §5.8.1): what the browser says about the ceremony, hashed into the signed
/// data so the authenticator's signature vouches for it too.
public struct ClientData: Sendable {
    /// `webauthn.create` or `webauthn.get`.
    public var type: String
    /// The challenge, base64url as the browser wrote it.
    public var challenge: String
    public var origin: String
    public var crossOrigin: Bool
    public var topOrigin: String?
    public let raw: [UInt8]

    public init(_ bytes: [UInt8]) throws(WebAuthnFailure) {
        raw = bytes
        guard let json = try? JSON.parse(bytes), case .object(let fields) = json else {
            throw .malformed("clientDataJSON is not a JSON object")
        }
        guard let type = fields["type"]?.stringValue, let challenge = fields["challenge"]?.stringValue,
              let origin = fields["origin"]?.stringValue else {
            throw .malformed("clientDataJSON needs type, challenge and origin")
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        crossOrigin = fields["crossOrigin"]?.boolValue ?? false
        topOrigin = fields["topOrigin"]?.stringValue
    }

    /// The JSON a browser writes (WebAuthn §5.8.1.1's member order), for the virtual authenticator.
    public static func encode(type: String, challenge: String, origin: String) -> [UInt8] {
        Array(#"{"type":\#(JSON.string(type).serialized()),"challenge":\#(JSON.string(challenge).serialized()),"origin":\#(JSON.string(origin).serialized()),"crossOrigin":false}"#.utf8)
    }
}

/// An origin compared as WebAuthn relying parties compare them: scheme and host, case-insensitively, with
/// the scheme's default port dropped (go-webauthn's `IsOriginInHaystack`, which GoTrue uses).
enum Origin {
    static func normalized(_ text: String) -> String? {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        let port = url.port.flatMap { (scheme == "https" && $0 == 443) || (scheme == "http" && $0 == 80) ? nil : $0 }
        return port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// Whether `origin`'s host is `rpId` or a subdomain of it, over https (or http on `localhost`, which
    /// browsers treat as secure).
    static func isUnder(_ origin: String, rpId: String) -> Bool {
        guard let url = URLComponents(string: origin), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return false }
        let id = rpId.lowercased()
        guard host == id || host.hasSuffix("." + id) else { return false }
        return scheme == "https" || (scheme == "http" && (host == "localhost" || host.hasSuffix(".localhost")))
    }

    /// Whether `origin` is one of `allowed`. Non-URL origins (`android:apk-key-hash:…`) match exactly.
    static func isAllowed(_ origin: String, in allowed: [String]) -> Bool {
        guard let needle = normalized(origin), origin.lowercased().hasPrefix("http") else { return allowed.contains(origin) }
        return allowed.contains { normalized($0) == needle }
    }
}
