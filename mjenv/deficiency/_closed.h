/* The closed-hand forms (seven pairs, thirteen orphans) in closed form, shared by the two C engines:
 * ``_fast.c`` (a single ``deficiency()`` call or a batch) and ``_kernel.c`` (the observation kernel).
 *
 * The C twin of ``mjenv/deficiency/seven_pairs.py`` (which this must equal; the tests compare both with
 * the enumerating reference). A form (its code: 1 seven distinct pairs, 2 seven pairs with a four of a
 * kind as two pairs, 3 seven distinct pairs or thirteen orphans) gives each tile t, held h
 * times with a = h + KB available, a vector of counts; the deficiency is a function of their sum, so a
 * one-tile variant (a draw, a discard) is one subtraction and one addition. The counts, 8 bits each
 * in one int64:
 *   bits  0..23  seven pairs: the pair offers of cost 0, 1 and 2 (a first pair when a >= 2, at cost
 *                max(0, 2 - h); form 2: a second when a == 4, at max(0, 4 - h) - max(0, 2 - h));
 *   bits 24..55  thirteen orphans (form 3, orphan tiles only): a >= 1, h == 0, h >= 2, a >= 2.
 * The seven cheapest offers form the best seven pairs; thirteen orphans need every orphan available
 * and cost one per orphan not held, plus one when no orphan is held twice (then some must have
 * a >= 2). */
#ifndef MJENV_CLOSED_H
#define MJENV_CLOSED_H

#include <stdint.h>

#ifndef INCOMPLETABLE
#define INCOMPLETABLE 99
#endif

/* terminals and honours: ids 0, 8, 9, 17, 18, 26 and 27..33 */
static inline int is_orphan(int t) { return t >= 27 || t % 9 == 0 || t % 9 == 8; }

static inline int64_t closed_offers(int form, int t, int h, int a) {
    int64_t n = 0;
    if (a >= 2) n += (int64_t)1 << (8 * (h >= 2 ? 0 : 2 - h));
    if (form == 2 && a >= 4) n += (int64_t)1 << (8 * (h >= 4 ? 0 : h == 3 ? 1 : 2));
    if (form == 3 && is_orphan(t))
        n += ((int64_t)(a >= 1) << 24) + ((int64_t)(h == 0) << 32) + ((int64_t)(h >= 2) << 40) +
             ((int64_t)(a >= 2) << 48);
    return n;
}

static inline int closed_value(int form, int64_t n) {
    int n0 = (int)(n & 255), n1 = (int)((n >> 8) & 255), n2 = (int)((n >> 16) & 255);
    int best = INCOMPLETABLE;
    if (n0 + n1 + n2 >= 7) {
        int need = n0 >= 7 ? 0 : 7 - n0, ones = n1 < need ? n1 : need;
        best = ones + 2 * (need - ones);
    }
    if (form == 3) {
        int present = (int)((n >> 24) & 255), missing = (int)((n >> 32) & 255);
        int doubled = (int)((n >> 40) & 255), two = (int)((n >> 48) & 255);
        if (present == 13 && two > 0) {
            int v = missing + (doubled == 0);
            if (v < best) best = v;
        }
    }
    return best;
}

/* the form's deficiency of one hand of T counts h and availabilities a = h + KB */
static inline int closed_deficiency(int form, const int *h, const int *a, int T) {
    int64_t n = 0;
    for (int t = 0; t < T; t++) n += closed_offers(form, t, h[t], a[t]);
    return closed_value(form, n);
}

#endif
