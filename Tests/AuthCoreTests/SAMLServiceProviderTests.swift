import Foundation
import Testing
@testable import AuthCore

/// The service-provider half the Supabase and Cognito dialects share: requests awaiting an answer, each
/// answer accepted once at the emulator clock, SSO providers' uniqueness, and SSO accounts' emails.
@Suite("SAML service provider (core)")
struct SAMLServiceProviderTests {
    typealias F = SAMLFixtures

    func response(_ emulator: Emulator, inResponseTo: String?, assertionID: String = "_assertion-1") throws -> [UInt8] {
        let now = emulator.clock.now
        let builder = SAMLResponseBuilder(issuer: F.idpEntityID, destination: F.acsURL, inResponseTo: inResponseTo, audience: F.spEntityID,
                                          recipient: F.acsURL, nameID: "kim@idp.example.org", responseID: "_response-1", assertionID: assertionID,
                                          issueInstant: now, notBefore: now.addingTimeInterval(-60), notOnOrAfter: now.addingTimeInterval(300),
                                          key: F.idpKey, certificateDER: F.idpCertificate)
        return Array(try builder.build().utf8)
    }

    func expectation(_ requestIds: [String], unsolicited: Bool = false) -> SAMLExpectation {
        // `now` is the caller's guess; the core replaces it with its own clock.
        SAMLExpectation(idpEntityID: F.idpEntityID, trustedCertificates: [F.idpCertificate], spEntityID: F.spEntityID, acsURL: F.acsURL,
                        inResponseTo: requestIds, allowUnsolicited: unsolicited, now: .distantPast)
    }

    @Test func aRelayStateNamesItsRequestOnce() throws {
        let emulator = try makeEmulator()
        let relay = try emulator.beginSAMLRequest(in: "proj", providerId: "p-1", requestId: "_req-1", data: ["redirect_to": "http://app"],
                                                  lifetime: 120)
        #expect(try emulator.takeSAMLRequest(in: "other", id: relay) == nil)
        let taken = try #require(try emulator.takeSAMLRequest(in: "proj", id: relay))
        #expect(taken.requestId == "_req-1" && taken.providerId == "p-1" && taken.data["redirect_to"] == "http://app")
        #expect(try emulator.takeSAMLRequest(in: "proj", id: relay) == nil)
        #expect(try emulator.takeSAMLRequest(id: relay) == nil)
        // An expired one is still handed over once, so the dialect can say it expired.
        let late = try emulator.beginSAMLRequest(in: "proj", providerId: "p-1", requestId: "_req-2", data: [:], lifetime: 120)
        emulator.clock.advance(by: 121)
        let expired = try #require(try emulator.takeSAMLRequest(id: late))
        #expect(expired.tenant == "proj" && expired.expiresAt < emulator.clock.now)
    }

    @Test func anAssertionIsAcceptedOnceAndAtTheEmulatorsClock() throws {
        let emulator = try makeEmulator()
        let xml = try response(emulator, inResponseTo: "_req-1")
        let assertion = try emulator.acceptSAMLResponse(in: "proj", xml: xml, expecting: expectation(["_req-1"]))
        #expect(assertion.nameID == "kim@idp.example.org" && assertion.id == "_assertion-1")
        #expect { try emulator.acceptSAMLResponse(in: "proj", xml: xml, expecting: expectation(["_req-1"])) } throws: { error in
            (error as? SAMLError)?.kind == .replayed
        }
        // Another tenant's service provider has its own memory of what it accepted.
        _ = try emulator.acceptSAMLResponse(in: "other", xml: xml, expecting: expectation(["_req-1"]))
        // The clock that counts is the emulator's: ten minutes on, the same kind of answer has expired.
        let fresh = try response(emulator, inResponseTo: nil, assertionID: "_assertion-2")
        emulator.clock.advance(by: 600)
        #expect { try emulator.acceptSAMLResponse(in: "proj", xml: fresh, expecting: expectation([], unsolicited: true)) } throws: { error in
            (error as? SAMLError)?.kind == .expired
        }
        // Remembered ids go once the assertion could no longer be accepted anyway.
        #expect(try emulator.sweep().challenges >= 2)
        #expect(try emulator.db.withConnection { try $0.first("SELECT count(*) AS n FROM saml_assertions")?.int("n") } == 0)
    }

    @Test func ssoProvidersOwnTheirEntityIDAndDomains() throws {
        let emulator = try makeEmulator()
        let acme = try emulator.createSSOProvider(SSOProvider(tenant: "proj", resourceId: "acme", entityID: "urn:acme", metadataXML: "<x/>",
                                                              domains: ["Acme.test"]))
        // Kept as written and found exactly, as GoTrue's FindSSOProviderByDomain finds it; unique in any case (below).
        #expect(acme.domains == ["Acme.test"])
        #expect(try emulator.ssoProvider(in: "proj", .domain("Acme.test"))?.id == acme.id)
        #expect(try emulator.ssoProvider(in: "proj", .domain("ACME.TEST")) == nil)
        #expect(try emulator.ssoProvider(in: "proj", .resourceId("acme"))?.id == acme.id)
        #expect(try emulator.ssoProvider(in: "proj", .entityID("urn:acme"))?.id == acme.id)
        #expect(throws: SSOProviderConflict.entityID("urn:acme")) {
            try emulator.createSSOProvider(SSOProvider(tenant: "proj", entityID: "urn:acme", metadataXML: "<x/>"))
        }
        #expect(throws: SSOProviderConflict.domain("acme.test", provider: acme.id)) {
            try emulator.createSSOProvider(SSOProvider(tenant: "proj", entityID: "urn:globex", metadataXML: "<x/>", domains: ["acme.test"]))
        }
        // Another tenant is another GoTrue.
        _ = try emulator.createSSOProvider(SSOProvider(tenant: "other", entityID: "urn:acme", metadataXML: "<x/>", domains: ["acme.test"]))
        var moved = acme
        moved.domains = []
        _ = try emulator.updateSSOProvider(moved)
        #expect(try emulator.ssoProvider(in: "proj", .domain("acme.test")) == nil)
    }

    @Test func anSSOAccountSharesItsEmailAndIsNeverFoundByIt() throws {
        let emulator = try makeEmulator()
        var sso = NewUser(email: "alice@example.com", emailVerified: true, addressIdentities: false,
                          identities: [NewIdentity(provider: "sso:p-1", subject: "alice-at-idp", email: "alice@example.com", data: [:])])
        sso.isSSOUser = true
        let account = try emulator.createUser(in: "proj", sso)
        #expect(account.isSSOUser && account.id != "u-alice")
        #expect(try emulator.user(in: "proj", .email("alice@example.com"))?.id == "u-alice")
        #expect(try emulator.user(in: "proj", provider: "sso:p-1", subject: "alice-at-idp")?.id == account.id)
        // An ordinary account still may not take an ordinary account's email, and is not held up by an SSO one's.
        #expect(throws: AuthError.emailTaken) { try emulator.createUser(in: "proj", NewUser(email: "alice@example.com")) }
        _ = try emulator.createUser(in: "proj", sso.with(email: "carol@example.com"))
        #expect(try emulator.createUser(in: "proj", NewUser(email: "carol@example.com")).isSSOUser == false)
    }
}

private extension NewUser {
    func with(email: String) -> NewUser {
        var copy = self
        copy.email = email
        copy.identities = identities.map { NewIdentity(provider: $0.provider, subject: email, email: email, data: $0.data) }
        return copy
    }
}
