/* Compiled observation kernel: every deficiency feature of a batch of seats in one C call, and the C
 * executor of the observation writer's plan (``observe``, below).
 *
 * Not from the papers: a C port of the ``dp`` feature path (``mjenv/deficiency/dp.py``, "one-tile
 * variants", and ``mjenv.deficiency.seat_features.DeficiencyFeatures.compute``), which it must equal exactly
 * (``tests/test_kernel.py`` compares the two on random seats). The idea is the same: a complete
 * pattern splits into one part per suit plus the honours, each part's minimum cost for every
 * (melds k, pair p) comes from the lookup tables of ``_dp_tables`` (a suit is cut into a left part,
 * ranks 1-5, and a right part, ranks 6-9, joined over a boundary state b of the chows crossing the
 * cut; the honours into honours 1-4 and 5-7), and the deficiency is the min-plus of the parts at
 * (m, 1).
 *
 * What the C version adds: a feature row (the hand after one draw or one discard) changes ONE part.
 * Each part's vector, and its vectors after one draw or one discard of each of its tiles, depend only
 * on that part's option codes, and from one step to the next only one seat's hand and one part of
 * the KBs change: a part cache per table keeps them, so a row is one min-plus of a cached
 * vector with the other parts at (m, 1), and a step computes the vectors of the few parts that
 * changed. Where a row changes one half of a part twice (the discard turn's "discard t, then draw
 * u" rows), the unchanged half is first joined with the other three parts into
 * X[k][p][b] = min over splits of half[k1][p1][b] + others[k - k1][p - p1]; each such row is then
 * one pass over (k, p, b) of the changed half's table row. A small memo of whole seats per table
 * (keyed on the complete input) serves the seats whose hand and KB did not change since the last
 * call, and the discarder after its discard (what its discard turn computed per discard); each
 * seat's last state tells which draws can still be effective when only its KB shrank. The inner loops run on sixteen byte lanes (SSE2; plain loops elsewhere, same values).
 *
 * Values: table entries are uint8 with INF = 100 for "no pattern"; sums are taken in int or bytes,
 * capped at INF where kept (the part cache's comment says why that is exact), and any result >= INF
 * is reported as INCOMPLETABLE = 99, exactly as the numpy path clamps.
 *
 * Python API (module ``mjenv.deficiency._kernel``; ``mjenv/deficiency/kernel.py`` wraps it):
 *
 *   features(left, right, h4, h3, hands, kbs, needed, discard_turn, claim_tile, chow_ok,
 *            out_deficiency, out_after_discard, out_effective, out_count, out_after_claim,
 *            out_count_after_discard, out_after_kong, memo[, seven, melds]) -> None
 *
 *     All arguments are C-contiguous buffers: left uint8[15**5 * 108], right uint8[15**4 * 108],
 *     h4 uint8[15**4 * 12], h3 uint8[15**3 * 12] (``_dp_tables.half_tables()`` / ``honour_tables()``);
 *     hands, kbs int8[S * T] (T = 27 or 34, from the buffer sizes); needed int64[S]; discard_turn
 *     uint8[S]; claim_tile int64[S] (-1: none); chow_ok uint8[S]; outputs int32[S], int32[S * T],
 *     uint8[S * T], int64[S], int32[S * 5], int32[S * T], int32[S * T] (written whole); memo uint8[memo_bytes()] or empty (none).
 *
 *   bind(left, right, h4, h3, copies, onehots, feature_inputs, feature_outputs, fields, scalar_start,
 *        L, T, size[, seven, melds, missing]) -> plan;
 *   observe(plan, states, memos, out_observation, out_deficiency) -> None
 *
 *     Optional: ``seven`` (0 none, 1 distinct pairs, 2 a four of a kind as two pairs, 3 seven distinct
 *     pairs or thirteen orphans) makes every feature of a seat with melds needed = ``melds`` the minimum
 *     of melds-and-pair and that closed-hand form (seven_pairs_seat, below); ``missing`` (-1 none) is the state offset of the seats'
 *     missing-suit one-hots [4, 3]: that suit is left out of the seat's features' hand and KB, and on
 *     its discard turn discarding one of its tiles shows the deficiency and effective count unchanged.
 *
 *     ``bind`` checks a writer plan once (size: the observation's length) and keeps it with the
 *     tables; ``observe`` executes it. ``states`` may also be the records themselves, one C-contiguous
 *     int16[N, L] array, when the plan's one source is the whole record (fields (0, L, 0),
 *     scalar_start L): the batch step's tables. It executes the observation writer's plan (``mjenv.observation.ObservationSpec``; the kernel knows
 *     no view by name and no layout of the game's arrays) for N states. Each state is a sequence of
 *     its sources, as the spec read them from a game (its knowledge bases from mjenv.knowledge): F
 *     int8/int16 buffers and a sequence of ints. They fill an int16 state record of length L:
 *     ``fields`` int32[F * 3] rows (offset, length, add) place each buffer (plus ``add``), the ints go
 *     from ``scalar_start`` to the end. ``copies`` int32[R * 4] rows (seat, offset, state offset,
 *     length): out[seat, offset + j] = state[state offset + j]; ``onehots`` int32[K * 4] rows (offset,
 *     state index, seat-relative, length): out[s, offset + v] = 1 for v = state[index] (v - s mod 4
 *     when seat-relative; nothing when v < 0); ``feature_inputs`` int32[6]: where the state holds the
 *     features' inputs (hands [4, T], KBs [4, T], melds needed [4], discard turn [4], claim tile [4],
 *     chow allowed [4]); ``feature_outputs`` int32[7]: where the observation takes the features
 *     (deficiency, after discard [T], effective [T], effective count, after claim [5], effective
 *     count after each discard [T], after each kong [T]; -1: not shown); every other entry is 0. memos: None or N memo buffers (or None each); out
 *     float32[N * 4 * size], int32[N * 4].
 *
 *   memo_bytes() -> int;  memo_stats(memo) -> {"hits", "misses", "after_discard_hits", "prior_hits", "part_hits",
 *     "part_misses"};
 *   unseen(copies, hands, public, seats, T, out) -> None: mjenv.knowledge's knowledge-base formula
 *     (copies - hands - public counts, int8) in one pass, for mjenv.knowledge.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_minplus.h"  /* INF, INCOMPLETABLE, KM, VEC, NBOUND, BIG, code_of, final_value (shared with _fast.c) */
#include "_closed.h"   /* closed_offers, closed_value: seven pairs, thirteen orphans (shared with _fast.c) */
#include "_kernel_api.h" /* KernelApi: observe for other compiled modules */
#include <stdio.h>

#define NOT_APPLICABLE (-1)

/* Start loading the cache line at p. GCC takes __builtin_prefetch to have no side effect, so a
 * function that only prefetches (prefetch_seat, prefetch_part_sets) may be found pure and every call
 * of it deleted (it was, depending on inlining); a volatile asm is kept. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define PREFETCH(p) __asm__ __volatile__("prefetcht0 %0" : : "m"(*(const char *)(p)))
#elif defined(__GNUC__)
#define PREFETCH(p) (__builtin_prefetch(p), __extension__({ __asm__ __volatile__("" : : "r"(p)); }))
#else
#define PREFETCH(p) ((void)(p))
#endif
#define SUIT_ROW (VEC * NBOUND)
#define NUM_OUTPUTS 7   /* the features (seat_features.FEATURE_NAMES) */

static const int P15[6] = {1, 15, 225, 3375, 50625, 759375};

typedef struct {
    const uint8_t *left, *right, *h4, *h3;
} Tables;

/* weight of rank r (0-based) of a suit in its half row, and which half (0 left, 1 right) */
static inline int suit_half(int r) { return r >= 5; }
static inline int suit_weight(int r) { return r < 5 ? P15[4 - r] : P15[r - 5]; }
/* honours: j < 4 in h4 (weight 15**(3 - j)), else h3 (15**(6 - j)) */
static inline int hon_half(int j) { return j >= 4; }
static inline int hon_weight(int j) { return j < 4 ? P15[3 - j] : P15[6 - j]; }

/* out[k][p] (k <= kmax) = min over the splits k1 <= k, p1 <= p of COST, an expression of the
 * (k, p) indices i = 2 * k1 + p1 of the first part and j = 2 * (k - k1) + (p - p1) of the second;
 * entries past kmax are left unset (a seat needing m melds never reads a vector past k = m) */
#define SPLIT_MIN(out, kmax, COST)                                        \
    _Pragma("GCC unroll 6") for (int k = 0; k <= (kmax); k++)             \
        for (int p = 0; p < 2; p++) {                                     \
            int best = BIG;                                               \
            _Pragma("GCC unroll 6") for (int k1 = 0; k1 <= k; k1++)       \
                for (int p1 = 0; p1 <= p; p1++) {                         \
                    int i = 2 * k1 + p1, j = 2 * (k - k1) + (p - p1);     \
                    int v = (COST);                                       \
                    if (v < best) best = v;                               \
                }                                                         \
            (out)[2 * k + p] = best;                                      \
        }

/* CALL(k) with the constant k (0..5) equal to kmax: one copy of an always-inline function per value,
 * whose loops the compiler unrolls */
#define BY_KMAX(kmax, CALL)        \
    switch (kmax) {                \
    case 0: CALL(0); break;        \
    case 1: CALL(1); break;        \
    case 2: CALL(2); break;        \
    case 3: CALL(3); break;        \
    case 4: CALL(4); break;        \
    default: CALL(5); break;       \
    }

/* min-plus of two (k, p) vectors */
static inline __attribute__((always_inline)) void minplus_k(const int *a, const int *b, int *out, const int kmax) {
    SPLIT_MIN(out, kmax, a[i] + b[j])
}
static void minplus(const int *a, const int *b, int *out, int kmax) {
#define MINPLUS(k) minplus_k(a, b, out, k)
    BY_KMAX(kmax, MINPLUS)
#undef MINPLUS
}

/* Sixteen byte lanes: the nine boundary states of a table block are its first lanes (the rest are
 * never read back), or a capped (k, p) vector is. Table entries are at most INF, so the sum of two
 * fits a byte. SSE2 where the compiler targets it (every x86-64), else plain loops with the same
 * results. */
#if defined(__SSE2__) && !defined(MJENV_NO_SIMD)
#include <emmintrin.h>
typedef __m128i lanes;
static inline lanes lanes_load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline lanes lanes_fill(int v) { return _mm_set1_epi8((char)v); }
static inline lanes lanes_add(lanes a, lanes b) { return _mm_add_epi8(a, b); }
static inline lanes lanes_adds(lanes a, lanes b) { return _mm_adds_epu8(a, b); } /* saturating at 255 */
static inline lanes lanes_min(lanes a, lanes b) { return _mm_min_epu8(a, b); }
static inline lanes lanes_or(lanes a, lanes b) { return _mm_or_si128(a, b); }
static inline void lanes_store(uint8_t *p, lanes a) { _mm_storeu_si128((__m128i *)p, a); }
/* bit i: lane i of a equals lane i of b */
static inline unsigned lanes_eq(lanes a, lanes b) { return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)); }
/* lane j: a's lane j - I, 255 for j < I (I a constant 0..15) */
#define LANES_UP(a, I) _mm_or_si128(_mm_slli_si128((a), (I)), _mm_srli_si128(_mm_set1_epi8(-1), 16 - (I)))
/* the NBOUND bytes at p in lanes 0..NBOUND-1 (0 above), reading only the sixteen bytes that end there */
static inline lanes lanes_load_tail(const uint8_t *p) {
    return _mm_srli_si128(_mm_loadu_si128((const __m128i *)(p + NBOUND - 16)), 16 - NBOUND);
}
/* the min of all sixteen lanes */
static inline int lanes_hmin(lanes a) {
    a = _mm_min_epu8(a, _mm_srli_si128(a, 8));
    a = _mm_min_epu8(a, _mm_srli_si128(a, 4));
    a = _mm_min_epu8(a, _mm_srli_si128(a, 2));
    a = _mm_min_epu8(a, _mm_srli_si128(a, 1));
    return _mm_cvtsi128_si32(a) & 0xFF;
}
/* lane i of the result: the min of v[i]'s sixteen lanes. Each round interleaves two vectors in
 * units of 1, 2, 4, 8 bytes and keeps the min of the low and high halves: 15 rounds, not 16 lanes_hmin */
static inline lanes lanes_hmin16(const lanes *v) {
    lanes x[8], y[4], z[2];
    for (int j = 0; j < 8; j++)
        x[j] = _mm_min_epu8(_mm_unpacklo_epi8(v[2 * j], v[2 * j + 1]), _mm_unpackhi_epi8(v[2 * j], v[2 * j + 1]));
    for (int j = 0; j < 4; j++)
        y[j] = _mm_min_epu8(_mm_unpacklo_epi16(x[2 * j], x[2 * j + 1]), _mm_unpackhi_epi16(x[2 * j], x[2 * j + 1]));
    for (int j = 0; j < 2; j++)
        z[j] = _mm_min_epu8(_mm_unpacklo_epi32(y[2 * j], y[2 * j + 1]), _mm_unpackhi_epi32(y[2 * j], y[2 * j + 1]));
    return _mm_min_epu8(_mm_unpacklo_epi64(z[0], z[1]), _mm_unpackhi_epi64(z[0], z[1]));
}
/* bit i: lane i of a is above 0 (signed) / not 0 */
static inline unsigned lanes_positive(lanes a) { return (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(a, _mm_setzero_si128())); }
static inline unsigned lanes_nonzero(lanes a) {
    return ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_setzero_si128())) & 0xFFFF;
}
/* out[j] = (float)in[j], j < n (exact: the values are small ints); four at a time */
static inline void ints_to_floats(const int32_t *in, float *out, int n) {
    int j = 0;
    for (; j + 4 <= n; j += 4) _mm_storeu_ps(out + j, _mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)(in + j))));
    if (j < n && n >= 4) /* the last four, overlapping the ones before (the same values again) */
        _mm_storeu_ps(out + n - 4, _mm_cvtepi32_ps(_mm_loadu_si128((const __m128i *)(in + n - 4))));
    else
        for (; j < n; j++) out[j] = (float)in[j];
}
/* out[j] = (float)in[j], j < n, for n >= 16 bytes: sixteen at a time, the last sixteen overlapping */
static inline void bytes_to_floats(const uint8_t *in, float *out, int n) {
    const __m128i zero = _mm_setzero_si128();
    for (int j = 0;; j += 16) {
        if (j + 16 > n) j = n - 16;
        __m128i b = _mm_loadu_si128((const __m128i *)(in + j));
        __m128i lo = _mm_unpacklo_epi8(b, zero), hi = _mm_unpackhi_epi8(b, zero);
        _mm_storeu_ps(out + j, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
        _mm_storeu_ps(out + j + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
        _mm_storeu_ps(out + j + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
        _mm_storeu_ps(out + j + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
        if (j + 16 >= n) break;
    }
}
/* lanes 0..11 as ints (three stores of four) */
static inline void lanes_to_ints12(lanes a, int *out) {
    const __m128i zero = _mm_setzero_si128(), lo = _mm_unpacklo_epi8(a, zero), hi = _mm_unpackhi_epi8(a, zero);
    _mm_storeu_si128((__m128i *)out, _mm_unpacklo_epi16(lo, zero));
    _mm_storeu_si128((__m128i *)(out + 4), _mm_unpackhi_epi16(lo, zero));
    _mm_storeu_si128((__m128i *)(out + 8), _mm_unpacklo_epi16(hi, zero));
}
/* the 12 bytes at p in lanes 0..11 (0 above), reading only those */
static inline lanes lanes_load12(const uint8_t *p) {
    uint32_t b;
    memcpy(&b, p + 8, 4);
    return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)p), _mm_cvtsi32_si128((int)b));
}
#else
typedef struct { uint8_t v[16]; } lanes;
static inline lanes lanes_load(const uint8_t *p) { lanes a; memcpy(a.v, p, 16); return a; }
static inline lanes lanes_fill(int v) { lanes a; memset(a.v, v, 16); return a; }
static inline lanes lanes_add(lanes a, lanes b) {
    for (int i = 0; i < 16; i++) a.v[i] = (uint8_t)(a.v[i] + b.v[i]);
    return a;
}
static inline lanes lanes_adds(lanes a, lanes b) {
    for (int i = 0; i < 16; i++) a.v[i] = a.v[i] + b.v[i] > 255 ? 255 : (uint8_t)(a.v[i] + b.v[i]);
    return a;
}
static inline lanes lanes_min(lanes a, lanes b) {
    for (int i = 0; i < 16; i++) a.v[i] = b.v[i] < a.v[i] ? b.v[i] : a.v[i];
    return a;
}
static inline lanes lanes_or(lanes a, lanes b) {
    for (int i = 0; i < 16; i++) a.v[i] |= b.v[i];
    return a;
}
static inline void lanes_store(uint8_t *p, lanes a) { memcpy(p, a.v, 16); }
static inline unsigned lanes_eq(lanes a, lanes b) {
    unsigned bits = 0;
    for (int i = 0; i < 16; i++) bits |= (unsigned)(a.v[i] == b.v[i]) << i;
    return bits;
}
static inline lanes lanes_up(lanes a, int I) {
    lanes b;
    for (int j = 0; j < 16; j++) b.v[j] = j < I ? 255 : a.v[j - I];
    return b;
}
#define LANES_UP(a, I) lanes_up((a), (I))
static inline lanes lanes_load_tail(const uint8_t *p) {
    lanes a;
    memset(a.v, 0, 16);
    memcpy(a.v, p, NBOUND);
    return a;
}
static inline int lanes_hmin(lanes a) {
    int best = a.v[0];
    for (int i = 1; i < 16; i++) best = a.v[i] < best ? a.v[i] : best;
    return best;
}
static inline lanes lanes_hmin16(const lanes *v) {
    lanes a;
    for (int i = 0; i < 16; i++) a.v[i] = (uint8_t)lanes_hmin(v[i]);
    return a;
}
static inline unsigned lanes_positive(lanes a) {
    unsigned bits = 0;
    for (int i = 0; i < 16; i++) bits |= (unsigned)((int8_t)a.v[i] > 0) << i;
    return bits;
}
static inline unsigned lanes_nonzero(lanes a) {
    unsigned bits = 0;
    for (int i = 0; i < 16; i++) bits |= (unsigned)(a.v[i] != 0) << i;
    return bits;
}
static inline void ints_to_floats(const int32_t *in, float *out, int n) {
    for (int j = 0; j < n; j++) out[j] = (float)in[j];
}
static inline void bytes_to_floats(const uint8_t *in, float *out, int n) {
    for (int j = 0; j < n; j++) out[j] = (float)in[j];
}
static inline void lanes_to_ints12(lanes a, int *out) {
    for (int i = 0; i < 12; i++) out[i] = a.v[i];
}
static inline lanes lanes_load12(const uint8_t *p) {
    lanes a;
    memset(a.v, 0, 16);
    memcpy(a.v, p, 12);
    return a;
}
#endif

/* Tile bit sets of a seat's T (27 or 34) bytes, reading only those: sixteen lanes at 0, at 16 (T = 34) and ending
 * at T (they overlap; an or does not mind). bit t: x[t] > 0 (signed; hand and KB counts) / x[t] != 0 */
#define TILE_BITS(x, T, TEST)                                                                                  \
    ((uint64_t)TEST(lanes_load((const uint8_t *)(x))) |                                                     \
     ((T) >= 32 ? (uint64_t)TEST(lanes_load((const uint8_t *)(x) + 16)) << 16 : 0) |                        \
     (uint64_t)TEST(lanes_load((const uint8_t *)(x) + (T) - 16)) << ((T) - 16))
static inline uint64_t positive_bits(const int8_t *x, int T) { return TILE_BITS(x, T, lanes_positive); }
static inline uint64_t nonzero_bits(const uint8_t *x, int T) { return TILE_BITS(x, T, lanes_nonzero); }

/* 255 in lanes NBOUND..15 (the lanes past a block's boundary states) */
static const uint8_t PAST_BOUNDARY[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255};

/* block i (its NBOUND boundary states) of a suit table row as sixteen lanes: read from the row itself,
 * except the last block (kmax = 5), whose sixteen lanes would run past the row (and past the table at its
 * last row): read ending at the row's end and shifted down, lanes NBOUND.. zero. Only lanes 0..NBOUND-1
 * are ever read back. */
static inline lanes block_lanes(const uint8_t *row, int i) {
    return (i + 1) * NBOUND + 16 - NBOUND > SUIT_ROW ? lanes_load_tail(row + i * NBOUND) : lanes_load(row + i * NBOUND);
}

/* a whole suit's (k, p) vector (k <= kmax) from its left and right table rows (min over the
 * boundary) in lanes: lane 2k + p (255 past 2 kmax + 1). One lane operation per split, one lane min per entry
 * (block_lanes reads the blocks). */
static inline __attribute__((always_inline)) lanes suit_lanes_k(const uint8_t *l, const uint8_t *r, const int kmax) {
    const lanes past = lanes_load(PAST_BOUNDARY);
    lanes acc[16];
    for (int i = 0; i < 16; i++) acc[i] = lanes_fill(255);
    _Pragma("GCC unroll 6") for (int k = 0; k <= kmax; k++)
        for (int p = 0; p < 2; p++) {
            lanes a = lanes_fill(255);
            _Pragma("GCC unroll 6") for (int k1 = 0; k1 <= k; k1++)
                for (int p1 = 0; p1 <= p; p1++)
                    a = lanes_min(a, lanes_add(block_lanes(l, 2 * k1 + p1), block_lanes(r, 2 * (k - k1) + (p - p1))));
            acc[2 * k + p] = lanes_or(a, past);
        }
    return lanes_hmin16(acc);
}
static inline __attribute__((always_inline)) void suit_vector_k(const uint8_t *l, const uint8_t *r, int *out,
                                                                 const int kmax) {
    uint8_t x[16];
    lanes_store(x, suit_lanes_k(l, r, kmax));
    for (int i = 0; i < 2 * (kmax + 1); i++) out[i] = x[i];
}

static void suit_vector(const uint8_t *l, const uint8_t *r, int *out, int kmax) {
#define SUIT_VECTOR(k) suit_vector_k(l, r, out, k)
    BY_KMAX(kmax, SUIT_VECTOR)
#undef SUIT_VECTOR
}

/* suit_vector capped at INF as VEC bytes (cap_vec's result: the entries past 2 kmax + 1, 255 in lanes, are INF) */
static void suit_vector_capped(const uint8_t *l, const uint8_t *r, uint8_t *out, int kmax) {
    lanes x;
#define SUIT_LANES(k) x = suit_lanes_k(l, r, k)
    BY_KMAX(kmax, SUIT_LANES)
#undef SUIT_LANES
    uint8_t y[16];
    lanes_store(y, lanes_min(x, lanes_fill(INF)));
    memcpy(out, y, VEC);
}

/* a (k, p) table row as ints */
static inline void widen(const uint8_t *row, int *out) {
#if VEC == 12
    lanes_to_ints12(lanes_load12(row), out);
#else
    for (int i = 0; i < VEC; i++) out[i] = row[i];
#endif
}

static void honour_vector(const uint8_t *a, const uint8_t *b, int *out, int kmax) {
    int x[VEC], y[VEC];
    widen(a, x);
    widen(b, y);
    minplus(x, y, out, kmax);
}

/* X[k][p][b] (k <= m) = min over splits of half[k1][p1][b] + others[k - k1][p - p1], stored in the
 * order half_value reads it: block (k, p) at position (m - k, 1 - p), so that a changed half's block
 * i meets X's block i (one flat pass there). Bytes capped at INF (as the part cache's vectors, and
 * for the same reason exact); one lane operation per split, each block stored as sixteen lanes in
 * order of position, so that its spare lanes are overwritten by the next block's (X holds
 * SUIT_ROW + 16 bytes). The half row's blocks are read by block_lanes, once each; one unrolled copy per m
 * (BY_KMAX). */
static inline __attribute__((always_inline)) void join_half_k(const uint8_t *half, const int *others, const int m,
                                                               uint8_t *X) {
    /* the half's blocks and the others' entries as lanes, read once (X's stores may alias the half) */
    lanes blk[VEC], o[VEC];
    for (int i = 0; i < 2 * (m + 1); i++) {
        blk[i] = block_lanes(half, i);
        o[i] = lanes_fill(others[i] < INF ? others[i] : INF);
    }
    const lanes cap = lanes_fill(INF);
    _Pragma("GCC unroll 12") for (int pos = 0; pos <= 2 * m + 1; pos++) {
        int k = m - pos / 2, p = 1 - pos % 2;
        lanes acc = lanes_fill(255);
        _Pragma("GCC unroll 6") for (int k1 = 0; k1 <= k; k1++)
            for (int p1 = 0; p1 <= p; p1++) acc = lanes_min(acc, lanes_add(blk[2 * k1 + p1], o[2 * (k - k1) + (p - p1)]));
        lanes_store(X + pos * NBOUND, lanes_min(acc, cap));
    }
}
static void join_half(const uint8_t *half, const int *others, int m, uint8_t *X) {
#define JOIN_HALF(k) join_half_k(half, others, k, X)
    BY_KMAX(m, JOIN_HALF)
#undef JOIN_HALF
}

/* deficiency of a suit row whose one half is ``half`` and the other half already joined into X
 * (join_half's order): the min over k, p, b of half[k][p][b] + X[m - k][1 - p][b], sixteen lanes at
 * a time (the last run overlaps the one before: a min does not mind) */
static inline int half_value(const uint8_t *half, const uint8_t *X, int m) {
    int n = 2 * (m + 1) * NBOUND, j = 0;
    lanes acc = lanes_fill(255);
    for (; j + 16 <= n; j += 16) acc = lanes_min(acc, lanes_add(lanes_load(half + j), lanes_load(X + j)));
    if (j < n) acc = lanes_min(acc, lanes_add(lanes_load(half + n - 16), lanes_load(X + n - 16)));
    int best = lanes_hmin(acc);
    return best >= INF ? INCOMPLETABLE : best;
}

/* honours: Y[k][p] (k <= m) = min of the unchanged half joined with the others, capped at INF */
static void join_honour(const uint8_t *half, const int *others, int m, uint8_t *Y) {
    int x[VEC], y[VEC];
    widen(half, x);
    minplus(x, others, y, m);
    for (int i = 0; i < VEC; i++) Y[i] = (uint8_t)(i <= 2 * m + 1 && y[i] < INF ? y[i] : INF);
}

/* deficiency of an honour row whose one half is ``half`` and the other half already joined into Y */
static inline int honour_value(const uint8_t *half, const uint8_t *Y, int m) {
    int x[VEC], y[VEC];
    widen(half, x);
    widen(Y, y);
    return final_value(x, y, m);
}

/* the first n bytes of a suit row (at most its 108: up to three cache lines) */
static inline void prefetch_row(const uint8_t *row, int n) {
    PREFETCH(row);
    PREFETCH(row + 64);
    PREFETCH(row + n - 1);
}
/* the bytes of a suit row that a vector with k <= m reads: suit_vector's blocks 0..2m+1 (block_lanes:
 * sixteen bytes from each block's start, the last block's nine where sixteen would run past the row) */
static inline int vector_bytes(int m) { return (2 * m + 1) * NBOUND + 16 < SUIT_ROW ? (2 * m + 1) * NBOUND + 16 : SUIT_ROW; }

/* a part's (k, p) vector (k <= kmax) from its two half rows (suits: left / right, honours: h4 / h3) */
static void part_vector(const Tables *tb, int P, int r0, int r1, int *out, int kmax) {
    if (P < 3)
        suit_vector(tb->left + (size_t)r0 * SUIT_ROW, tb->right + (size_t)r1 * SUIT_ROW, out, kmax);
    else
        honour_vector(tb->h4 + (size_t)r0 * VEC, tb->h3 + (size_t)r1 * VEC, out, kmax);
}

/* a half row of part P (suits: h 0 left, 1 right; honours: h4, h3) */
static inline const uint8_t *half_row(const Tables *tb, int P, int h, int row) {
    if (P < 3) return (h ? tb->right : tb->left) + (size_t)row * SUIT_ROW;
    return (h ? tb->h3 : tb->h4) + (size_t)row * VEC;
}

/* X: half h of part P at ``row`` joined with the other parts (join_half / join_honour) */
static void join_part_half(const Tables *tb, int P, int h, int row, const int *others, int m, uint8_t *X) {
    if (P < 3)
        join_half(half_row(tb, P, h, row), others, m, X);
    else
        join_honour(half_row(tb, P, h, row), others, m, X);
}

/* the deficiency of half h of part P at ``row`` with the rest joined into X (half_value / honour_value) */
static inline int part_half_value(const Tables *tb, int P, int h, int row, const uint8_t *X, int m) {
    return P < 3 ? half_value(half_row(tb, P, h, row), X, m) : honour_value(half_row(tb, P, h, row), X, m);
}

/* the part of tile t (0-2 suits, 3 honours), its rank in the part, the half of its part that holds
 * it (suits: 0 left, 1 right; honours: 0 h4, 1 h3) and its weight in that half's row */
static int TILE_PART[34], TILE_RANK[34], TILE_HALF[34], TILE_WEIGHT[34]; /* a lookup, not divisions */
static int TILE_ORPHAN[34];               /* is_orphan */
static int64_t CLOSED_OFFERS[4][2][5][5]; /* closed_offers(form, t, h, a) by form, is_orphan(t), h, a */
/* a draw of t held h times of a available adds CLOSED_OFFERS[form][o][h + 1][a] - CLOSED_OFFERS[form][o][h][a] to the
 * offers (o = is_orphan(t)): the draws fall into a few classes of the same step. DRAW_CLASS[form][o][h][a] (h < a) is
 * the class, CLASS_STEP[form][k] its step, NUM_CLASSES[form] how many there are (h = a, no draw: class 0) */
#define MAX_CLASSES 20
static uint8_t DRAW_CLASS[4][2][5][5];
static int64_t CLASS_STEP[4][MAX_CLASSES];
static int NUM_CLASSES[4];
static uint64_t PART_TILES[4], HALF_TILES[4][2]; /* bit t: tile t is in part P (and its half h) */
static uint16_t REVERSED[1 << VEC];              /* bit i of x at bit VEC - 1 - i */
static void tile_tables(void) { /* at import */
    for (int t = 0; t < 34; t++) {
        TILE_PART[t] = t < 27 ? t / 9 : 3;
        TILE_RANK[t] = t < 27 ? t % 9 : t - 27;
        TILE_HALF[t] = t < 27 ? suit_half(t % 9) : hon_half(t - 27);
        TILE_WEIGHT[t] = t < 27 ? suit_weight(t % 9) : hon_weight(t - 27);
        PART_TILES[TILE_PART[t]] |= 1ull << t;
        HALF_TILES[TILE_PART[t]][TILE_HALF[t]] |= 1ull << t;
        TILE_ORPHAN[t] = is_orphan(t);
    }
    for (int x = 0; x < 1 << VEC; x++)
        for (int i = 0; i < VEC; i++) REVERSED[x] |= (uint16_t)((x >> i & 1) << (VEC - 1 - i));
    for (int form = 0; form < 4; form++) /* tile 0 is an orphan, tile 1 is not */
        for (int o = 0; o < 2; o++)
            for (int h = 0; h < 5; h++)
                for (int a = 0; a < 5; a++) CLOSED_OFFERS[form][o][h][a] = closed_offers(form, o ? 0 : 1, h, a);
    for (int form = 0; form < 4; form++) /* at most 2 * 10 keys (o, h < a), so at most MAX_CLASSES steps */
        for (int o = 0; o < 2; o++)
            for (int h = 0; h < 4; h++)
                for (int a = h + 1; a < 5; a++) {
                    int64_t step = CLOSED_OFFERS[form][o][h + 1][a] - CLOSED_OFFERS[form][o][h][a];
                    int k = 0;
                    while (k < NUM_CLASSES[form] && CLASS_STEP[form][k] != step) k++;
                    if (k == NUM_CLASSES[form]) CLASS_STEP[form][NUM_CLASSES[form]++] = step;
                    DRAW_CLASS[form][o][h][a] = (uint8_t)k;
                }
}
static inline int part_of(int t) { return TILE_PART[t]; }
static inline int rank_of(int t) { return TILE_RANK[t]; }
static inline int half_of(int t) { return TILE_HALF[t]; }
static inline int weight_of(int t) { return TILE_WEIGHT[t]; }

/* ---- the part cache: each part's vectors, kept from call to call --------------------------------
 * A seat's rows need, for each part (a suit or the honours), the part's (k, p) vector, the vector
 * after one more copy of each tile the KB has (a draw) and after one copy less of each held tile (a
 * discard). These depend only on the part's option codes, that is its two half rows, and on m. From
 * one step to the next only one seat's hand and one part of the KBs change, so most parts of the
 * seats a call computes are parts it computed before: the cache keeps them, keyed on (kind, the two
 * half rows, m), two ways per set. An entry holds the part's vector, computed when it enters, and the
 * vector after the draw / discard of each rank, computed when first asked (bits have_draw /
 * have_disc). The key is the whole input of every vector it holds, so a hit returns exactly what
 * would be computed. The cache lives in the table's memo buffer (see below); without a memo a
 * seat's parts are computed into scratch entries.
 *
 * Vectors are kept as bytes capped at INF. Every value read from them is a sum or a min of such
 * nonnegative values, and reaches an output only through final_value (any sum >= INF is
 * INCOMPLETABLE) or a comparison with such a result: min(x, INF) + y >= INF exactly when x + y >= INF
 * (y >= 0), and min commutes with the cap, so the cap changes no output. */
#define PART_SETS 128
typedef struct {
    int32_t r0, r1;                /* the half rows (key) */
    uint8_t used, kind, m;         /* kind 0 suit, 1 honours (key); m (key) */
    uint16_t have_draw, have_disc; /* bit r: draw[r] / disc[r] computed */
    uint8_t base[VEC], draw[9][VEC], disc[9][VEC];
    uint8_t pad[16 - VEC]; /* a vector is read as sixteen lanes (final_lanes) */
} PartEntry;
typedef struct {
    uint64_t hits, misses;
    uint8_t older[PART_SETS]; /* the way to replace next */
    PartEntry way[PART_SETS][2];
} PartCache;

static inline void cap_vec(const int *v, uint8_t *out, int kmax) {
    for (int i = 0; i < VEC; i++) out[i] = i < 2 * (kmax + 1) && v[i] < INF ? (uint8_t)v[i] : INF;
}

/* part_vector capped at INF (cap_vec) as VEC bytes */
static void part_vector_capped(const Tables *tb, int P, int r0, int r1, uint8_t *out, int kmax) {
    if (P < 3) {
        suit_vector_capped(tb->left + (size_t)r0 * SUIT_ROW, tb->right + (size_t)r1 * SUIT_ROW, out, kmax);
        return;
    }
    int v[VEC];
    part_vector(tb, P, r0, r1, v, kmax);
    cap_vec(v, out, kmax);
}

static inline unsigned part_set(int kind, int r0, int r1, int m) {
    uint32_t h = (uint32_t)r0 * 2654435761u + (uint32_t)r1 * 2246822519u + (uint32_t)(m * 2 + kind) * 3266489917u;
    return (h >> 16) % PART_SETS;
}

static inline int part_match(const PartEntry *e, int kind, int r0, int r1, int m) {
    return e->used && e->r0 == r0 && e->r1 == r1 && e->kind == kind && e->m == m;
}

/* the cached entry of part P at half rows (r0, r1), or NULL (no change to the cache) */
static const PartEntry *part_cached(const PartCache *pc, int P, int r0, int r1, int m) {
    if (!pc) return NULL;
    int kind = P == 3;
    unsigned s = part_set(kind, r0, r1, m);
    for (int w = 0; w < 2; w++)
        if (part_match(&pc->way[s][w], kind, r0, r1, m)) return &pc->way[s][w];
    return NULL;
}

/* the entry of part P at half rows (r0, r1): the cached one, else a new one with the part's vector
 * computed: the older way of its set, or ``scratch`` without a cache or when that way holds one of
 * the P parts of this seat already looked up (part[0..P-1], still in use) */
static PartEntry *part_entry(PartCache *pc, PartEntry *scratch, PartEntry *const *part, const Tables *tb, int P, int r0,
                             int r1, int m) {
    int kind = P == 3;
    PartEntry *e = scratch;
    if (pc) {
        unsigned s = part_set(kind, r0, r1, m);
        for (int w = 0; w < 2; w++)
            if (part_match(&pc->way[s][w], kind, r0, r1, m)) {
                pc->older[s] = (uint8_t)(1 - w);
                pc->hits++;
                return &pc->way[s][w];
            }
        pc->misses++;
        int w = pc->older[s] & 1, busy = 0;
        for (int Q = 0; Q < P; Q++) busy |= part[Q] == &pc->way[s][w];
        if (!busy) {
            pc->older[s] = (uint8_t)(1 - w);
            e = &pc->way[s][w];
        }
    }
    e->used = 1, e->kind = (uint8_t)kind, e->m = (uint8_t)m, e->r0 = r0, e->r1 = r1;
    e->have_draw = e->have_disc = 0;
    part_vector_capped(tb, P, r0, r1, e->base, m);
    return e;
}

/* entry e's vector (part P) with tile t's half row moved by ``step`` (one weight per code) into out */
static __attribute__((noinline)) void part_moved(PartEntry *e, const Tables *tb, int P, int t, int step, uint8_t *out) {
    int rr[2] = {e->r0, e->r1};
    rr[half_of(t)] += step * weight_of(t);
    part_vector_capped(tb, P, rr[0], rr[1], out, e->m);
}

/* the vector of entry e (part P) after drawing tile t (KB copies of t > 0): (h, a) -> (h + 1, a),
 * code + 1 */
static inline const uint8_t *part_draw(PartEntry *e, const Tables *tb, int P, int t) {
    int r = rank_of(t);
    if (!(e->have_draw >> r & 1)) {
        part_moved(e, tb, P, t, 1, e->draw[r]);
        e->have_draw |= (uint16_t)(1u << r);
    }
    return e->draw[r];
}

/* the vector of entry e (part P) after discarding tile t (held; a = hand + KB copies of t):
 * (h, a) -> (h - 1, a - 1), code - (a + 1) */
static inline const uint8_t *part_disc(PartEntry *e, const Tables *tb, int P, int t, int a) {
    int r = rank_of(t);
    if (!(e->have_disc >> r & 1)) {
        part_moved(e, tb, P, t, -(a + 1), e->disc[r]);
        e->have_disc |= (uint16_t)(1u << r);
    }
    return e->disc[r];
}

/* the other parts' vector o as lanes for final_lanes: lane i holds o[2m + 1 - i] capped at INF (the
 * entry final_value adds to a part's entry i), 255 past 2m + 1 */
static inline lanes others_lanes(const int *o, int m) {
#if defined(__SSE2__) && !defined(MJENV_NO_SIMD) && VEC == 12
    /* o's twelve entries (nonnegative) as bytes capped at INF (saturating packs, then a min), the sixteen lanes
     * reversed (lane j: entry 15 - j), shifted down by 14 - 2m (lane i: entry 2m + 1 - i), 255 past 2m + 1 */
    const __m128i *q = (const __m128i *)o;
    __m128i x = _mm_packus_epi16(_mm_packs_epi32(_mm_loadu_si128(q), _mm_loadu_si128(q + 1)),
                                 _mm_packs_epi32(_mm_loadu_si128(q + 2), _mm_setzero_si128()));
    x = _mm_min_epu8(x, _mm_set1_epi8(INF));
    x = _mm_shuffle_epi32(x, _MM_SHUFFLE(0, 1, 2, 3));
    x = _mm_shufflehi_epi16(_mm_shufflelo_epi16(x, _MM_SHUFFLE(2, 3, 0, 1)), _MM_SHUFFLE(2, 3, 0, 1));
    x = _mm_or_si128(_mm_srli_epi16(x, 8), _mm_slli_epi16(x, 8));
#define OTHERS_SHIFT(k) x = _mm_srli_si128(x, 14 - 2 * (k))
    BY_KMAX(m, OTHERS_SHIFT)
#undef OTHERS_SHIFT
    const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_or_si128(x, _mm_cmpgt_epi8(iota, _mm_set1_epi8((char)(2 * m + 1))));
#else
    uint8_t x[16];
    memset(x, 255, sizeof x);
    for (int i = 0; i <= 2 * m + 1; i++) x[i] = (uint8_t)(o[2 * m + 1 - i] < INF ? o[2 * m + 1 - i] : INF);
    return lanes_load(x);
#endif
}

/* final_value of a capped part vector v (sixteen bytes readable; lanes past 2m + 1 meet 255 and
 * saturate) joined with the other parts in lanes (others_lanes) */
static inline int final_lanes(const uint8_t *v, lanes o) {
    int best = lanes_hmin(lanes_adds(lanes_load(v), o));
    return best >= INF ? INCOMPLETABLE : best;
}

/* Which draws lower a deficiency, from the entries they lower. A part's vector after one more held
 * copy of one of its tiles (a draw: the available copies stay) is, entry by entry, the entry or the
 * entry minus one (one more tile held lowers the cost of reaching each (k, p) by at most one, and
 * the entries at INF stay there: what is reachable depends on the available copies only). So with a
 * part's vector v and the other parts joined in lanes o (others_lanes), where d = final_lanes(v, o),
 * the draw lowers d exactly when it lowers an entry i at which v[i] + o[i] = d < INCOMPLETABLE (its
 * sum there is d - 1; every other sum stays at least d). part_tight gives those entries as bits,
 * part_lowered the entries a draw lowers; a draw lowers d when the two meet. */
static inline unsigned entry_bits(int m) { return (2u << (2 * m + 1)) - 1; } /* entries 0..2m + 1 */
/* the entries (bits) where the sums in lanes equal d (none when d is INCOMPLETABLE) */
static inline unsigned tight_entries(lanes sums, int d, int m) {
    return d < INCOMPLETABLE ? lanes_eq(sums, lanes_fill(d)) & entry_bits(m) : 0;
}
static inline unsigned part_tight(const uint8_t *v, lanes o, int d, int m) {
    return tight_entries(lanes_adds(lanes_load(v), o), d, m);
}
static inline unsigned part_lowered(const uint8_t *drawn, const uint8_t *v, int m) {
    return ~lanes_eq(lanes_load(drawn), lanes_load(v)) & entry_bits(m);
}

/* The min-plus of two capped (k, p) vectors in lanes: lane j = 2k + p (j <= 2m + 1) the min over the
 * splits i = 2k1 + p1 of a[i] + b[j - i], saturating at 255 (lanes past 2m + 1: any value). An even i
 * meets every lane of b shifted up by i; an odd i (a pair in a) only b's lanes without a pair, so it
 * meets ``b_odd``, b with 255 in its odd lanes. */
static inline __attribute__((always_inline)) lanes minplus_lanes(const uint8_t *a, lanes b, lanes b_odd, int m) {
    lanes acc = lanes_fill(255);
#define MINPLUS_STEP(I) \
    if ((I) <= 2 * m + 1) acc = lanes_min(acc, lanes_adds(LANES_UP((I) & 1 ? b_odd : b, I), lanes_fill(a[I])));
    MINPLUS_STEP(0) MINPLUS_STEP(1) MINPLUS_STEP(2) MINPLUS_STEP(3) MINPLUS_STEP(4) MINPLUS_STEP(5)
    MINPLUS_STEP(6) MINPLUS_STEP(7) MINPLUS_STEP(8) MINPLUS_STEP(9) MINPLUS_STEP(10) MINPLUS_STEP(11)
#undef MINPLUS_STEP
    return acc;
}

/* 255 in the odd lanes (a pair: minplus_lanes' b_odd) */
static const uint8_t ODD_LANES[16] = {0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255};
/* minplus of a capped vector a (bytes, as a part entry keeps it) and a capped vector b in lanes, capped at INF:
 * lanes 0..2m + 1 (the rest: any value). Capping each join changes no output (see the part cache). */
static inline __attribute__((always_inline)) lanes join_capped(const uint8_t *a, lanes b, int m) {
    return lanes_min(minplus_lanes(a, b, lanes_or(b, lanes_load(ODD_LANES)), m), lanes_fill(INF));
}
/* a vector in lanes as ints (entries 0..VEC - 1) */
static inline void lanes_widen(lanes a, int *out) {
#if VEC == 12
    lanes_to_ints12(a, out);
#else
    uint8_t x[16];
    lanes_store(x, a);
    for (int i = 0; i < VEC; i++) out[i] = x[i];
#endif
}

/* others[P] (P < nparts): every part but P joined (join_capped; an entry's vectors are capped already, and
 * sixteen bytes from a part's base are readable), as ints; one unrolled copy per m (BY_KMAX) */
static inline __attribute__((always_inline)) void others_of_k(PartEntry *const *part, int nparts, int (*others)[VEC],
                                                              const int m) {
    lanes pair01 = join_capped(part[0]->base, lanes_load(part[1]->base), m), pair23;
    if (nparts == 3) {
        /* no honours: the empty part, cost 0 for no meld and no pair, is min-plus's identity, so joining
         * with it copies: pair23 is part 2's vector, others[2] is pair01 */
        pair23 = lanes_load(part[2]->base);
        lanes_widen(pair01, others[2]);
    } else {
        pair23 = join_capped(part[2]->base, lanes_load(part[3]->base), m);
        lanes_widen(join_capped(part[3]->base, pair01, m), others[2]);
        lanes_widen(join_capped(part[2]->base, pair01, m), others[3]);
    }
    lanes_widen(join_capped(part[1]->base, pair23, m), others[0]);
    lanes_widen(join_capped(part[0]->base, pair23, m), others[1]);
}
static void others_of(PartEntry *const *part, int nparts, int (*others)[VEC], int m) {
#define OTHERS_OF(k) others_of_k(part, nparts, others, k)
    BY_KMAX(m, OTHERS_OF)
#undef OTHERS_OF
}

/* the option codes of a seat's tiles (code_of) */
static inline void seat_codes(int T, const int8_t *hand, const int8_t *kb, uint8_t *codes) {
    for (int t = 0; t < T; t++) codes[t] = (uint8_t)code_of(hand[t], hand[t] + kb[t]);
}

/* the half rows of a seat's parts from its option codes (rows[3] only for T = 34): each row is its
 * ranks' codes in base 15 (suit_weight, hon_weight), by Horner's rule */
static inline void rows_of_codes(int T, const uint8_t *c, int rows[4][2]) {
    for (int P = 0; P < 3; P++, c += 9) {
        rows[P][0] = (((c[0] * 15 + c[1]) * 15 + c[2]) * 15 + c[3]) * 15 + c[4];
        rows[P][1] = ((c[8] * 15 + c[7]) * 15 + c[6]) * 15 + c[5];
    }
    rows[3][0] = T == 34 ? ((c[0] * 15 + c[1]) * 15 + c[2]) * 15 + c[3] : 0;
    rows[3][1] = T == 34 ? (c[4] * 15 + c[5]) * 15 + c[6] : 0;
}

/* the half rows of a seat's parts (rows[3] only for T = 34) */
static void seat_rows(int T, const int8_t *hand, const int8_t *kb, int rows[4][2]) {
    uint8_t codes[34];
    seat_codes(T, hand, kb, codes);
    rows_of_codes(T, codes, rows);
}

/* Start loading the part-cache sets of a seat's parts (part_cached and part_entry read them) */
static void prefetch_part_sets(const PartCache *pc, int T, const int rows[4][2], int m) {
    if (!pc) return;
    for (int P = 0; P < (T == 34 ? 4 : 3); P++) {
        const PartEntry *w = pc->way[part_set(P == 3, rows[P][0], rows[P][1], m)];
        PREFETCH(&w[0]);
        PREFETCH(&w[1]);
    }
}

/* Start loading what a seat's parts will read, so that the loads of all seats overlap with each other
 * and with the arithmetic: a cached part's entry, or the table rows of a part that is not cached
 * (the left table is 82 MB: mostly cache misses): its two rows, its draws' and (discard turn) its
 * discards' rows; the honours (T = 34) as the suits, one line a row. */
static inline void prefetch_half_row(const Tables *tb, int P, int h, int row, int m) {
    if (P < 3)
        prefetch_row(half_row(tb, P, h, row), vector_bytes(m));
    else
        PREFETCH(half_row(tb, P, h, row));
}

static void prefetch_seat(const Tables *tb, const PartCache *pc, int T, const int rows[4][2], const int8_t *hand,
                          const int8_t *kb, int m, int discard_turn,
                          uint64_t draws /* bit t: the draw of t may be evaluated */) {
    /* per part, the ranks whose draw / discard vectors are in its cache entry (a cached part's
     * entry may lack some: computed when first asked) */
    const int nparts = T == 34 ? 4 : 3;
    uint64_t have_d = 0, have_x = 0; /* as tile bits */
    for (int P = 0; P < nparts; P++) {
        const PartEntry *e = part_cached(pc, P, rows[P][0], rows[P][1], m);
        if (e) {
            for (size_t i = 0; i < sizeof(PartEntry); i += 64) PREFETCH((const uint8_t *)e + i);
            have_d |= (uint64_t)e->have_draw << (9 * P), have_x |= (uint64_t)e->have_disc << (9 * P);
            continue;
        }
        prefetch_half_row(tb, P, 0, rows[P][0], m);
        prefetch_half_row(tb, P, 1, rows[P][1], m);
    }
    /* the rows to load as bit sets (tile t: bit t), walked without a branch per tile */
    uint64_t drawable = positive_bits(kb, T), held = positive_bits(hand, T);
    for (uint64_t bits = drawable & draws & ~have_d; bits; bits &= bits - 1) {
        int t = __builtin_ctzll(bits), P = part_of(t), half = half_of(t);
        prefetch_half_row(tb, P, half, rows[P][half] + weight_of(t), m);
    }
    for (uint64_t bits = discard_turn ? held & ~have_x : 0; bits; bits &= bits - 1) {
        int t = __builtin_ctzll(bits), P = part_of(t), half = half_of(t);
        prefetch_half_row(tb, P, half, rows[P][half] - (hand[t] + kb[t] + 1) * weight_of(t), m);
    }
}

/* ---- the discarder's next state -------------------------------------------------------------------
 * On its discard turn a seat (hand H, KB) gets, per held tile t, the deficiency of H - t and its
 * effective count: discard_features counts the draws u that lower it, which are exactly the effective
 * tiles of H - t with the same KB (the discarded copy leaves the hand for the public tiles, not the
 * KB; see discard_features). The discarder's next state, the claim window after it discards X, is
 * that seat: H - X, the same KB and melds needed, no discard turn (and no claim tile). So the last
 * discard turn computed through a memo leaves, per t, H - t's deficiency, effective tiles and count
 * here, and the discarder is served from them (after_discard_serve) instead of computed. The key is
 * the whole input (T, m, H, KB; H - t checked tile by tile), so a served seat gets exactly what
 * seat_features would give it. */
typedef struct {
    uint8_t used, T, m;
    int8_t hand[34], kb[34];
    int8_t def[34];    /* the deficiency of H - t (at most INCOMPLETABLE) */
    int16_t count[34]; /* its effective count */
    uint64_t eff[34];  /* bit u: drawing u lowers it */
} AfterDiscard;

static void discard_features(const Tables *tb, int T, const int8_t *hand, const int8_t *kb, int m,
                             int rows[4][2], PartEntry *part[4], int base[4][VEC], int others[4][VEC], int now,
                             const uint8_t *eff, const int32_t *after_disc, int32_t *out_count_after,
                             int32_t *out_kong, AfterDiscard *ad);

/* ---- a seat's last state: the draws that can be effective now ---------------------------------------
 * The deficiency is monotone in the options: a hand H with fewer available copies (KB' <= KB tile by
 * tile) never has a lower deficiency, with or without a draw u: d'(H) >= d(H), d'(H + u) >= d(H + u).
 * So when d'(H) = d(H), a draw that did not lower d(H) (d(H + u) = d(H)) does not lower d'(H)
 * either: d'(H + u) >= d(H + u) = d(H) = d'(H). From one state to the next a seat's hand often stays
 * and its KB only loses copies (the claim window after another seat's discard: the discard is public
 * now; a meld shown), so the memo keeps each seat's last hand, KB, deficiency and effective draws,
 * and seat_features evaluates only the draws that were effective then (when the deficiency is the
 * same): the others are not effective, exactly. The draw vectors it skips are not computed (the part
 * cache computes them when first asked). */
typedef struct {
    uint8_t used, T, m;
    int8_t def;
    int8_t hand[34], kb[34];
    uint64_t eff; /* bit u: drawing u lowered the deficiency */
} SeatRecord;

/* the record r when the seat (T, hand, kb, m) is its hand with the same melds needed and KB <= its KB
 * tile by tile (see SeatRecord), with the tiles whose KB lost copies since in *lost (bit t); else NULL */
static const SeatRecord *seat_prior(const SeatRecord *r, int T, const int8_t *hand, const int8_t *kb, int m,
                                    uint64_t *lost) {
    if (!r || !r->used || r->T != T || r->m != m || memcmp(r->hand, hand, (size_t)T) != 0) return NULL;
    int8_t gained[34] = {0}, fewer[34] = {0}; /* KB counts are 0..4: the differences fit */
    for (int t = 0; t < T; t++) gained[t] = (int8_t)(kb[t] - r->kb[t]), fewer[t] = (int8_t)-gained[t];
    if (positive_bits(gained, T)) return NULL;
    *lost = positive_bits(fewer, T);
    return r;
}

/* keep a seat's input and its melds-and-pair deficiency and effective draws (NULL r: none) */
static void seat_record_bits(SeatRecord *r, int T, const int8_t *hand, const int8_t *kb, int m, int def,
                             uint64_t bits) {
    if (!r) return;
    r->used = 1, r->T = (uint8_t)T, r->m = (uint8_t)m, r->def = (int8_t)def;
    memcpy(r->hand, hand, (size_t)T);
    memcpy(r->kb, kb, (size_t)T);
    r->eff = bits;
}

/* seat_record_bits with the effective draws as bytes */
static void seat_record(SeatRecord *r, int T, const int8_t *hand, const int8_t *kb, int m, int def,
                        const uint8_t *eff) {
    if (!r) return;
    seat_record_bits(r, T, hand, kb, m, def, nonzero_bits(eff, T));
}

/* ---- a seat's last state, whole: no copy it lost was effective -----------------------------------
 * When the KB copies a seat lost since its prior state (seat_prior: the same hand and melds needed,
 * no KB copy more) were none of them effective draws then, its deficiency and effective draws are
 * the prior's, exactly. With KB' <= KB and lost(x) = KB'[x] < KB[x]:
 * - d'(H) = d(H). d' >= d (monotone). An optimal W of H (W <= H + KB, |W - H| = d) with W[x] > H[x]
 *   at a lost x would make x effective (W <= H + x + (KB - x), |W - (H + x)| = d - 1), so W[x] <= H[x]
 *   there and W <= H + KB': d' <= d.
 * - an effective u stays effective. A W' with |W' - (H + u)| = d - 1, W' <= H + KB, has
 *   |W' - H| <= d, so it is an optimal W of H and (above) W'[x] <= H[x] at every lost x: W' <= H + KB'
 *   (u is not lost, it is effective), so d'(H + u) <= d - 1. A draw that was not effective is not
 *   (seat_prior's argument), and no effective u lost a copy: the count is the sum of KB' over them.
 * Off its discard turn and with no claim it can make (no meld's tiles in the hand) a seat has no
 * other melds-and-pair feature, so it is served from the record (prior_serves) without a part or a
 * table row read, as in a claim window after a discard the seat cannot use. */

/* whether the claim tile d (a suit's: chows when chow_ok) leaves a meld the hand can make (seat_features' claims) */
static int claim_possible(const int8_t *hand, int d, int chow_ok) {
    if (hand[d] >= 2) return 1; /* pon (a kong needs three) */
    if (!chow_ok || d >= 27) return 0;
    int r = d % 9;
    return (r <= 6 && hand[d + 1] > 0 && hand[d + 2] > 0) || (r >= 1 && r <= 7 && hand[d - 1] > 0 && hand[d + 1] > 0) ||
           (r >= 2 && hand[d - 2] > 0 && hand[d - 1] > 0);
}

/* whether the seat (prior: seat_prior's record, or NULL; lost: the tiles it gave) is its prior state, whole (see
 * above) */
static int prior_serves(const SeatRecord *prior, uint64_t lost, const int8_t *hand, int m, int discard_turn,
                        int claim_tile, int chow_ok) {
    if (!prior || discard_turn || (claim_tile >= 0 && m >= 1 && claim_possible(hand, claim_tile, chow_ok))) return 0;
    return !(lost & prior->eff);
}

/* a seat its prior state serves whole (prior_serves): the melds-and-pair features of seat_features */
static void seat_from_prior(const SeatRecord *prior, int T, const int8_t *kb, int32_t *out_def, int32_t *out_disc,
                            uint8_t *out_eff, int64_t *out_count, int32_t *out_claim, int32_t *out_count_after,
                            int32_t *out_kong) {
    int64_t count = 0;
    *out_def = prior->def;
    memset(out_eff, 0, (size_t)T);
    for (uint64_t bits = prior->eff; bits; bits &= bits - 1) {
        int u = __builtin_ctzll(bits);
        out_eff[u] = 1;
        count += kb[u];
    }
    *out_count = count;
    for (int t = 0; t < T; t++) out_disc[t] = out_count_after[t] = out_kong[t] = NOT_APPLICABLE;
    for (int c = 0; c < 5; c++) out_claim[c] = NOT_APPLICABLE;
}

/* The features of one seat (see the module comment); T = 27 or 34. Each part's vectors (its own,
 * after each draw, after each discard) come from the part cache pc (NULL: none); the rows of a draw
 * or a discard join one of them with the other parts. The per-action rows of the discard turn
 * (out_count_after, out_kong) come from discard_features, which reuses this seat's part vectors.
 * Returns 1 when a prior state (seat_prior) narrowed the draws evaluated, else 0 (its callers serve
 * a seat that is its prior state whole first: prior_serves, seat_from_prior). */
static int seat_features(const Tables *tb, PartCache *pc, int T, const int8_t *hand, const int8_t *kb, int m,
                         int discard_turn, int claim_tile, int chow_ok, int32_t *out_def,
                         int32_t *out_disc, uint8_t *out_eff, int64_t *out_count, int32_t *out_claim,
                         int32_t *out_count_after, int32_t *out_kong, AfterDiscard *ad, const SeatRecord *prior,
                         const int (*seat_rows_in)[2]) {
    int rows[4][2]; /* per part: left / right half row (honours: h4 / h3 row) */
    int base[4][VEC], others[4][VEC];
    PartEntry scratch[4], *part[4] = {NULL, NULL, NULL, NULL};
    int nparts = T == 34 ? 4 : 3;

    if (seat_rows_in) /* the caller's (a local copy: the outputs' stores cannot change it) */
        memcpy(rows, seat_rows_in, sizeof rows);
    else
        seat_rows(T, hand, kb, rows);
    for (int P = 0; P < nparts; P++) {
        part[P] = part_entry(pc, &scratch[P], part, tb, P, rows[P][0], rows[P][1], m);
        widen(part[P]->base, base[P]);
    }
    if (nparts == 3) {
        /* no honours: the empty part, cost 0 for no meld and no pair, is min-plus's identity (every
         * other term adds BIG to a value below BIG); others[3] (the honours' others) is never read */
        for (int i = 0; i < VEC; i++) base[3][i] = BIG;
        base[3][0] = 0;
    }
    others_of(part, nparts, others, m);
    int now = final_value(base[0], others[0], m);
    *out_def = now;

    /* draws (every seat) and discards (the seat on its discard turn): one changed part each; with a
     * prior state of the same deficiency (seat_prior), only its effective draws can be effective */
    uint64_t maybe = prior && prior->def == now ? prior->eff : ~0ull;
    int count = 0;
    lanes other[4];
    for (int P = 0; P < nparts; P++) other[P] = others_lanes(others[P], m);
    /* bit t: KB copies of t / t in the hand (walked, no branch per tile) */
    uint64_t drawable = positive_bits(kb, T), held = positive_bits(hand, T);
    memset(out_eff, 0, (size_t)T);
    for (int t = 0; t < T; t++) out_disc[t] = NOT_APPLICABLE;
    /* the vectors the parts' entries lack first, then the rows over them (no branch per row) */
    for (uint64_t bits = drawable & maybe; bits; bits &= bits - 1) {
        int t = __builtin_ctzll(bits), P = part_of(t);
        if (!(part[P]->have_draw >> rank_of(t) & 1)) part_draw(part[P], tb, P, t);
    }
    for (uint64_t bits = discard_turn ? held : 0; bits; bits &= bits - 1) {
        int t = __builtin_ctzll(bits), P = part_of(t);
        if (!(part[P]->have_disc >> rank_of(t) & 1)) part_disc(part[P], tb, P, t, hand[t] + kb[t]);
    }
    /* a draw is effective when it lowers an entry where its part's sum is tight (part_tight) */
    unsigned tight[4];
    for (int P = 0; P < nparts; P++) tight[P] = part_tight(part[P]->base, other[P], now, m);
    for (uint64_t bits = drawable & maybe; bits; bits &= bits - 1) {
        int t = __builtin_ctzll(bits), P = part_of(t);
        int lt = (part_lowered(part[P]->draw[rank_of(t)], part[P]->base, m) & tight[P]) != 0;
        out_eff[t] = (uint8_t)lt;
        count += kb[t] & -lt;
    }
    for (uint64_t bits = discard_turn ? held : 0; bits; bits &= bits - 1) {
        int t = __builtin_ctzll(bits), P = part_of(t);
        out_disc[t] = final_lanes(part[P]->disc[rank_of(t)], other[P]);
    }
    *out_count = count;
    if (discard_turn)
        discard_features(tb, T, hand, kb, m, rows, part, base, others, now, out_eff, out_disc, out_count_after,
                         out_kong, ad);
    else
        for (int t = 0; t < T; t++) out_count_after[t] = out_kong[t] = NOT_APPLICABLE;

    /* claims of the discard d: chow low / mid / high, pong, kong; the meld's tiles leave the hand
     * and the KB stays: (h, a) -> (h - u, a - u) for the u copies of each tile the meld uses */
    for (int c = 0; c < 5; c++) out_claim[c] = NOT_APPLICABLE;
    if (claim_tile < 0 || m < 1) return maybe != ~0ull;
    int d = claim_tile, P = d < 27 ? d / 9 : 3, rank = d < 27 ? d % 9 : d - 27, suited = d < 27;
    static const int OFF[5][3] = {{1, 2, 0}, {-1, 1, 0}, {-2, -1, 0}, {0, 0, 0}, {0, 0, 0}};
    static const int NOFF[5] = {2, 2, 2, 2, 3};
    for (int c = 0; c < 5; c++) {
        if (c < 3) {
            if (!(chow_ok && suited)) continue;
            if (c == 0 && rank > 6) continue;
            if (c == 1 && (rank < 1 || rank > 7)) continue;
            if (c == 2 && rank < 2) continue;
        }
        int use[9] = {0};
        for (int i = 0; i < NOFF[c]; i++) use[rank + OFF[c][i]]++;
        int n = P < 3 ? 9 : 7, ok = 1, r2[2] = {0, 0};
        for (int r = 0; r < n; r++) {
            int t = 9 * P + r, h = hand[t] - use[r], a = hand[t] + kb[t] - use[r];
            if (h < 0) {
                ok = 0;
                break;
            }
            if (P < 3)
                r2[suit_half(r)] += code_of(h, a) * suit_weight(r);
            else
                r2[hon_half(r)] += code_of(h, a) * hon_weight(r);
        }
        if (!ok) continue;
        int v[VEC];
        part_vector(tb, P, r2[0], r2[1], v, m - 1);
        out_claim[c] = final_value(v, others[P], m - 1);
    }
    return maybe != ~0ull;
}

/* Per discard and per kong of the seat on its discard turn (hand H of 3m+2 tiles), for each held t:
 * the effective count of H - t (KB copies of the draws u that lower its deficiency; the discarded
 * copy does not return to the KB, as in ``features.effective_count_after_discard``), and the
 * deficiency after a kong of t: a concealed kong (4 held, m >= 1) leaves H - 4t with one meld less
 * to build, an added kong leaves H - t (its deficiency after_disc[t]). NOT_APPLICABLE where t is
 * not held. Called by seat_features with what it has computed: the half rows, the parts' cache
 * entries (each part's vector after each draw and discard), each part's vector (base), the join of
 * every part but P (others[P]), the deficiency of H (now) and its draws (eff).
 *
 * A row H - t + u differs from H in one part when u and t share it, else in two. So per t: the
 * vector of t's part without t (its entry's discard vector) joined with the parts other than u's,
 * the entries of u's part where its sum with that join is tight, and per draw in another part one
 * test of the entries its draw lowers (part_tight); a draw in t's own part changes one or both of
 * its halves: the other half joined with the other parts, then one pass per draw. Option codes are
 * linear in the changes:
 * discarding t moves its code by -(a + 1), drawing u by +1 (a = hand + KB).
 *
 * Only draws that can count are evaluated. The deficiency is monotone in the options (more tiles
 * held, or more copies available, never raise it), so d(H - t + u) >= d(H + u), and d(H + u) is
 * d(H) - 1 for the effective draws of H and d(H) for the others. A draw u can lower
 * D_t = after_disc[t] only if d(H + u) < D_t: every draw when D_t > d(H), only H's effective draws
 * when D_t = d(H) (D_t >= d(H) always). The skipped draws would have compared false: exact. */
static void discard_features(const Tables *tb, int T, const int8_t *hand, const int8_t *kb, int m,
                             int rows[4][2], PartEntry *part[4], int base[4][VEC], int others[4][VEC], int now,
                             const uint8_t *eff, const int32_t *after_disc, int32_t *out_count_after,
                             int32_t *out_kong, AfterDiscard *ad) {
    /* per part P and half h: the other half joined with the other parts (what a row changing only
     * half h is evaluated against), computed when first needed */
    uint8_t same[4][2][SUIT_ROW + 16];
    int have_same[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    /* the draws that can lower D_t (see above), as bits: the draws with KB copies, of which only H's
     * effective ones when D_t = d(H) */
    uint64_t drawable = positive_bits(kb, T), effective = nonzero_bits(eff, T), held = positive_bits(hand, T), cand[34];
    uint64_t any = 0; /* the draws some t may count */
    for (int t = 0; t < T; t++) {
        cand[t] = hand[t] <= 0 ? 0 : after_disc[t] > now ? drawable : after_disc[t] == now ? effective : 0;
        any |= cand[t];
    }
    /* a draw in another part than t's counts when it lowers an entry of its part's vector where that
     * vector's sum with every other part (t's without t) is tight (see part_tight): the entries each
     * draw lowers (part_lowered), as bits 2m + 1 - i, the order of the entries of the others' join
     * that entry i meets */
    uint16_t lowered[34];
    for (uint64_t bits = any; bits; bits &= bits - 1) {
        int u = __builtin_ctzll(bits), Q = part_of(u);
        lowered[u] = (uint16_t)(REVERSED[part_lowered(part_draw(part[Q], tb, Q, u), part[Q]->base, m)] >> (10 - 2 * m));
    }
    /* each part's vector reversed (lane j: entry 2m + 1 - j, 255 past), to meet the join of the others */
    lanes reversed[4];
    for (int Q = 0; Q < (T == 34 ? 4 : 3); Q++) {
        uint8_t x[16];
        memset(x, 255, sizeof x);
        for (int j = 0; j <= 2 * m + 1; j++) x[j] = part[Q]->base[2 * m + 1 - j];
        reversed[Q] = lanes_load(x);
    }
    /* the rows of t's half with t discarded and u drawn are not in the cache: start loading every
     * one that will be read before any is (the table is mostly cache misses) */
    for (uint64_t held_bits = held; held_bits; held_bits &= held_bits - 1) {
        int t = __builtin_ctzll(held_bits);
        int P = part_of(t), h = half_of(t), row = rows[P][h] - (hand[t] + kb[t] + 1) * weight_of(t);
        for (uint64_t bits = cand[t] & HALF_TILES[P][h]; bits; bits &= bits - 1) {
            const uint8_t *x = half_row(tb, P, h, row + weight_of(__builtin_ctzll(bits)));
            if (P < 3)
                prefetch_row(x, 2 * (m + 1) * NBOUND); /* what half_value reads */
            else
                PREFETCH(x);
        }
    }
    if (ad) {
        ad->used = 1, ad->T = (uint8_t)T, ad->m = (uint8_t)m;
        memcpy(ad->hand, hand, (size_t)T);
        memcpy(ad->kb, kb, (size_t)T);
    }
    lanes pairs[4][4][2]; /* [x][y], x < y: parts x and y joined, as they are: the join and its odd lanes 255 */
    int have_pair[4][4] = {{0}};
    /* the draws in the other parts: per held t, their count and bits; a t whose part vector without
     * it equals an earlier t's (of its part) has the same D and the same values there */
    int other_count[34];
    uint64_t other_lower[34];
    for (int t = 0; t < T; t++) out_count_after[t] = out_kong[t] = NOT_APPLICABLE;
    /* first the draws in the other parts of every t (no table row: the rows loading meanwhile), then
     * those in t's part */
    for (uint64_t held_bits = held; held_bits; held_bits &= held_bits - 1) {
        int t = __builtin_ctzll(held_bits);
        int P = part_of(t), a = hand[t] + kb[t], D = after_disc[t];
        int count = 0;
        uint64_t lower = 0; /* the draws counted */
        const uint8_t *without_t = part_disc(part[P], tb, P, t, a);
        int twin = -1;
        for (uint64_t bits = held & PART_TILES[P] & ((1ull << t) - 1); bits && twin < 0; bits &= bits - 1) {
            int t2 = __builtin_ctzll(bits); /* an earlier held tile of t's part (its vector is computed) */
            if (memcmp(part_disc(part[P], tb, P, t2, hand[t2] + kb[t2]), without_t, VEC) == 0) twin = t2;
        }
        if (twin >= 0) {
            other_count[t] = other_count[twin];
            other_lower[t] = other_lower[twin];
        } else {
            for (int Q = 0; Q < 4; Q++) {
                uint64_t bits = cand[t] & PART_TILES[Q];
                if (Q == P || !bits) continue;
                /* every part but Q, with P's vector the one without t: P's vector joined with the
                 * two parts other than P and Q, whose join does not depend on t (computed once per
                 * pair). Min-plus of nonnegative vectors capped at BIG (or INF) is associative and
                 * commutative, so the order of the joins does not change a value below INF. */
                int x[2], n = 0;
                for (int R = 0; R < 4; R++)
                    if (R != Q && R != P) x[n++] = R;
                lanes *pair = pairs[x[0]][x[1]];
                if (!have_pair[x[0]][x[1]]) {
                    int j[VEC];
                    uint8_t y[16];
                    minplus(base[x[0]], base[x[1]], j, m);
                    memset(y, INF, sizeof y);
                    for (int i = 0; i <= 2 * m + 1; i++) y[i] = (uint8_t)(j[i] < INF ? j[i] : INF);
                    pair[0] = lanes_load(y);
                    for (int i = 1; i < 16; i += 2) y[i] = 255;
                    pair[1] = lanes_load(y);
                    have_pair[x[0]][x[1]] = 1;
                }
                /* the entries where Q's sum with them is tight, as bits 2m + 1 - i (lowered's order);
                 * the join saturates at 255, which no sum equal to D < INCOMPLETABLE meets */
                lanes rest = minplus_lanes(without_t, pair[0], pair[1], m);
                unsigned tight = tight_entries(lanes_adds(rest, reversed[Q]), D, m);
                for (; bits; bits &= bits - 1) {
                    int u = __builtin_ctzll(bits), lt = (lowered[u] & tight) != 0;
                    count += kb[u] & -lt;
                    lower |= (uint64_t)lt << u;
                }
            }
            other_count[t] = count;
            other_lower[t] = lower;
        }
    }
    for (uint64_t held_bits = held; held_bits; held_bits &= held_bits - 1) {
        int t = __builtin_ctzll(held_bits);
        int P = part_of(t), a = hand[t] + kb[t], h = half_of(t), D = after_disc[t];
        int r[2] = {rows[P][0], rows[P][1]};
        r[h] -= (a + 1) * weight_of(t);
        int count = other_count[t];
        uint64_t lower = other_lower[t];
        /* both halves change: t's half (without t) joined first (the other half's rows are the draws') */
        uint64_t bits = cand[t] & HALF_TILES[P][1 - h];
        if (bits) {
            uint8_t changed[SUIT_ROW + 16];
            join_part_half(tb, P, h, r[h], others[P], m, changed);
            for (; bits; bits &= bits - 1) {
                int u = __builtin_ctzll(bits);
                int lt = part_half_value(tb, P, 1 - h, rows[P][1 - h] + weight_of(u), changed, m) < D;
                count += kb[u] & -lt;
                lower |= (uint64_t)lt << u;
            }
        }
        /* t's half changes twice; the other half as it is */
        bits = cand[t] & HALF_TILES[P][h];
        if (bits && !have_same[P][h]) {
            join_part_half(tb, P, 1 - h, rows[P][1 - h], others[P], m, same[P][h]);
            have_same[P][h] = 1;
        }
        for (; bits; bits &= bits - 1) {
            int u = __builtin_ctzll(bits), lt = part_half_value(tb, P, h, r[h] + weight_of(u), same[P][h], m) < D;
            count += kb[u] & -lt;
            lower |= (uint64_t)lt << u;
        }
        out_count_after[t] = count;
        if (ad) {
            ad->def[t] = (int8_t)D;
            ad->count[t] = (int16_t)count;
            ad->eff[t] = lower;
        }
        out_kong[t] = D;
        if (hand[t] >= 4 && m >= 1) { /* concealed: its own vector without the four, one meld less */
            int rk[2] = {rows[P][0], rows[P][1]}, w[VEC];
            rk[h] -= (code_of(4, 4) - code_of(0, 0)) * weight_of(t);
            part_vector(tb, P, rk[0], rk[1], w, m - 1);
            out_kong[t] = final_value(w, others[P], m - 1);
        }
    }
}

/* ---- the closed-hand forms: seven pairs, thirteen orphans ----------------------------------------
 * Where a rule set lets seven pairs win (or seven distinct pairs or thirteen orphans, form 3),
 * a seat with no declared meld (m == melds) may complete melds-and-pair or the closed form: every
 * feature becomes the minimum of the two, and a draw is effective when it lowers that minimum. The
 * closed form's half is ``_closed.h`` (closed_offers: a tile's counts packed in one int64, so a
 * variant is one add; closed_value: the deficiency from their sum), the twin of
 * ``mjenv/deficiency/seven_pairs.py``. Applied after seat_features (and after the memo, which keeps
 * the melds-and-pair features; observe's seats keep the outputs with the form too: memo_close). */
/* The features of one seat (seat_features' outputs, updated in place) with a closed-hand form (1:
 * seven distinct pairs, 2: a four of a kind is two pairs, 3: seven distinct pairs or thirteen
 * orphans). Each draw moves either deficiency by at most one, so a draw lowers min(o, s) exactly when
 * it lowers the smaller (either, on a tie): the draws of the melds-and-pair half are seat_features'
 * effective bits. The effective count after discarding t on a tie needs those bits of H - t, which
 * discard_features leaves per t in an AfterDiscard: ``ad``, the memo's last discard turn, when it is
 * this seat's (the whole input compared), else one seat_features of the discard turn computes them
 * for every t at once. The claims and a concealed kong leave a declared meld: those rows keep
 * melds-and-pair; the added-kong rows are the hand minus t, as a discard. */
/* The draws of a seat (hand, KB) by their class (DRAW_CLASS: the value of a sum plus a class's step is found once
 * per class, not once per draw): cls_mask[k] bit u when u has KB copies and its draw is in class k. Returns the
 * number of classes (some may have no draw). */
static int draw_classes(int form, int T, const int8_t *hand, const int8_t *kb, uint64_t *cls_mask) {
    const int ncls = NUM_CLASSES[form];
    const uint8_t(*cls)[5][5] = DRAW_CLASS[form];
    for (int k = 0; k < ncls; k++) cls_mask[k] = 0;
    for (int u = 0; u < T; u++) cls_mask[cls[TILE_ORPHAN[u]][hand[u]][hand[u] + kb[u]]] |= (uint64_t)(kb[u] > 0) << u;
    return ncls;
}

static void seven_pairs_seat(const Tables *tb, int T, int form, const int8_t *hand, const int8_t *kb, int m,
                             int discard_turn, int32_t *out_def, int32_t *out_disc, uint8_t *out_eff,
                             int64_t *out_count, int32_t *out_count_after, int32_t *out_kong,
                             const AfterDiscard *ad) {
    AfterDiscard own;
    const AfterDiscard *rows_t = NULL; /* per held t, the melds-and-pair effective draws of H - t */
    const int64_t(*of)[5][5] = CLOSED_OFFERS[form]; /* closed_offers(form, t, h, a) as of[orphan t][h][a] */
    int64_t offers[34], total = 0;
    for (int t = 0; t < T; t++) total += offers[t] = of[TILE_ORPHAN[t]][hand[t]][hand[t] + kb[t]];
    int o = *out_def, s = closed_value(form, total);
    /* the draws by the step they add (draw_classes), found when first needed: with s > o the closed form
     * changes none of the seat's own features (the min is o, and a draw lowers it exactly when it lowers o: the
     * effective draws and count seat_features gave), so a seat not on its discard turn is done */
    const int64_t *cls_step = CLASS_STEP[form];
    uint64_t cls_mask[MAX_CLASSES];
    int ncls = -1;
    if (s <= o) {
        ncls = draw_classes(form, T, hand, kb, cls_mask);
        *out_def = s;
        uint64_t lower = 0; /* the draws lowering the closed form */
        for (int k = 0; k < ncls; k++)
            if (closed_value(form, total + cls_step[k]) < s) lower |= cls_mask[k];
        int64_t count = 0;
        for (int u = 0; u < T; u++) {
            if (kb[u] <= 0) continue;
            int e = (o == s && out_eff[u]) || (lower >> u & 1);
            out_eff[u] = (uint8_t)e;
            count += kb[u] & -e;
        }
        *out_count = count;
    }
    if (!discard_turn) return;
    for (int t = 0; t < T; t++) {
        if (hand[t] <= 0) continue;
        int a = hand[t] + kb[t];
        int64_t left = of[TILE_ORPHAN[t]][hand[t] - 1][a - 1], tot = total - offers[t] + left;
        int ot = out_disc[t], st = closed_value(form, tot);
        out_disc[t] = ot < st ? ot : st;
        if (hand[t] < 4) out_kong[t] = out_disc[t];
        if (st > ot) continue; /* melds-and-pair alone decides: seat_features' count */
        if (ncls < 0) ncls = draw_classes(form, T, hand, kb, cls_mask);
        /* the draws lowering the closed form of H - t: by class, t itself (one copy less) on its own */
        uint64_t sp = 0, bt = 1ull << t;
        for (int k = 0; k < ncls; k++)
            if (closed_value(form, tot + cls_step[k]) < st) sp |= cls_mask[k];
        sp &= ~bt;
        if (kb[t] > 0 && closed_value(form, tot - left + of[TILE_ORPHAN[t]][hand[t]][a - 1]) < st) sp |= bt;
        uint64_t draws = sp;
        if (st == ot && sp) { /* a tie: the draws that lower either half of H - t */
            if (rows_t == NULL) { /* discard_features' bits of every H - t: the memo's, or computed once */
                if (ad && ad->used && ad->T == T && ad->m == m && !memcmp(ad->hand, hand, (size_t)T) &&
                    !memcmp(ad->kb, kb, (size_t)T)) {
                    rows_t = ad;
                } else {
                    int32_t d, disc[34], claim[5], ca[34], kong[34];
                    uint8_t eff[34];
                    int64_t cnt;
                    own.used = 0;
                    seat_features(tb, NULL, T, hand, kb, m, 1, -1, 0, &d, disc, eff, &cnt, claim, ca, kong, &own,
                                  NULL, NULL);
                    rows_t = &own;
                }
            }
            draws |= rows_t->eff[t];
        }
        if (st == ot && !sp) continue; /* a tie with no closed-form draw: the ordinary count */
        int64_t c = 0;
        for (uint64_t bits = draws & ((2ull << (T - 1)) - 1); bits; bits &= bits - 1) c += kb[__builtin_ctzll(bits)];
        out_count_after[t] = (int32_t)c;
    }
}

/* ---- a small memo of whole seats, owned by the caller -----------------------------------------
 * Between a claim window and the next draw, the three seats that did not draw keep their hand and
 * their KB: their features (without claims) are those of the window. The memo keeps the last
 * seats seen, direct-mapped by a hash of (T, m, discard turn, the 34 option codes), and serves a
 * seat with no claim tile from it. The key is the whole input, so a hit returns exactly what
 * seat_features would (observe's seats: with their closed-hand form applied, memo_close). A memo is a plain byte buffer the caller owns (``kernel.new_memo()``, one per
 * table): it is copied and pickled with the table and never shared between tables, so tables
 * stepped together do not evict each other's seats. NULL: no memo. */
#define MEMO_SIZE 64
#define KEY_BYTES 40 /* five 8-byte words */
typedef struct {
    uint8_t key[KEY_BYTES]; /* T, m, discard turn, codes[0..33] (unused codes 0), three zeros */
    uint8_t used;
    int32_t def;
    int64_t count;
    uint8_t eff[34];
    int8_t disc[34];         /* deficiencies <= 99 (bytes: an entry is four cache lines, not six) */
    int16_t count_after[34]; /* the discard turn's rows (discard_features) */
    int8_t kong[34];
    uint8_t closed;  /* 0: the melds-and-pair features; else the closed-hand form (seven_pairs_seat) they include */
    int8_t mp_def;   /* with a form: the melds-and-pair deficiency and effective draws (the seat's record) */
    uint64_t mp_eff;
} MemoEntry;
typedef struct {
    uint64_t hits, misses, after_hits, prior_hits;
    MemoEntry entry[MEMO_SIZE];
    AfterDiscard after; /* the last discard turn's H - t (see above) */
    SeatRecord seat[4]; /* each seat's last state (see above) */
    PartCache parts;    /* the part cache of the seats computed (see above) */
} Memo;

static void memo_key(int T, const uint8_t *codes, int m, int discard_turn, uint8_t *key) {
    memset(key, 0, KEY_BYTES);
    key[0] = (uint8_t)T;
    key[1] = (uint8_t)m;
    key[2] = (uint8_t)discard_turn;
    memcpy(key + 3, codes, (size_t)T);
}

/* a seat's memo key (from its option codes) and slot (NULL without a memo); the slot is set loading
 * (memo_serve reads it) */
static MemoEntry *memo_find(Memo *memo, int T, const uint8_t *codes, int m, int discard_turn, uint8_t *key) {
    if (!memo) return NULL;
    memo_key(T, codes, m, discard_turn, key);
    static const uint64_t MIX[5] = {0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull,
                                    0xD6E8FEB86659FD93ull, 0xFF51AFD7ED558CCDull};
    uint64_t h = 0;
    for (int i = 0; i < 5; i++) { /* independent multiplies, not a byte-serial chain */
        uint64_t w;
        memcpy(&w, key + 8 * i, 8);
        h ^= (w + (uint64_t)i) * MIX[i];
    }
    MemoEntry *e = &memo->entry[((h ^ h >> 29) * 0x94D049BB133111EBull >> 32) % MEMO_SIZE];
    for (size_t i = 0; i < sizeof(MemoEntry); i += 64) PREFETCH((const uint8_t *)e + i);
    return e;
}

/* whether memo_serve will serve a seat (no change to the memo): form is the closed-hand form the caller applies to
 * the seat after the memo (0 none); an entry that includes a form serves only a caller of that form */
static inline int memo_has(const Memo *memo, const MemoEntry *e, const uint8_t *key, int claim_tile, int form) {
    return memo && claim_tile < 0 && e->used && (!e->closed || e->closed == form) &&
           memcmp(e->key, key, KEY_BYTES) == 0;
}

/* A seat with no discard turn and no claim tile that is the last discard turn's H - t (see
 * AfterDiscard): its outputs from the record, 1; else 0 */
static int after_discard_serve(const AfterDiscard *ad, int T, const int8_t *hand, const int8_t *kb, int m,
                               int32_t *out_def, int32_t *out_disc, uint8_t *out_eff, int64_t *out_count,
                               int32_t *out_count_after, int32_t *out_kong) {
    if (!ad->used || ad->T != T || ad->m != m || memcmp(ad->kb, kb, (size_t)T) != 0) return 0;
    int x = -1;
    for (int t = 0; t < T; t++) {
        int d = ad->hand[t] - hand[t];
        if (d == 0) continue;
        if (d != 1 || x >= 0) return 0;
        x = t;
    }
    if (x < 0) return 0;
    *out_def = ad->def[x];
    *out_count = ad->count[x];
    for (int u = 0; u < T; u++) {
        out_eff[u] = (uint8_t)(ad->eff[x] >> u & 1);
        out_disc[u] = out_count_after[u] = out_kong[u] = NOT_APPLICABLE;
    }
    return 1;
}

/* Serve a seat from its memo slot e (memo_find): 1 (outputs written) when the seat's key is there and
 * it has no claim tile (a seat with a claim tile is always computed, since the claim rows need the
 * part vectors); 2 (outputs written, to be stored with memo_store) when it is the last discard
 * turn's H - t (after_discard_serve); else 0, and the caller computes the seat and stores it. */
static int memo_serve(Memo *memo, MemoEntry *e, const uint8_t *key, int T, const int8_t *hand, const int8_t *kb,
                      int m, int discard_turn, int claim_tile, int form, int32_t *out_def, int32_t *out_disc,
                      uint8_t *out_eff, int64_t *out_count, int32_t *out_claim, int32_t *out_count_after,
                      int32_t *out_kong) {
    if (!memo) return 0;
    if (memo_has(memo, e, key, claim_tile, form)) {
        memo->hits++;
        *out_def = e->def;
        *out_count = e->count;
        memcpy(out_eff, e->eff, (size_t)T);
        for (int c = 0; c < 5; c++) out_claim[c] = NOT_APPLICABLE;
        for (int t = 0; t < T; t++) {
            out_disc[t] = e->disc[t];
            out_count_after[t] = e->count_after[t];
            out_kong[t] = e->kong[t];
        }
        return 1;
    }
    memo->misses++;
    if (!discard_turn && claim_tile < 0 &&
        after_discard_serve(&memo->after, T, hand, kb, m, out_def, out_disc, out_eff, out_count, out_count_after,
                            out_kong)) {
        memo->after_hits++;
        for (int c = 0; c < 5; c++) out_claim[c] = NOT_APPLICABLE;
        return 2;
    }
    return 0;
}

/* Store a computed seat in its slot (from memo_serve; NULL: no memo). Stored with or without a
 * claim tile: the rows other than the claims do not depend on it. */
static void memo_store(MemoEntry *e, int T, const uint8_t *key, int32_t def, const int32_t *disc, const uint8_t *eff,
                       int64_t count, const int32_t *count_after, const int32_t *kong) {
    if (!e) return;
    memcpy(e->key, key, KEY_BYTES);
    e->used = 1;
    e->closed = 0;
    e->def = def;
    e->count = count;
    memcpy(e->eff, eff, (size_t)T);
    for (int t = 0; t < T; t++) { /* counts <= 4 * 34, deficiencies <= 99 */
        e->disc[t] = (int8_t)disc[t];
        e->count_after[t] = (int16_t)count_after[t];
        e->kong[t] = (int8_t)kong[t];
    }
}

/* A seat's outputs with the closed-hand form applied (seven_pairs_seat) stored in its slot e under its key, with
 * the melds-and-pair deficiency and draws its record needs on a hit (NULL e: no memo) */
static void memo_close(MemoEntry *e, int T, const uint8_t *key, int form, int32_t def, const int32_t *disc,
                       const uint8_t *eff, int64_t count, const int32_t *count_after, const int32_t *kong, int mp_def,
                       uint64_t mp_eff) {
    if (!e) return;
    memo_store(e, T, key, def, disc, eff, count, count_after, kong);
    e->closed = (uint8_t)form;
    e->mp_def = (int8_t)mp_def;
    e->mp_eff = mp_eff;
}

/* seat_features through the memo (memo_serve, else compute and memo_store) */
static void seat_features_memo(Memo *memo, int seat, const Tables *tb, int T, const int8_t *hand, const int8_t *kb,
                               int m, int discard_turn, int claim_tile, int chow_ok, int32_t *out_def,
                               int32_t *out_disc, uint8_t *out_eff, int64_t *out_count, int32_t *out_claim,
                               int32_t *out_count_after, int32_t *out_kong, AfterDiscard *scratch) {
    /* the discard turn's rows of H - t go to the memo's record, or without a memo to ``scratch`` (NULL:
     * nowhere) */
    AfterDiscard *ad = memo ? &memo->after : scratch;
    uint8_t key[KEY_BYTES], codes[34];
    int rows[4][2];
    seat_codes(T, hand, kb, codes);
    rows_of_codes(T, codes, rows);
    MemoEntry *e = memo_find(memo, T, codes, m, discard_turn, key);
    SeatRecord *rec = memo ? &memo->seat[seat] : NULL;
    int served = memo_serve(memo, e, key, T, hand, kb, m, discard_turn, claim_tile, 0, out_def, out_disc, out_eff,
                            out_count, out_claim, out_count_after, out_kong);
    if (!served) {
        PartCache *pc = memo ? &memo->parts : NULL;
        uint64_t lost = 0;
        const SeatRecord *prior = seat_prior(rec, T, hand, kb, m, &lost);
        if (prior_serves(prior, lost, hand, m, discard_turn, claim_tile, chow_ok)) {
            seat_from_prior(prior, T, kb, out_def, out_disc, out_eff, out_count, out_claim, out_count_after, out_kong);
            memo->prior_hits++;
        } else {
            prefetch_seat(tb, pc, T, rows, hand, kb, m, discard_turn, prior ? prior->eff : ~0ull);
            if (seat_features(tb, pc, T, hand, kb, m, discard_turn, claim_tile, chow_ok, out_def, out_disc, out_eff,
                              out_count, out_claim, out_count_after, out_kong, ad, prior, (const int(*)[2])rows))
                memo->prior_hits++;
        }
    }
    if (served != 1) memo_store(e, T, key, *out_def, out_disc, out_eff, *out_count, out_count_after, out_kong);
    seat_record(rec, T, hand, kb, m, *out_def, out_eff);
}

/* a caller's memo buffer: NULL when it is empty (no memo), an error when it has the wrong size */
static int as_memo(Py_buffer *b, Memo **memo) {
    if (b->len == 0) {
        *memo = NULL;
        return 1;
    }
    if (b->len != (Py_ssize_t)sizeof(Memo)) {
        PyErr_Format(PyExc_ValueError, "memo has %zd bytes, expected %zd (kernel.new_memo())", b->len,
                     (Py_ssize_t)sizeof(Memo));
        return 0;
    }
    *memo = b->buf;
    return 1;
}

static int need_size(Py_buffer *b, Py_ssize_t n, const char *name) {
    if (b->len != n) {
        PyErr_Format(PyExc_ValueError, "features(): %s has %zd bytes, expected %zd", name, b->len, n);
        return 0;
    }
    return 1;
}

/* the lookup tables: the two suit halves always, the honour tables for T = 34 */
static int need_tables(Py_ssize_t T, Py_buffer *left, Py_buffer *right, Py_buffer *h4, Py_buffer *h3) {
    return need_size(left, (Py_ssize_t)759375 * SUIT_ROW, "left") && need_size(right, (Py_ssize_t)50625 * SUIT_ROW, "right") &&
           (T != 34 || (need_size(h4, (Py_ssize_t)50625 * VEC, "h4") && need_size(h3, (Py_ssize_t)3375 * VEC, "h3")));
}

/* unseen(copies, hands, public, seats, out): out[g, s, t] = copies - hands[g, s, t] - public[g, t], int8,
 * hands and out [G, seats, T], public [G, T] (T from its last axis: public holds G * T, hands
 * seats times as many): mjenv.knowledge's knowledge-base formula in one pass, without numpy's
 * broadcasting set-up (a few microseconds on arrays this small). */
static PyObject *py_unseen(PyObject *self, PyObject *args) {
    (void)self;
    int copies;
    Py_ssize_t seats, T;
    Py_buffer hands, pub, out;
    if (!PyArg_ParseTuple(args, "iy*y*nnw*", &copies, &hands, &pub, &seats, &T, &out)) return NULL;
    PyObject *result = NULL;
    if (seats < 1 || T < 1 || pub.len % T != 0 || hands.len != seats * pub.len || out.len != hands.len) {
        PyErr_Format(PyExc_ValueError, "unseen(): hands (%zd bytes), public (%zd) and out (%zd) do not fit %zd seats "
                     "of %zd tile types", hands.len, pub.len, out.len, seats, T);
        goto done;
    }
    const int8_t *h = hands.buf, *p = pub.buf;
    int8_t *o = out.buf;
    for (Py_ssize_t g = 0; g < pub.len / T; g++, p += T)
        for (Py_ssize_t s = 0; s < seats; s++)
            for (Py_ssize_t t = 0; t < T; t++) *o++ = (int8_t)(copies - *h++ - p[t]);
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&hands);
    PyBuffer_Release(&pub);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *py_features(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer left, right, h4, h3, hands, kbs, needed, dturn, claim, chow, o_def, o_disc, o_eff, o_cnt, o_claim, o_ca,
        o_kong, mem;
    int form = 0, melds = 4; /* seven pairs: optional, none by default */
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*w*w*w*w*w*w*w*w*|ii", &left, &right, &h4, &h3, &hands, &kbs,
                          &needed, &dturn, &claim, &chow, &o_def, &o_disc, &o_eff, &o_cnt, &o_claim, &o_ca, &o_kong,
                          &mem, &form, &melds))
        return NULL;
    Py_buffer *all[18] = {&left, &right, &h4, &h3, &hands, &kbs, &needed, &dturn, &claim, &chow,
                          &o_def, &o_disc, &o_eff, &o_cnt, &o_claim, &o_ca, &o_kong, &mem};
    Memo *memo;
    PyObject *result = NULL;
    Py_ssize_t S = needed.len / 8;
    Py_ssize_t T = S > 0 ? hands.len / S : 27;
    if (S > 0 && T != 27 && T != 34) {
        PyErr_Format(PyExc_ValueError, "features(): hands must hold 27 or 34 tile types per seat, got %zd", T);
        goto done;
    }
    if (form < 0 || form > 3) {
        PyErr_Format(PyExc_ValueError, "features(): closed-hand form %d outside 0..3", form);
        goto done;
    }
    if (!need_tables(T, &left, &right, &h4, &h3) || !need_size(&hands, S * T, "hands") || !need_size(&kbs, S * T, "kbs") || !need_size(&dturn, S, "discard_turn") ||
        !need_size(&claim, S * 8, "claim_tile") || !need_size(&chow, S, "chow_ok") || !need_size(&o_def, S * 4, "out_deficiency") ||
        !need_size(&o_disc, S * T * 4, "out_after_discard") || !need_size(&o_eff, S * T, "out_effective") ||
        !need_size(&o_cnt, S * 8, "out_count") || !need_size(&o_claim, S * 5 * 4, "out_after_claim") ||
        !need_size(&o_ca, S * T * 4, "out_count_after_discard") || !need_size(&o_kong, S * T * 4, "out_after_kong") ||
        !as_memo(&mem, &memo))
        goto done;
    const int8_t *H = hands.buf, *K = kbs.buf;
    const int64_t *M = needed.buf, *C = claim.buf;
    const uint8_t *DT = dturn.buf, *CO = chow.buf;
    for (Py_ssize_t s = 0; s < S; s++) {
        for (Py_ssize_t t = 0; t < T; t++) {
            int h = H[s * T + t], k = K[s * T + t];
            if (h < 0 || k < 0 || h + k > 4) {
                PyErr_Format(PyExc_ValueError, "features(): seat %zd tile %zd has hand %d and KB %d; "
                             "need 0 <= hand, 0 <= KB, hand + KB <= 4", s, t, h, k);
                goto done;
            }
        }
        if (M[s] < 0 || M[s] >= KM) {
            PyErr_Format(PyExc_ValueError, "features(): melds_needed %lld outside 0..%d", (long long)M[s], KM - 1);
            goto done;
        }
        if (C[s] >= T) {
            PyErr_Format(PyExc_ValueError, "features(): claim tile %lld outside -1..%zd", (long long)C[s], T - 1);
            goto done;
        }
    }
    Tables tb = {left.buf, right.buf, h4.buf, h3.buf};
    AfterDiscard scratch; /* without a memo, where the closed form finds the discard turn's rows */
    scratch.used = 0;
    for (Py_ssize_t s = 0; s < S; s++) {
        seat_features_memo(memo, (int)(s & 3), &tb, (int)T, H + s * T, K + s * T, (int)M[s], DT[s],
                           C[s] < 0 ? -1 : (int)C[s], CO[s], (int32_t *)o_def.buf + s, (int32_t *)o_disc.buf + s * T,
                           (uint8_t *)o_eff.buf + s * T, (int64_t *)o_cnt.buf + s, (int32_t *)o_claim.buf + s * 5,
                           (int32_t *)o_ca.buf + s * T, (int32_t *)o_kong.buf + s * T, form ? &scratch : NULL);
        /* a closed-hand form: after the memo, which keeps the melds-and-pair features, and right after
         * the seat, so that the last discard turn's rows (the memo's, or scratch) are this seat's */
        if (form && M[s] == melds)
            seven_pairs_seat(&tb, (int)T, form, H + s * T, K + s * T, (int)M[s], DT[s], (int32_t *)o_def.buf + s,
                             (int32_t *)o_disc.buf + s * T, (uint8_t *)o_eff.buf + s * T, (int64_t *)o_cnt.buf + s,
                             (int32_t *)o_ca.buf + s * T, (int32_t *)o_kong.buf + s * T,
                             memo ? &memo->after : &scratch);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int i = 0; i < 18; i++) PyBuffer_Release(all[i]);
    return result;
}

/* Fill the state record st[L] of one state from its sources: F array buffers (int8 or int16, each
 * copied to fields[f] = (offset, length, add) with ``add`` added) and a sequence of ints copied to
 * the rest of the record from scalar_start. */
#define MAX_STATE 4096
static int fill_state(PyObject *sources, const int32_t *fields, Py_ssize_t F, Py_ssize_t scalar_start, Py_ssize_t L,
                      int16_t *st) {
    PyObject *seq = PySequence_Fast(sources, "observe(): each state must be a sequence of sources");
    if (!seq) return 0;
    int ok = 0;
    if (PySequence_Fast_GET_SIZE(seq) != F + 1) {
        PyErr_Format(PyExc_ValueError, "observe(): a state has %zd sources, expected %zd", PySequence_Fast_GET_SIZE(seq),
                     F + 1);
        goto out;
    }
    for (Py_ssize_t f = 0; f < F; f++) {
        Py_buffer b;
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(seq, f), &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto out;
        int32_t off = fields[3 * f], len = fields[3 * f + 1], add = fields[3 * f + 2];
        int good = b.itemsize == 1 || b.itemsize == 2;
        if (good && b.len / b.itemsize == len) {
            if (b.itemsize == 1)
                for (int32_t j = 0; j < len; j++) st[off + j] = (int16_t)(((const int8_t *)b.buf)[j] + add);
            else
                for (int32_t j = 0; j < len; j++) st[off + j] = (int16_t)(((const int16_t *)b.buf)[j] + add);
        } else {
            PyErr_Format(PyExc_ValueError, "observe(): source %zd must be %d int8 or int16 values, got %zd bytes of "
                         "item size %zd", f, len, b.len, b.itemsize);
            good = 0;
        }
        PyBuffer_Release(&b);
        if (!good) goto out;
    }
    PyObject *sc = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, F), "observe(): the scalars must be a sequence");
    if (!sc) goto out;
    if (PySequence_Fast_GET_SIZE(sc) != L - scalar_start) {
        PyErr_Format(PyExc_ValueError, "observe(): %zd scalars, expected %zd", PySequence_Fast_GET_SIZE(sc),
                     L - scalar_start);
        Py_DECREF(sc);
        goto out;
    }
    for (Py_ssize_t j = scalar_start; j < L; j++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(sc, j - scalar_start));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(sc);
            goto out;
        }
        if (v < INT16_MIN || v > INT16_MAX) {
            PyErr_Format(PyExc_ValueError, "observe(): scalar %ld outside int16", v);
            Py_DECREF(sc);
            goto out;
        }
        st[j] = (int16_t)v;
    }
    Py_DECREF(sc);
    ok = 1;
out:
    Py_DECREF(seq);
    return ok;
}

/* A writer plan bound once (``bind``): the plan checked and copied, the lookup tables held. */
#define PLAN_CAPSULE "mjenv.deficiency._kernel.plan"
typedef struct {
    Py_buffer tables[4]; /* left, right, h4, h3: held while the plan lives */
    Tables tb;
    int32_t *copies, *onehots, *fields, fin[6], fout[NUM_OUTPUTS];
    Py_ssize_t R, K, F, scalar_start, L, size;
    int T;
    int seven, melds; /* seven pairs: form (0 none) and the melds of a closed hand */
    int missing;      /* state offset of the excluded-suit one-hots [4, 3] (a room's), -1 none */
} Plan;

static void plan_free(PyObject *capsule) {
    Plan *p = PyCapsule_GetPointer(capsule, PLAN_CAPSULE);
    if (!p) return;
    for (int i = 0; i < 4; i++) PyBuffer_Release(&p->tables[i]);
    PyMem_Free(p->copies);
    PyMem_Free(p->onehots);
    PyMem_Free(p->fields);
    PyMem_Free(p);
}

static int32_t *copy_ints(const Py_buffer *b) {
    int32_t *out = PyMem_Malloc(b->len > 0 ? (size_t)b->len : 1);
    if (!out) PyErr_NoMemory();
    else if (b->len > 0) memcpy(out, b->buf, (size_t)b->len);
    return out;
}

/* bind(): check a writer plan once and keep it with the tables (see the module comment) */
static PyObject *py_bind(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer tabs[4], copies, onehots, fin, fout, fields;
    int T, seven = 0, melds = 4, missing = -1;
    Py_ssize_t L, scalar_start, size;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*nnin|iii", &tabs[0], &tabs[1], &tabs[2], &tabs[3], &copies,
                          &onehots, &fin, &fout, &fields, &scalar_start, &L, &T, &size, &seven, &melds, &missing))
        return NULL;
    Py_buffer *all[5] = {&copies, &onehots, &fin, &fout, &fields};
    PyObject *result = NULL;
    Plan *plan = NULL;
    Py_ssize_t R = copies.len / 16, K = onehots.len / 16, F = fields.len / 12;
    const int32_t *CP = copies.buf, *OH = onehots.buf, *FI = fin.buf, *FO = fout.buf, *FL = fields.buf;
    if (T != 27 && T != 34) {
        PyErr_Format(PyExc_ValueError, "observe(): T must be 27 or 34, got %d", T);
        goto done;
    }
    if (seven < 0 || seven > 3) {
        PyErr_Format(PyExc_ValueError, "observe(): closed-hand form %d outside 0..3", seven);
        goto done;
    }
    if (missing < -1 || missing + 12 > L || (missing >= 0 && T != 27)) {
        PyErr_Format(PyExc_ValueError, "observe(): missing-suit one-hots at %d do not fit (27 tile types, "
                     "12 entries in the state)", missing);
        goto done;
    }
    if (L < 1 || L > MAX_STATE || scalar_start < 0 || scalar_start > L || size < 0) {
        PyErr_Format(PyExc_ValueError, "observe(): state length %zd outside 1..%d", L, MAX_STATE);
        goto done;
    }
    if (!need_tables(T, &tabs[0], &tabs[1], &tabs[2], &tabs[3]) || !need_size(&fin, 24, "feature_inputs") ||
        !need_size(&fout, 4 * NUM_OUTPUTS, "feature_outputs") || !need_size(&copies, 16 * R, "copies") ||
        !need_size(&onehots, 16 * K, "onehots") || !need_size(&fields, 12 * F, "fields"))
        goto done;
    for (Py_ssize_t f = 0; f < F; f++)
        if (FL[3 * f] < 0 || FL[3 * f + 1] < 0 || FL[3 * f] + FL[3 * f + 1] > scalar_start) {
            PyErr_SetString(PyExc_ValueError, "observe(): a source field does not fit the state");
            goto done;
        }
    for (Py_ssize_t r = 0; r < R; r++)
        if (CP[4 * r] < 0 || CP[4 * r] > 3 || CP[4 * r + 1] < 0 || CP[4 * r + 3] < 0 || CP[4 * r + 1] + CP[4 * r + 3] > size ||
            CP[4 * r + 2] < 0 || CP[4 * r + 2] + CP[4 * r + 3] > L) {
            PyErr_SetString(PyExc_ValueError, "observe(): a copy does not fit the observation or the state");
            goto done;
        }
    for (Py_ssize_t k = 0; k < K; k++)
        if (OH[4 * k] < 0 || OH[4 * k] + OH[4 * k + 3] > size || OH[4 * k + 1] < 0 || OH[4 * k + 1] >= L) {
            PyErr_SetString(PyExc_ValueError, "observe(): a one-hot view does not fit the observation or the state");
            goto done;
        }
    {
        static const int in_len[6] = {0, 0, 1, 1, 1, 1}; /* hands, kbs: 4 * T entries; the others 4 */
        for (int i = 0; i < 6; i++)
            if (FI[i] < 0 || FI[i] + 4 * (in_len[i] ? 1 : T) > L) {
                PyErr_SetString(PyExc_ValueError, "observe(): a feature input does not fit the state");
                goto done;
            }
        static const int out_len[NUM_OUTPUTS] = {1, -1, -1, 1, 5, -1, -1}; /* -1: T entries */
        for (int i = 0; i < NUM_OUTPUTS; i++)
            if (FO[i] >= 0 && FO[i] + (out_len[i] < 0 ? T : out_len[i]) > size) {
                PyErr_SetString(PyExc_ValueError, "observe(): a feature view does not fit the observation");
                goto done;
            }
    }
    plan = PyMem_Calloc(1, sizeof(Plan));
    if (!plan) {
        PyErr_NoMemory();
        goto done;
    }
    plan->copies = copy_ints(&copies);
    plan->onehots = copy_ints(&onehots);
    plan->fields = copy_ints(&fields);
    if (!plan->copies || !plan->onehots || !plan->fields) goto done;
    memcpy(plan->fin, FI, sizeof(plan->fin));
    memcpy(plan->fout, FO, sizeof(plan->fout));
    plan->R = R, plan->K = K, plan->F = F, plan->scalar_start = scalar_start, plan->L = L, plan->size = size;
    plan->T = T;
    plan->seven = seven, plan->melds = melds, plan->missing = missing;
    for (int i = 0; i < 4; i++) plan->tables[i] = tabs[i]; /* the plan releases them */
    plan->tb = (Tables){tabs[0].buf, tabs[1].buf, tabs[2].buf, tabs[3].buf};
    result = PyCapsule_New(plan, PLAN_CAPSULE, plan_free);
    if (!result) {
        for (int i = 0; i < 4; i++) PyBuffer_Release(&tabs[i]);
        PyMem_Free(plan->copies);
        PyMem_Free(plan->onehots);
        PyMem_Free(plan->fields);
        PyMem_Free(plan);
    }
    plan = NULL;
    for (int i = 0; i < 5; i++) PyBuffer_Release(all[i]);
    return result;
done:
    if (plan) {
        PyMem_Free(plan->copies);
        PyMem_Free(plan->onehots);
        PyMem_Free(plan->fields);
        PyMem_Free(plan);
    }
    for (int i = 0; i < 4; i++) PyBuffer_Release(&tabs[i]);
    for (int i = 0; i < 5; i++) PyBuffer_Release(all[i]);
    return NULL;
}

/* A seat's hand and KB counts hs, ks (int16[T], T = 27 or 34, from a state record) as bytes, and their option
 * codes (code_of): 1 when a count is out of range (hand < 0, KB < 0 or hand + KB > 4; the bytes are then
 * meaningless), else 0. Eight tiles at a time (the last eight overlap the ones before) where SSE2 is there. */
static inline int tile_counts(const int16_t *hs, const int16_t *ks, int T, int8_t *hand, int8_t *kb, uint8_t *codes) {
#if defined(__SSE2__) && !defined(MJENV_NO_SIMD)
    const __m128i zero = _mm_setzero_si128(), four = _mm_set1_epi16(4), one = _mm_set1_epi16(1);
    __m128i bad = zero;
    for (int j = 0;; j += 8) {
        if (j + 8 > T) j = T - 8;
        __m128i h = _mm_loadu_si128((const __m128i *)(hs + j)), k = _mm_loadu_si128((const __m128i *)(ks + j));
        /* h and k in 0..4 first, so that their sum cannot wrap */
        __m128i a = _mm_add_epi16(h, k);
        bad = _mm_or_si128(bad, _mm_or_si128(_mm_or_si128(_mm_cmplt_epi16(h, zero), _mm_cmplt_epi16(k, zero)),
                                             _mm_or_si128(_mm_or_si128(_mm_cmpgt_epi16(h, four), _mm_cmpgt_epi16(k, four)),
                                                          _mm_cmpgt_epi16(a, four))));
        __m128i c = _mm_add_epi16(_mm_srli_epi16(_mm_mullo_epi16(a, _mm_add_epi16(a, one)), 1), h); /* a(a+1)/2 + h */
        _mm_storel_epi64((__m128i *)(hand + j), _mm_packs_epi16(h, h));
        _mm_storel_epi64((__m128i *)(kb + j), _mm_packs_epi16(k, k));
        _mm_storel_epi64((__m128i *)(codes + j), _mm_packs_epi16(c, c));
        if (j + 8 >= T) break;
    }
    return _mm_movemask_epi8(bad) != 0;
#else
    int bad = 0;
    for (int t = 0; t < T; t++) {
        int h = hs[t], k = ks[t];
        bad |= (h < 0) | (k < 0) | (h + k > 4);
        hand[t] = (int8_t)h;
        kb[t] = (int8_t)k;
        codes[t] = (uint8_t)code_of(h & 7, (h + k) & 7);
    }
    return bad;
#endif
}

/* one state made ready for observe's seats: its record, the seats' hands and KBs (checked), its memo,
 * and the seats' memo keys and slots, with the slots and part-cache sets set loading */
typedef struct {
    const int16_t *st; /* the state's record, read where the caller keeps it */
    int8_t hand[4][34], kb[4][34];
    uint8_t codes[4][34]; /* the seats' option codes (seat_codes) */
    int rows[4][4][2];    /* and their parts' half rows (rows_of_codes) */
    Memo *memo;
    uint8_t key[4][KEY_BYTES];
    MemoEntry *slot[4];
    int miss[4]; /* each seat's excluded suit, -1 none */
} Ready;

/* the core's error message (observe_core: no Python objects, so no exception until its caller sets one) */
typedef struct { char msg[KERNEL_ERR_LEN]; } Err;

static int prepare(const Plan *plan, const int16_t *records, Memo *const *memos, Py_ssize_t n, int seen, Ready *rd,
                   Err *err) {
    const int T = plan->T;
    const int32_t *FI = plan->fin;
    const int16_t *st = rd->st = records + n * plan->L;
    for (int s = 0; s < 4; s++) {
        int m = st[FI[2] + s], c = st[FI[4] + s];
        if (m < 0 || m >= KM || c < -1 || c >= T) {
            snprintf(err->msg, sizeof err->msg, "observe(): state %zd seat %d: melds needed %d (0..%d), claim tile %d",
                     n, s, m, KM - 1, c);
            return 0;
        }
        /* checked without a branch per tile (tile_counts); the bad tile found again after */
        const int16_t *hs = st + FI[0] + s * T, *ks = st + FI[1] + s * T;
        int bad = tile_counts(hs, ks, T, rd->hand[s], rd->kb[s], rd->codes[s]);
        for (int t = 0; bad && t < T; t++) {
            int h = hs[t], k = ks[t];
            if (h < 0 || k < 0 || h + k > 4) {
                snprintf(err->msg, sizeof err->msg, "observe(): state %zd seat %d tile %d: hand %d and KB %d; need "
                         "0 <= hand, 0 <= KB, hand + KB <= 4", n, s, t, h, k);
                return 0;
            }
        }
    }
    /* a seat's excluded suit (declared) is in no completion; its features are those of
     * the hand and KB without it (mjenv.deficiency.forms.without_suit), its discards in observe */
    for (int s = 0; s < 4; s++) {
        rd->miss[s] = -1;
        if (plan->missing >= 0)
            for (int j = 0; j < 3; j++)
                if (st[plan->missing + 3 * s + j]) {
                    rd->miss[s] = j;
                    memset(rd->hand[s] + 9 * j, 0, 9);
                    memset(rd->kb[s] + 9 * j, 0, 9);
                }
    }
    rd->memo = memos ? memos[n] : NULL;
    for (int s = 0; s < 4; s++) {
        if (!(seen >> s & 1)) continue;
        if (rd->miss[s] >= 0) seat_codes(T, rd->hand[s], rd->kb[s], rd->codes[s]); /* without the excluded suit */
        rows_of_codes(T, rd->codes[s], rd->rows[s]);
        rd->slot[s] = memo_find(rd->memo, T, rd->codes[s], st[FI[2] + s], st[FI[3] + s] != 0, rd->key[s]);
        prefetch_part_sets(rd->memo ? &rd->memo->parts : NULL, T, (const int(*)[2])rd->rows[s], st[FI[2] + s]);
    }
    return 1;
}

/* The writer plan executed for N whole state records (int16[N, L]) with their tables' memos (N pointers, NULL
 * each allowed; memos NULL: none), into obs float32[N, 4, size] and defs int32[N, 4]; seats NULL (every seat) or
 * uint8[N] bit sets of the seats observed: another seat's row is zeros and its defs entry is left as it was.
 * zero 0: the caller has zeroed obs where observe_written leaves a 0 (an observed seat's row) and all of an
 * unobserved seat's row, and observe writes only the rest (a caller that writes most views itself so stores each
 * float once).
 * Touches no Python object, so it runs without the GIL (the compiled step's threads call it through the capsule
 * _C_API). 0, or -1 with err. */
static int observe_core(const Plan *plan, const int16_t *records, Memo *const *memos, const uint8_t *seats,
                        Py_ssize_t N, float *obs, int32_t *defs, int zero, Err *err) {
    const int T = plan->T;
    const Py_ssize_t R = plan->R, K = plan->K, L = plan->L, size = plan->size;
    const int32_t *CP = plan->copies, *OH = plan->onehots, *FI = plan->fin, *FO = plan->fout;
    const Tables tb = plan->tb;
    Ready ready[2];
    float stf[MAX_STATE];
    /* Memory order (the table rows and part-cache entries are mostly cache misses): each state is
     * made ready (prepare) one state ahead of the one written, so that its memo slots and part-cache
     * sets load while the state before it is computed; a state's seats then set what they will read
     * loading (prefetch_seat), and the work that does not need it (the next state's prepare, the
     * copies into the observation) runs before the seats' features, while it loads. */
#define SEEN(n) (seats ? seats[n] : 15)
    if (N > 0 && !prepare(plan, records, memos, 0, SEEN(0), &ready[0], err)) return -1;
    for (Py_ssize_t n = 0; n < N; n++) {
        const int seen = SEEN(n);
        float *out = obs + n * 4 * size;
        int32_t *def = defs + n * 4;
        Ready *rd = &ready[n & 1];
        const int16_t *st = rd->st;
        Memo *memo = rd->memo;
        const int *miss = rd->miss;
        /* the seats' features: every seat the memo serves, and what the others will read set loading
         * (prefetch_seat), so that one seat's cache misses overlap another's work */
        int32_t def_s[4], after_disc[4][34], after_claim[4][5], count_after[4][34], after_kong[4][34];
        uint8_t eff[4][34];
        int64_t count[4];
        int8_t (*hand)[34] = rd->hand, (*kb)[34] = rd->kb;
        MemoEntry **slot = rd->slot;
        uint8_t (*key)[KEY_BYTES] = rd->key;
        PartCache *pc = memo ? &memo->parts : NULL;
        int served[4], whole[4] = {0, 0, 0, 0}, closed[4] = {0, 0, 0, 0}, mp_def[4];
        uint64_t mp_eff[4];
        const SeatRecord *prior[4];
        for (int s = 0; s < 4; s++) {
            int m = st[FI[2] + s], dturn = st[FI[3] + s] != 0, c = st[FI[4] + s];
            if (!(seen >> s & 1)) continue;
            served[s] = memo_serve(memo, slot[s], key[s], T, hand[s], kb[s], m, dturn, c,
                                   m == plan->melds ? plan->seven : 0, &def_s[s], after_disc[s], eff[s], &count[s],
                                   after_claim[s], count_after[s], after_kong[s]);
            if (served[s] == 1 && slot[s]->closed) /* served with its closed-hand form (memo_close) */
                closed[s] = 1, mp_def[s] = slot[s]->mp_def, mp_eff[s] = slot[s]->mp_eff;
            uint64_t lost = 0;
            prior[s] = !served[s] && memo ? seat_prior(&memo->seat[s], T, hand[s], kb[s], m, &lost) : NULL;
            whole[s] = !served[s] && prior_serves(prior[s], lost, hand[s], m, dturn, c, st[FI[5] + s] != 0);
            if (!served[s] && !whole[s])
                prefetch_seat(&tb, pc, T, (const int(*)[2])rd->rows[s], hand[s], kb[s], m, dturn,
                              prior[s] ? prior[s]->eff : ~0ull);
        }
        if (n + 1 < N && !prepare(plan, records, memos, n + 1, SEEN(n + 1), &ready[(n + 1) & 1], err)) return -1;
        if (zero) memset(out, 0, sizeof(float) * 4 * (size_t)size);
        for (Py_ssize_t j = 0; j < (R ? L : 0); j++) stf[j] = (float)st[j]; /* once, not once per seat that shows it */
        for (Py_ssize_t r = 0; r < R; r++)
            if (seen >> CP[4 * r] & 1)
                memcpy(out + CP[4 * r] * size + CP[4 * r + 1], stf + CP[4 * r + 2], sizeof(float) * (size_t)CP[4 * r + 3]);
        for (int s = 0; s < 4; s++) {
            if (!(seen >> s & 1)) continue;
            if (whole[s]) {
                seat_from_prior(prior[s], T, kb[s], &def_s[s], after_disc[s], eff[s], &count[s], after_claim[s],
                                count_after[s], after_kong[s]);
                memo->prior_hits++;
            } else if (!served[s] &&
                       seat_features(&tb, pc, T, hand[s], kb[s], st[FI[2] + s], st[FI[3] + s] != 0, st[FI[4] + s],
                                     st[FI[5] + s] != 0, &def_s[s], after_disc[s], eff[s], &count[s], after_claim[s],
                                     count_after[s], after_kong[s], memo ? &memo->after : NULL, prior[s],
                                     (const int(*)[2])rd->rows[s]))
                memo->prior_hits++;
            if (served[s] != 1)
                memo_store(slot[s], T, key[s], def_s[s], after_disc[s], eff[s], count[s], count_after[s],
                           after_kong[s]);
            if (memo && closed[s]) seat_record_bits(&memo->seat[s], T, hand[s], kb[s], st[FI[2] + s], mp_def[s], mp_eff[s]);
            else if (memo) seat_record(&memo->seat[s], T, hand[s], kb[s], st[FI[2] + s], def_s[s], eff[s]);
        }
        /* seven pairs: after the melds-and-pair features; the seat's slot then keeps the outputs with it (a seat
         * served so skips it) */
        if (plan->seven)
            for (int s = 0; s < 4; s++)
                if (st[FI[2] + s] == plan->melds && (seen >> s & 1) && !closed[s]) {
                    seven_pairs_seat(&tb, T, plan->seven, hand[s], kb[s], st[FI[2] + s], st[FI[3] + s] != 0, &def_s[s],
                                     after_disc[s], eff[s], &count[s], count_after[s], after_kong[s],
                                     memo ? &memo->after : NULL);
                    if (memo)
                        memo_close(slot[s], T, key[s], plan->seven, def_s[s], after_disc[s], eff[s], count[s],
                                   count_after[s], after_kong[s], memo->seat[s].def, memo->seat[s].eff);
                }
        for (int s = 0; s < 4; s++) /* discarding a missing-suit tile leaves the deficiency and count as they are */
            if (miss[s] >= 0 && st[FI[3] + s] && (seen >> s & 1))
                for (int t = 9 * miss[s]; t < 9 * miss[s] + 9; t++)
                    if (st[FI[0] + s * T + t] > 0) {
                        after_disc[s][t] = def_s[s];
                        count_after[s][t] = (int32_t)count[s];
                    }
        for (int s = 0; s < 4; s++) {
            if (!(seen >> s & 1)) continue;
            float *o = out + s * size;
            for (Py_ssize_t k = 0; k < K; k++) {
                int v = st[OH[4 * k + 1]];
                if (v < 0) continue;
                if (OH[4 * k + 2]) v = ((v - s) % 4 + 4) % 4; /* seat-relative */
                if (v >= OH[4 * k + 3]) {
                    snprintf(err->msg, sizeof err->msg, "observe(): one-hot value %d outside its view of %d", v,
                             OH[4 * k + 3]);
                    return -1;
                }
                o[OH[4 * k] + v] = 1.0f;
            }
            def[s] = def_s[s];
            /* one loop per view: the offsets are read once (the build does not let the compiler assume
             * that a float store leaves the plan's ints as they are) */
            const int32_t f0 = FO[0], f1 = FO[1], f2 = FO[2], f3 = FO[3], f4 = FO[4], f5 = FO[5], f6 = FO[6];
            if (f0 >= 0) o[f0] = (float)def_s[s];
            if (f1 >= 0) ints_to_floats(after_disc[s], o + f1, T);
            if (f2 >= 0) bytes_to_floats(eff[s], o + f2, T);
            if (f5 >= 0) ints_to_floats(count_after[s], o + f5, T);
            if (f6 >= 0) ints_to_floats(after_kong[s], o + f6, T);
            if (f3 >= 0) o[f3] = (float)count[s];
            if (f4 >= 0)
                for (int k = 0; k < 5; k++) o[f4 + k] = (float)after_claim[s][k];
        }
    }
#undef SEEN
    return 0;
}

/* the memo of each of N tables from a sequence of memo arrays (None each allowed) into out; 0, or -1 with an
 * exception set (the arrays' owners keep their memory) */
static int memo_pointers(PyObject *memos, Py_ssize_t N, Memo **out) {
    PyObject *mseq = PySequence_Fast(memos, "observe(): memos must be None or a sequence");
    if (!mseq) return -1;
    int good = PySequence_Fast_GET_SIZE(mseq) == N;
    if (!good)
        PyErr_Format(PyExc_ValueError, "observe(): %zd memos for %zd states", PySequence_Fast_GET_SIZE(mseq), N);
    for (Py_ssize_t n = 0; good && n < N; n++) {
        PyObject *m = PySequence_Fast_GET_ITEM(mseq, n);
        out[n] = NULL;
        if (m == Py_None) continue;
        Py_buffer mb;
        if (PyObject_GetBuffer(m, &mb, PyBUF_WRITABLE) < 0) { good = 0; break; }
        good = as_memo(&mb, &out[n]);
        PyBuffer_Release(&mb); /* the sequence's owner holds the array, so its memory stays */
    }
    Py_DECREF(mseq);
    return good ? 0 : -1;
}

/* observe(): a bound writer plan executed for N states (see the module comment) */
static PyObject *py_observe(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer o_obs, o_def;
    PyObject *capsule, *states, *memos;
    if (!PyArg_ParseTuple(args, "OOOw*w*", &capsule, &states, &memos, &o_obs, &o_def)) return NULL;
    PyObject *result = NULL, *sseq = NULL;
    Py_buffer recs;
    int have_recs = 0;
    int16_t *filled = NULL;
    Memo *one_memo[1], **mp = NULL;
    Plan *plan = PyCapsule_GetPointer(capsule, PLAN_CAPSULE);
    if (!plan) goto done;
    const Py_ssize_t N = o_def.len / 16, L = plan->L, size = plan->size;
    if (!need_size(&o_obs, 16 * N * size, "out_observation") || !need_size(&o_def, 16 * N, "out_deficiency")) goto done;
    const int16_t *records;
    if (PyObject_CheckBuffer(states)) { /* int16[N, L] records, for a plan whose one source is the whole record */
        if (PyObject_GetBuffer(states, &recs, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto done;
        have_recs = 1;
        const int32_t *FL = plan->fields;
        if (recs.itemsize != 2 || !recs.format || strchr("hH", recs.format[strlen(recs.format) - 1]) == NULL ||
            recs.len != 2 * N * L || plan->F != 1 || FL[0] != 0 || FL[1] != L || FL[2] != 0 || plan->scalar_start != L) {
            PyErr_Format(PyExc_ValueError, "observe(): a state array must hold %zd int16 records of %zd entries "
                         "(%zd bytes given) for a plan whose one source is the whole record", N, L, recs.len);
            goto done;
        }
        records = recs.buf;
    } else { /* sequences of sources: read into records first */
        sseq = PySequence_Fast(states, "observe(): states must be a sequence or an int16 array of records");
        if (!sseq) goto done;
        if (PySequence_Fast_GET_SIZE(sseq) != N) {
            PyErr_Format(PyExc_ValueError, "observe(): %zd states for %zd outputs", PySequence_Fast_GET_SIZE(sseq), N);
            goto done;
        }
        filled = PyMem_Calloc((size_t)(N > 0 ? N : 1) * (size_t)L, sizeof(int16_t));
        if (!filled) { PyErr_NoMemory(); goto done; }
        for (Py_ssize_t n = 0; n < N; n++)
            if (!fill_state(PySequence_Fast_GET_ITEM(sseq, n), plan->fields, plan->F, plan->scalar_start, L,
                            filled + n * L))
                goto done;
        records = filled;
    }
    if (memos != Py_None) {
        mp = N <= 1 ? one_memo : PyMem_Malloc(sizeof(Memo *) * (size_t)N);
        if (!mp) { PyErr_NoMemory(); goto done; }
        if (memo_pointers(memos, N, mp) < 0) goto done;
    }
    Err err;
    if (observe_core(plan, records, mp, NULL, N, (float *)o_obs.buf, (int32_t *)o_def.buf, 1, &err) < 0) {
        PyErr_SetString(PyExc_ValueError, err.msg);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(sseq);
    if (have_recs) PyBuffer_Release(&recs);
    PyMem_Free(filled);
    if (mp && mp != one_memo) PyMem_Free(mp);
    PyBuffer_Release(&o_obs);
    PyBuffer_Release(&o_def);
    return result;
}

/* ---- the C entry points for other compiled modules (_kernel_api.h) */
static void *api_plan_of(PyObject *capsule) {
    Plan *plan = PyCapsule_GetPointer(capsule, PLAN_CAPSULE);
    if (!plan) return NULL;
    const int32_t *FL = plan->fields;
    if (plan->F != 1 || FL[0] != 0 || FL[1] != plan->L || FL[2] != 0 || plan->scalar_start != plan->L) {
        PyErr_SetString(PyExc_ValueError, "the plan's one source must be the whole record");
        return NULL;
    }
    return plan;
}

static Py_ssize_t api_record_length(const void *plan) { return ((const Plan *)plan)->L; }

static Py_ssize_t api_size(const void *plan) { return ((const Plan *)plan)->size; }

static int api_memos_of(PyObject *memos, Py_ssize_t n, void **out) { return memo_pointers(memos, n, (Memo **)out); }

/* observe_core for another module (zero: as observe_core's), its message copied to err */
static int api_observe_core(const void *plan, const int16_t *records, void *const *memos, const uint8_t *seats,
                            Py_ssize_t n, float *obs, int32_t *defs, int zero, char *err) {
    Err e;
    int r = observe_core(plan, records, (Memo *const *)memos, seats, n, obs, defs, zero, &e);
    if (r < 0) memcpy(err, e.msg, KERNEL_ERR_LEN);
    return r;
}

static int api_observe(const void *plan, const int16_t *records, void *const *memos, const uint8_t *seats,
                       Py_ssize_t n, float *obs, int32_t *defs, char *err) {
    return api_observe_core(plan, records, memos, seats, n, obs, defs, 1, err);
}

static int api_observe_unzeroed(const void *plan, const int16_t *records, void *const *memos, const uint8_t *seats,
                                Py_ssize_t n, float *obs, int32_t *defs, char *err) {
    return api_observe_core(plan, records, memos, seats, n, obs, defs, 0, err);
}

/* the floats of an observed seat's row that observe writes whatever the state (the feature views):
 * written[i] = 1, the others left as they are */
static void api_observe_written(const void *plan_, uint8_t *written) {
    const Plan *plan = plan_;
    static const int out_len[NUM_OUTPUTS] = {1, -1, -1, 1, 5, -1, -1}; /* -1: T entries (as bind checks them) */
    for (int i = 0; i < NUM_OUTPUTS; i++)
        if (plan->fout[i] >= 0) memset(written + plan->fout[i], 1, (size_t)(out_len[i] < 0 ? plan->T : out_len[i]));
}

/* the deficiency of one seat alone (hand, kb: T counts; m melds to build): its parts' vectors joined, and the plan's
 * closed-hand form when the seat has no declared meld (m == the plan's melds); what observe_core writes as the
 * seat's deficiency, without the other features (no memo: nothing is kept) */
static int api_deficiency(const void *plan_, const int8_t *hand, const int8_t *kb, int m) {
    const Plan *plan = plan_;
    const int T = plan->T, nparts = T == 34 ? 4 : 3;
    int rows[4][2], v[4][VEC], rest[VEC], pair[VEC];
    seat_rows(T, hand, kb, rows);
    for (int P = 0; P < nparts; P++) part_vector(&plan->tb, P, rows[P][0], rows[P][1], v[P], m);
    if (nparts == 4) {
        minplus(v[2], v[3], pair, m);
        minplus(v[1], pair, rest, m);
    } else {
        minplus(v[1], v[2], rest, m);
    }
    int d = final_value(v[0], rest, m);
    if (plan->seven && m == plan->melds) {
        int64_t total = 0;
        for (int t = 0; t < T; t++) total += closed_offers(plan->seven, t, hand[t], hand[t] + kb[t]);
        int s = closed_value(plan->seven, total);
        d = s < d ? s : d;
    }
    return d;
}

static KernelApi api = {api_plan_of,    api_record_length,    api_size,           api_memos_of,
                        api_observe,    api_deficiency,       api_observe_unzeroed, api_observe_written};

static PyObject *py_memo_bytes(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyLong_FromSize_t(sizeof(Memo));
}

static PyObject *py_memo_stats(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer mem;
    if (!PyArg_ParseTuple(args, "y*", &mem)) return NULL;
    Memo *memo;
    PyObject *result = NULL;
    if (as_memo(&mem, &memo))
        result = memo ? Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K}", "hits", (unsigned long long)memo->hits, "misses",
                                      (unsigned long long)memo->misses, "after_discard_hits",
                                      (unsigned long long)memo->after_hits, "prior_hits",
                                      (unsigned long long)memo->prior_hits, "part_hits",
                                      (unsigned long long)memo->parts.hits, "part_misses",
                                      (unsigned long long)memo->parts.misses)
                      : Py_BuildValue("{s:i,s:i,s:i,s:i,s:i,s:i}", "hits", 0, "misses", 0, "after_discard_hits", 0,
                                      "prior_hits", 0, "part_hits", 0, "part_misses", 0);
    PyBuffer_Release(&mem);
    return result;
}

static PyMethodDef methods[] = {
    {"memo_bytes", py_memo_bytes, METH_NOARGS, "Size in bytes of one seat memo (a caller-owned buffer)."},
    {"memo_stats", py_memo_stats, METH_VARARGS, "A memo's counters: {'hits': ..., 'misses': ...}."},
    {"unseen", py_unseen, METH_VARARGS, "copies - hands - public counts per seat (mjenv.knowledge's formula), int8."},
    {"features", py_features, METH_VARARGS, "Every deficiency feature of S seats (see the module source)."},
    {"bind", py_bind, METH_VARARGS, "A writer plan checked once and bound with the tables (see the module source)."},
    {"observe", py_observe, METH_VARARGS, "The observations of N game states from a bound writer plan (see the module source)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", "Compiled deficiency-feature kernel.", -1, methods,
                                     NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__kernel(void) {
    tile_tables();
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *cap = PyCapsule_New(&api, KERNEL_API_NAME, NULL);
    if (!cap || PyModule_AddObject(m, "_C_API", cap) < 0) {
        Py_XDECREF(cap);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
