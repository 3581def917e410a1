// RS256 signing through the system's OpenSSL 3, loaded at run time.
//
// swift-crypto's BoringSSL has no AVX-512 code for RSA; OpenSSL 3's does, and signs a 2048-bit key in
// about half the time on such CPUs. A Cognito sign-in signs twice, so this is most of its cost. The
// library is opened with dlopen rather than linked so that building Fauxth needs no OpenSSL headers and a
// machine without libcrypto.so.3 still runs: callers fall back to BoringSSL when a key cannot be made here.
// Only the handful of OpenSSL 3 functions below are used, declared by hand from their stable prototypes.

#include "system_crypto.h"

#include <dlfcn.h>
#include <pthread.h>

typedef struct evp_pkey EVP_PKEY;
typedef struct evp_md_ctx EVP_MD_CTX;
typedef struct evp_md EVP_MD;

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

static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    *(void **)&api.version_num = dlsym(library, "OpenSSL_version_num");
    *(void **)&api.d2i_auto_private_key = dlsym(library, "d2i_AutoPrivateKey");
    *(void **)&api.pkey_free = dlsym(library, "EVP_PKEY_free");
    *(void **)&api.md_ctx_new = dlsym(library, "EVP_MD_CTX_new");
    *(void **)&api.md_ctx_free = dlsym(library, "EVP_MD_CTX_free");
    *(void **)&api.sha256 = dlsym(library, "EVP_sha256");
    *(void **)&api.digest_sign_init = dlsym(library, "EVP_DigestSignInit");
    *(void **)&api.digest_sign = dlsym(library, "EVP_DigestSign");
    if (!api.version_num || !api.d2i_auto_private_key || !api.pkey_free || !api.md_ctx_new || !api.md_ctx_free ||
        !api.sha256 || !api.digest_sign_init || !api.digest_sign) {
        return;
    }
    // The prototypes above are OpenSSL 3's; refuse any other major version that reuses the soname.
    unsigned long version = api.version_num();
    if (version < 0x30000000UL || version >= 0x40000000UL) return;
    loaded = 1;
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
