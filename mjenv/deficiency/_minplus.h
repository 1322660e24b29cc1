/* The (k, p) vectors' layout and their final join, shared by the two C engines of the table method:
 * ``_kernel.c`` (the observation kernel) and ``_fast.c`` (a single ``deficiency()`` call).
 *
 * A part's vector holds, for k = 0..KM-1 melds and p = 0..1 pairs, the part's minimum cost at
 * index 2 * k + p (entries at or above INF: not reachable). A hand needing m melds and one pair has
 * deficiency min over k1 + k2 = m, p1 + p2 = 1 of v[k1][p1] + o[k2][p2] (its parts joined). */
#ifndef MJENV_MINPLUS_H
#define MJENV_MINPLUS_H

#define INF 100
#define INCOMPLETABLE 99
#define KM 6            /* k = 0..5 */
#define VEC (2 * KM)    /* (k, p) laid out k * 2 + p */
#define NBOUND 9        /* boundary states 3 * c4 + c5 */
#define BIG 10000

/* option code of (h, a = h + KB), as in ``_dp_tables.option_pairs(False)`` */
static inline int code_of(int h, int a) { return a * (a + 1) / 2 + h; }

/* deficiency at (m, 1) of part vector v joined with the other parts o; INCOMPLETABLE when no split
 * is reachable */
static inline int final_value(const int *v, const int *o, int m) {
    int best = BIG;
    for (int k1 = 0; k1 <= m; k1++)
        for (int p1 = 0; p1 < 2; p1++) {
            int s = v[2 * k1 + p1] + o[2 * (m - k1) + (1 - p1)];
            if (s < best) best = s;
        }
    return best >= INF ? INCOMPLETABLE : best;
}

#endif
