import Foundation

/// The relying party's side of WebAuthn, shared by the dialects: challenges issued and consumed once,
/// credentials registered, checked and counted. Dialects decide who may open a ceremony and render its
/// options; every rule of the ceremony itself is here and in `WebAuthnVerifier`.
extension Emulator {
    /// Opens a registration for `userId`: a fresh 32-byte challenge from the generator, bound to `rp`,
    /// and the creation options to hand to the client. `exclude` lists the credentials the authenticator
    /// must not register again. `id` names the challenge: a new id, a dialect's own (an MFA challenge's), or
    /// the challenge itself, for a dialect whose client sends back no id (`WebAuthnChallengeID`).
    public func beginWebAuthnRegistration(in tenant: String, userId: String, user: WebAuthnUserEntity, relyingParty rp: RelyingParty,
                                          kind: WebAuthnCredential.Kind, exclude: [WebAuthnCredential],
                                          id: WebAuthnChallengeID = .new) throws -> WebAuthnCeremony {
        let (challenge, expiresAt) = try openChallenge(in: tenant, id: id, ceremony: "registration", userId: userId, handle: user.handle,
                                                       scope: kind.scope, rp: rp, allowed: nil)
        var selection: [String: JSON] = [:]
        if let residentKey = rp.residentKey { selection["residentKey"] = .string(residentKey) }
        if let uv = rp.userVerification { selection["userVerification"] = .string(uv.rawValue) }
        var options: [String: JSON] = [
            "rp": ["name": .string(rp.name), "id": .string(rp.id)],
            "user": ["name": .string(user.name), "displayName": .string(user.displayName), "id": .string(Base64URL.encode(user.handle))],
            "challenge": .string(Base64URL.encode(challenge.bytes)),
            "pubKeyCredParams": .array(rp.algorithms.map { ["type": "public-key", "alg": .int(Int($0))] }),
            "timeout": .int(rp.timeoutMilliseconds), "authenticatorSelection": .object(selection),
        ]
        if !exclude.isEmpty { options["excludeCredentials"] = .array(exclude.map(\.descriptor)) }
        if let attestation = rp.attestation { options["attestation"] = .string(attestation) }
        return WebAuthnCeremony(id: challenge.id, expiresAt: expiresAt, options: .object(options))
    }

    /// Opens an assertion: for `userId` with `allow` as its allowed credentials, or with no user for a
    /// discoverable (passkey) sign-in, where the authenticator picks the credential and names its user.
    public func beginWebAuthnAssertion(in tenant: String, userId: String?, relyingParty rp: RelyingParty, kind: WebAuthnCredential.Kind,
                                       allow: [WebAuthnCredential], id: WebAuthnChallengeID = .new) throws -> WebAuthnCeremony {
        let allowed = allow.map { Base64URL.encode($0.credentialId) }
        let (challenge, expiresAt) = try openChallenge(in: tenant, id: id, ceremony: "assertion", userId: userId, handle: nil,
                                                       scope: kind.scope, rp: rp, allowed: userId == nil ? nil : allowed)
        var options: [String: JSON] = ["challenge": .string(Base64URL.encode(challenge.bytes)), "timeout": .int(rp.timeoutMilliseconds),
                                       "rpId": .string(rp.id)]
        if !allow.isEmpty { options["allowCredentials"] = .array(allow.map(\.descriptor)) }
        if let uv = rp.userVerification { options["userVerification"] = .string(uv.rawValue) }
        return WebAuthnCeremony(id: challenge.id, expiresAt: expiresAt, options: .object(options))
    }

    /// Consumes the registration challenge `challengeId` (once, whatever the outcome, as GoTrue deletes it
    /// before checking), verifies `response` against it and stores the new credential.
    /// - Parameter maxCredentials: the most credentials of this kind the user may have.
    @discardableResult
    public func finishWebAuthnRegistration(in tenant: String, challengeId: String, userId: String, kind: WebAuthnCredential.Kind, response: JSON,
                                           friendlyName: String? = nil, maxCredentials: Int? = nil,
                                           origin: RequestOrigin = RequestOrigin()) throws -> WebAuthnCredential {
        let issued = try consumeChallenge(in: tenant, id: challengeId, ceremony: "registration", userId: userId, scope: kind.scope)
        let credential: RegisteredCredential
        do {
            credential = try WebAuthnVerifier.verifyRegistration(try PublicKeyCredentialJSON(response), expecting: issued.expectation)
        } catch {
            record(.signInFailed, tenant: tenant, userId: userId, origin: origin, detail: ["reason": .string("webauthn_\(error.code)"), "ceremony": "registration"])
            throw AuthError.webAuthn(error)
        }
        return try storeCredential(credential, in: tenant, userId: userId, kind: kind, userHandle: issued.userHandle ?? [],
                                   rpId: issued.expectation.relyingParty.id, friendlyName: friendlyName, maxCredentials: maxCredentials)
    }

    /// Consumes the assertion challenge, finds the credential the response names (the user's, when the
    /// ceremony had one; any of the tenant's of `kind` for a discoverable one, whose user handle must then
    /// match), verifies the signature and counter, and stores the new counter. Returns the credential,
    /// whose `userId` is who signed in.
    @discardableResult
    public func finishWebAuthnAssertion(in tenant: String, challengeId: String, userId: String?, kind: WebAuthnCredential.Kind, response: JSON,
                                        origin: RequestOrigin = RequestOrigin()) throws -> WebAuthnCredential {
        let issued = try consumeChallenge(in: tenant, id: challengeId, ceremony: "assertion", userId: userId, scope: kind.scope)
        do {
            let parsed = try PublicKeyCredentialJSON(response)
            var stored = try credential(answering: parsed, issued, in: tenant, userId: userId, kind: kind)
            let key: COSEKey
            do { key = try COSEKey(encoded: stored.publicKey) } catch { throw WebAuthnFailure.malformed("stored key: \(error.reason)") }
            let asserted = try WebAuthnVerifier.verifyAssertion(parsed, expecting: issued.expectation, publicKey: key,
                                                                storedSignCount: stored.signCount, backupEligible: stored.backupEligible)
            try recordUse(of: stored, asserted, in: tenant)
            stored.signCount = asserted.signCount
            stored.lastUsedAt = clock.now
            return stored
        } catch let failure as WebAuthnFailure {
            record(.signInFailed, tenant: tenant, userId: userId, origin: origin, detail: ["reason": .string("webauthn_\(failure.code)"), "ceremony": "assertion"])
            throw AuthError.webAuthn(failure)
        }
    }

    /// A user's credentials of `kind` (all kinds when nil), oldest first.
    public func webAuthnCredentials(in tenant: String, userId: String, kind: WebAuthnCredential.Kind? = nil) throws -> [WebAuthnCredential] {
        let all = try db.withConnection { c in try Passkeys.credentials(c, tenant: tenant, userId: userId) }
        guard let kind else { return all }
        return all.filter { $0.kind == kind }
    }

    /// The credential with this authenticator credential id, whoever's it is.
    public func webAuthnCredential(in tenant: String, credentialId: [UInt8]) throws -> WebAuthnCredential? {
        try db.withConnection { c in try Passkeys.credential(c, tenant: tenant, credentialId: credentialId) }
    }

    /// One of the user's credentials by record id, or `credentialNotFound`.
    public func requireWebAuthnCredential(in tenant: String, userId: String, id: String) throws -> WebAuthnCredential {
        let found = try db.withConnection { c in try Passkeys.credential(c, tenant: tenant, userId: userId, id: id) }
        guard let found else { throw AuthError.webAuthn(.credentialNotFound) }
        return found
    }

    /// Renames one of the user's credentials.
    @discardableResult
    public func renameWebAuthnCredential(in tenant: String, userId: String, id: String, friendlyName: String) throws -> WebAuthnCredential {
        _ = try requireWebAuthnCredential(in: tenant, userId: userId, id: id)
        try db.withConnection { c in try Passkeys.rename(c, tenant: tenant, id: id, to: friendlyName, at: clock.now) }
        return try requireWebAuthnCredential(in: tenant, userId: userId, id: id)
    }

    /// Removes one of the user's credentials.
    public func deleteWebAuthnCredential(in tenant: String, userId: String, id: String) throws {
        _ = try requireWebAuthnCredential(in: tenant, userId: userId, id: id)
        try db.withConnection { c in try Passkeys.delete(c, tenant: tenant, id: id) }
        record(.userUpdated, tenant: tenant, userId: userId, detail: ["change": "webauthn_credential_removed", "credential": .string(id)])
    }
}

/// What a ceremony's challenge is stored under.
public enum WebAuthnChallengeID: Sendable, Equatable {
    /// A new id, which the dialect hands its client beside the options (GoTrue's `challenge_id`).
    case new
    /// The dialect's own id (an MFA challenge's).
    case given(String)
    /// The challenge's own bytes, base64url: for a dialect whose client sends back only the credential
    /// (Identity Toolkit's passkeys), the answer's `clientDataJSON` names its challenge
    /// (`WebAuthnChallengeID.answered(by:)`).
    case challenge

    /// The id a `.challenge`-keyed ceremony was stored under, read from the answer's `clientDataJSON`
    /// (base64url as the browser writes it, or padded standard base64). The answer is still checked against
    /// the stored challenge; this only finds it.
    public static func answered(by credential: JSON) throws -> String {
        guard let text = credential["response"]?["clientDataJSON"]?.stringValue, let raw = Base64URL.decode(text) else {
            throw AuthError.webAuthn(.malformed("clientDataJSON is missing or not base64url"))
        }
        let clientData: ClientData
        do { clientData = try ClientData(raw) } catch { throw AuthError.webAuthn(error) }
        guard let bytes = Base64URL.decode(clientData.challenge) else { throw AuthError.webAuthn(.challengeNotFound) }
        return Base64URL.encode(bytes)
    }
}

/// A challenge as stored: what its answer is checked against.
struct IssuedChallenge {
    var expectation: WebAuthnExpectation
    var userHandle: [UInt8]?
    /// The credential ids (base64url) an assertion may use; nil for any.
    var allowed: [String]?
}

extension Emulator {
    private func openChallenge(in tenant: String, id: WebAuthnChallengeID, ceremony: String, userId: String?, handle: [UInt8]?, scope: String,
                               rp: RelyingParty, allowed: [String]?) throws -> (challenge: (id: String, bytes: [UInt8]), expiresAt: Date) {
        let bytes = generator.bytes(32), now = clock.now
        let id = switch id {
        case .new: newID()
        case .given(let given): given
        case .challenge: Base64URL.encode(bytes)
        }
        let expiresAt = now.addingTimeInterval(rp.challengeLifetime)
        let challenge = Passkeys.Challenge(bytes: bytes, relyingParty: rp.json, userHandle: handle, allowed: allowed, expiresAt: expiresAt)
        try db.withConnection { c in
            try Passkeys.openChallenge(c, tenant: tenant, id: id, ceremony: ceremony, userId: userId, scope: scope, challenge, at: now)
        }
        return ((id, bytes), expiresAt)
    }

    /// Deletes the challenge and returns it: single use even when the answer then fails. Bound to its
    /// ceremony, its scope and its user (none, for a discoverable sign-in), as GoTrue's
    /// `ConsumeWebAuthnChallengeByID`; past its expiry on the emulator clock it is `challengeExpired`.
    private func consumeChallenge(in tenant: String, id: String, ceremony: String, userId: String?, scope: String) throws -> IssuedChallenge {
        let stored = try db.transaction { c in
            try Passkeys.takeChallenge(c, tenant: tenant, id: id, ceremony: ceremony, userId: userId, scope: scope)
        }
        guard let stored, let challenge = stored.bytes, let rp = RelyingParty(json: stored.relyingParty) else {
            throw AuthError.webAuthn(.challengeNotFound)
        }
        guard let expires = stored.expiresAt, clock.now <= expires else { throw AuthError.webAuthn(.challengeExpired) }
        return IssuedChallenge(expectation: WebAuthnExpectation(challenge: challenge, relyingParty: rp), userHandle: stored.userHandle,
                               allowed: stored.allowed)
    }

    /// The stored credential an assertion names: the user's own when the ceremony had a user, of the
    /// ceremony's kind, one the challenge allowed, and with the user handle it was created with.
    private func credential(answering parsed: PublicKeyCredentialJSON, _ issued: IssuedChallenge, in tenant: String, userId: String?,
                            kind: WebAuthnCredential.Kind) throws -> WebAuthnCredential {
        guard let stored = try webAuthnCredential(in: tenant, credentialId: parsed.rawId), stored.kind == kind,
              userId == nil || stored.userId == userId else { throw WebAuthnFailure.credentialNotFound }
        if let allowed = issued.allowed, !allowed.contains(Base64URL.encode(parsed.rawId)) { throw WebAuthnFailure.rejected(.credentialNotAllowed) }
        if let handle = parsed.userHandle {
            guard constantTimeEquals(handle, stored.userHandle) else { throw WebAuthnFailure.rejected(.userHandleMismatch) }
        } else if userId == nil {
            // A discoverable sign-in learns its user from the handle alone (go-webauthn refuses a blank one).
            throw WebAuthnFailure.malformed("userHandle is required for a discoverable credential")
        }
        return stored
    }

    /// Stores the new counter and flags, only if the counter still moves forward from what is stored now:
    /// two assertions checked at once against the same old counter cannot both be kept.
    private func recordUse(of stored: WebAuthnCredential, _ asserted: AssertedCredential, in tenant: String) throws {
        let now = clock.now
        let updated = try db.withConnection { c in
            try Passkeys.recordUse(c, tenant: tenant, id: stored.id, signCount: asserted.signCount, backedUp: asserted.flags.contains(.backedUp),
                                   userVerified: asserted.flags.contains(.userVerified), at: now)
        }
        guard updated else { throw WebAuthnFailure.rejected(.counterRegressed) }
    }

    private func storeCredential(_ credential: RegisteredCredential, in tenant: String, userId: String, kind: WebAuthnCredential.Kind,
                                 userHandle: [UInt8], rpId: String, friendlyName: String?, maxCredentials: Int?) throws -> WebAuthnCredential {
        let id = newID(), now = clock.now
        let stored = WebAuthnCredential(
            id: id, userId: userId, kind: kind, credentialId: credential.credentialId, publicKey: credential.publicKey.encoded,
            algorithm: credential.publicKey.algorithm.rawValue, userHandle: userHandle, rpId: rpId, attestationFormat: credential.attestationFormat,
            aaguid: credential.aaguid, signCount: credential.signCount, transports: credential.transports,
            backupEligible: credential.flags.contains(.backupEligible), backedUp: credential.flags.contains(.backedUp),
            userVerified: credential.flags.contains(.userVerified), friendlyName: friendlyName, createdAt: now, updatedAt: now, lastUsedAt: nil)
        do {
            try db.transaction { c in
                if let maxCredentials {
                    guard try Passkeys.count(c, tenant: tenant, userId: userId, kind: kind) < maxCredentials else {
                        throw AuthError.webAuthn(.tooManyCredentials)
                    }
                }
                try Passkeys.insert(c, stored, tenant: tenant)
            }
        } catch let error as SQLiteError where error.isConstraintViolation {
            throw AuthError.webAuthn(.credentialExists)
        }
        record(.userUpdated, tenant: tenant, userId: userId,
               detail: ["change": "webauthn_credential_added", "credential": .string(id), "kind": .string(kind.column)])
        return try requireWebAuthnCredential(in: tenant, userId: userId, id: id)
    }
}

extension WebAuthnFailure {
    /// A stable name for events and logs.
    public var code: String {
        switch self {
        case .challengeNotFound: "challenge_not_found"
        case .challengeExpired: "challenge_expired"
        case .malformed: "malformed"
        case .rejected(let rule): rule.rawValue
        case .unsupportedAttestation: "unsupported_attestation"
        case .credentialExists: "credential_exists"
        case .credentialNotFound: "credential_not_found"
        case .tooManyCredentials: "too_many_credentials"
        }
    }
}

extension RelyingParty {
    /// How a challenge keeps the relying party it was issued for.
    var json: JSON {
        var o: [String: JSON] = ["id": .string(id), "name": .string(name), "origins": .array(origins.map(JSON.string)),
                                 "timeout": .int(timeoutMilliseconds), "lifetime": .double(challengeLifetime),
                                 "algorithms": .array(algorithms.map { .int(Int($0)) }), "cross_origin": .bool(allowsCrossOrigin),
                                 "origins_under_id": .bool(acceptsOriginsUnderID)]
        o["user_verification"] = userVerification.map { .string($0.rawValue) }
        o["resident_key"] = residentKey.map(JSON.string)
        o["attestation"] = attestation.map(JSON.string)
        return .object(o)
    }

    init?(json: JSON) {
        guard let id = json["id"]?.stringValue, let origins = json["origins"]?.arrayValue?.compactMap(\.stringValue) else { return nil }
        self.init(id: id, name: json["name"]?.stringValue ?? id, origins: origins,
                  userVerification: json["user_verification"]?.stringValue.flatMap(UserVerification.init(rawValue:)),
                  residentKey: json["resident_key"]?.stringValue, attestation: json["attestation"]?.stringValue,
                  timeoutMilliseconds: json["timeout"]?.intValue ?? 300_000, challengeLifetime: json["lifetime"]?.doubleValue ?? 300,
                  algorithms: json["algorithms"]?.arrayValue?.compactMap { $0.intValue.map(Int64.init) } ?? [],
                  allowsCrossOrigin: json["cross_origin"]?.boolValue ?? false)
        acceptsOriginsUnderID = json["origins_under_id"]?.boolValue ?? false
    }
}
