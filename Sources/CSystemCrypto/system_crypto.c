// RS256 signing and SRP's modular exponentiation through the system's OpenSSL 3, loaded at run time.
//
// swift-crypto's BoringSSL has no AVX-512 code for RSA; OpenSSL 3's does, and signs a 2048-bit key in
// about half the time on such CPUs. A Cognito sign-in signs twice, so this is most of its cost. An SRP
// sign-in's cost is three 3072-bit exponentiations, which OpenSSL's assembly Montgomery code does in about
// half the time the portable C in CModArith takes (about 1 ms each on the benchmark machine). The library is opened with dlopen rather than linked so
// that building Fauxth needs no OpenSSL headers and a machine without libcrypto.so.3 still runs: callers
// fall back to BoringSSL or the portable C when these answer "unavailable". Only the handful of OpenSSL 3
// functions below are used, declared by hand from their stable prototypes.

#include "system_crypto.h"

#include <dlfcn.h>
#include <pthread.h>

typedef struct evp_pkey EVP_PKEY;
typedef struct evp_md_ctx EVP_MD_CTX;
typedef struct evp_md EVP_MD;
typedef struct bignum_st BIGNUM;
typedef struct bignum_ctx BN_CTX;
typedef struct bn_mont_ctx_st BN_MONT_CTX;

static struct {
    unsigned long (*version_num)(void);
    EVP_PKEY *(*d2i_auto_private_key)(EVP_PKEY **, const unsigned char **, long);
    void (*pkey_free)(EVP_PKEY *);
    EVP_MD_CTX *(*md_ctx_new)(void);
    void (*md_ctx_free)(EVP_MD_CTX *);
    const EVP_MD *(*sha256)(void);
    int (*digest_sign_init)(EVP_MD_CTX *, void **, const EVP_MD *, void *, EVP_PKEY *);
    int (*digest_sign)(EVP_MD_CTX *, unsigned char *, size_t *, const unsigned char *, size_t);
} api;

static struct {
    BIGNUM *(*from_little_endian)(const unsigned char *, int, BIGNUM *);
    int (*to_little_endian)(const BIGNUM *, unsigned char *, int);
    BIGNUM *(*create)(void);
    void (*free)(BIGNUM *);
    BN_CTX *(*context_new)(void);
    void (*context_free)(BN_CTX *);
    int (*mod_exp)(BIGNUM *, const BIGNUM *, const BIGNUM *, const BIGNUM *, BN_CTX *, BN_MONT_CTX *);
} bn;

// OpenSSL's SHA256_CTX is 112 bytes; room to spare, aligned for its words.
typedef struct { _Alignas(16) unsigned char bytes[256]; } sha256_context;

static struct {
    int (*init)(sha256_context *);
    int (*update)(sha256_context *, const void *, size_t);
    int (*final)(unsigned char *, sha256_context *);
} sha;

static int loaded;
static int bn_loaded;
static int sha_loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
#if defined(__linux__)
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
#else
    // Only Linux has OpenSSL 3 under this name. macOS has none to offer (its /usr/lib/libcrypto is LibreSSL,
    // and opening it aborts the process), so everything stays on BoringSSL and the portable C there.
    void *library = NULL;
#endif
    if (!library) return;
    *(void **)&api.version_num = dlsym(library, "OpenSSL_version_num");
    // The prototypes here are OpenSSL 3's; refuse any other major version that reuses the soname.
    unsigned long version = api.version_num ? api.version_num() : 0;
    if (version < 0x30000000UL || version >= 0x40000000UL) return;
    *(void **)&bn.from_little_endian = dlsym(library, "BN_lebin2bn");
    *(void **)&bn.to_little_endian = dlsym(library, "BN_bn2lebinpad");
    *(void **)&bn.create = dlsym(library, "BN_new");
    *(void **)&bn.free = dlsym(library, "BN_free");
    *(void **)&bn.context_new = dlsym(library, "BN_CTX_new");
    *(void **)&bn.context_free = dlsym(library, "BN_CTX_free");
    *(void **)&bn.mod_exp = dlsym(library, "BN_mod_exp_mont_consttime");
    bn_loaded = bn.from_little_endian && bn.to_little_endian && bn.create && bn.free && bn.context_new &&
                bn.context_free && bn.mod_exp;
    // The plain (deprecated, still exported) functions, not EVP's or the one-shot SHA256, which fetch the algorithm
    // from a provider behind locks and allocate: a forked child must not.
    *(void **)&sha.init = dlsym(library, "SHA256_Init");
    *(void **)&sha.update = dlsym(library, "SHA256_Update");
    *(void **)&sha.final = dlsym(library, "SHA256_Final");
    sha_loaded = sha.init && sha.update && sha.final;
    *(void **)&api.d2i_auto_private_key = dlsym(library, "d2i_AutoPrivateKey");
    *(void **)&api.pkey_free = dlsym(library, "EVP_PKEY_free");
    *(void **)&api.md_ctx_new = dlsym(library, "EVP_MD_CTX_new");
    *(void **)&api.md_ctx_free = dlsym(library, "EVP_MD_CTX_free");
    *(void **)&api.sha256 = dlsym(library, "EVP_sha256");
    *(void **)&api.digest_sign_init = dlsym(library, "EVP_DigestSignInit");
    *(void **)&api.digest_sign = dlsym(library, "EVP_DigestSign");
    loaded = api.d2i_auto_private_key && api.pkey_free && api.md_ctx_new && api.md_ctx_free && api.sha256 &&
             api.digest_sign_init && api.digest_sign;
}

int fauxth_system_crypto_available(void) {
    pthread_once(&once, load);
    return loaded;
}

fauxth_rsa_key *fauxth_rsa_key_from_der(const uint8_t *der, size_t length) {
    if (!fauxth_system_crypto_available() || length > 65536) return NULL;
    const unsigned char *cursor = der;
    return (fauxth_rsa_key *)api.d2i_auto_private_key(NULL, &cursor, (long)length);
}

void fauxth_rsa_key_free(fauxth_rsa_key *key) {
    if (key && loaded) api.pkey_free((EVP_PKEY *)key);
}

long fauxth_rsa_sign_sha256(const fauxth_rsa_key *key, const uint8_t *input, size_t length,
                            uint8_t *signature, size_t capacity) {
    if (!key || !loaded) return -1;
    EVP_MD_CTX *context = api.md_ctx_new();
    if (!context) return -1;
    size_t written = capacity;
    // An RSA key's default padding for EVP_DigestSign is PKCS #1 v1.5, which is what RS256 is.
    int ok = api.digest_sign_init(context, NULL, api.sha256(), NULL, (EVP_PKEY *)key) == 1 &&
             api.digest_sign(context, signature, &written, input, length) == 1;
    api.md_ctx_free(context);
    return ok ? (long)written : -1;
}

int fauxth_mod_exp(uint64_t *result, const uint64_t *base, const uint64_t *exponent, const uint64_t *modulus, size_t limbs) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    pthread_once(&once, load);
    // Limbs are little-endian words, so on a little-endian machine their bytes are the number's
    // little-endian bytes, which BN_lebin2bn reads as they are.
    if (!bn_loaded || limbs == 0 || limbs > 1024) return 0;
    int bytes = (int)(limbs * sizeof(uint64_t));
    BN_CTX *context = bn.context_new();
    BIGNUM *a = bn.from_little_endian((const unsigned char *)base, bytes, NULL);
    BIGNUM *p = bn.from_little_endian((const unsigned char *)exponent, bytes, NULL);
    BIGNUM *m = bn.from_little_endian((const unsigned char *)modulus, bytes, NULL);
    BIGNUM *r = bn.create();
    // Constant time in the exponent's bits (SRP's b is a secret); the modulus must be odd, as SRP's prime is.
    int ok = context && a && p && m && r && (modulus[0] & 1) && bn.mod_exp(r, a, p, m, context, NULL) == 1 &&
             bn.to_little_endian(r, (unsigned char *)result, bytes) == bytes;
    bn.free(a);
    bn.free(p);
    bn.free(m);
    bn.free(r);
    bn.context_free(context);
    return ok;
#else
    (void)result; (void)base; (void)exponent; (void)modulus; (void)limbs;
    return 0;
#endif
}

int fauxth_sha256_available(void) {
    pthread_once(&once, load);
    return sha_loaded;
}

int fauxth_sha256(const void *bytes, size_t count, uint8_t *digest) {
    // No pthread_once here: this runs in a forked child, after the parent asked `fauxth_sha256_available`.
    if (!sha_loaded) return 0;
    sha256_context context;
    const unsigned char *at = (const unsigned char *)bytes;
    if (sha.init(&context) != 1) return 0;
    while (count > 0) {
        size_t chunk = count < ((size_t)1 << 30) ? count : ((size_t)1 << 30);
        if (sha.update(&context, at, chunk) != 1) return 0;
        at += chunk;
        count -= chunk;
    }
    return sha.final(digest, &context) == 1;
}
