import Foundation

/// What a service provider expects of a Response: who may have issued it, for whom, where, in answer
/// to what, and when "now" is.
public struct SAMLExpectation: Sendable {
    /// The IdP's entity ID: the Issuer of the Assertion (and of the Response, when it names one).
    public var idpEntityID: String
    /// The IdP's signing certificates (DER), from its metadata.
    public var trustedCertificates: [[UInt8]]
    /// This SP's entity ID: the Audience the Assertion must be restricted to.
    public var spEntityID: String
    /// This SP's Assertion Consumer Service URL: the Response's Destination and the bearer
    /// confirmation's Recipient.
    public var acsURL: String
    /// The IDs of AuthnRequests this SP sent and still waits for.
    public var inResponseTo: [String]
    /// Whether IdP-initiated sign-in (a Response answering no request) is accepted.
    public var allowUnsolicited: Bool
    /// How long after its IssueInstant the Assertion is accepted, beside its own validity window; nil for no such
    /// limit. Cognito gives IdP-initiated answers six minutes.
    public var maxAge: TimeInterval?
    /// The emulator clock's now.
    public var now: Date
    /// Leeway for clocks that disagree, in seconds: 180 by default, as crewjam/saml (GoTrue's SAML
    /// library) and Shibboleth allow.
    public var clockSkew: TimeInterval
    /// Whether a signature by a trusted certificate is required, on the Assertion or on the Response
    /// that contains it. Signatures present are always checked.
    public var requireSignedAssertion: Bool

    public init(idpEntityID: String, trustedCertificates: [[UInt8]], spEntityID: String, acsURL: String, inResponseTo: [String] = [],
                allowUnsolicited: Bool = false, maxAge: TimeInterval? = nil, now: Date, clockSkew: TimeInterval = 180,
                requireSignedAssertion: Bool = true) {
        self.idpEntityID = idpEntityID
        self.trustedCertificates = trustedCertificates
        self.spEntityID = spEntityID
        self.acsURL = acsURL
        self.inResponseTo = inResponseTo
        self.allowUnsolicited = allowUnsolicited
        self.maxAge = maxAge
        self.now = now
        self.clockSkew = clockSkew
        self.requireSignedAssertion = requireSignedAssertion
    }
}

/// The facts of an accepted Assertion.
public struct SAMLAssertion: Sendable, Equatable {
    /// The Assertion's ID: keep it until `notOnOrAfter` to refuse a replay.
    public var id: String
    /// The Response's ID.
    public var responseID: String
    public var issuer: String
    public var nameID: String
    public var nameIDFormat: String?
    /// Attribute values by Name, and also by FriendlyName when the IdP gives one (GoTrue's attribute
    /// mapping looks attributes up by either). Values are trimmed; repeated attributes append.
    public var attributes: [String: [String]]
    public var sessionIndex: String?
    public var authnInstant: Date?
    /// The Conditions' window.
    public var notBefore: Date?
    public var notOnOrAfter: Date?
    public var sessionNotOnOrAfter: Date?
    /// The request answered (from the bearer confirmation, else the Response); nil when unsolicited.
    public var inResponseTo: String?

    public init(id: String, responseID: String, issuer: String, nameID: String, nameIDFormat: String?, attributes: [String: [String]],
                sessionIndex: String?, authnInstant: Date?, notBefore: Date?, notOnOrAfter: Date?, sessionNotOnOrAfter: Date?,
                inResponseTo: String?) {
        self.id = id
        self.responseID = responseID
        self.issuer = issuer
        self.nameID = nameID
        self.nameIDFormat = nameIDFormat
        self.attributes = attributes
        self.sessionIndex = sessionIndex
        self.authnInstant = authnInstant
        self.notBefore = notBefore
        self.notOnOrAfter = notOnOrAfter
        self.sessionNotOnOrAfter = sessionNotOnOrAfter
        self.inResponseTo = inResponseTo
    }
}
