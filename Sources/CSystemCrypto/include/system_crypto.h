#ifndef FAUXTH_SYSTEM_CRYPTO_H
#define FAUXTH_SYSTEM_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// An RSA private key held by the system's OpenSSL 3 libcrypto.
typedef struct fauxth_rsa_key fauxth_rsa_key;

/// Whether the system's libcrypto.so.3 (OpenSSL 3) could be loaded; the first call loads it.
int fauxth_system_crypto_available(void);

/// The key in `der` (PKCS#1 RSAPrivateKey or PKCS#8), or NULL when libcrypto is missing or the DER is bad.
fauxth_rsa_key *fauxth_rsa_key_from_der(const uint8_t *der, size_t length);

void fauxth_rsa_key_free(fauxth_rsa_key *key);

/// An RSASSA-PKCS1-v1_5 signature over SHA-256 of `input` (JWS RS256) written to `signature`; answers its
/// length, or -1 on failure. Safe to call from several threads with one key.
long fauxth_rsa_sign_sha256(const fauxth_rsa_key *key, const uint8_t *input, size_t length,
                            uint8_t *signature, size_t capacity);

/// `result = base^exponent mod modulus` with the system's OpenSSL 3 (constant time in the exponent), all
/// numbers `limbs` little-endian 64-bit words and the modulus odd. Answers 1, or 0 when libcrypto is
/// missing or the call failed (`result` is then undefined and the caller computes it another way).
int fauxth_mod_exp(uint64_t *result, const uint64_t *base, const uint64_t *exponent, const uint64_t *modulus, size_t limbs);

/// Whether `fauxth_sha256` can digest (the system's libcrypto is loaded); the first call loads it. Asked before a
/// fork: the library is never loaded in a child.
int fauxth_sha256_available(void);

/// SHA-256 of `count` bytes at `bytes` into `digest` (32 bytes), with OpenSSL's plain digest functions: no lock,
/// no allocation, so a forked child may call it (`fauxth_write_in_child`). Answers 1, or 0 when libcrypto is missing.
int fauxth_sha256(const void *bytes, size_t count, uint8_t *digest);

#endif
