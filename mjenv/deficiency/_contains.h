/* The empty-KB completeness check: does a hand of any size CONTAIN m melds and a pair?
 *
 * Shared by ``_fast.c`` (``contains``, behind ``mjenv.deficiency.contains``) and
 * ``baselines/_flatmc.c`` (flat MC's compiled simulation); header-only, like ``_minplus.h``.
 *
 * The table. With an empty KB only the hand's own tiles count, and "some tiles form k
 * melds and p pairs" is closed downwards (drop a meld), so a suit is summed up by two numbers:
 * K0 = the most melds among its tiles, K1 = the most melds beside one pair (-1: no pair). A hand
 * contains m melds and a pair iff for some part (three suits, the honours) K1 of that part plus K0 of
 * the others reaches m. K of all 5**9 count vectors of a suit comes from one pass in index order: the
 * suit's lowest held rank t is either left out once, or in a pong, a pair, or a chow starting at t (no
 * chow containing t starts lower), and each of these leaves a vector of smaller index.
 *
 * The table (2 x 5**9 bytes) is built on the first call of ``build_contains_table`` (a few ms) and
 * kept for the process; each extension that includes this header holds its own copy.
 */
#ifndef MJENV_CONTAINS_H
#define MJENV_CONTAINS_H

#include <Python.h>
#include <stdint.h>

#define SUIT_VECTORS 1953125 /* 5 ** 9 */
#define NO_PAIR (-100)
static int8_t *suit_k0 = NULL, *suit_k1 = NULL;

static int build_contains_table(void) {
    int8_t *k0 = (int8_t *)PyMem_RawMalloc(SUIT_VECTORS), *k1 = (int8_t *)PyMem_RawMalloc(SUIT_VECTORS);
    if (k0 == NULL || k1 == NULL) {
        PyMem_RawFree(k0);
        PyMem_RawFree(k1);
        PyErr_NoMemory();
        return -1;
    }
    static const int p5[9] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625};
    int c[9] = {0};
    k0[0] = 0;
    k1[0] = NO_PAIR;
    for (int idx = 1; idx < SUIT_VECTORS; idx++) {
        for (int r = 0; r < 9; r++) { /* odometer: c = base-5 digits of idx */
            if (++c[r] < 5) break;
            c[r] = 0;
        }
        int t = 0;
        while (c[t] == 0) t++;
        int j = idx - p5[t]; /* one copy of t left out */
        int b0 = k0[j], b1 = k1[j];
        if (c[t] >= 3) {
            j = idx - 3 * p5[t];
            if (k0[j] + 1 > b0) b0 = k0[j] + 1;
            if (k1[j] >= 0 && k1[j] + 1 > b1) b1 = k1[j] + 1;
        }
        if (c[t] >= 2 && k0[idx - 2 * p5[t]] > b1) b1 = k0[idx - 2 * p5[t]];
        if (t <= 6 && c[t + 1] && c[t + 2]) {
            j = idx - p5[t] - p5[t + 1] - p5[t + 2];
            if (k0[j] + 1 > b0) b0 = k0[j] + 1;
            if (k1[j] >= 0 && k1[j] + 1 > b1) b1 = k1[j] + 1;
        }
        k0[idx] = (int8_t)b0;
        k1[idx] = (int8_t)(b1 < 0 ? NO_PAIR : b1);
    }
    suit_k0 = k0;
    suit_k1 = k1;
    return 0;
}

/* 1: the hand h (n counts, each 0..4) contains m melds and a pair */
static int contains_of(const int8_t *h, int n, int m) {
    int k0[4], k1[4], parts = 0;
    for (int s = 0; s < 3; s++, parts++) {
        int idx = 0;
        for (int r = 8; r >= 0; r--) idx = idx * 5 + h[9 * s + r];
        k0[parts] = suit_k0[idx];
        k1[parts] = suit_k1[idx];
    }
    if (n == 34) { /* honours: a pong or a pair of each, nothing across tiles */
        int pongs = 0, pair2 = 0;
        for (int t = 27; t < 34; t++) {
            pongs += h[t] >= 3;
            pair2 |= h[t] == 2;
        }
        k0[parts] = pongs;
        k1[parts] = pair2 ? pongs : (pongs ? pongs - 1 : NO_PAIR);
        parts++;
    }
    int total = 0;
    for (int i = 0; i < parts; i++) total += k0[i];
    for (int i = 0; i < parts; i++)
        if (k1[i] >= 0 && total - k0[i] + k1[i] >= m) return 1;
    return 0;
}

#endif /* MJENV_CONTAINS_H */
