import AuthCore
import Crypto
import Foundation

/// A message of the AWS Encryption SDK, as Cognito writes the codes it gives custom sender functions: the
/// version 1 format with algorithm suite 0x0378 (AES-256-GCM, HKDF-SHA384, ECDSA P-384 signature), one data
/// key wrapped by a KMS key, framed content of one final frame. That is what a code from Cognito decodes
/// to (checked against a captured event), so a function's `decrypt` call (the SDK's KMS keyring, with the
/// `REQUIRE_ENCRYPT_ALLOW_DECRYPT` commitment policy AWS's examples use) reads Fauxth's codes as it reads
/// Cognito's, and fails on what fails against Cognito (a committing-only policy rejects this suite).
///
/// The data key, message id and signing key come from the emulator's generator; the ECDSA nonce is
/// swift-crypto's own, so two runs give different signatures over the same content.
enum EncryptionSDK {
    static let algorithmId: UInt16 = 0x0378
    static let frameLength: UInt32 = 4096
    /// The encryption context member holding the signature's public key (compressed point, base64).
    static let publicKeyMember = "aws-crypto-public-key"
    /// The length of an ECDSA P-384 signature the SDK itself writes: it signs again until the DER form is
    /// this long, so every message of one suite has the same size.
    static let signatureLength = 103

    /// `plaintext` encrypted for whoever can decrypt `keyArn` with KMS, bound to `context`.
    static func encrypt(_ plaintext: [UInt8], keyArn: String, context: [String: String], generator: Generator) -> [UInt8] {
        let dataKey = generator.bytes(32), messageId = generator.bytes(16)
        let signingKey = signingKey(generator)
        var context = context
        context[publicKeyMember] = Data(signingKey.publicKey.compressedRepresentation).base64EncodedString()

        var header: [UInt8] = [0x01, 0x80]
        header.append(bigEndian: algorithmId)
        header += messageId
        let serializedContext = serialize(context)
        header.append(bigEndian: UInt16(serializedContext.count))
        header += serializedContext
        let wrapped = KMSKeys.wrap(dataKey, keyArn: keyArn, context: context, generator: generator)
        header.append(bigEndian: UInt16(1))
        for field in [Array("aws-kms".utf8), Array(keyArn.utf8), wrapped] {
            header.append(bigEndian: UInt16(field.count))
            header += field
        }
        header += [0x02, 0, 0, 0, 0, 12] // framed content, reserved, IV length
        header.append(bigEndian: frameLength)

        let key = SymmetricKey(data: HKDF<SHA384>.deriveKey(inputKeyMaterial: SymmetricKey(data: dataKey), salt: [UInt8](),
                                                            info: bytes(bigEndian: algorithmId) + messageId, outputByteCount: 32))
        var message = header
        let headerIV = [UInt8](repeating: 0, count: 12)
        message += headerIV + seal([], key: key, iv: headerIV, aad: header).tag

        // Codes and temporary passwords fit one frame: the final frame, sequence number 1.
        let sequence: UInt32 = 1
        let iv = [UInt8](repeating: 0, count: 8) + bytes(bigEndian: sequence)
        var aad = messageId + Array("AWSKMSEncryptionClient Final Frame".utf8) + bytes(bigEndian: sequence)
        aad += bytes(bigEndian: UInt64(plaintext.count))
        let sealed = seal(plaintext, key: key, iv: iv, aad: aad)
        message += bytes(bigEndian: UInt32.max) + bytes(bigEndian: sequence) + iv
        message.append(bigEndian: UInt32(plaintext.count))
        message += sealed.ciphertext + sealed.tag

        var signature = [UInt8]()
        for _ in 0..<64 {
            signature = (try? signingKey.signature(for: message)).map { [UInt8]($0.derRepresentation) } ?? []
            if signature.count == signatureLength { break }
        }
        message.append(bigEndian: UInt16(signature.count))
        return message + signature
    }

    /// The encryption context as the header holds it: a count, then each key and value with its length,
    /// sorted by key.
    static func serialize(_ context: [String: String]) -> [UInt8] {
        var out = bytes(bigEndian: UInt16(context.count))
        for key in context.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            for field in [Array(key.utf8), Array(context[key]!.utf8)] {
                out.append(bigEndian: UInt16(field.count))
                out += field
            }
        }
        return out
    }

    private static func signingKey(_ generator: Generator) -> P384.Signing.PrivateKey {
        // 48 random bytes are a valid scalar unless they exceed the group order (odds about 2^-190).
        while true {
            if let key = try? P384.Signing.PrivateKey(rawRepresentation: generator.bytes(48)) { return key }
        }
    }

    static func seal(_ plaintext: [UInt8], key: SymmetricKey, iv: [UInt8], aad: [UInt8]) -> (ciphertext: [UInt8], tag: [UInt8]) {
        // A 12-byte nonce and a 32-byte key are always accepted.
        let box = try! AES.GCM.seal(plaintext, using: key, nonce: try! AES.GCM.Nonce(data: iv), authenticating: aad)
        return ([UInt8](box.ciphertext), [UInt8](box.tag))
    }

    static func bytes<T: FixedWidthInteger>(bigEndian value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}

extension [UInt8] {
    mutating func append<T: FixedWidthInteger>(bigEndian value: T) { self += EncryptionSDK.bytes(bigEndian: value) }
}
