#ifndef FAUXTH_MODARITH_H
#define FAUXTH_MODARITH_H

#include <stddef.h>
#include <stdint.h>

/// Modular arithmetic on fixed-width unsigned integers for SRP: numbers are `len` little-endian 64-bit
/// limbs, smaller than the odd modulus `n`. Montgomery multiplication (CIOS), so a 3072-bit
/// exponentiation takes milliseconds even in a debug build.

/// result = base^exp mod n, with `exp` of `exp_len` limbs. `result` may be `base`.
void modarith_exp(uint64_t *result, const uint64_t *base, const uint64_t *exp, size_t exp_len, const uint64_t *n, size_t len);

/// result = a * b mod n. `result` may be `a` or `b`.
void modarith_mul(uint64_t *result, const uint64_t *a, const uint64_t *b, const uint64_t *n, size_t len);

#endif
