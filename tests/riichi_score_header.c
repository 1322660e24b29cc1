/* _score.h on its own, as the compiled Riichi step includes it: a few hands whose values come from the
 * rules (Tenhou's point table), not from the code. Built and run by tests/test_riichi_c_score.py with
 * -std=c99 -Wall -Wextra -pedantic -Werror; prints "ok" and exits 0, or names the first failure. */
#include <stdio.h>

#include "../mjenv/rulesets/riichi/_score.h"

/* mjenv types: 0-8 = 1s-9s, 9-17 = 1m-9m, 18-26 = 1p-9p, 27-33 = E S W N white green red */
#define S(n) ((n) - 1)
#define M(n) (9 + (n) - 1)
#define P(n) (18 + (n) - 1)

static int fails = 0;
#define CHECK(cond)                                               \
    do {                                                          \
        if (!(cond)) {                                            \
            printf("line %d: %s\n", __LINE__, #cond);             \
            fails++;                                              \
        }                                                         \
    } while (0)

static void add(uint8_t *c, const int *types, int n) {
    for (int i = 0; i < n; i++) c[types[i]]++;
}

int main(void) {
    /* 234m 567m 345p 678s 22p, won on 8s (a two-sided wait on 67s) */
    const int pinfu[14] = {M(2), M(3), M(4), M(5), M(6), M(7), P(3), P(4), P(5), S(6), S(7), S(8), P(2), P(2)};
    RsHand h;
    RsContext ctx;
    RsResult r;
    memset(&h, 0, sizeof h);
    memset(&ctx, 0, sizeof ctx);
    add(h.c34, pinfu, 14);
    h.win34 = S(8);
    ctx.seat_wind = 1;
    /* tsumo: menzen tsumo, pinfu, tanyao = 3 han 20 fu; a non-dealer's tsumo pays 700 / 1,300 */
    ctx.is_tsumo = 1;
    CHECK(rs_score(&h, &ctx, &r) == 1);
    CHECK(r.han == 3 && r.fu == 20 && r.yakuman == 0);
    CHECK(r.yaku == (RS_BIT(RS_Y_MENZEN_TSUMO) | RS_BIT(RS_Y_TANYAO) | RS_BIT(RS_Y_PINFU)));
    CHECK(r.tsumo_dealer == 1300 && r.tsumo_nondealer == 700 && r.total == 2700 && r.ron == 0);
    /* ron: pinfu, tanyao = 2 han 30 fu = 2,000 */
    ctx.is_tsumo = 0;
    CHECK(rs_score(&h, &ctx, &r) == 1);
    CHECK(r.han == 2 && r.fu == 30 && r.ron == 2000 && r.limit == RS_LIMIT_NONE);
    /* the dealer's ron: 2,900; with a dora indicator 1p (dora 2p, the pair): 4 han 30 fu = 11,600 */
    ctx.seat_wind = 0;
    ctx.n_dora = 1;
    ctx.dora[0] = P(1);
    CHECK(rs_score(&h, &ctx, &r) == 1);
    CHECK(r.dora == 2 && r.han == 4 && r.ron == 11600 && r.limit == RS_LIMIT_NONE);
    /* with a pon of 9m instead of 567m: open, no pinfu, no tanyao, no yaku */
    memset(h.c34, 0, 34);
    add(h.c34, pinfu, 3);
    add(h.c34, pinfu + 6, 8);
    h.n_melds = 1;
    h.melds[0].kind = RS_PON;
    h.melds[0].type = M(9);
    ctx.n_dora = 0;
    CHECK(rs_score(&h, &ctx, &r) == 0);

    /* waits: 13 orphans, one of each: all thirteen; 1112345678999p: nine */
    uint8_t c[34] = {0}, w[34];
    for (int i = 0; i < 13; i++) c[RS_ORPHANS[i]] = 1;
    CHECK(rs_waits(c, w) == 13 && w[P(1)] && w[33] && !w[P(5)]);
    memset(c, 0, 34);
    const int gates[13] = {P(1), P(1), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9), P(9), P(9)};
    add(c, gates, 13);
    CHECK(rs_waits(c, w) == 9);
    c[P(1)]++;
    CHECK(rs_is_winning(c));
    /* pure nine gates won on the extra 1p: junsei chuuren, one yakuman, 32,000 for a non-dealer ron */
    memset(&h, 0, sizeof h);
    memcpy(h.c34, c, 34);
    h.win34 = P(1);
    ctx.seat_wind = 2;
    CHECK(rs_score(&h, &ctx, &r) == 1);
    CHECK(r.yakuman == 1 && r.yaku == RS_BIT(RS_Y_JUNSEI_CHUUREN) && r.ron == 32000 && r.limit == RS_YAKUMAN);
    /* a fifth copy is no wait: 123456789m + 5555p */
    memset(c, 0, 34);
    for (int t = M(1); t <= M(9); t++) c[t] = 1;
    c[P(5)] = 4;
    CHECK(rs_waits(c, w) == 0);

    /* tenpai with a yaku: 234m234p3456s waits on 3s/6s with tanyao; the discard flags of the hand
     * with a 9p added say only the 9p's discard keeps it */
    memset(c, 0, 34);
    const int tanki[13] = {M(2), M(3), M(4), P(2), P(3), P(4), S(3), S(4), S(5), S(6), M(6), M(6), M(6)};
    add(c, tanki, 13);
    CHECK(rs_tenpai_has_yaku(c, NULL, 0, 1, 0));
    c[P(9)]++;
    uint8_t flags[34];
    CHECK(rs_discards_tenpai_yaku(c, NULL, 0, 1, 0, flags) >= 1 && flags[P(9)] && !flags[M(6)]);
    CHECK(rs_yaku_han(RS_Y_CHINITSU, 0) == 5 && rs_yaku_han(RS_Y_CHINITSU, 1) == 6);
    CHECK(strcmp(rs_yaku_name(RS_Y_SEAT_WIND + 2), "seat wind west") == 0);

    if (!fails) printf("ok\n");
    return fails != 0;
}
