/* numpy's draws that a deal makes, in C, bit for bit (included by _step.c; no numpy headers needed).
 *
 * A hand's wall is ``numpy.random.default_rng(seed).permutation(tiles)`` (``mjenv.game.engine.seeded_wall``):
 * SeedSequence(seed) -> PCG64 (XSL-RR 128/64) -> Generator.shuffle, whose bounded draws are masked rejection on
 * 32-bit draws (PCG64 hands out the two halves of a 64-bit draw, low half first) for bounds below 2^32.
 * A table's next hand seed is ``Generator.integers(0, 2**63 - 1)`` of the table's own generator
 * (``mjenv.tables.game_seed_of``): Lemire's bounded draw on that generator's 64-bit draws, taken through its
 * ``bit_generator.capsule`` (numpy's ``bitgen_t``, whose layout numpy documents as stable for C users), so the
 * generator's state moves exactly as numpy's own call moves it.
 * ``tests/test_vector_threads.py`` compares both with numpy on thousands of seeds and several wall sizes.
 */
#ifndef MJENV_NUMPY_RANDOM_H
#define MJENV_NUMPY_RANDOM_H

#include <stdint.h>

/* numpy/random/bitgen.h's bitgen_t (the "BitGenerator" capsule of a BitGenerator) */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} NpyBitGen;
#define NPY_BITGEN_CAPSULE "BitGenerator"

/* a 128-bit unsigned integer as two halves (portable: no __int128 needed) */
typedef struct {
    uint64_t hi, lo;
} U128;

/* the full 128-bit product of two 64-bit numbers */
static inline U128 mul_64x64(uint64_t a, uint64_t b) {
#ifdef __SIZEOF_INT128__
    unsigned __int128 m = (unsigned __int128)a * b;
    return (U128){(uint64_t)(m >> 64), (uint64_t)m};
#else
    const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    return (U128){p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xFFFFFFFFu)};
#endif
}

/* a * b + c mod 2^128 */
static inline U128 muladd_128(U128 a, U128 b, U128 c) {
    U128 m = mul_64x64(a.lo, b.lo);
    m.hi += a.hi * b.lo + a.lo * b.hi;
    const uint64_t lo = m.lo + c.lo;
    return (U128){m.hi + c.hi + (lo < m.lo), lo};
}

/* PCG64's state as numpy keeps it (the buffered upper half of the last 64-bit draw for 32-bit draws) */
typedef struct {
    U128 state, inc;
    int has32;
    uint32_t half;
} Pcg64;

static const U128 PCG64_MULT = {0x2360ED051FC65DA4ULL, 0x4385DF649FCCF645ULL};

static inline void pcg64_step(Pcg64 *g) { g->state = muladd_128(g->state, PCG64_MULT, g->inc); }

static inline uint64_t pcg64_next64(Pcg64 *g) {
    pcg64_step(g);
    const unsigned rot = (unsigned)(g->state.hi >> 58);
    const uint64_t x = g->state.hi ^ g->state.lo;
    return (x >> rot) | (x << ((64 - rot) & 63));
}

static inline uint32_t pcg64_next32(Pcg64 *g) {
    if (g->has32) {
        g->has32 = 0;
        return g->half;
    }
    const uint64_t v = pcg64_next64(g);
    g->has32 = 1;
    g->half = (uint32_t)(v >> 32);
    return (uint32_t)v;
}

/* SeedSequence's 32-bit hash mix (numpy/random/bit_generator.pyx) */
enum { SS_POOL = 4 };
static const uint32_t SS_INIT_A = 0x43b0d7e5u, SS_MULT_A = 0x931e8875u, SS_INIT_B = 0x8b51f9ddu,
                      SS_MULT_B = 0x58f38dedu, SS_MIX_L = 0xca01f9ddu, SS_MIX_R = 0x4973f715u;

static inline uint32_t ss_hashmix(uint32_t v, uint32_t *h) {
    v ^= *h;
    *h *= SS_MULT_A;
    v *= *h;
    return v ^ (v >> 16);
}

static inline uint32_t ss_mix(uint32_t x, uint32_t y) {
    uint32_t r = SS_MIX_L * x - SS_MIX_R * y;
    return r ^ (r >> 16);
}

/* default_rng(seed)'s generator: SeedSequence(seed) (the seed as little-endian 32-bit words, no spawn key) gives
 * four 64-bit words, PCG64 seeds its state from the first two and its increment from the last two */
static inline void pcg64_from_seed(uint64_t seed, Pcg64 *g) {
    uint32_t ent[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)}, pool[SS_POOL], h = SS_INIT_A;
    const int n_ent = seed >> 32 ? 2 : 1;
    for (int i = 0; i < SS_POOL; i++) pool[i] = ss_hashmix(i < n_ent ? ent[i] : 0, &h);
    for (int s = 0; s < SS_POOL; s++)
        for (int d = 0; d < SS_POOL; d++)
            if (s != d) pool[d] = ss_mix(pool[d], ss_hashmix(pool[s], &h));
    uint64_t w[4];
    uint32_t hb = SS_INIT_B;
    for (int k = 0; k < 8; k++) {
        uint32_t v = pool[k % SS_POOL] ^ hb;
        hb *= SS_MULT_B;
        v *= hb;
        v ^= v >> 16;
        if (k % 2) w[k / 2] |= (uint64_t)v << 32;
        else w[k / 2] = v;
    }
    const U128 initstate = {w[0], w[1]}, initseq = {w[2], w[3]};
    g->inc = (U128){(initseq.hi << 1) | (initseq.lo >> 63), (initseq.lo << 1) | 1};
    g->state = (U128){0, 0};
    g->has32 = 0;
    g->half = 0;
    pcg64_step(g);
    const uint64_t lo = g->state.lo + initstate.lo;
    g->state = (U128){g->state.hi + initstate.hi + (lo < initstate.lo), lo};
    pcg64_step(g);
}

/* Generator's random_interval: a draw in 0..max by masked rejection (32-bit draws below 2^32) */
static inline uint64_t pcg64_interval(Pcg64 *g, uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max, v;
    for (int s = 1; s < 64; s *= 2) mask |= mask >> s;
    if (max <= 0xFFFFFFFFu)
        while ((v = (pcg64_next32(g) & mask)) > max) {}
    else
        while ((v = (pcg64_next64(g) & mask)) > max) {}
    return v;
}

/* out[0..n) = default_rng(seed).permutation(tiles[0..n)) */
static inline void seeded_permutation(uint64_t seed, const int8_t *tiles, int8_t *out, int64_t n) {
    Pcg64 g;
    pcg64_from_seed(seed, &g);
    for (int64_t i = 0; i < n; i++) out[i] = tiles[i];
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = (int64_t)pcg64_interval(&g, (uint64_t)i);
        const int8_t x = out[i];
        out[i] = out[j];
        out[j] = x;
    }
}

/* Generator.integers(0, 2**63 - 1) of the generator behind bg (Lemire's bounded draw over 0..2^63 - 2) */
static inline uint64_t next_game_seed(NpyBitGen *bg) {
    const uint64_t rng = 0x7FFFFFFFFFFFFFFEULL, excl = rng + 1;
    U128 m = mul_64x64(bg->next_uint64(bg->state), excl);
    if (m.lo < excl) {
        const uint64_t threshold = (UINT64_MAX - rng) % excl;
        while (m.lo < threshold) m = mul_64x64(bg->next_uint64(bg->state), excl);
    }
    return m.hi;
}

#endif
