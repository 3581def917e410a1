import Foundation

/// The service-provider half of SAML sign-in that Supabase SSO and Cognito's SAML identity providers share:
/// the requests sent and awaited (relay state, single use, expiring) and the answers accepted (checked by
/// `SAMLResponseValidator` at the emulator's clock, each assertion accepted once).
extension Emulator {
    /// Remembers an AuthnRequest sent to `providerId` and returns the relay state that names it.
    public func beginSAMLRequest(in tenant: String, providerId: String, requestId: String, data: [String: JSON],
                                 lifetime: TimeInterval) throws -> String {
        let id = newID()
        let now = clock.now
        let request = SAMLPendingRequest(tenant: tenant, id: id, providerId: providerId, requestId: requestId, data: data, createdAt: now,
                                         expiresAt: now.addingTimeInterval(lifetime))
        try db.withConnection { c in try SSO.insertRequest(c, request) }
        return id
    }

    /// Takes the request a relay state names: it is gone afterwards, whether or not the answer is good (the
    /// browser starts over, as GoTrue's destroyed relay state makes it). An expired request is returned too,
    /// so the dialect can say it expired; nil when there is none.
    public func takeSAMLRequest(in tenant: String, id: String) throws -> SAMLPendingRequest? {
        try db.withConnection { c in try SSO.takeRequest(c, tenant: tenant, id: id) }
    }

    /// The same, for a service provider that serves every tenant at one address (Cognito's hosted UI) and
    /// learns the tenant from the request: relay states are UUIDs, so one names one request in any tenant.
    public func takeSAMLRequest(id: String) throws -> SAMLPendingRequest? {
        try db.withConnection { c in try SSO.takeRequest(c, tenant: nil, id: id) }
    }

    /// Checks a SAML Response (`expectation.now` is the emulator's clock, whatever the caller put there) and
    /// accepts its assertion once: a second presentation of the same assertion id from the same issuer is a
    /// replay, refused for as long as the assertion could otherwise be accepted.
    public func acceptSAMLResponse(in tenant: String, xml: [UInt8], expecting expectation: SAMLExpectation) throws -> SAMLAssertion {
        var expectation = expectation
        let now = clock.now
        expectation.now = now
        let assertion = try SAMLResponseValidator.validate(xml: xml, expectation: expectation)
        let until = assertion.notOnOrAfter ?? now.addingTimeInterval(Self.samlReplayWindow)
        let fresh = try db.withConnection { c in
            try SSO.accept(c, tenant: tenant, assertionId: assertion.id, issuer: assertion.issuer, until: until.addingTimeInterval(expectation.clockSkew))
        }
        guard fresh else {
            throw SAMLError(.replayed, "The assertion \(assertion.id) was already used to sign in; an IdP issues a new one for every sign-in.")
        }
        return assertion
    }

    /// How long an assertion with no validity window of its own is remembered.
    static let samlReplayWindow: TimeInterval = 3600
}

extension SAMLAssertion {
    /// The values of every attribute whose Name or FriendlyName is `name`, compared without case, as GoTrue's
    /// `SAMLAssertion.Attribute` reads them (so `mail` finds `Mail`).
    public func values(of name: String) -> [String] {
        attributes.filter { $0.key.caseInsensitiveCompare(name) == .orderedSame }.sorted { $0.key < $1.key }.flatMap(\.value)
    }
}
