import Crypto
import Foundation
import Testing
@testable import AuthCore

/// The relying party's WebAuthn rules (registration §7.1, assertion §7.2), driven end to end through the
/// core with the virtual authenticator making real ES256 and RS256 signatures. Each refusal test breaks
/// exactly one rule, so it fails if that rule is not enforced.
@Suite struct WebAuthnTests {
    static let rp = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com", "https://app.example.com:8443"])
    static let alice = WebAuthnUserEntity(handle: Array("u-alice".utf8), name: "alice@example.com", displayName: "Alice")

    /// Opens a registration for Alice and answers it with the virtual authenticator.
    static func register(_ emulator: Emulator, rp: RelyingParty = rp, configure: (inout AuthenticatorSettings) -> Void = { _ in })
        throws -> WebAuthnCredential {
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: alice, relyingParty: rp, kind: .passkey, exclude: [])
        var settings = AuthenticatorSettings(origin: "https://example.com")
        configure(&settings)
        let response = try emulator.authenticatorCreate(in: "proj", options: ceremony.options, settings: settings)
        return try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: response)
    }

    /// Opens a discoverable sign-in and answers it.
    @discardableResult
    static func signIn(_ emulator: Emulator, rp: RelyingParty = rp, configure: (inout AuthenticatorSettings) -> Void = { _ in })
        throws -> WebAuthnCredential {
        let ceremony = try emulator.beginWebAuthnAssertion(in: "proj", userId: nil, relyingParty: rp, kind: .passkey, allow: [])
        var settings = AuthenticatorSettings(origin: "https://example.com")
        configure(&settings)
        let response = try emulator.authenticatorGet(in: "proj", options: ceremony.options, settings: settings)
        return try emulator.finishWebAuthnAssertion(in: "proj", challengeId: ceremony.id, userId: nil, kind: .passkey, response: response)
    }

    static func refused(_ failure: WebAuthnFailure, _ body: () throws -> Void) {
        #expect(throws: AuthError.webAuthn(failure)) { try body() }
    }

    @Test func anES256PasskeyRegistersAndSignsIn() throws {
        let emulator = try makeEmulator()
        let registered = try Self.register(emulator)
        #expect(registered.algorithm == COSEAlgorithm.es256.rawValue)
        #expect(registered.userHandle == Self.alice.handle)
        #expect(registered.rpId == "example.com")
        let first = try Self.signIn(emulator)
        #expect(first.userId == "u-alice")
        #expect(first.signCount == 1)
        #expect(try Self.signIn(emulator).signCount == 2)
        #expect(try emulator.webAuthnCredentials(in: "proj", userId: "u-alice").first?.lastUsedAt == emulator.clock.now)
    }

    @Test func anRS256PasskeyRegistersAndSignsIn() throws {
        let emulator = try makeEmulator()
        let registered = try Self.register(emulator) { $0.algorithm = .rs256 }
        #expect(registered.algorithm == COSEAlgorithm.rs256.rawValue)
        #expect(try Self.signIn(emulator).id == registered.id)
    }

    @Test func packedSelfAttestationIsVerified() throws {
        let emulator = try makeEmulator()
        let credential = try Self.register(emulator) { $0.attestation = "packed" }
        #expect(credential.attestationFormat == "packed")
        #expect(credential.aaguid == VirtualAuthenticatorModel.aaguid)
    }

    @Test func aTamperedPackedAttestationSignatureIsRefused() throws {
        let emulator = try makeEmulator()
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp,
                                                              kind: .passkey, exclude: [])
        var settings = AuthenticatorSettings(origin: "https://example.com")
        settings.attestation = "packed"
        let response = try emulator.authenticatorCreate(in: "proj", options: ceremony.options, settings: settings)
        let tampered = try Self.rewriteAttestation(response) { object in
            guard case .map(var entries) = object, case .map(var statement) = entries[1].1, case .bytes(var sig) = statement[1].1 else { return object }
            sig[sig.count - 1] ^= 0x01
            statement[1].1 = .bytes(sig)
            entries[1].1 = .map(statement)
            return .map(entries)
        }
        Self.refused(.rejected(.badSignature)) {
            try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: tampered)
        }
    }

    @Test func attestationFormatsOtherThanNoneAndPackedAreRefused() throws {
        let emulator = try makeEmulator()
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp,
                                                              kind: .passkey, exclude: [])
        let response = try emulator.authenticatorCreate(in: "proj", options: ceremony.options, settings: AuthenticatorSettings(origin: "https://example.com"))
        let u2f = try Self.rewriteAttestation(response) { object in
            guard case .map(var entries) = object else { return object }
            entries[0].1 = .text("fido-u2f")
            return .map(entries)
        }
        Self.refused(.unsupportedAttestation("fido-u2f")) {
            try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: u2f)
        }
    }

    @Test func aCeremonyFromAnotherOriginIsRefused() throws {
        let emulator = try makeEmulator()
        Self.refused(.rejected(.originNotAllowed)) { _ = try Self.register(emulator) { $0.origin = "https://evil.example" } }
        _ = try Self.register(emulator) { $0.origin = "https://APP.example.com:8443" }
        Self.refused(.rejected(.originNotAllowed)) { try Self.signIn(emulator) { $0.origin = "http://example.com" } }
    }

    @Test func aCredentialScopedToAnotherRPIdIsRefused() throws {
        let emulator = try makeEmulator()
        Self.refused(.rejected(.rpIdMismatch)) { _ = try Self.register(emulator) { $0.rpIdOverride = "evil.example" } }
        _ = try Self.register(emulator)
        Self.refused(.rejected(.rpIdMismatch)) { try Self.signIn(emulator) { $0.rpIdOverride = "evil.example" } }
    }

    @Test func aChallengeIsGoodOnce() throws {
        let emulator = try makeEmulator()
        _ = try Self.register(emulator)
        let ceremony = try emulator.beginWebAuthnAssertion(in: "proj", userId: nil, relyingParty: Self.rp, kind: .passkey, allow: [])
        let response = try emulator.authenticatorGet(in: "proj", options: ceremony.options, settings: AuthenticatorSettings(origin: "https://example.com"))
        try emulator.finishWebAuthnAssertion(in: "proj", challengeId: ceremony.id, userId: nil, kind: .passkey, response: response)
        Self.refused(.challengeNotFound) {
            try emulator.finishWebAuthnAssertion(in: "proj", challengeId: ceremony.id, userId: nil, kind: .passkey, response: response)
        }
    }

    @Test func aFailedAnswerStillUsesTheChallengeUp() throws {
        let emulator = try makeEmulator()
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        var wrong = AuthenticatorSettings(origin: "https://evil.example")
        wrong.userVerified = true
        let bad = try emulator.authenticatorCreate(in: "proj", options: ceremony.options, settings: wrong)
        Self.refused(.rejected(.originNotAllowed)) {
            try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: bad)
        }
        let good = try emulator.authenticatorCreate(in: "proj", options: ceremony.options, settings: AuthenticatorSettings(origin: "https://example.com"))
        Self.refused(.challengeNotFound) {
            try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: good)
        }
    }

    @Test func aChallengeExpiresOnTheEmulatorClock() throws {
        let emulator = try makeEmulator()
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        #expect(ceremony.expiresAt == emulator.clock.now.addingTimeInterval(300))
        let response = try emulator.authenticatorCreate(in: "proj", options: ceremony.options, settings: AuthenticatorSettings(origin: "https://example.com"))
        emulator.clock.advance(by: 301)
        Self.refused(.challengeExpired) {
            try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: response)
        }
    }

    @Test func aChallengeIsBoundToItsUserAndCeremony() throws {
        let emulator = try makeEmulator()
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        let response = try emulator.authenticatorCreate(in: "proj", options: ceremony.options, settings: AuthenticatorSettings(origin: "https://example.com"))
        Self.refused(.challengeNotFound) {
            try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-bob", kind: .passkey, response: response)
        }
        let other = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        Self.refused(.challengeNotFound) {
            try emulator.finishWebAuthnAssertion(in: "proj", challengeId: other.id, userId: "u-alice", kind: .passkey, response: response)
        }
    }

    @Test func anAnswerToAnotherChallengeIsRefused() throws {
        let emulator = try makeEmulator()
        let first = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        let second = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        let answer = try emulator.authenticatorCreate(in: "proj", options: first.options, settings: AuthenticatorSettings(origin: "https://example.com"))
        Self.refused(.rejected(.challengeMismatch)) {
            try emulator.finishWebAuthnRegistration(in: "proj", challengeId: second.id, userId: "u-alice", kind: .passkey, response: answer)
        }
    }

    @Test func aSignCounterThatDoesNotMoveForwardIsRefused() throws {
        let emulator = try makeEmulator()
        _ = try Self.register(emulator)
        try Self.signIn(emulator) { $0.signCountOverride = 5 }
        Self.refused(.rejected(.counterRegressed)) { try Self.signIn(emulator) { $0.signCountOverride = 5 } }
        Self.refused(.rejected(.counterRegressed)) { try Self.signIn(emulator) { $0.signCountOverride = 3 } }
        #expect(try Self.signIn(emulator) { $0.signCountOverride = 6 }.signCount == 6)
    }

    @Test func anAuthenticatorWithoutACounterMayKeepReportingZero() throws {
        let emulator = try makeEmulator()
        _ = try Self.register(emulator)
        try Self.signIn(emulator) { $0.signCountOverride = 0 }
        try Self.signIn(emulator) { $0.signCountOverride = 0 }
    }

    @Test func userVerificationIsEnforcedOnlyWhenRequired() throws {
        let emulator = try makeEmulator()
        var strict = Self.rp
        strict.userVerification = .required
        Self.refused(.rejected(.userNotVerified)) { _ = try Self.register(emulator, rp: strict) { $0.userVerified = false } }
        _ = try Self.register(emulator) { $0.userVerified = false }
        Self.refused(.rejected(.userNotVerified)) { try Self.signIn(emulator, rp: strict) { $0.userVerified = false } }
        try Self.signIn(emulator) { $0.userVerified = false }
    }

    @Test func userPresenceIsAlwaysRequired() throws {
        let emulator = try makeEmulator()
        Self.refused(.rejected(.userNotPresent)) { _ = try Self.register(emulator) { $0.userPresent = false } }
    }

    @Test func aTamperedAssertionSignatureIsRefused() throws {
        let emulator = try makeEmulator()
        _ = try Self.register(emulator)
        let ceremony = try emulator.beginWebAuthnAssertion(in: "proj", userId: nil, relyingParty: Self.rp, kind: .passkey, allow: [])
        var response = try emulator.authenticatorGet(in: "proj", options: ceremony.options, settings: AuthenticatorSettings(origin: "https://example.com"))
        var signature = try #require(response["response"]?["signature"]?.stringValue.flatMap(Base64URL.decode))
        signature[signature.count - 1] ^= 0x01
        response = Self.replacing(response, "signature", with: Base64URL.encode(signature))
        Self.refused(.rejected(.badSignature)) {
            try emulator.finishWebAuthnAssertion(in: "proj", challengeId: ceremony.id, userId: nil, kind: .passkey, response: response)
        }
    }

    @Test func rewrittenClientDataBreaksTheSignature() throws {
        let emulator = try makeEmulator()
        _ = try Self.register(emulator)
        let ceremony = try emulator.beginWebAuthnAssertion(in: "proj", userId: nil, relyingParty: Self.rp, kind: .passkey, allow: [])
        // Signed on evil.example, then relabelled as the real origin: the origin check passes, the signature does not.
        var settings = AuthenticatorSettings(origin: "https://evil.example")
        settings.userVerified = true
        let response = try emulator.authenticatorGet(in: "proj", options: ceremony.options, settings: settings)
        let clientData = try #require(response["response"]?["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode))
        let relabelled = String(decoding: clientData, as: UTF8.self).replacingOccurrences(of: "https://evil.example", with: "https://example.com")
        Self.refused(.rejected(.badSignature)) {
            try emulator.finishWebAuthnAssertion(in: "proj", challengeId: ceremony.id, userId: nil, kind: .passkey,
                                                 response: Self.replacing(response, "clientDataJSON", with: Base64URL.encode(relabelled)))
        }
    }

    @Test func crossOriginCeremoniesAreRefusedUnlessAllowed() throws {
        let emulator = try makeEmulator()
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        let clientData = ClientData.encode(type: "webauthn.create", challenge: try #require(ceremony.options["challenge"]?.stringValue),
                                           origin: "https://example.com")
        let framed = Array(String(decoding: clientData, as: UTF8.self).replacingOccurrences(of: #""crossOrigin":false"#, with: #""crossOrigin":true"#).utf8)
        #expect(throws: WebAuthnFailure.rejected(.crossOrigin)) {
            try WebAuthnVerifier.check(try ClientData(framed), ceremony: "webauthn.create",
                                       WebAuthnExpectation(challenge: Base64URL.decode(ceremony.options["challenge"]?.stringValue ?? "") ?? [],
                                                           relyingParty: Self.rp))
        }
        var permissive = Self.rp
        permissive.allowsCrossOrigin = true
        try WebAuthnVerifier.check(try ClientData(framed), ceremony: "webauthn.create",
                                   WebAuthnExpectation(challenge: Base64URL.decode(ceremony.options["challenge"]?.stringValue ?? "") ?? [],
                                                       relyingParty: permissive))
    }

    @Test func anAssertionMadeForRegistrationIsRefused() throws {
        let emulator = try makeEmulator()
        _ = try Self.register(emulator)
        let ceremony = try emulator.beginWebAuthnAssertion(in: "proj", userId: nil, relyingParty: Self.rp, kind: .passkey, allow: [])
        let clientData = ClientData.encode(type: "webauthn.create", challenge: try #require(ceremony.options["challenge"]?.stringValue),
                                           origin: "https://example.com")
        #expect(throws: WebAuthnFailure.rejected(.wrongCeremony)) {
            try WebAuthnVerifier.check(try ClientData(clientData), ceremony: "webauthn.get",
                                       WebAuthnExpectation(challenge: Base64URL.decode(ceremony.options["challenge"]?.stringValue ?? "") ?? [],
                                                           relyingParty: Self.rp))
        }
    }

    @Test func aCredentialOutsideTheAllowListIsRefused() throws {
        let emulator = try makeEmulator()
        let first = try Self.register(emulator)
        let second = try Self.register(emulator)
        let ceremony = try emulator.beginWebAuthnAssertion(in: "proj", userId: "u-alice", relyingParty: Self.rp, kind: .passkey, allow: [first])
        var settings = AuthenticatorSettings(origin: "https://example.com")
        settings.credentialId = Base64URL.encode(second.credentialId)
        let response = try emulator.authenticatorGet(in: "proj", options: ceremony.options, settings: settings)
        Self.refused(.rejected(.credentialNotAllowed)) {
            try emulator.finishWebAuthnAssertion(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: response)
        }
    }

    @Test func aCredentialIdIsRegisteredOnce() throws {
        let emulator = try makeEmulator()
        let key = P256.Signing.PrivateKey()
        let credentialId = Array(repeating: UInt8(7), count: 16)
        for attempt in 0..<2 {
            let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp,
                                                                  kind: .passkey, exclude: [])
            let response = Self.handMadeRegistration(options: ceremony.options, credentialId: credentialId, key: key)
            if attempt == 0 {
                try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: response)
            } else {
                Self.refused(.credentialExists) {
                    try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey, response: response)
                }
            }
        }
    }

    @Test func aRegistrationBuiltOutsideTheVirtualAuthenticatorVerifies() throws {
        // Assembled here from the spec's byte layout, not by the emulator's own authenticator code.
        let emulator = try makeEmulator()
        let ceremony = try emulator.beginWebAuthnRegistration(in: "proj", userId: "u-alice", user: Self.alice, relyingParty: Self.rp, kind: .passkey, exclude: [])
        let key = P256.Signing.PrivateKey()
        let stored = try emulator.finishWebAuthnRegistration(in: "proj", challengeId: ceremony.id, userId: "u-alice", kind: .passkey,
                                                             response: Self.handMadeRegistration(options: ceremony.options, credentialId: [1, 2, 3, 4], key: key))
        #expect(stored.credentialId == [1, 2, 3, 4])
        #expect(try COSEKey(encoded: stored.publicKey).encoded == stored.publicKey)
    }

    /// A `none` registration response assembled by hand: authenticator data per WebAuthn §6.1, the COSE key
    /// per RFC 9053 with its integer labels spelled out.
    static func handMadeRegistration(options: JSON, credentialId: [UInt8], key: P256.Signing.PrivateKey) -> JSON {
        let point = Array(key.publicKey.x963Representation.dropFirst())
        let cose: [UInt8] = [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + point.prefix(32) + [0x22, 0x58, 0x20] + point.suffix(32)
        var authData = Array(SHA256.hash(data: Array("example.com".utf8)))
        authData += [0x45, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0, UInt8(credentialId.count)] + credentialId + cose
        let clientData = #"{"type":"webauthn.create","challenge":"\#(options["challenge"]?.stringValue ?? "")","origin":"https://example.com"}"#
        // {"fmt": "none", "attStmt": {}, "authData": h'…'}
        let object: [UInt8] = [0xA3, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x67] + Array("attStmt".utf8) + [0xA0]
            + [0x68] + Array("authData".utf8) + [0x59, UInt8(authData.count >> 8), UInt8(authData.count & 0xFF)] + authData
        return ["id": .string(Base64URL.encode(credentialId)), "rawId": .string(Base64URL.encode(credentialId)), "type": "public-key",
                "response": ["clientDataJSON": .string(Base64URL.encode(clientData)), "attestationObject": .string(Base64URL.encode(object))]]
    }

    @Test func snapshotsKeepCredentialsAndResetClearsThem() throws {
        let emulator = try makeEmulator()
        let credential = try Self.register(emulator)
        try emulator.takeSnapshot(named: "with-passkey")
        try emulator.reset()
        #expect(try emulator.webAuthnCredentials(in: "proj", userId: "u-alice").isEmpty)
        #expect(try emulator.authenticatorKeys(in: "proj").isEmpty)
        try emulator.restoreSnapshot(named: "with-passkey")
        #expect(try emulator.webAuthnCredentials(in: "proj", userId: "u-alice").map(\.id) == [credential.id])
        #expect(try Self.signIn(emulator).id == credential.id)
    }

    @Test func deletingAUserDeletesTheirCredentials() throws {
        let emulator = try makeEmulator()
        _ = try Self.register(emulator)
        try emulator.deleteUser(in: "proj", id: "u-alice")
        #expect(try emulator.webAuthnCredentials(in: "proj", userId: "u-alice").isEmpty)
    }

    // MARK: helpers

    static func replacing(_ credential: JSON, _ key: String, with value: String) -> JSON {
        guard case .object(var o) = credential, case .object(var response)? = o["response"] else { return credential }
        response[key] = .string(value)
        o["response"] = .object(response)
        return .object(o)
    }

    static func rewriteAttestation(_ credential: JSON, _ change: (CBOR) -> CBOR) throws -> JSON {
        let bytes = try #require(credential["response"]?["attestationObject"]?.stringValue.flatMap(Base64URL.decode))
        return replacing(credential, "attestationObject", with: Base64URL.encode(change(try CBOR.decode(bytes)).encoded))
    }
}

@Suite struct CBORTests {
    @Test func itemsRoundTrip() throws {
        let item = CBOR.map([(.int(1), .int(2)), (.int(-1), .int(-300)), (.text("fmt"), .text("none")), (.text("b"), .bytes(Array(0..<40))),
                             (.text("a"), .array([.bool(true), .bool(false), .null, .unsigned(70_000), .unsigned(5_000_000_000)]))])
        #expect(try CBOR.decode(item.encoded) == item)
    }

    @Test func knownEncodings() throws {
        // RFC 8949 Appendix A.
        #expect(CBOR.unsigned(500).encoded == [0x19, 0x01, 0xF4])
        #expect(CBOR.negative(-1000).encoded == [0x39, 0x03, 0xE7])
        #expect(try CBOR.decode([0xA2, 0x01, 0x02, 0x03, 0x04]) == .map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))]))
    }

    @Test func hostileInputIsRefusedNotTrusted() {
        #expect(throws: CBORError.self) { try CBOR.decode([0x5A, 0xFF, 0xFF, 0xFF, 0xFF]) }   // a byte string longer than the input
        #expect(throws: CBORError.self) { try CBOR.decode([0x01, 0x02]) }                       // trailing bytes
        #expect(throws: CBORError.self) { try CBOR.decode([0x9F, 0x01, 0xFF]) }                 // indefinite length
        #expect(throws: CBORError.self) { try CBOR.decode([0xA2, 0x01, 0x02, 0x01, 0x03]) }     // duplicate key
        #expect(throws: CBORError.self) { try CBOR.decode(Array(repeating: 0x81, count: 100) + [0x01]) }  // nested too deeply
        #expect(throws: CBORError.self) { try CBOR.decode([0xC1, 0x01]) }                       // a tag
    }

    @Test func authenticatorDataRefusesTruncationAndTrailingBytes() {
        let valid = AuthenticatorData.encode(rpId: "example.com", flags: [.userPresent], signCount: 7, credential: nil)
        #expect((try? AuthenticatorData(valid))?.signCount == 7)
        #expect(throws: WebAuthnFailure.self) { try AuthenticatorData(Array(valid.prefix(36))) }
        #expect(throws: WebAuthnFailure.self) { try AuthenticatorData(valid + [0]) }
        var claimsCredential = valid
        claimsCredential[32] |= AuthenticatorData.Flags.attestedCredentialData.rawValue
        #expect(throws: WebAuthnFailure.self) { try AuthenticatorData(claimsCredential) }
    }
}
