import AuthCore
import Crypto
import Foundation
import HTTPSupport

/// The KMS keys a pool's `KMSKeyID` names, as far as custom sender functions need them: Fauxth wraps the
/// data key of each code it encrypts under the key, and serves KMS's `Decrypt` (`X-Amz-Target:
/// TrentService.Decrypt`, JSON 1.1 on the same port as Cognito) so the function's AWS Encryption SDK gets
/// it back. A function reaches it by pointing its KMS client at Fauxth (`AWS_ENDPOINT_URL_KMS`), as it
/// points its Cognito client.
///
/// A key's material is derived from its ARN, so a code encrypted before a restart or a snapshot restore
/// still decrypts after it, and no state is kept. That is no secret: the code is in Fauxth's outbox anyway.
/// The ciphertext blob is Fauxth's own (a real KMS blob is opaque to its callers too): a marker, the ARN,
/// and the data key sealed with AES-256-GCM, bound to the ARN and the encryption context.
enum KMSKeys {
    static let marker: [UInt8] = [0x46, 0x01]

    static func wrap(_ dataKey: [UInt8], keyArn: String, context: [String: String], generator: Generator) -> [UInt8] {
        let iv = generator.bytes(12)
        let sealed = EncryptionSDK.seal(dataKey, key: material(keyArn), iv: iv, aad: Array(keyArn.utf8) + EncryptionSDK.serialize(context))
        var blob = marker
        blob.append(bigEndian: UInt16(keyArn.utf8.count))
        return blob + Array(keyArn.utf8) + iv + sealed.ciphertext + sealed.tag
    }

    /// The key a blob was wrapped under and the data key, or nil for a blob that is not one of Fauxth's
    /// or was bound to another context.
    static func unwrap(_ blob: [UInt8], context: [String: String]) -> (keyArn: String, plaintext: [UInt8])? {
        guard blob.count > 4, Array(blob.prefix(2)) == marker else { return nil }
        let arnLength = Int(blob[2]) << 8 | Int(blob[3])
        guard blob.count >= 4 + arnLength + 12 + 16, let keyArn = String(bytes: blob[4..<(4 + arnLength)], encoding: .utf8) else { return nil }
        let iv = blob[(4 + arnLength)..<(16 + arnLength)], rest = blob[(16 + arnLength)...]
        guard let nonce = try? AES.GCM.Nonce(data: iv),
              let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: rest.dropLast(16), tag: rest.suffix(16)),
              let plaintext = try? AES.GCM.open(box, using: material(keyArn), authenticating: Array(keyArn.utf8) + EncryptionSDK.serialize(context))
        else { return nil }
        return (keyArn, [UInt8](plaintext))
    }

    private static func material(_ keyArn: String) -> SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: Array("fauxth kms key \(keyArn)".utf8)))
    }

    /// `TrentService.<operation>`: `Decrypt` only; other KMS operations are the app's real KMS's business.
    static func perform(_ operation: String, body: CognitoBody) throws -> JSON {
        guard operation == "Decrypt" else {
            throw CognitoError(.unknownOperation, "KMS operation \(operation) is not served by Fauxth: only Decrypt, for custom sender functions")
        }
        guard let encoded = try body.string("CiphertextBlob"), let blob = Data(base64Encoded: encoded) else {
            throw CognitoError.invalid("1 validation error detected: Value null at 'ciphertextBlob' failed to satisfy constraint: Member must not be null")
        }
        if let algorithm = try body.string("EncryptionAlgorithm"), algorithm != "SYMMETRIC_DEFAULT" {
            throw CognitoError(.invalidCiphertext, "The ciphertext was not encrypted with \(algorithm)")
        }
        let context = try body.map("EncryptionContext")
        guard let (keyArn, plaintext) = unwrap([UInt8](blob), context: context) else {
            throw CognitoError(.invalidCiphertext, "The ciphertext is not one Fauxth's KMS wrapped, or the encryption context differs from the one it was wrapped with")
        }
        if let keyId = try body.string("KeyId"), keyId != keyArn, !keyArn.hasSuffix(":key/\(keyId)") {
            throw CognitoError(.incorrectKey, "The key ID in the request does not identify a CMK that can perform this operation.")
        }
        return ["KeyId": .string(keyArn), "Plaintext": .string(Data(plaintext).base64EncodedString()), "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"]
    }
}
