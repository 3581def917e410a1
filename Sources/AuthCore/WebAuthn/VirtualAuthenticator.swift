import Crypto
import _CryptoExtras
import Foundation

/// How the virtual authenticator (and the browser around it) answers: the page's origin, what the user
/// did, and deliberate faults for negative tests (another RP id, a forced counter).
public struct AuthenticatorSettings: Sendable {
    /// The page the ceremony runs on, written into `clientDataJSON.origin`.
    public var origin: String
    /// UV: the user unlocked the authenticator (PIN, biometrics).
    public var userVerified = true
    /// UP: the user touched it. Off only to test a relying party's presence check.
    public var userPresent = true
    /// `none` (the default browsers use) or `packed` self-attestation.
    public var attestation = "none"
    /// The key type for a new credential; nil takes the first of the options' `pubKeyCredParams` it can make.
    public var algorithm: COSEAlgorithm?
    /// BE and BS: a synced, multi-device passkey.
    public var backupEligible = false
    /// Hash this RP id into the authenticator data instead of the options' (a misbehaving authenticator).
    public var rpIdOverride: String?
    /// Report this counter instead of the next one (a cloned authenticator).
    public var signCountOverride: UInt32?
    /// Which held credential answers an assertion (base64url id); needed when several could.
    public var credentialId: String?
    /// Answer an assertion with one of this user's registered credentials.
    public var userId: String?
    /// Which of the user's devices this is: a registration excludes only the credentials this one holds
    /// (a person with a laptop and a phone has a passkey on each); an assertion, when set, uses only its.
    public var authenticator: String?

    public init(origin: String) { self.origin = origin }
}

/// A credential the virtual authenticator holds.
public struct AuthenticatorKey: Sendable, Equatable {
    public var credentialId: String
    /// The device holding it (`AuthenticatorSettings.authenticator`, `default` unless named).
    public var authenticator: String
    public var rpId: String
    public var userHandle: String
    public var userName: String?
    public var algorithm: Int64
    public var signCount: UInt32
    public var backupEligible: Bool
    public var createdAt: Date

}

/// A software authenticator in the emulator, so tests need no browser: it answers the options a dialect
/// gave the client with the `PublicKeyCredential` JSON a browser would send back. Keys are ES256 from
/// the emulator's generator (reproducible under `--deterministic`; the ECDSA nonce is BoringSSL's), or
/// RS256 from BoringSSL. It plays browser and authenticator both, but skips the browser's check that the
/// RP id suits the origin, so a test can make the relying party see a mismatch.
extension Emulator {
    /// `navigator.credentials.create()`: makes a key pair for the options' RP and user, and returns the
    /// registration response (`RegistrationResponseJSON`).
    public func authenticatorCreate(in tenant: String, options: JSON, settings: AuthenticatorSettings) throws -> JSON {
        let o = Self.publicKeyOptions(options)
        guard let challenge = o["challenge"]?.stringValue.flatMap(Base64URL.decode) else { throw Self.optionError("challenge", "is missing or not base64url") }
        guard let handleText = o["user"]?["id"]?.stringValue, let handle = Base64URL.decode(handleText), !handle.isEmpty else {
            throw Self.optionError("user.id", "is missing or not base64url")
        }
        let rpId = o["rp"]?["id"]?.stringValue ?? Self.host(of: settings.origin)
        let device = settings.authenticator ?? "default"
        let held = Set(try authenticatorKeys(in: tenant).filter { $0.authenticator == device }.map(\.credentialId))
        for excluded in o["excludeCredentials"]?.arrayValue ?? [] where held.contains(excluded["id"]?.stringValue ?? "") {
            throw Self.optionError("excludeCredentials", "names a credential this authenticator holds (InvalidStateError)")
        }
        let algorithm = try Self.algorithm(offered: o["pubKeyCredParams"]?.arrayValue ?? [], wanted: settings.algorithm)
        let (privateKey, publicKey) = try Self.newKey(algorithm, generator: generator)
        let credentialId = generator.bytes(32)
        var flags: AuthenticatorData.Flags = [.attestedCredentialData]
        if settings.userPresent { flags.insert(.userPresent) }
        if settings.userVerified { flags.insert(.userVerified) }
        if settings.backupEligible { flags.formUnion([.backupEligible, .backedUp]) }
        let aaguid = settings.attestation == "packed" ? VirtualAuthenticatorModel.aaguid : [UInt8](repeating: 0, count: 16)
        let authData = AuthenticatorData.encode(rpId: settings.rpIdOverride ?? rpId, flags: flags, signCount: settings.signCountOverride ?? 0,
                                                credential: (aaguid, credentialId, publicKey))
        let clientData = ClientData.encode(type: "webauthn.create", challenge: Base64URL.encode(challenge), origin: settings.origin)
        let attestationObject = try Self.attestationObject(settings.attestation, authData: authData, clientData: clientData,
                                                           algorithm: algorithm, key: privateKey)
        let key = AuthenticatorKey(credentialId: Base64URL.encode(credentialId), authenticator: device, rpId: rpId,
                                   userHandle: Base64URL.encode(handle), userName: o["user"]?["name"]?.stringValue, algorithm: algorithm.rawValue,
                                   signCount: settings.signCountOverride ?? 0, backupEligible: settings.backupEligible, createdAt: clock.now)
        try db.withConnection { c in try Passkeys.insertKey(c, key, privateKey: privateKey, tenant: tenant) }
        var response: [String: JSON] = ["clientDataJSON": .string(Base64URL.encode(clientData)),
                                        "attestationObject": .string(Base64URL.encode(attestationObject)),
                                        "authenticatorData": .string(Base64URL.encode(authData)), "transports": ["internal", "hybrid"],
                                        "publicKeyAlgorithm": .int(Int(algorithm.rawValue))]
        if case .p256(let key) = publicKey.material { response["publicKey"] = .string(Base64URL.encode(key.derRepresentation)) }
        return Self.credentialJSON(id: credentialId, response: response)
    }

    /// The attestation object (WebAuthn §6.5.4), its keys in CTAP2 canonical order (`fmt`, `attStmt`,
    /// `authData`): `none`, or `packed` self-attestation signed with the new credential's own key.
    static func attestationObject(_ format: String, authData: [UInt8], clientData: [UInt8], algorithm: COSEAlgorithm, key: [UInt8]) throws -> [UInt8] {
        let statement: CBOR
        switch format {
        case "none": statement = .map([])
        case "packed":
            let signature = try sign(authData + Array(SHA256.hash(data: clientData)), algorithm: algorithm, key: key)
            statement = .map([(.text("alg"), .int(algorithm.rawValue)), (.text("sig"), .bytes(signature))])
        default: throw AuthError.invalidInput(field: "attestation", reason: "must be none or packed")
        }
        return CBOR.map([(.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData))]).encoded
    }

    /// `navigator.credentials.get()`: signs the options' challenge with a held credential for their RP
    /// (one the options allow, or the one `settings` names) and returns `AuthenticationResponseJSON`.
    public func authenticatorGet(in tenant: String, options: JSON, settings: AuthenticatorSettings) throws -> JSON {
        let o = Self.publicKeyOptions(options)
        guard let challenge = o["challenge"]?.stringValue.flatMap(Base64URL.decode) else { throw Self.optionError("challenge", "is missing or not base64url") }
        let rpId = o["rpId"]?.stringValue ?? Self.host(of: settings.origin)
        let (key, privateKey) = try pickKey(in: tenant, rpId: rpId, options: o, settings: settings)
        let signCount = settings.signCountOverride ?? key.signCount &+ 1
        var flags: AuthenticatorData.Flags = []
        if settings.userPresent { flags.insert(.userPresent) }
        if settings.userVerified { flags.insert(.userVerified) }
        if key.backupEligible { flags.formUnion([.backupEligible, .backedUp]) }
        let authData = AuthenticatorData.encode(rpId: settings.rpIdOverride ?? rpId, flags: flags, signCount: signCount, credential: nil)
        let clientData = ClientData.encode(type: "webauthn.get", challenge: Base64URL.encode(challenge), origin: settings.origin)
        guard let algorithm = COSEAlgorithm(rawValue: key.algorithm) else { throw Self.optionError("credential", "has an unknown algorithm") }
        let signature = try Self.sign(authData + Array(SHA256.hash(data: clientData)), algorithm: algorithm, key: privateKey)
        try db.withConnection { c in try Passkeys.setSignCount(c, tenant: tenant, credentialId: key.credentialId, signCount) }
        return Self.credentialJSON(id: Base64URL.decode(key.credentialId) ?? [], response: [
            "clientDataJSON": .string(Base64URL.encode(clientData)), "authenticatorData": .string(Base64URL.encode(authData)),
            "signature": .string(Base64URL.encode(signature)), "userHandle": .string(key.userHandle),
        ])
    }

    /// The credentials the virtual authenticator holds in `tenant`, oldest first.
    public func authenticatorKeys(in tenant: String) throws -> [AuthenticatorKey] {
        try db.withConnection { c in try Passkeys.keys(c, tenant: tenant).map(\.key) }
    }

    /// The one held credential that may answer: named by `settings`, else allowed by the options, else the
    /// only one for the RP (or the only one the relying party registered). Several candidates and no
    /// choice is an error, as a browser would ask the user.
    private func pickKey(in tenant: String, rpId: String, options o: JSON, settings: AuthenticatorSettings) throws -> (AuthenticatorKey, [UInt8]) {
        var candidates = try db.withConnection { c in try Passkeys.keys(c, tenant: tenant) }.map { ($0.privateKey, $0.key) }
        if let named = settings.credentialId {
            candidates = candidates.filter { $0.1.credentialId == named }
        } else {
            candidates = candidates.filter { $0.1.rpId == rpId && (settings.authenticator == nil || $0.1.authenticator == settings.authenticator) }
            let allowed = (o["allowCredentials"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            if !allowed.isEmpty { candidates = candidates.filter { allowed.contains($0.1.credentialId) } }
            if let userId = settings.userId {
                let theirs = Set(try webAuthnCredentials(in: tenant, userId: userId).map { Base64URL.encode($0.credentialId) })
                candidates = candidates.filter { theirs.contains($0.1.credentialId) }
            }
        }
        guard !candidates.isEmpty else {
            throw Self.optionError("credential", "the authenticator holds no credential for \(rpId) that the options allow (NotAllowedError)")
        }
        if candidates.count > 1 {
            // A key whose registration the relying party refused is of no use to anyone: a person would
            // not pick it, so neither does the emulator when exactly one of the candidates was accepted.
            let registered = try candidates.filter { try webAuthnCredential(in: tenant, credentialId: Base64URL.decode($0.1.credentialId) ?? []) != nil }
            if registered.count == 1 { candidates = registered }
        }
        guard candidates.count == 1, let first = candidates.first else {
            throw Self.optionError("credential", "\(candidates.count) held credentials could answer; name credential_id or user_id")
        }
        return (first.1, first.0)
    }

    /// The options a dialect returned: bare, or inside `publicKey` as `navigator.credentials` takes them.
    static func publicKeyOptions(_ options: JSON) -> JSON { options["publicKey"] ?? options }

    /// The key type to make: the one asked for if the options offer it, else the first offered one this
    /// authenticator can make; WebAuthn's `NotSupportedError` when there is none.
    static func algorithm(offered params: [JSON], wanted: COSEAlgorithm?) throws -> COSEAlgorithm {
        let offered = params.compactMap { $0["alg"]?.intValue.map(Int64.init) }
        let usable = offered.compactMap(COSEAlgorithm.init(rawValue:))
        if let wanted {
            guard offered.isEmpty || usable.contains(wanted) else { throw optionError("pubKeyCredParams", "does not offer \(wanted.name) (NotSupportedError)") }
            return wanted
        }
        guard let first = usable.first ?? (offered.isEmpty ? .es256 : nil) else {
            throw optionError("pubKeyCredParams", "offers no ES256 or RS256 (NotSupportedError)")
        }
        return first
    }

    static func optionError(_ field: String, _ reason: String) -> AuthError { .invalidInput(field: "options.\(field)", reason: reason) }

    static func host(of origin: String) -> String { URLComponents(string: origin)?.host ?? origin }

    static func newKey(_ algorithm: COSEAlgorithm, generator: Generator) throws -> (privateKey: [UInt8], publicKey: COSEKey) {
        switch algorithm {
        case .es256:
            while true {
                // A random 32-byte string is a valid P-256 scalar except with negligible probability.
                if let key = try? P256.Signing.PrivateKey(rawRepresentation: generator.bytes(32)) {
                    return (Array(key.rawRepresentation), COSEKey(p256: key.publicKey))
                }
            }
        case .rs256:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return (Array(key.derRepresentation), try COSEKey(rsa: key.publicKey))
        }
    }

    static func sign(_ data: [UInt8], algorithm: COSEAlgorithm, key: [UInt8]) throws -> [UInt8] {
        switch algorithm {
        case .es256: Array(try P256.Signing.PrivateKey(rawRepresentation: key).signature(for: data).derRepresentation)
        case .rs256: Array(try _RSA.Signing.PrivateKey(derRepresentation: key).signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    static func credentialJSON(id: [UInt8], response: [String: JSON]) -> JSON {
        ["id": .string(Base64URL.encode(id)), "rawId": .string(Base64URL.encode(id)), "type": "public-key",
         "response": .object(response), "clientExtensionResults": [:], "authenticatorAttachment": "platform"]
    }
}

/// The virtual authenticator as a model, the way relying parties name authenticators by AAGUID.
public enum VirtualAuthenticatorModel {
    /// Reported with `packed` attestation (`none` zeroes it, as browsers do): a fixed, made-up AAGUID, the
    /// first 16 bytes of SHA-256 of "fauxth virtual authenticator".
    public static let aaguid = Array(SHA256.hash(data: Array("fauxth virtual authenticator".utf8)).prefix(16))
    public static let name = "Fauxth Virtual Authenticator"
}
