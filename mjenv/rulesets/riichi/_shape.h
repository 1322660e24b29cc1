/* Winning shapes and waits of Riichi hands on mjenv's 34 tile types (0-8 bamboo, 9-17 characters, 18-26 dots,
 * 27-33 honours), for the compiled engine (_engine.c). The same answers as mjenv/rulesets/riichi/hand.py:
 *
 *   shape_wins(c): a concealed part of 3n + 2 tiles is regular (n sets and a pair), seven distinct pairs or
 *     thirteen orphans (the last two only with 14 tiles);
 *   shape_waits(c): the bit set (bit t) of the types that complete a 3n + 1 part, leaving out a type of which
 *     the part already holds four (Tenhou's "fifth tile" is no wait);
 *   shape_discard_waits(c, out): out[t] = shape_waits of c without one t, for every held t in one pass.
 *
 * A regular part splits into the three suits and the honours: each group's count modulo 3 tells whether it
 * holds the pair (2) or only sets (0); 1 is impossible. A suit holds only sets exactly when, from rank 1 up,
 * each rank's count modulo 3 (its triplets taken first) starts that many runs. */
#ifndef MJENV_RIICHI_SHAPE_H
#define MJENV_RIICHI_SHAPE_H
#include <stdint.h>

static const uint8_t SHAPE_ORPHAN[34] = {1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1,
                                         1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};

/* a suit's nine counts (or the honours' seven, runs=0) are sets only */
static inline int shape_sets(const uint8_t *c, int n, int runs) {
    int a[9];
    for (int i = 0; i < n; i++) a[i] = c[i];
    for (int i = 0; i < n; i++) {
        int r = a[i] % 3;
        if (!r) continue;
        if (!runs || i + 2 >= n || a[i + 1] < r || a[i + 2] < r) return 0;
        a[i + 1] -= r;
        a[i + 2] -= r;
    }
    return 1;
}

/* sets and one pair. In a suit a run or a triplet adds 0 modulo 3 to the sum of rank times count, the pair of rank i
 * adds 2i: i = 2 * that sum modulo 3, so only a third of the ranks are tried */
static inline int shape_pair_sets(const uint8_t *c, int n, int runs) {
    uint8_t a[9];
    int step = 1, first = 0;
    for (int i = 0; i < n; i++) a[i] = c[i];
    if (runs) {
        int sum = 0;
        for (int i = 1; i < n; i++) sum += i * a[i];
        step = 3, first = 2 * sum % 3;
    }
    for (int i = first; i < n; i += step)
        if (a[i] >= 2) {
            a[i] -= 2;
            int ok = shape_sets(a, n, runs);
            a[i] += 2;
            if (ok) return 1;
        }
    return 0;
}

static inline int shape_group_total(const uint8_t *c, int g) {
    int n = g < 3 ? 9 : 7, s = 0;
    for (int i = 0; i < n; i++) s += c[9 * g + i];
    return s;
}

static inline int shape_regular(const uint8_t *c) {
    int pairs = 0;
    for (int g = 0; g < 4; g++) {
        int n = g < 3 ? 9 : 7, m = shape_group_total(c, g) % 3;
        if (m == 1) return 0;
        if (m == 2) {
            if (++pairs > 1 || !shape_pair_sets(c + 9 * g, n, g < 3)) return 0;
        } else if (!shape_sets(c + 9 * g, n, g < 3))
            return 0;
    }
    return pairs == 1;
}

static inline int shape_wins(const uint8_t *c) {
    int total = 0, twos = 0, orphans = 0, orphan_total = 0;
    for (int t = 0; t < 34; t++) {
        total += c[t];
        twos += c[t] == 2;
        if (SHAPE_ORPHAN[t]) orphans += c[t] >= 1, orphan_total += c[t];
    }
    if (total == 14 && (twos == 7 || (orphans == 13 && orphan_total == 14))) return 1;
    return shape_regular(c);
}

/* waits of a 3n + 1 part (bit t) */
static inline uint64_t shape_waits(const uint8_t *c0) {
    uint8_t c[34];
    int total = 0, mod[4];
    for (int t = 0; t < 34; t++) c[t] = c0[t], total += c[t];
    for (int g = 0; g < 4; g++) mod[g] = shape_group_total(c, g) % 3;
    uint64_t w = 0;
    /* regular: the wait's group goes to 0 or 2 modulo 3, the others are 0 except one 2 in all */
    for (int g = 0; g < 4; g++) {
        int m1 = (mod[g] + 1) % 3, pairs = m1 == 2, bad = m1 == 1;
        for (int h = 0; h < 4; h++)
            if (h != g) {
                if (mod[h] == 1) bad = 1;
                pairs += mod[h] == 2;
            }
        if (bad || pairs != 1) continue;
        int ok_rest = 1;
        for (int h = 0; h < 4 && ok_rest; h++)
            if (h != g) {
                int n = h < 3 ? 9 : 7;
                ok_rest = mod[h] == 2 ? shape_pair_sets(c + 9 * h, n, h < 3) : shape_sets(c + 9 * h, n, h < 3);
            }
        if (!ok_rest) continue;
        int n = g < 3 ? 9 : 7;
        for (int i = 0; i < n; i++) {
            int t = 9 * g + i;
            if (c[t] >= 4) continue;
            if (g < 3) { /* a run or a pair/triplet needs a neighbour or the tile itself */
                int near = c[t] || (i > 0 && c[t - 1]) || (i > 1 && c[t - 2]) || (i < 8 && c[t + 1]) ||
                           (i < 7 && c[t + 2]);
                if (!near) continue;
            } else if (!c[t])
                continue;
            c[t]++;
            int ok = m1 == 2 ? shape_pair_sets(c + 9 * g, n, g < 3) : shape_sets(c + 9 * g, n, g < 3);
            c[t]--;
            if (ok) w |= 1ull << t;
        }
    }
    if (total == 13) {
        int twos = 0, ones = 0, orphans = 0, orphan_total = 0, single = -1, missing = -1;
        for (int t = 0; t < 34; t++) {
            twos += c[t] == 2;
            if (c[t] == 1) ones++, single = t;
            if (SHAPE_ORPHAN[t]) {
                if (c[t]) orphans++;
                else missing = t;
                orphan_total += c[t];
            }
        }
        if (twos == 6 && ones == 1) w |= 1ull << single;
        if (orphan_total == 13) {
            if (orphans == 13)
                for (int t = 0; t < 34; t++) {
                    if (SHAPE_ORPHAN[t]) w |= 1ull << t;
                }
            else if (orphans == 12)
                w |= 1ull << missing;
        }
    }
    return w;
}

/* a group's counts (n types, runs: a suit) are complete as their size asks: sets (size % 3 == 0), or sets and one
 * pair (2); never with size % 3 == 1 */
static inline int shape_group_ok(const uint8_t *x, int n, int runs, int mod) {
    return mod == 0 ? shape_sets(x, n, runs) : (mod == 2 ? shape_pair_sets(x, n, runs) : 0);
}

/* the types of a group (bit i) one more copy of which makes it complete (mod: its size % 3), as shape_waits finds
 * them: none held four times, and in a suit only a type held or next to one within two ranks (and, for sets only, of
 * the one rank modulo 3 that shape_pair_sets' sum allows) */
static inline uint32_t shape_group_waits(const uint8_t *x0, int n, int runs, int mod) {
    int m1 = (mod + 1) % 3;
    if (m1 == 1) return 0;
    uint8_t x[9];
    int step = 1, first = 0;
    for (int i = 0; i < n; i++) x[i] = x0[i];
    if (runs && m1 == 0) { /* sets only: the sum of rank times count, the wait's rank added, is 0 modulo 3 */
        int sum = 0;
        for (int i = 1; i < n; i++) sum += i * x[i];
        step = 3, first = (3 - sum % 3) % 3;
    }
    uint32_t w = 0;
    for (int i = first; i < n; i += step) {
        if (x[i] >= 4) continue;
        if (runs) {
            int near = x[i] || (i > 0 && x[i - 1]) || (i > 1 && x[i - 2]) || (i < 8 && x[i + 1]) || (i < 7 && x[i + 2]);
            if (!near) continue;
        } else if (!x[i])
            continue;
        x[i]++;
        if (shape_group_ok(x, n, runs, m1)) w |= 1u << i;
        x[i]--;
    }
    return w;
}

/* Every discard's waits at once: out[t] = shape_waits(c minus one t) for each held type t (0 for the others). Only
 * t's group differs from c's, so each other group's completeness and waits are found once (when asked) and shared
 * by every t. */
static inline void shape_discard_waits(const uint8_t *c, uint64_t *out) {
    static const uint64_t ORPHANS = 1ull | 1ull << 8 | 1ull << 9 | 1ull << 17 | 1ull << 18 | 1ull << 26 | 0x7Full << 27;
    int mod[4], n[4], total = 0;
    int8_t ok[4] = {-1, -1, -1, -1}; /* the groups as in c: complete (1), not (0), not found yet (-1) */
    int8_t have_w[4] = {0, 0, 0, 0};
    uint32_t w[4] = {0, 0, 0, 0};
    uint64_t ones = 0, present = 0;
    int orphan_total = 0, n_ones = 0, n_twos = 0, n_orphans = 0; /* types held once, twice; orphan types held */
    for (int g = 0; g < 4; g++) {
        n[g] = g < 3 ? 9 : 7;
        mod[g] = shape_group_total(c, g) % 3;
    }
    for (int t = 0; t < 34; t++) {
        total += c[t];
        ones |= (uint64_t)(c[t] == 1) << t;
        present |= (uint64_t)(c[t] != 0) << t;
        n_ones += c[t] == 1, n_twos += c[t] == 2;
        orphan_total += SHAPE_ORPHAN[t] ? c[t] : 0;
        n_orphans += SHAPE_ORPHAN[t] && c[t];
        out[t] = 0;
    }
    uint8_t x[9];
    for (int g = 0; g < 4; g++) {
        const uint8_t *cg = c + 9 * g;
        int runs = g < 3, mg = (mod[g] + 2) % 3; /* t's group without t */
        /* the groups h that can hold a wait (the same for every t of group g): h's size plus one and every other
         * group's size leave no group at 1 modulo 3 and one pair */
        unsigned cand = 0;
        for (int h = 0; h < 4; h++) {
            int mh = h == g ? mg : mod[h], m1 = (mh + 1) % 3, pairs = m1 == 2, bad = m1 == 1;
            for (int k = 0; k < 4; k++)
                if (k != h) {
                    int mk = k == g ? mg : mod[k];
                    bad |= mk == 1;
                    pairs += mk == 2;
                }
            cand |= (unsigned)(!bad && pairs == 1) << h;
        }
        if (!cand && total - 1 != 13) continue;
        for (uint64_t held = present >> (9 * g) & ((1u << n[g]) - 1); held; held &= held - 1) {
            int i = __builtin_ctzll(held);
            uint64_t wt = 0;
            int lazy_ok = -1; /* t's group without t complete: found when asked */
            for (unsigned hs = cand; hs; hs &= hs - 1) {
                int h = __builtin_ctz(hs), rest = 1;
                for (int k = 0; k < 4 && rest; k++) {
                    if (k == h) continue;
                    if (k == g) {
                        if (lazy_ok < 0) {
                            for (int j = 0; j < n[g]; j++) x[j] = cg[j];
                            x[i]--;
                            lazy_ok = shape_group_ok(x, n[g], runs, mg);
                        }
                        rest = lazy_ok;
                    } else {
                        if (ok[k] < 0) ok[k] = (int8_t)shape_group_ok(c + 9 * k, n[k], k < 3, mod[k]);
                        rest = ok[k];
                    }
                }
                if (!rest) continue;
                if (h == g) {
                    for (int j = 0; j < n[g]; j++) x[j] = cg[j];
                    x[i]--;
                    wt |= (uint64_t)shape_group_waits(x, n[g], runs, mg) << (9 * g);
                } else {
                    if (!have_w[h]) w[h] = shape_group_waits(c + 9 * h, n[h], h < 3, mod[h]), have_w[h] = 1;
                    wt |= (uint64_t)w[h] << (9 * h);
                }
            }
            int t = 9 * g + i;
            if (total - 1 == 13) { /* seven pairs and thirteen orphans, of c without t */
                uint64_t bt = 1ull << t, o1 = ones, pr = present;
                int k1 = n_ones, k2 = n_twos, ko = n_orphans;
                if (c[t] == 1) o1 &= ~bt, pr &= ~bt, k1--, ko -= SHAPE_ORPHAN[t];
                else if (c[t] == 2) o1 |= bt, k1++, k2--;
                else if (c[t] == 3) k2++;
                if (k2 == 6 && k1 == 1) wt |= o1;
                if (orphan_total - SHAPE_ORPHAN[t] == 13) {
                    if (ko == 13) wt |= ORPHANS;
                    else if (ko == 12) wt |= ORPHANS & ~pr;
                }
            }
            out[t] = wt;
        }
    }
}
#endif
