import AuthCore
import Foundation
import HTTPSupport

/// The hash parameters of an `accounts:batchCreate` request: which algorithm the imported `passwordHash`
/// values use, and its key, separator, rounds and costs.
struct PasswordImport {
    let algorithm: String?
    let body: FirebaseBody

    /// The algorithms firebase-admin's `UserImportHash` offers.
    static let supported: Set = ["BCRYPT", "SCRYPT", "STANDARD_SCRYPT", "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5",
                                 "MD5", "SHA1", "SHA256", "SHA512", "PBKDF_SHA1", "PBKDF2_SHA256"]

    init(_ body: FirebaseBody) throws {
        self.body = body
        algorithm = try body.string("hashAlgorithm")
        if let algorithm, !Self.supported.contains(algorithm) { throw FirebaseError(.invalidArgument, "Unsupported hash algorithm \(algorithm)") }
    }

    /// The stored form of an imported hash (`ImportedHash`, or the bcrypt string itself).
    func encoded(hash: [UInt8], salt: [UInt8]) throws -> String {
        guard let algorithm else { throw FirebaseError(.invalidArgument, "passwordHash needs hashAlgorithm") }
        let order: ImportedHash.Order = try body.string("passwordHashOrder") == "PASSWORD_AND_SALT" ? .passwordFirst : .saltFirst
        let key = try bytes("signerKey") ?? []
        let rounds = try body.int("rounds") ?? 0
        let imported: ImportedHash
        switch algorithm {
        case "BCRYPT":
            guard let text = String(bytes: hash, encoding: .utf8), PasswordHasher.isSupported(text) else {
                throw FirebaseError(.invalidArgument, "passwordHash is not a bcrypt hash")
            }
            return text
        case "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5":
            guard !key.isEmpty else { throw FirebaseError(.invalidArgument, "\(algorithm) needs signerKey") }
            imported = .hmac(digest(algorithm), key: key, order: order, salt: salt, hash: hash)
        case "MD5", "SHA1", "SHA256", "SHA512":
            imported = .digest(digest(algorithm), rounds: rounds, order: order, salt: salt, hash: hash)
        case "PBKDF_SHA1", "PBKDF2_SHA256":
            imported = .pbkdf2(algorithm == "PBKDF_SHA1" ? .sha1 : .sha256, rounds: rounds, salt: salt, hash: hash)
        case "SCRYPT":
            guard !key.isEmpty else { throw FirebaseError(.invalidArgument, "SCRYPT needs signerKey") }
            imported = .firebaseScrypt(signerKey: key, saltSeparator: try bytes("saltSeparator") ?? [], rounds: rounds,
                                       memoryCost: try body.int("memoryCost") ?? 0, salt: salt, hash: hash)
        default:
            imported = .scrypt(n: try body.int("cpuMemCost") ?? body.int("memoryCost") ?? 0, r: try body.int("blockSize") ?? 0,
                               p: try body.int("parallelization") ?? 0, salt: salt, hash: hash)
        }
        return imported.encoded
    }

    private func digest(_ algorithm: String) -> ImportedHash.Digest {
        if algorithm.hasSuffix("SHA512") { return .sha512 }
        if algorithm.hasSuffix("SHA256") { return .sha256 }
        if algorithm.hasSuffix("SHA1") { return .sha1 }
        return .md5
    }

    private func bytes(_ key: String) throws -> [UInt8]? {
        guard let text = try body.string(key) else { return nil }
        guard let decoded = Base64URL.decode(text) else { throw FirebaseError(.invalidArgument, "\(key) is not base64") }
        return decoded
    }
}

/// One `UserInfo` of an import (`batchCreate`, or a Firebase emulator export) made into an account.
/// An existing account with the same `localId` is replaced, as Identity Toolkit does.
struct AccountImport {
    let call: FirebaseCall?
    let emulator: Emulator
    let scope: FirebaseScope
    let hash: PasswordImport

    init(call: FirebaseCall, scope: FirebaseScope, hash: PasswordImport) {
        self.call = call; self.emulator = call.emulator; self.scope = scope; self.hash = hash
    }

    init(emulator: Emulator, scope: FirebaseScope) throws {
        self.call = nil; self.emulator = emulator; self.scope = scope; self.hash = try PasswordImport(.empty)
    }

    func importUser(_ info: FirebaseBody) throws {
        guard let id = try info.string("localId"), !id.isEmpty else { throw FirebaseError(.missingLocalID) }
        var new = NewUser(id: id)
        new.email = try info.string("email")?.lowercased()
        if let email = new.email, !email.contains("@") { throw FirebaseError(.invalidEmail) }
        new.emailVerified = try info.bool("emailVerified") ?? false
        if let phone = try info.string("phoneNumber") { new.phone = try Phone.number(phone); new.phoneVerified = true }
        new.disabled = try info.bool("disabled") ?? false
        new.userMetadata["displayName"] = try info.string("displayName").map(JSON.string)
        new.userMetadata["photoUrl"] = try info.string("photoUrl").map(JSON.string)
        if let claims = try info.string("customAttributes"), !claims.isEmpty {
            new.appMetadata = try Update.customClaims(claims)
        }
        if let created = try info.string("createdAt") {
            new.createdAt = Date(timeIntervalSince1970: TimeInterval(try FirebaseBody.int64(created, field: "created_at")) / 1000)
        }
        try password(info, into: &new)
        let providers = try info.array("providerUserInfo")
        new.identities = providers.compactMap(Self.identity)
        new.addressIdentities = new.password != nil || new.passwordHash != nil || new.phone != nil
            || providers.contains { ["password", "phone"].contains($0["providerId"]?.stringValue ?? "") }
        if try emulator.user(in: scope.coreTenant, id: id) != nil { try emulator.deleteUser(in: scope.coreTenant, id: id) }
        let user = try emulator.createUser(in: scope.coreTenant, new, event: .userCreated)
        let enrollments = try info.array("mfaInfo")
        if !enrollments.isEmpty, let call { try MFAAdmin.replaceEnrollments(call, scope: scope, user: user, enrollments: enrollments) }
    }

    /// The Firebase emulator's `fakeHash:salt=…:password=…` carries the plaintext, which is hashed here
    /// and never kept; any other hash needs the request's `hashAlgorithm`.
    private func password(_ info: FirebaseBody, into new: inout NewUser) throws {
        guard let text = try info.string("passwordHash"), !text.isEmpty else { return }
        if text.hasPrefix("fakeHash:"), let range = text.range(of: ":password=") {
            new.password = String(text[range.upperBound...])
            return
        }
        // An export directory names no algorithm: a hash from elsewhere cannot be checked, so the account
        // comes in without a password rather than not at all.
        if call == nil, hash.algorithm == nil { return }
        guard let hashBytes = Base64URL.decode(text) else { throw FirebaseError(.invalidArgument, "passwordHash is not base64") }
        let salt = try info.string("salt").flatMap { Base64URL.decode($0) } ?? []
        new.passwordHash = try hash.encoded(hash: hashBytes, salt: salt)
    }

    /// An identity-provider account from `providerUserInfo`; `password` and `phone` are the address identities.
    static func identity(_ provider: JSON) -> NewIdentity? {
        guard let id = provider["providerId"]?.stringValue, !["password", "phone"].contains(id), let raw = provider["rawId"]?.stringValue else { return nil }
        var data: [String: JSON] = ["sub": .string(raw)]
        data["email"] = provider["email"]
        data["name"] = provider["displayName"]
        data["picture"] = provider["photoUrl"]
        return NewIdentity(provider: id, subject: raw, email: provider["email"]?.stringValue?.lowercased(), data: data)
    }
}
