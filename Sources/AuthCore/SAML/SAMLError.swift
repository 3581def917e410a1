import Foundation

/// Why a SAML message or metadata was refused: `reason` is written for the developer reading the log
/// or the error page; `kind` is for code that maps errors to its own.
public struct SAMLError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The check that failed.
    public enum Kind: Sendable, Equatable {
        /// Not XML, not the expected SAML element, or a required part missing or unreadable.
        case malformed
        /// A signature is missing where one is required, or does not verify with a trusted certificate.
        case signature
        /// The IdP answered with a status other than Success: the most specific code it gave (a
        /// second-level one such as `…:AuthnFailed` when present) and its StatusMessage.
        case status(code: String, message: String?)
        /// The AudienceRestriction does not name this SP.
        case audience
        /// SubjectConfirmationData's Recipient is not this SP's ACS URL, or there is no usable bearer
        /// confirmation.
        case recipient
        /// The Response's Destination is not this SP's ACS URL.
        case destination
        /// NotOnOrAfter has passed (beyond the allowed clock skew).
        case expired
        /// NotBefore is still ahead (beyond the allowed clock skew).
        case notYetValid
        /// InResponseTo names no request this SP has outstanding.
        case inResponseTo
        /// No InResponseTo, and IdP-initiated (unsolicited) responses are not allowed.
        case unsolicited
        /// The Issuer is not the expected IdP.
        case issuer
        /// An EncryptedAssertion or EncryptedID, which is not supported.
        case encrypted
        /// Metadata that cannot be used (no entity ID, no or several IDPSSODescriptors, …).
        case metadata
        /// An Assertion the service provider has already accepted once (`Emulator.acceptSAMLResponse`).
        case replayed
    }

    /// What kind of check failed.
    public var kind: Kind
    /// What failed and, where it helps, what to change.
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { reason }
}
