#include "modarith.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/// -n0^-1 mod 2^64 by Newton's iteration (n0 odd); each step doubles the correct low bits.
static uint64_t negative_inverse(uint64_t n0) {
    uint64_t x = 1;
    for (int i = 0; i < 6; i++) x *= 2 - n0 * x;
    return (uint64_t)0 - x;
}

static int less_than(const uint64_t *a, const uint64_t *b, size_t len) {
    for (size_t i = len; i-- > 0;) {
        if (a[i] != b[i]) return a[i] < b[i];
    }
    return 0;
}

static void subtract(uint64_t *a, const uint64_t *b, size_t len) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < len; i++) {
        u128 d = (u128)a[i] - b[i] - borrow;
        a[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) ? 1 : 0;
    }
}

/// r = a * b * R^-1 mod n with R = 2^(64·len) (Koç, Acar and Kaliski's CIOS). `t` is scratch of len + 2 limbs.
static void montgomery(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *n, uint64_t ninv, size_t len, uint64_t *t) {
    memset(t, 0, (len + 2) * sizeof(uint64_t));
    for (size_t i = 0; i < len; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < len; j++) {
            u128 s = (u128)a[j] * b[i] + t[j] + carry;
            t[j] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        u128 s = (u128)t[len] + carry;
        t[len] = (uint64_t)s;
        t[len + 1] = (uint64_t)(s >> 64);
        uint64_t m = t[0] * ninv;
        s = (u128)m * n[0] + t[0];
        carry = (uint64_t)(s >> 64);
        for (size_t j = 1; j < len; j++) {
            s = (u128)m * n[j] + t[j] + carry;
            t[j - 1] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        s = (u128)t[len] + carry;
        t[len - 1] = (uint64_t)s;
        t[len] = t[len + 1] + (uint64_t)(s >> 64);
    }
    if (t[len] != 0 || !less_than(t, n, len)) subtract(t, n, len);
    memcpy(r, t, len * sizeof(uint64_t));
}

/// R^2 mod n, by doubling 1 modulo n 2·64·len times.
static void r_squared(uint64_t *rr, const uint64_t *n, size_t len) {
    memset(rr, 0, len * sizeof(uint64_t));
    rr[0] = 1;
    for (size_t step = 0; step < 128 * len; step++) {
        uint64_t carry = 0;
        for (size_t i = 0; i < len; i++) {
            uint64_t next = rr[i] >> 63;
            rr[i] = (rr[i] << 1) | carry;
            carry = next;
        }
        if (carry || !less_than(rr, n, len)) subtract(rr, n, len);
    }
}

/// R^2 mod n is the same for every call with one modulus (SRP has one group), and computing it is
/// thousands of shifts: each thread keeps the last one it made.
#define CACHED_LIMBS 64
static _Thread_local uint64_t cached_n[CACHED_LIMBS];
static _Thread_local uint64_t cached_rr[CACHED_LIMBS];
static _Thread_local size_t cached_len;

static void r_squared_cached(uint64_t *rr, const uint64_t *n, size_t len) {
    if (len > CACHED_LIMBS) { r_squared(rr, n, len); return; }
    if (cached_len != len || memcmp(cached_n, n, len * sizeof(uint64_t)) != 0) {
        r_squared(cached_rr, n, len);
        memcpy(cached_n, n, len * sizeof(uint64_t));
        cached_len = len;
    }
    memcpy(rr, cached_rr, len * sizeof(uint64_t));
}

void modarith_exp(uint64_t *result, const uint64_t *base, const uint64_t *exp, size_t exp_len, const uint64_t *n, size_t len) {
    uint64_t *buffer = calloc(5 * len + 2, sizeof(uint64_t));
    if (buffer == NULL) { memset(result, 0, len * sizeof(uint64_t)); return; }
    uint64_t *rr = buffer, *b = buffer + len, *x = buffer + 2 * len, *one = buffer + 3 * len, *t = buffer + 4 * len;
    uint64_t ninv = negative_inverse(n[0]);
    r_squared_cached(rr, n, len);
    one[0] = 1;
    montgomery(b, base, rr, n, ninv, len, t);
    montgomery(x, one, rr, n, ninv, len, t);
    // Exponents come padded to the modulus' width (a 256-bit x in 3072 bits): start at the top set bit
    // rather than square 1 thousands of times. Only the exponent's length shows in the timing.
    size_t top = exp_len * 64;
    while (top > 0 && !((exp[(top - 1) / 64] >> ((top - 1) % 64)) & 1)) top--;
    for (size_t i = top; i-- > 0;) {
        montgomery(x, x, x, n, ninv, len, t);
        if ((exp[i / 64] >> (i % 64)) & 1) montgomery(x, x, b, n, ninv, len, t);
    }
    montgomery(result, x, one, n, ninv, len, t);
    free(buffer);
}

void modarith_mul(uint64_t *result, const uint64_t *a, const uint64_t *b, const uint64_t *n, size_t len) {
    uint64_t *buffer = calloc(3 * len + 2, sizeof(uint64_t));
    if (buffer == NULL) { memset(result, 0, len * sizeof(uint64_t)); return; }
    uint64_t *rr = buffer, *product = buffer + len, *t = buffer + 2 * len;
    uint64_t ninv = negative_inverse(n[0]);
    r_squared_cached(rr, n, len);
    montgomery(product, a, b, n, ninv, len, t);
    montgomery(result, product, rr, n, ninv, len, t);
    free(buffer);
}
