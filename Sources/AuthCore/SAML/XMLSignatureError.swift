import Foundation

/// Why an XML signature was not made or not accepted, in words a developer can act on.
public struct XMLSignatureError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The broad reason, for callers that map errors.
    public enum Kind: Sendable, Equatable {
        /// The element carries no `ds:Signature` child.
        case missing
        /// The `ds:Signature` is not shaped as XML-DSig says (missing parts, bad base64, several signatures).
        case malformed
        /// An algorithm or transform this verifier does not implement (or refuses, like HMAC).
        case unsupportedAlgorithm
        /// The `Reference` does not point at the signed element (empty URI, another ID, several
        /// references): the signature may be wrapped around something else.
        case reference
        /// The element's digest differs from the signed `DigestValue`: it was changed after signing.
        case digestMismatch
        /// The signature was made with a key that none of the trusted certificates holds.
        case untrustedKey
        /// The `SignatureValue` does not verify with any trusted certificate.
        case invalidSignature
        /// Signing failed (a key that cannot sign XML, or the crypto library refused).
        case signingFailed
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
