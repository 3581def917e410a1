import Foundation

/// A `PublicKeyCredential` as clients send it to a server: the WebAuthn L3 `toJSON()` form
/// (`RegistrationResponseJSON`, `AuthenticationResponseJSON`), binary members in base64url. auth-js,
/// amplify-js and SimpleWebAuthn all send this shape.
public struct PublicKeyCredentialJSON: Sendable {
    /// `rawId` decoded (or `id` when a client leaves `rawId` out).
    public var rawId: [UInt8]
    public var clientDataJSON: [UInt8]
    /// Registration only.
    public var attestationObject: [UInt8]?
    /// Assertion only.
    public var authenticatorData: [UInt8]?
    public var signature: [UInt8]?
    public var userHandle: [UInt8]?
    /// The transports the browser reported at registration (`usb`, `internal`, `hybrid`…).
    public var transports: [String]
    public var authenticatorAttachment: String?

    /// Reads the JSON; anything a server could not use is `malformed`, a tampered id `rejected`.
    public init(_ json: JSON) throws(WebAuthnFailure) {
        guard case .object(let fields) = json else { throw .malformed("credential must be a JSON object") }
        guard let id = fields["id"]?.stringValue, !id.isEmpty, let idBytes = Base64URL.decode(id), !idBytes.isEmpty else {
            throw .malformed("credential id is missing or not base64url")
        }
        guard fields["type"]?.stringValue == "public-key" else { throw .malformed("credential type must be public-key") }
        if let raw = fields["rawId"], !raw.isNull {
            guard let text = raw.stringValue, let bytes = Base64URL.decode(text) else { throw .malformed("rawId is not base64url") }
            guard bytes == idBytes else { throw .rejected(.credentialIdMismatch) }
        }
        rawId = idBytes
        guard case .object(let response)? = fields["response"] else { throw .malformed("credential response is missing") }
        func bytes(_ key: String) throws(WebAuthnFailure) -> [UInt8]? {
            guard let value = response[key], !value.isNull else { return nil }
            guard let text = value.stringValue, let decoded = Base64URL.decode(text) else { throw .malformed("\(key) is not base64url") }
            return decoded
        }
        guard let clientData = try bytes("clientDataJSON") else { throw .malformed("clientDataJSON is missing") }
        clientDataJSON = clientData
        attestationObject = try bytes("attestationObject")
        authenticatorData = try bytes("authenticatorData")
        signature = try bytes("signature")
        userHandle = try bytes("userHandle").flatMap { $0.isEmpty ? nil : $0 }
        transports = (response["transports"]?.arrayValue ?? []).compactMap(\.stringValue)
        authenticatorAttachment = fields["authenticatorAttachment"]?.stringValue
    }
}

/// An attestation object (WebAuthn §6.5): the format, its statement and the authenticator data.
public struct AttestationObject: Sendable {
    public var format: String
    public var statement: CBOR
    public var authenticatorData: AuthenticatorData

    public init(_ bytes: [UInt8]) throws(WebAuthnFailure) {
        let cbor: CBOR
        do { cbor = try CBOR.decode(bytes) } catch { throw .malformed("attestationObject: \(error.reason)") }
        guard let format = cbor[text: "fmt"]?.textValue, let statement = cbor[text: "attStmt"], case .map = statement,
              let authData = cbor[text: "authData"]?.bytesValue else {
            throw .malformed("attestationObject needs fmt, attStmt and authData")
        }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(authData)
    }
}
