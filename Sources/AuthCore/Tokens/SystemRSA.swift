import CSystemCrypto

/// An RSA private key loaded into the system's OpenSSL 3, which signs RS256 about twice as fast as
/// swift-crypto's BoringSSL on CPUs with AVX-512 (see system_crypto.c). Built from the BoringSSL key's
/// DER; `SigningKey` uses it when it can be made and BoringSSL otherwise. PKCS #1 v1.5 signatures are
/// deterministic, so both produce the same bytes.
final class SystemRSAKey: @unchecked Sendable {
    // OpenSSL 3 keys may be shared between threads for signing; the pointer itself never changes.
    private let key: OpaquePointer

    /// Whether the system's libcrypto.so.3 is loadable, so RSA keys sign through it.
    static var isAvailable: Bool { fauxth_system_crypto_available() != 0 }

    init?(der: [UInt8]) {
        guard let key = der.withUnsafeBufferPointer({ fauxth_rsa_key_from_der($0.baseAddress, $0.count) }) else { return nil }
        self.key = key
    }

    deinit { fauxth_rsa_key_free(key) }

    /// The RS256 signature over `input`, or nil if OpenSSL failed (the caller then signs with BoringSSL).
    func sign(_ input: [UInt8]) -> [UInt8]? {
        var signature = [UInt8](repeating: 0, count: 1024)
        let length = input.withUnsafeBufferPointer { message in
            signature.withUnsafeMutableBufferPointer { fauxth_rsa_sign_sha256(key, message.baseAddress, message.count, $0.baseAddress, $0.count) }
        }
        guard length > 0 else { return nil }
        signature.removeSubrange(length...)
        return signature
    }
}
