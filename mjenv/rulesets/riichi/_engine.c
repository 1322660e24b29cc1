/* The compiled Riichi engine: N tables (_engine.h's ReTable) advanced by one C call, with their legal masks and
 * every seat's observation written in the layout of the one Riichi observation spec
 * (mjenv/rulesets/riichi/observation.py), the deficiency features through the observation kernel's C entry points
 * (mjenv/deficiency/_kernel_api.h, rules form 3: four melds and a pair, seven pairs, thirteen orphans).
 *
 * The rules are game.py's (RiichiGame with claim_window="always", or "when_possible" with the flag below),
 * transcribed step by step: the differential
 * tests (tests/test_riichi_compiled.py) compare every array with it. The env's contract (rewards, infos) stays in
 * Python (mjenv/rulesets/riichi/compiled.py); this file returns arrays only.
 *
 * Python API (module mjenv.rulesets.riichi._engine):
 *   table_bytes() -> int: the size of one table (uint8 rows of a states array).
 *   layout() -> dict: byte offsets of the fields Python writes (next_wall, need_wall).
 *   configure(plan, offsets, size, which): observation layout `which` (0: the spec's; 1: observation="raw", the
 *     spec without the derived per-tile views): the kernel's bound plan (a _kernel.bind capsule whose feature
 *     outputs sit at the spec's offsets; layout 1's has none and only its deficiency entry is called), the spec's
 *     view offsets (int32[NV], VIEW order of compiled.py; -1 for a view the layout lacks) and the size.
 *   bind(states uint8[N, B], ops uint8[N], params int32[N, 8], defs int32[N, 4], info int32[N, 32],
 *        memos uint8[N, M]) -> capsule: the arrays of N tables that stay from call to call (their buffers held until
 *     the capsule is freed; sizes checked once here, not on every run).
 *   run(bound, actions int32[N, 4], obs float32[N, 4, S], masks int8[N, 4, 85], workers, which) -> int: the
 *     tables of a bind() capsule stepped and observed in layout `which` (S its size);
 *     ops[i]: 0 leave table i (its outputs untouched), 1 step it with actions[i] (the acting seats' entries read),
 *     2 start a game on it: params[i] = (scores 4, round, honba, sticks, flags: length | kokushi << 2 | wins off
 *     << 3 | when_possible << 4), dealing next_wall. when_possible: a claim or kan-robbing window nobody can use is
 *     resolved inside the step that opened it (game.py's claim_window="when_possible"); else it is a step of its
 *     own. The tables run with the GIL released, on the calling thread (workers None) or on a pool()'s threads
 *     (mjenv/game/_pool.h; the same outputs). Returns flags: 1 when a table it ran reports an error (info's error
 *     entry), 2 when a table has taken its next wall (need_wall), 4 when a hand ended on a table it ran.
 *   pool(k) -> capsule: k - 1 threads kept for run() (with the caller, k), stopped when the capsule is freed.
 *   bind_observer(bound, which, empty, integer, omitted) -> capsule: the single table of a bind() capsule (N = 1)
 *     stepped by step_observe in layout `which`, with the arrays it hands out kept for reuse (mjenv/game/_slots.h):
 *     empty numpy.empty, integer numpy.integer, omitted the object that marks a seat without an action.
 *   step_observe(observer, a0, a1, a2, a3) -> (flags, acting, phase, hand_ended, deficiency, obs, masks, obs_rows,
 *     mask_rows, pairs) or None: the single env's common step in one call. The four seats' actions: an int (a
 *     numpy integer counts), or ``omitted`` for a seat without one, which takes PASS. None, with nothing changed,
 *     when the actions need the caller's checks: one not an int or outside the action space, one not legal in its
 *     mask, an acting seat omitted, or the hand over. Otherwise the table moves and is observed as run() would:
 *     flags as run()'s, acting / phase / hand_ended its info entries, deficiency a list of the 4 seats', obs a
 *     float32[4, S] and masks an int8[4, 85] (new to the caller: arrays handed out before are written again only
 *     once nothing holds them), obs_rows and mask_rows tuples of their 4 rows (views), pairs the acting seats'
 *     [seat, action] lists, seats ascending (the record's). The state arrays of the bound (defs, info) are written
 *     as by run().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../deficiency/_kernel_api.h"
#include "../../game/_pool.h" /* the kept thread pool */
#include "../../game/_slots.h" /* the arrays a single table's step hands out */
#include "_engine.h"
#include "_score.h"
#include "_shape.h"

#define A_DISCARD_RED 34
#define A_KAN 37
#define A_RIICHI 71
#define A_TSUMO 72
#define A_RON 73
#define A_CHI 74
#define A_CHI_RED 77
#define A_PON 80
#define A_PON_RED 81
#define A_MINKAN 82
#define A_KYUUSHU 83
#define A_PASS 84

/* ------------------------------------------------------------------------------------------------ tiles */
static uint8_t TYPE34[136]; /* mjenv type of a 136-id */
static uint8_t DORA_OF[34];
static uint8_t RED[256]; /* whether a 136-id (any uint8_t) is a red five: one load where three compares were */
static void tile_tables(void) {
    RED[16] = RED[52] = RED[88] = 1;
    for (int i = 0; i < 136; i++) {
        int k = i / 4;
        TYPE34[i] = (uint8_t)(k < 18 ? k + 9 : (k < 27 ? k - 18 : k));
    }
    for (int t = 0; t < 34; t++)
        DORA_OF[t] = (uint8_t)(t < 27 ? (t % 9 == 8 ? t - 8 : t + 1) : (t < 31 ? 27 + (t - 27 + 1) % 4 : 31 + (t - 31 + 1) % 3));
}
static inline int is_red(int id) { return RED[(uint8_t)id]; }
static inline int five(int t) { return t < 27 && t % 9 == 4; }
/* n floats of an observation row from small ints, or one value (restrict: a float store cannot change the source,
 * which a uint8_t one could alias, so the compiler vectorizes the loop) */
static inline void floats_of_u8(float *restrict o, const uint8_t *restrict x, int n) {
    for (int i = 0; i < n; i++) o[i] = (float)x[i];
}
static inline void floats_of_i16(float *restrict o, const int16_t *restrict x, int n) {
    for (int i = 0; i < n; i++) o[i] = (float)x[i];
}
static inline void floats_fill(float *restrict o, float v, int n) {
    for (int i = 0; i < n; i++) o[i] = v;
}
static inline int red_suit(int id) { return TYPE34[id] / 9; } /* 0 bamboo, 1 characters, 2 dots */
static inline int discard_action(int id) { return is_red(id) ? A_DISCARD_RED + red_suit(id) : TYPE34[id]; }
static const int WIND0 = 27, DRAGON0 = 31;

/* ------------------------------------------------------------------------------------------------ hands */
static void hand_add(ReTable *g, int s, int id) {
    g->hand[s][g->hn[s]++] = (uint8_t)id;
    g->cnt[s][TYPE34[id]]++;
    g->waits_ok[s] = 0;
    if (g->discard_waits_seat == s + 1) g->discard_waits_seat = 0;
}
static void hand_remove(ReTable *g, int s, int id) {
    int n = g->hn[s];
    for (int i = 0; i < n; i++)
        if (g->hand[s][i] == id) {
            int t = TYPE34[id];
            memmove(&g->hand[s][i], &g->hand[s][i + 1], (size_t)(n - i - 1));
            g->hn[s]--;
            g->cnt[s][t]--;
            g->waits_ok[s] = 0;
            if (g->discard_waits_seat == s + 1) { /* the hand's waits are the ones found for discarding t */
                if (g->hn[s] % 3 == 1) g->waits[s] = g->discard_waits[t], g->waits_ok[s] = 1;
                g->discard_waits_seat = 0;
            }
            return;
        }
}
/* per held type t: the waits (no meld rule) of the seat's hand without one t (others 0), cached */
static const uint64_t *discard_waits(ReTable *g, int s) {
    if (g->discard_waits_seat != s + 1) {
        shape_discard_waits(g->cnt[s], g->discard_waits);
        g->discard_waits_seat = (uint8_t)(s + 1);
    }
    return g->discard_waits;
}
/* the lowest 136-id of type t in the hand that is (red) or is not (plain) a red five, -1 none */
static int lowest(const ReTable *g, int s, int t, int red) {
    int best = -1;
    for (int i = 0; i < g->hn[s]; i++) {
        int id = g->hand[s][i];
        if (TYPE34[id] == t && is_red(id) == red && (best < 0 || id < best)) best = id;
    }
    return best;
}
static inline int has_red(const ReTable *g, int s, int t) { return five(t) && lowest(g, s, t, 1) >= 0; }
static inline int plain_count(const ReTable *g, int s, int t) { return g->cnt[s][t] - has_red(g, s, t); }

/* waits of the concealed part (no meld rule), cached */
static uint64_t raw_waits(ReTable *g, int s) {
    if (!g->waits_ok[s]) {
        g->waits[s] = g->hn[s] % 3 == 1 ? shape_waits(g->cnt[s]) : 0;
        g->waits_ok[s] = 1;
    }
    return g->waits[s];
}
static void meld_counts(const ReTable *g, int s, uint8_t *mc) {
    memset(mc, 0, 34);
    for (int j = 0; j < g->nmelds[s]; j++)
        for (int k = 0; k < g->melds[s][j].n; k++) mc[TYPE34[g->melds[s][j].tiles[k]]]++;
}
/* furiten.wait_types: a type all of whose copies are the seat's own (hand and melds) is no wait */
static uint64_t own_rule(const ReTable *g, int s, const uint8_t *cnt, uint64_t w) {
    if (!w) return 0;
    uint8_t mc[34];
    meld_counts(g, s, mc);
    for (int t = 0; t < 34; t++)
        if ((w >> t & 1) && cnt[t] + mc[t] >= 4) w &= ~(1ull << t);
    return w;
}
static uint64_t concealed_waits(ReTable *g, int s) { return own_rule(g, s, g->cnt[s], raw_waits(g, s)); }
/* per held type t: 1 when the hand without one t waits on a type (the own-copies rule of own_rule applied; mc: the
 * seat's meld counts) */
static void tenpai_after_discard(ReTable *g, int s, const uint8_t *mc, uint8_t *out) {
    const uint64_t *dw = discard_waits(g, s);
    const uint8_t *cnt = g->cnt[s];
    uint64_t full = 0; /* types all of whose copies are the seat's own with the hand as it is */
    for (int u = 0; u < 34; u++) full |= (uint64_t)(cnt[u] + mc[u] >= 4) << u;
    for (int t = 0; t < 34; t++) { /* t itself has a copy less */
        uint64_t bt = 1ull << t, drop = (full & ~bt) | (cnt[t] - 1 + mc[t] >= 4 ? bt : 0);
        out[t] = cnt[t] && (dw[t] & ~drop) != 0;
    }
}

static inline int remaining(const ReTable *g) { return g->live_end - g->live_pos; }
static inline int dealer_of(const ReTable *g) { return g->round_index % 4; }
static inline int can_kan(const ReTable *g) { return remaining(g) > 0 && g->kans[0] + g->kans[1] + g->kans[2] + g->kans[3] < 4; }
static inline int first_turn(const ReTable *g, int s) { return g->uninterrupted && !g->ndisc[s]; }

static int is_furiten(ReTable *g, int s) {
    if (g->stf[s] || g->rf[s]) return 1;
    if (g->hn[s] % 3 != 1) return 0;
    uint64_t w = concealed_waits(g, s);
    for (int i = 0; i < g->ndisc[s]; i++)
        if (w >> TYPE34[g->disc[s][i].tile] & 1) return 1;
    return 0;
}

/* ------------------------------------------------------------------------------------------------ scoring */
typedef struct {
    int32_t ron, tsumo_dealer, tsumo_nondealer;
} WinCost;

/* the seat's melds as the scorer reads them */
static int rs_melds(const ReTable *g, int s, RsMeld *out) {
    static const uint8_t KIND[5] = {RS_CHI, RS_PON, RS_MINKAN, RS_ANKAN, RS_KAKAN};
    for (int j = 0; j < g->nmelds[s]; j++) {
        const ReMeld *m = &g->melds[s][j];
        int lo = 99, red = 0;
        for (int k = 0; k < m->n; k++) {
            lo = TYPE34[m->tiles[k]] < lo ? TYPE34[m->tiles[k]] : lo;
            red += is_red(m->tiles[k]);
        }
        out[j] = (RsMeld){KIND[m->kind], (uint8_t)lo, (uint8_t)red, (uint8_t)(m->called >= 0 ? TYPE34[m->called] : 0)};
    }
    return g->nmelds[s];
}

static inline int seat_wind(const ReTable *g, int s) { return (s - g->round_index % 4 + 4) % 4; }
static inline int round_wind(const ReTable *g) { return g->round_index / 4 < 3 ? g->round_index / 4 : 3; }

/* the scorer's payments of a win of seat s holding cnt (the winning tile win_id included; 0: no yaku) */
static int score_win(const ReTable *g, int s, const uint8_t *cnt, int win_id, int tsumo, int chankan, int rinshan,
                     int haitei, int houtei, int tenhou, int chiihou, WinCost *out) {
    RsHand h;
    RsContext x;
    RsResult r;
    memcpy(h.c34, cnt, 34);
    memset(h.red, 0, 3);
    for (int i = 0; i < g->hn[s]; i++)
        if (is_red(g->hand[s][i])) h.red[red_suit(g->hand[s][i])]++;
    if (!tsumo && is_red(win_id)) h.red[red_suit(win_id)]++;
    h.win34 = TYPE34[win_id];
    h.n_melds = (uint8_t)rs_melds(g, s, h.melds);
    memset(&x, 0, sizeof x);
    int ri = g->riichi[s];
    x.is_tsumo = (uint8_t)tsumo, x.is_riichi = ri == 1, x.is_double_riichi = ri == 2, x.is_ippatsu = g->ippatsu[s];
    x.is_rinshan = (uint8_t)rinshan, x.is_chankan = (uint8_t)chankan, x.is_haitei = (uint8_t)haitei;
    x.is_houtei = (uint8_t)houtei, x.is_tenhou = (uint8_t)tenhou, x.is_chiihou = (uint8_t)chiihou;
    x.seat_wind = (uint8_t)seat_wind(g, s), x.round_wind = (uint8_t)round_wind(g);
    x.n_dora = g->n_dora;
    x.n_ura = ri ? g->n_dora : 0;
    for (int j = 0; j < g->n_dora; j++) {
        x.dora[j] = TYPE34[g->wall[126 + j]];
        x.ura[j] = TYPE34[g->wall[131 + j]];
    }
    if (rs_score(&h, &x, &r) != 1) return 0;
    out->ron = r.ron, out->tsumo_dealer = r.tsumo_dealer, out->tsumo_nondealer = r.tsumo_nondealer;
    return 1;
}
/* per type t with tenpai[t]: discarding it leaves a tenpai with a yaku on some wait by ron, riichi off (as
 * rs_discards_tenpai_yaku; the others 0: only the tenpai discards are scored) */
static void tenpai_discards_yaku(const ReTable *g, int s, const uint8_t *tenpai, uint8_t *out) {
    RsMeld m[4];
    uint8_t c[34];
    int n = rs_melds(g, s, m);
    memcpy(c, g->cnt[s], 34);
    memset(out, 0, 34);
    if (!rs__may_leave_tenpai(c)) return;
    for (int t = 0; t < 34; t++)
        if (tenpai[t] && c[t]) {
            c[t]--;
            out[t] = (uint8_t)rs_tenpai_has_yaku(c, m, n, seat_wind(g, s), round_wind(g));
            c[t]++;
        }
}

static int tsumo_result(ReTable *g, int s, WinCost *c) {
    if (g->wins_off || !shape_wins(g->cnt[s])) return 0;
    int first = first_turn(g, s), d = dealer_of(g);
    return score_win(g, s, g->cnt[s], g->drawn, 1, 0, g->drawn_rinshan, remaining(g) == 0 && !g->drawn_rinshan, 0,
                     first && s == d, first && s != d, c);
}
static int ron_result(ReTable *g, int s, int tile, int chankan, WinCost *c) {
    if (g->wins_off) return 0;
    uint8_t cnt[34];
    memcpy(cnt, g->cnt[s], 34);
    cnt[TYPE34[tile]]++;
    if (!shape_wins(cnt)) return 0;
    return score_win(g, s, cnt, tile, 0, chankan, 0, 0, remaining(g) == 0 && !chankan, 0, 0, c);
}

/* ------------------------------------------------------------------------------------------------ settlement */
static void win_deltas(int winner, int loser, int dealer, const WinCost *c, int honba, int sticks, int pao, int bonus,
                       int32_t *d) {
    int h = bonus ? honba : 0;
    memset(d, 0, 4 * sizeof(int32_t));
    if (loser < 0) {
        int total = 0;
        for (int s = 0; s < 4; s++) {
            if (s == winner) continue;
            int base = (winner == dealer || s != dealer) ? c->tsumo_nondealer : c->tsumo_dealer;
            if (pao >= 0) total += base;
            else {
                d[s] -= base + 100 * h;
                d[winner] += base + 100 * h;
            }
        }
        if (pao >= 0) {
            total += 300 * h;
            d[pao] -= total;
            d[winner] += total;
        }
    } else {
        int base = c->ron;
        if (pao >= 0 && pao != loser) {
            int half = base / 2;
            d[loser] -= half;
            d[pao] -= base - half + 300 * h;
        } else
            d[loser] -= base + 300 * h;
        d[winner] += base + 300 * h;
    }
    if (bonus) d[winner] += 1000 * sticks;
}

static void placement(const int32_t *sc, int *order) {
    for (int i = 0; i < 4; i++) order[i] = i;
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && (sc[order[j]] > sc[order[j - 1]]); j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
}

static int game_over(int round_index, const int32_t *scores, int dealer_kept, int abortive, int length) {
    if (abortive) return 0;
    int lo = scores[0], hi = scores[0];
    for (int s = 1; s < 4; s++) lo = scores[s] < lo ? scores[s] : lo, hi = scores[s] > hi ? scores[s] : hi;
    if (lo < 0) return 1;
    int scheduled = length == LEN_EAST ? 4 : 8, last = length == LEN_EAST ? 7 : 11;
    if (round_index < scheduled - 1) return 0;
    int order[4];
    placement(scores, order);
    int dealer_not_first = order[0] != round_index % 4;
    if (round_index >= last) return !(dealer_kept && dealer_not_first);
    if (hi < 30000) return 0;
    return !(dealer_kept && dealer_not_first);
}

static void final_result(ReTable *g) {
    static const int UMA[4] = {20, 10, -10, -20};
    int order[4];
    memcpy(g->final_scores, g->scores, sizeof g->scores);
    placement(g->final_scores, order);
    g->final_scores[order[0]] += 1000 * g->sticks;
    int sum = 0;
    for (int r = 1; r < 4; r++) {
        int s = order[r], x = g->final_scores[s] - 30000, q = ((x < 0 ? -x : x) + 400) / 1000;
        g->final_points[s] = (x >= 0 ? q : -q) + UMA[r];
        sum += g->final_points[s];
    }
    g->final_points[order[0]] = -sum;
}

/* ------------------------------------------------------------------------------------------------ the game */
typedef struct {
    int32_t *info;
} Out;

static void draw_tile(ReTable *g, int s, int rinshan) {
    int id;
    if (rinshan) {
        id = g->wall[122 + g->rinshan_drawn++];
        g->live_end--;
    } else
        id = g->wall[g->live_pos++];
    hand_add(g, s, id);
    g->drawn = (int16_t)id;
    g->drawn_rinshan = (uint8_t)rinshan;
    g->turn = (uint8_t)s;
    g->phase = PH_ACT;
}

static void deal(ReTable *g) {
    memcpy(g->wall, g->next_wall, 136);
    g->need_wall = 1;
    g->live_pos = 52, g->live_end = 122, g->rinshan_drawn = 0;
    int d = dealer_of(g);
    for (int s = 0; s < 4; s++) {
        int k = (s - d + 4) % 4;
        g->hn[s] = 0;
        memset(g->cnt[s], 0, 34);
        for (int i = 0; i < 13; i++) hand_add(g, s, g->wall[13 * k + i]);
        g->nmelds[s] = 0, g->ndisc[s] = 0;
        g->riichi[s] = g->ippatsu[s] = g->stf[s] = g->rf[s] = g->kans[s] = 0;
        g->pao[s] = -1;
        g->waits_ok[s] = 0;
    }
    g->n_dora = 1, g->pending_dora = 0, g->uninterrupted = 1, g->n_discards = 0;
    g->riichi_pending = -1, g->riichi_pending_double = 0;
    g->pending_kan_seat = -1, g->pending_kan_kind = -1;
    g->kuikae[0] = g->kuikae[1] = -1;
    g->claim_tile = -1, g->claim_from = -1;
    memcpy(g->start_scores, g->scores, sizeof g->scores);
    g->start_round = g->round_index, g->start_honba = g->honba, g->start_sticks = g->sticks;
    g->drawn = -1, g->drawn_rinshan = 0;
    g->fresh = 1;
    draw_tile(g, d, 0);
}

static void reveal_pending(ReTable *g) {
    while (g->pending_dora) g->pending_dora--, g->n_dora++;
}

static void end_hand(ReTable *g, const int32_t *deltas, int dealer_kept, int abortive, int result, Out *o) {
    for (int s = 0; s < 4; s++) g->scores[s] += deltas[s];
    int over = g->length == LEN_HAND || game_over(g->round_index, g->scores, dealer_kept, abortive, g->length);
    int32_t *I = o->info;
    I[RE_I_HAND_ENDED] = 1;
    I[RE_I_RESULT] = result;
    for (int s = 0; s < 4; s++) {
        I[RE_I_DELTAS + s] = g->scores[s] - g->start_scores[s];
        I[RE_I_SCORES + s] = g->scores[s];
    }
    I[RE_I_ROUND] = g->start_round, I[RE_I_HONBA] = g->start_honba;
    if (result == RES_AGARI) g->honba = dealer_kept ? g->honba + 1 : 0;
    else g->honba++;
    if (!dealer_kept) g->round_index++;
    if (over) {
        final_result(g);
        g->phase = PH_GAME_OVER;
        I[RE_I_GAME_OVER] = 1;
        for (int s = 0; s < 4; s++) I[RE_I_FINAL + s] = g->final_scores[s], I[RE_I_POINTS + s] = g->final_points[s];
    } else
        g->phase = PH_HAND_OVER;
}

static void end_draw(ReTable *g, int reason, Out *o) {
    static const int32_t zero[4] = {0, 0, 0, 0};
    g->riichi_pending = -1;
    end_hand(g, zero, 1, 1, reason, o);
}

static void add_winner(Out *o, int s) { o->info[RE_I_WINNERS + o->info[RE_I_NWIN]++] = s; }

static void win_tsumo(ReTable *g, int s, Out *o) {
    WinCost c;
    int32_t d[4];
    tsumo_result(g, s, &c);
    win_deltas(s, -1, dealer_of(g), &c, g->honba, g->sticks, g->pao[s], 1, d);
    add_winner(o, s);
    g->sticks = 0;
    end_hand(g, d, s == dealer_of(g), 0, RES_AGARI, o);
}

static void win_ron(ReTable *g, const int *winners, int n, int frm, int tile, int chankan, Out *o) {
    int32_t total[4] = {0, 0, 0, 0}, d[4];
    int kept = 0;
    for (int k = 0; k < n; k++) {
        WinCost c;
        int w = winners[k];
        ron_result(g, w, tile, chankan, &c);
        win_deltas(w, frm, dealer_of(g), &c, g->honba, g->sticks, g->pao[w], k == 0, d);
        for (int s = 0; s < 4; s++) total[s] += d[s];
        add_winner(o, w);
        kept |= w == dealer_of(g);
    }
    g->sticks = 0;
    end_hand(g, total, kept, 0, RES_AGARI, o);
}

static void exhaustive_draw(ReTable *g, Out *o) {
    int tenpai[4], nagashi[4], any = 0, k = 0;
    int32_t d[4] = {0, 0, 0, 0};
    int dealer = dealer_of(g);
    for (int s = 0; s < 4; s++) {
        tenpai[s] = concealed_waits(g, s) != 0;
        k += tenpai[s];
        nagashi[s] = g->ndisc[s] > 0;
        for (int i = 0; i < g->ndisc[s] && nagashi[s]; i++)
            if (!SHAPE_ORPHAN[TYPE34[g->disc[s][i].tile]] || (g->disc[s][i].flags & 4)) nagashi[s] = 0;
        any |= nagashi[s];
    }
    if (any) {
        for (int w = 0; w < 4; w++)
            if (nagashi[w])
                for (int s = 0; s < 4; s++)
                    if (s != w) {
                        int p = (w == dealer || s == dealer) ? 4000 : 2000;
                        d[s] -= p, d[w] += p;
                    }
    } else if (k > 0 && k < 4)
        for (int s = 0; s < 4; s++) d[s] = tenpai[s] ? 3000 / k : -(3000 / (4 - k));
    end_hand(g, d, tenpai[dealer], 0, any ? RES_NM : RES_EXHAUSTIVE, o);
}

/* ---- options */
static void kuikae_types(int kind_chi, int u0, int u1, int t, int8_t *forbid) {
    forbid[0] = (int8_t)t, forbid[1] = -1;
    if (kind_chi) {
        int lo = u0 < u1 ? u0 : u1, hi = u0 < u1 ? u1 : u0;
        if (t < lo && hi % 9 != 8) forbid[1] = (int8_t)(hi + 1);
        else if (t > hi && lo % 9 != 0) forbid[1] = (int8_t)(lo - 1);
    }
}

/* a chi/pon option unless kuikae would leave no legal discard */
static void add_call(ReTable *g, int s, int action, int u0, int u1, int t, int chi, uint8_t *opt) {
    int8_t forbid[2];
    kuikae_types(chi, TYPE34[u0], TYPE34[u1], t, forbid);
    uint8_t c[34];
    memcpy(c, g->cnt[s], 34);
    c[TYPE34[u0]]--, c[TYPE34[u1]]--;
    for (int x = 0; x < 34; x++)
        if (c[x] && x != forbid[0] && x != forbid[1]) {
            opt[action] = 1;
            return;
        }
}

/* the chi / pon tiles of an action from the hand (game.py's picks), into used; their number */
static int call_tiles(const ReTable *g, int s, int action, int t, int *used) {
    if (action == A_PON) { /* the two lowest plain ids */
        int a = lowest(g, s, t, 0), b = -1;
        for (int i = 0; i < g->hn[s]; i++) {
            int id = g->hand[s][i];
            if (TYPE34[id] == t && !is_red(id) && id != a && (b < 0 || id < b)) b = id;
        }
        used[0] = a, used[1] = b;
        return 2;
    }
    if (action == A_PON_RED) {
        used[0] = lowest(g, s, t, 1), used[1] = lowest(g, s, t, 0);
        return 2;
    }
    if (action == A_MINKAN) {
        int n = 0;
        for (int i = 0; i < g->hn[s]; i++)
            if (TYPE34[g->hand[s][i]] == t) used[n++] = g->hand[s][i];
        return n;
    }
    int red = action >= A_CHI_RED, pos = action - (red ? A_CHI_RED : A_CHI);
    static const int NEED[3][2] = {{1, 2}, {-1, 1}, {-2, -1}};
    for (int k = 0; k < 2; k++) {
        int nt = t + NEED[pos][k];
        used[k] = (red && five(nt)) ? lowest(g, s, nt, 1) : lowest(g, s, nt, 0);
    }
    return 2;
}

static void call_options(ReTable *g, int s, int tile, int discarder, uint8_t *opt) {
    WinCost c;
    int t = TYPE34[tile];
    if (!is_furiten(g, s) && ron_result(g, s, tile, 0, &c)) opt[A_RON] = 1;
    if (g->riichi[s] || remaining(g) == 0) return;
    int same = g->cnt[s][t], red = has_red(g, s, t), plain = same - red;
    if (same >= 2) {
        if (plain >= 2) {
            int u[4];
            call_tiles(g, s, A_PON, t, u);
            add_call(g, s, A_PON, u[0], u[1], t, 0, opt);
        }
        if (red && plain) add_call(g, s, A_PON_RED, lowest(g, s, t, 1), lowest(g, s, t, 0), t, 0, opt);
    }
    if (same == 3 && can_kan(g)) opt[A_MINKAN] = 1;
    if (s == (discarder + 1) % 4 && t < 27) {
        static const int NEED[3][2] = {{1, 2}, {-1, 1}, {-2, -1}};
        int n = t % 9;
        for (int pos = 0; pos < 3; pos++) {
            if (n + NEED[pos][0] < 0 || n + NEED[pos][0] > 8 || n + NEED[pos][1] < 0 || n + NEED[pos][1] > 8) continue;
            for (int use_red = 0; use_red < 2; use_red++) {
                int picked[2], ok = 1, any_five = 0;
                for (int k = 0; k < 2 && ok; k++) {
                    int nt = t + NEED[pos][k];
                    any_five |= five(nt);
                    picked[k] = (use_red && five(nt)) ? lowest(g, s, nt, 1) : lowest(g, s, nt, 0);
                    ok = picked[k] >= 0;
                }
                if (!ok || (use_red && !any_five)) continue;
                add_call(g, s, (use_red ? A_CHI_RED : A_CHI) + pos, picked[0], picked[1], t, 1, opt);
            }
        }
    }
}

/* discard options: forbid (kuikae) types left out; keep_tenpai: only those leaving waits (no meld rule) */
static int discard_options(ReTable *g, int s, int keep_tenpai, uint8_t *opt) {
    int n = 0;
    uint8_t done[34 + 3] = {0};
    for (int i = 0; i < g->hn[s]; i++) {
        int id = g->hand[s][i], t = TYPE34[id], a = discard_action(id);
        if (t == g->kuikae[0] || t == g->kuikae[1] || done[a]) continue;
        done[a] = 1;
        if (keep_tenpai && !discard_waits(g, s)[t]) continue;
        opt[a] = 1;
        n++;
    }
    return n;
}

static int riichi_kan_ok(ReTable *g, int s, int t) {
    if (g->drawn < 0 || TYPE34[g->drawn] != t) return 0;
    uint8_t after[34];
    memcpy(after, g->cnt[s], 34);
    after[t] = 0;
    return discard_waits(g, s)[t] == shape_waits(after);
}

static void act_options(ReTable *g, int s, uint8_t *opt) {
    WinCost c;
    if (tsumo_result(g, s, &c)) opt[A_TSUMO] = 1;
    const uint8_t *cnt = g->cnt[s];
    if (can_kan(g)) {
        for (int t = 0; t < 34; t++)
            if (cnt[t] == 4 && (!g->riichi[s] || riichi_kan_ok(g, s, t))) opt[A_KAN + t] = 1;
        if (!g->riichi[s])
            for (int j = 0; j < g->nmelds[s]; j++) {
                const ReMeld *m = &g->melds[s][j];
                if (m->kind == MK_PON && cnt[TYPE34[m->tiles[0]]]) opt[A_KAN + TYPE34[m->tiles[0]]] = 1;
            }
    }
    if (!g->riichi[s] && g->scores[s] >= 1000 && remaining(g) >= 4) {
        int closed = 1;
        for (int j = 0; j < g->nmelds[s]; j++) closed &= g->melds[s][j].kind == MK_ANKAN;
        uint8_t tmp[RE_ACTIONS] = {0};
        if (closed && discard_options(g, s, 1, tmp)) opt[A_RIICHI] = 1;
    }
    if (first_turn(g, s)) {
        int k = 0;
        for (int t = 0; t < 34; t++) k += SHAPE_ORPHAN[t] && cnt[t];
        if (k >= 9) opt[A_KYUUSHU] = 1;
    }
    if (g->riichi[s]) opt[discard_action(g->drawn)] = 1;
    else discard_options(g, s, 0, opt);
}

/* the acting seats and their options for the state as it is now */
static void compute_options(ReTable *g) {
    if (g->phase == PH_CLAIM || g->phase == PH_CHANKAN) return; /* set when the window opened */
    memset(g->opts, 0, sizeof g->opts);
    g->acting = 0;
    switch (g->phase) {
    case PH_ACT: act_options(g, g->turn, g->opts[g->turn]); g->acting = (uint8_t)(1 << g->turn); break;
    case PH_AFTER_CALL: discard_options(g, g->turn, 0, g->opts[g->turn]); g->acting = (uint8_t)(1 << g->turn); break;
    case PH_RIICHI_DISCARD:
        g->kuikae[0] = g->kuikae[1] = -1;
        discard_options(g, g->turn, 1, g->opts[g->turn]);
        g->acting = (uint8_t)(1 << g->turn);
        break;
    default: break;
    }
}

/* an option set before PASS (eight entries a word) */
static inline int any_option(const uint8_t *opt) {
    uint64_t any = 0, w;
    int a = 0;
    for (; a + 8 <= A_PASS; a += 8) memcpy(&w, opt + a, 8), any |= w;
    for (; a < A_PASS; a++) any |= opt[a];
    return any != 0;
}

static void pass_furiten(ReTable *g, int tile, int exclude) {
    int t = TYPE34[tile];
    for (int s = 0; s < 4; s++) {
        if (s == exclude) continue;
        if (concealed_waits(g, s) >> t & 1) {
            g->stf[s] = 1;
            if (g->riichi[s]) g->rf[s] = 1;
        }
    }
}

static void open_window(ReTable *g, int tile, int from, int phase) {
    g->claim_tile = (int16_t)tile, g->claim_from = (int8_t)from, g->phase = (uint8_t)phase;
}

static void discard(ReTable *g, int s, int id) {
    reveal_pending(g);
    hand_remove(g, s, id);
    int declared = g->riichi_pending == s;
    int flags = (id == g->drawn ? 1 : 0) | (declared ? 2 : 0);
    if (declared) g->riichi_pending_double = !g->ndisc[s] && g->uninterrupted;
    if (g->ndisc[s] < RE_MAX_DISCARDS) {
        ReDiscard *d = &g->disc[s][g->ndisc[s]++];
        d->tile = (uint8_t)id, d->flags = (uint8_t)flags, d->order = g->n_discards;
    }
    g->n_discards++;
    g->stf[s] = 0;
    if (g->riichi[s]) g->ippatsu[s] = 0;
    g->drawn = -1;
    g->kuikae[0] = g->kuikae[1] = -1;
    memset(g->opts, 0, sizeof g->opts);
    g->acting = 0;
    for (int k = 0; k < 4; k++) {
        if (k == s) continue;
        call_options(g, k, id, s, g->opts[k]);
        if (any_option(g->opts[k])) g->acting |= (uint8_t)(1 << k);
    }
    open_window(g, id, s, PH_CLAIM);
}

static void break_ippatsu(ReTable *g) {
    memset(g->ippatsu, 0, 4);
    g->uninterrupted = 0;
}

static void meld_sort(ReMeld *m) {
    for (int i = 1; i < m->n; i++)
        for (int j = i; j > 0 && m->tiles[j] < m->tiles[j - 1]; j--) {
            uint8_t x = m->tiles[j];
            m->tiles[j] = m->tiles[j - 1];
            m->tiles[j - 1] = x;
        }
}

static void check_pao(ReTable *g, int s, const ReMeld *m, int frm) {
    if (m->kind != MK_PON && m->kind != MK_MINKAN) return;
    int t = TYPE34[m->tiles[0]];
    int lo = t >= DRAGON0 ? DRAGON0 : (t >= WIND0 ? WIND0 : -1), size = t >= DRAGON0 ? 3 : 4;
    if (lo < 0) return;
    int n = 0;
    for (int j = 0; j < g->nmelds[s]; j++) {
        const ReMeld *x = &g->melds[s][j];
        int xt = TYPE34[x->tiles[0]];
        n += x->kind != MK_CHI && xt >= lo && xt < lo + size;
    }
    if (n == size) g->pao[s] = (int8_t)frm;
}

static void draw_or_end(ReTable *g, int frm, Out *o);

static void call(ReTable *g, int frm, int tile, int s, int action) {
    int used[4], n = call_tiles(g, s, action, TYPE34[tile], used);
    break_ippatsu(g);
    g->disc[frm][g->ndisc[frm] - 1].flags |= 4;
    for (int k = 0; k < n; k++) hand_remove(g, s, used[k]);
    ReMeld *m = &g->melds[s][g->nmelds[s]++];
    m->kind = action == A_MINKAN ? MK_MINKAN : (action == A_PON || action == A_PON_RED ? MK_PON : MK_CHI);
    m->n = (uint8_t)(n + 1);
    for (int k = 0; k < n; k++) m->tiles[k] = (uint8_t)used[k];
    m->tiles[n] = (uint8_t)tile;
    meld_sort(m);
    m->called = (int16_t)tile, m->from = (int8_t)frm;
    check_pao(g, s, m, frm);
    if (m->kind == MK_MINKAN) {
        g->kans[s]++;
        g->pending_dora++;
        draw_tile(g, s, 1);
        return;
    }
    kuikae_types(m->kind == MK_CHI, TYPE34[used[0]], TYPE34[used[1]], TYPE34[tile], g->kuikae);
    g->turn = (uint8_t)s, g->phase = PH_AFTER_CALL;
    g->drawn = -1, g->drawn_rinshan = 0;
}

static int kokushi_wait(const ReTable *g, int s, int t) {
    if (!SHAPE_ORPHAN[t]) return 0;
    for (int x = 0; x < 34; x++) {
        if (SHAPE_ORPHAN[x] && x != t && !g->cnt[s][x]) return 0;
        if (!SHAPE_ORPHAN[x] && g->cnt[s][x]) return 0;
    }
    return 1;
}

static void self_kan(ReTable *g, int s, int t) {
    reveal_pending(g);
    int used[4], n = 0;
    for (int i = 0; i < g->hn[s]; i++)
        if (TYPE34[g->hand[s][i]] == t) used[n++] = g->hand[s][i];
    for (int k = 0; k < n; k++) hand_remove(g, s, used[k]);
    int pon = -1;
    for (int j = 0; j < g->nmelds[s]; j++)
        if (g->melds[s][j].kind == MK_PON && TYPE34[g->melds[s][j].tiles[0]] == t) pon = j;
    int kind, rob;
    if (pon >= 0) {
        ReMeld *m = &g->melds[s][pon];
        for (int k = 0; k < n; k++) m->tiles[m->n++] = (uint8_t)used[k];
        meld_sort(m);
        m->kind = MK_KAKAN;
        kind = MK_KAKAN;
        rob = used[0];
    } else {
        ReMeld *m = &g->melds[s][g->nmelds[s]++];
        m->kind = MK_ANKAN, m->n = (uint8_t)n;
        for (int k = 0; k < n; k++) m->tiles[k] = (uint8_t)used[k];
        meld_sort(m);
        m->called = -1, m->from = -1;
        kind = MK_ANKAN;
        rob = used[0];
    }
    g->kans[s]++;
    g->pending_kan_seat = (int8_t)s, g->pending_kan_kind = (int8_t)kind;
    memset(g->opts, 0, sizeof g->opts);
    g->acting = 0;
    for (int k = 0; k < 4; k++) {
        WinCost c;
        if (k == s || is_furiten(g, k)) continue;
        if (kind == MK_ANKAN && !(g->kokushi_robs && kokushi_wait(g, k, t))) continue;
        if (ron_result(g, k, rob, 1, &c)) {
            g->opts[k][A_RON] = 1;
            g->acting |= (uint8_t)(1 << k);
        }
    }
    open_window(g, rob, s, PH_CHANKAN);
}

static void complete_kan(ReTable *g) {
    int s = g->pending_kan_seat;
    break_ippatsu(g);
    if (g->pending_kan_kind == MK_ANKAN) g->n_dora++;
    else g->pending_dora++;
    draw_tile(g, s, 1);
}

static void accept_riichi(ReTable *g, int s) {
    g->riichi[s] = g->riichi_pending_double ? 2 : 1;
    g->riichi_pending = -1;
    g->ippatsu[s] = 1;
    g->scores[s] -= 1000;
    g->sticks++;
}

static void resolve_claims(ReTable *g, const int32_t *act, Out *o) {
    int tile = g->claim_tile, frm = g->claim_from, chankan = g->phase == PH_CHANKAN;
    int rons[3], nr = 0;
    for (int k = 1; k <= 3; k++) {
        int s = (frm + k) % 4;
        if ((g->acting >> s & 1) && act[s] == A_RON) rons[nr++] = s;
    }
    if (nr == 3) {
        end_draw(g, RES_RON3, o);
        return;
    }
    if (nr) {
        win_ron(g, rons, nr, frm, tile, chankan, o);
        return;
    }
    pass_furiten(g, tile, frm);
    if (chankan) {
        complete_kan(g);
        return;
    }
    if (g->riichi_pending == frm) {
        accept_riichi(g, frm);
        if (g->riichi[0] && g->riichi[1] && g->riichi[2] && g->riichi[3]) {
            end_draw(g, RES_REACH4, o);
            return;
        }
    }
    if (g->n_discards == 4 && g->uninterrupted) {
        int t0 = TYPE34[g->disc[0][0].tile], same = t0 >= WIND0 && t0 < DRAGON0;
        for (int s = 1; s < 4 && same; s++) same = TYPE34[g->disc[s][0].tile] == t0;
        if (same) {
            end_draw(g, RES_KAZE4, o);
            return;
        }
    }
    int nk = g->kans[0] + g->kans[1] + g->kans[2] + g->kans[3], mk = 0;
    for (int s = 0; s < 4; s++) mk = g->kans[s] > mk ? g->kans[s] : mk;
    if (nk == 4 && mk < 4) {
        end_draw(g, RES_KAN4, o);
        return;
    }
    int caller = -1;
    for (int s = 0; s < 4; s++)
        if ((g->acting >> s & 1) && (act[s] == A_PON || act[s] == A_PON_RED || act[s] == A_MINKAN)) caller = s;
    if (caller < 0)
        for (int s = 0; s < 4; s++)
            if ((g->acting >> s & 1) && act[s] >= A_CHI && act[s] < A_CHI + 6) caller = s;
    if (caller >= 0) {
        call(g, frm, tile, caller, act[caller]);
        return;
    }
    draw_or_end(g, frm, o);
}

static void draw_or_end(ReTable *g, int frm, Out *o) {
    if (remaining(g) == 0) exhaustive_draw(g, o);
    else draw_tile(g, (frm + 1) % 4, 0);
}

/* the discard of action a on the seat's turn: the drawn tile when it fits, else the lowest id */
static int discard_tile(const ReTable *g, int s, int a) {
    if (g->drawn >= 0 && discard_action(g->drawn) == a) return g->drawn;
    if (a >= A_DISCARD_RED) {
        static const int RED_T[3] = {4, 13, 22};
        return lowest(g, s, RED_T[a - A_DISCARD_RED], 1);
    }
    return lowest(g, s, a, 0);
}

/* claim_window="when_possible": the window a discard or kan has just opened, resolved at once when nobody can use it
 * (game.py's _discard / _self_kan); with "always" it stays open for a step of its own */
static void close_empty_window(ReTable *g, Out *o) {
    static const int32_t passes[4] = {A_PASS, A_PASS, A_PASS, A_PASS};
    if (!g->when_possible || g->acting || (g->phase != PH_CLAIM && g->phase != PH_CHANKAN)) return;
    resolve_claims(g, passes, o);
    g->claim_tile = -1, g->claim_from = -1;
}

/* one step; 0, or -1 for an action not in the acting seat's options */
static int step_table(ReTable *g, const int32_t *act, Out *o) {
    if (g->phase == PH_CLAIM || g->phase == PH_CHANKAN) {
        for (int s = 0; s < 4; s++)
            if ((g->acting >> s & 1) && act[s] != A_PASS && (act[s] < 0 || act[s] >= A_PASS || !g->opts[s][act[s]]))
                return -1;
        resolve_claims(g, act, o);
        if (g->phase != PH_CLAIM && g->phase != PH_CHANKAN) g->claim_tile = -1, g->claim_from = -1;
        return 0;
    }
    if (g->phase > PH_RIICHI_DISCARD) return -1;
    int s = g->turn, a = act[s];
    if (a < 0 || a >= A_PASS || !g->opts[s][a]) return -1;
    if (a == A_TSUMO) win_tsumo(g, s, o);
    else if (a == A_KYUUSHU) end_draw(g, RES_YAO9, o);
    else if (a == A_RIICHI) {
        g->riichi_pending = (int8_t)s;
        g->phase = PH_RIICHI_DISCARD;
    } else if (a >= A_KAN && a < A_KAN + 34) {
        self_kan(g, s, a - A_KAN);
        close_empty_window(g, o);
    } else {
        discard(g, s, discard_tile(g, s, a));
        close_empty_window(g, o);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ observation */
/* the spec's views, in compiled.py's VIEWS order */
enum {
    V_HAND, V_HAND_RED, V_DRAWN, V_DRAWN_RED, V_MELD_COUNTS, V_MELD_KIND, V_MELD_TILE, V_MELD_CALLED, V_MELD_FROM,
    V_MELD_RED, V_DISCARDS, V_DISCARD_RED, V_DISCARD_TSUMOGIRI, V_DISCARD_RIICHI, V_DISCARD_CALLED, V_DISCARD_ORDER,
    V_LAST_DISCARD, V_LAST_DISCARD_RED, V_LAST_DISCARDER, V_DORA_INDICATORS, V_DORA_INDICATOR_RED, V_DORA, V_SCORES,
    V_DEALER, V_SEAT_WIND, V_ROUND_WIND, V_ROUND, V_HONBA, V_RIICHI_STICKS, V_RIICHI, V_DOUBLE_RIICHI, V_IPPATSU,
    V_FURITEN, V_WALL_COUNT, V_PHASE, V_KNOWLEDGE_BASE, V_TENPAI_AFTER_DISCARD, V_YAKU_AFTER_DISCARD, NV
};
#define SHOWN_DISCARDS 32
#define REC_HANDS 0
#define REC_KBS 136
#define REC_NEEDED 272
#define REC_TURN 276
#define REC_CLAIM 280
#define REC_CHOW 284
#define REC_LEN 288

static const KernelApi *kernel_api = NULL;
#define MAX_ZERO_RANGES 64
/* the views the first observer writes for every seat and the other observers copy, rotated, from its row: each view
 * is 4 rows (the seats from the observer on) of the length beside it */
#define ROTATED_VIEWS(X)                                                                                              \
    X(V_MELD_COUNTS, 34) X(V_MELD_KIND, 20) X(V_MELD_TILE, 4) X(V_MELD_CALLED, 4) X(V_MELD_RED, 4) X(V_DISCARDS, 32) \
    X(V_DISCARD_RED, 32) X(V_DISCARD_TSUMOGIRI, 32) X(V_DISCARD_RIICHI, 32) X(V_DISCARD_CALLED, 32)                   \
    X(V_DISCARD_ORDER, 32) X(V_SCORES, 1) X(V_DEALER, 1) X(V_RIICHI, 1) X(V_DOUBLE_RIICHI, 1) X(V_IPPATSU, 1)
#define ROTATED_ENTRY(v, r) {v, r},
static const int ROTATED[][2] = {ROTATED_VIEWS(ROTATED_ENTRY)};
#define NROTATED ((int)(sizeof ROTATED / sizeof ROTATED[0]))
/* a rotated view of r floats a row: row j of o's view is row (j + k) % 4 of src's (r a constant where it is
 * inlined, so that each row's copy is a few moves, not a call) */
static inline __attribute__((always_inline)) void rotate_view(float *o, const float *src, int at, int r, int k) {
    for (int j = 0; j < 4; j++) memcpy(o + at + j * r, src + at + ((j + k) & 3) * r, sizeof(float) * (size_t)r);
}
/* an observation layout (configure): the kernel's plan, each view's offset (-1: not in it) and the size */
typedef struct {
    PyObject *capsule;
    void *plan;
    int32_t off[NV];
    Py_ssize_t size;
    int features; /* whether the plan writes the deficiency features (else only the deficiencies are computed) */
    /* the floats of an observed seat's row that observe_table zeroes before writing it: those that not every step
     * writes (the kernel's features, hand, knowledge_base, tenpai_after_discard, yaku_after_discard are written in
     * full), as [start, length) ranges; [1]: a seat after the first observer, whose rotated views are copied whole */
    int32_t zero[2][MAX_ZERO_RANGES][2];
    int nzero[2];
} Layout;
static Layout LAYOUTS[2];

/* seat s's legal actions (RE_ACTIONS bytes): PASS alone for a seat not acting (or at an end), else its options and,
 * in a claim or kan-robbing window, PASS */
static inline void mask_row(const ReTable *g, int s, int over, int8_t *mk) {
    memset(mk, 0, RE_ACTIONS);
    if (over || !(g->acting >> s & 1)) mk[A_PASS] = 1;
    else {
        memcpy(mk, g->opts[s], RE_ACTIONS);
        if (g->phase == PH_CLAIM || g->phase == PH_CHANKAN) mk[A_PASS] = 1;
    }
}

static int observe_table(ReTable *g, const Layout *lay, float *obs, int8_t *masks, int32_t *defs, void *memo) {
    const int32_t *OFF = lay->off;
    int over = g->phase >= PH_HAND_OVER;
    int turn = g->phase <= PH_RIICHI_DISCARD ? g->turn : -1;
    int claim = (g->phase == PH_CLAIM || g->phase == PH_CHANKAN) ? TYPE34[g->claim_tile] : -1;
    int16_t rec[REC_LEN];
    uint8_t seen[34] = {0}, mc[4][34];
    for (int s = 0; s < 4; s++) {
        meld_counts(g, s, mc[s]);
        for (int t = 0; t < 34; t++) seen[t] += mc[s][t];
        for (int i = 0; i < g->ndisc[s]; i++)
            if (!(g->disc[s][i].flags & 4)) seen[TYPE34[g->disc[s][i].tile]]++;
    }
    int nd = g->n_dora < 5 ? g->n_dora : 5;
    for (int j = 0; j < nd; j++) seen[TYPE34[g->wall[126 + j]]]++;
    for (int s = 0; s < 4; s++) {
        for (int t = 0; t < 34; t++) {
            rec[REC_HANDS + 34 * s + t] = g->cnt[s][t];
            rec[REC_KBS + 34 * s + t] = (int16_t)(4 - seen[t] - g->cnt[s][t]);
        }
        rec[REC_NEEDED + s] = (int16_t)(4 - g->nmelds[s]);
        rec[REC_TURN + s] = s == turn;
        rec[REC_CLAIM + s] = (int16_t)(claim >= 0 && s != g->claim_from ? claim : -1);
        rec[REC_CHOW + s] = claim >= 0 && g->phase == PH_CLAIM && s == (g->claim_from + 1) % 4;
    }
    /* the seats observed: every seat, or with observers="acting" the acting ones (every seat after a deal and at
     * an end); another seat's row is zeros and its deficiency the one it was last observed with */
    const uint8_t observed = over || g->fresh || !g->acting_only ? 15 : g->acting;
    g->fresh = 0;
    const Py_ssize_t S = lay->size;
    const int first = observed ? __builtin_ctz(observed) : 4; /* the first observer writes the public rows */
    /* zeros where this step may write nothing (each float stored once where it can be): an unobserved seat's whole
     * row, an observed one's floats that not every step writes (Layout.zero) */
    for (int s = 0; s < 4; s++) {
        float *o = obs + s * S;
        if (!(observed >> s & 1)) {
            memset(o, 0, sizeof(float) * (size_t)S);
            continue;
        }
        const int z = s > first;
        for (int r = 0; r < lay->nzero[z]; r++) memset(o + lay->zero[z][r][0], 0, sizeof(float) * (size_t)lay->zero[z][r][1]);
    }
    if (lay->features) { /* the features: the kernel's */
        char err[KERNEL_ERR_LEN];
        void *memos[1] = {memo};
        if (kernel_api->observe_unzeroed(lay->plan, rec, memos, &observed, 1, obs, defs, err) < 0) return -1;
    } else { /* observation="raw": the observed seats' deficiencies alone */
        for (int s = 0; s < 4; s++)
            if (observed >> s & 1) {
                int8_t h[34], k[34];
                for (int t = 0; t < 34; t++) h[t] = (int8_t)rec[REC_HANDS + 34 * s + t], k[t] = (int8_t)rec[REC_KBS + 34 * s + t];
                defs[s] = kernel_api->deficiency(lay->plan, h, k, rec[REC_NEEDED + s]);
            }
    }
    for (int s = 0; s < 4; s++) {
        if (observed >> s & 1) g->last_def[s] = defs[s];
        else defs[s] = g->last_def[s];
    }
    int dealer = dealer_of(g), rw = round_wind(g);
    static const int PHASE_INDEX[7] = {0, 1, 2, 3, 4, 5, 5};
    for (int s = 0; s < 4; s++) {
        mask_row(g, s, over, masks + s * RE_ACTIONS);
        if (!(observed >> s & 1)) continue; /* its row zeros */
        float *o = obs + s * S;
        floats_of_u8(o + OFF[V_HAND], g->cnt[s], 34);
        for (int i = 0; i < g->hn[s]; i++)
            if (is_red(g->hand[s][i])) o[OFF[V_HAND_RED] + red_suit(g->hand[s][i])] = 1;
        if (s == turn && g->drawn >= 0 && (g->phase == PH_ACT || g->phase == PH_RIICHI_DISCARD)) {
            o[OFF[V_DRAWN] + TYPE34[g->drawn]] = 1;
            o[OFF[V_DRAWN_RED]] = is_red(g->drawn);
        }
        if (s > first) { /* the other observers' rows are the first one's, rotated */
            const float *src = obs + first * S;
            const int k = s - first;
#define ROTATE(v, r) rotate_view(o, src, OFF[v], r, k);
            ROTATED_VIEWS(ROTATE)
#undef ROTATE
            for (int j = 0; j < 4; j++) {
                int p = (s + j) % 4;
                for (int k = 0; k < g->nmelds[p]; k++)
                    if (g->melds[p][k].from >= 0) o[OFF[V_MELD_FROM] + (4 * j + k) * 4 + (g->melds[p][k].from - s + 4) % 4] = 1;
            }
        }
        for (int j = 0; j < 4 && s == first; j++) {
            int p = (s + j) % 4;
            floats_of_u8(o + OFF[V_MELD_COUNTS] + 34 * j, mc[p], 34);
            for (int k = 0; k < g->nmelds[p]; k++) {
                const ReMeld *m = &g->melds[p][k];
                int lo = 99, red = 0;
                for (int x = 0; x < m->n; x++) {
                    lo = TYPE34[m->tiles[x]] < lo ? TYPE34[m->tiles[x]] : lo;
                    red |= is_red(m->tiles[x]);
                }
                o[OFF[V_MELD_KIND] + (4 * j + k) * 5 + m->kind] = 1;
                o[OFF[V_MELD_TILE] + 4 * j + k] = (float)(lo + 1);
                if (m->called >= 0 && m->kind != MK_ANKAN) o[OFF[V_MELD_CALLED] + 4 * j + k] = (float)(TYPE34[m->called] + 1);
                if (m->from >= 0) o[OFF[V_MELD_FROM] + (4 * j + k) * 4 + (m->from - s + 4) % 4] = 1;
                o[OFF[V_MELD_RED] + 4 * j + k] = (float)red;
            }
            int n = g->ndisc[p] < SHOWN_DISCARDS ? g->ndisc[p] : SHOWN_DISCARDS;
            for (int i = 0; i < n; i++) {
                const ReDiscard *d = &g->disc[p][i];
                int at = SHOWN_DISCARDS * j + i;
                o[OFF[V_DISCARDS] + at] = (float)(TYPE34[d->tile] + 1);
                o[OFF[V_DISCARD_RED] + at] = (float)is_red(d->tile);
                o[OFF[V_DISCARD_TSUMOGIRI] + at] = (float)(d->flags & 1);
                o[OFF[V_DISCARD_RIICHI] + at] = (float)(d->flags >> 1 & 1);
                o[OFF[V_DISCARD_CALLED] + at] = (float)(d->flags >> 2 & 1);
                o[OFF[V_DISCARD_ORDER] + at] = (float)(d->order + 1);
            }
            o[OFF[V_SCORES] + j] = (float)((double)g->scores[p] / 1000.0);
            o[OFF[V_DEALER] + j] = p == dealer;
            o[OFF[V_RIICHI] + j] = g->riichi[p] > 0;
            o[OFF[V_DOUBLE_RIICHI] + j] = g->riichi[p] == 2;
            o[OFF[V_IPPATSU] + j] = g->ippatsu[p];
        }
        if (claim >= 0) {
            o[OFF[V_LAST_DISCARD] + claim] = 1;
            o[OFF[V_LAST_DISCARD_RED]] = (float)is_red(g->claim_tile);
            o[OFF[V_LAST_DISCARDER] + (g->claim_from - s + 4) % 4] = 1;
        }
        for (int j = 0; j < nd; j++) {
            int id = g->wall[126 + j];
            o[OFF[V_DORA_INDICATORS] + j] = (float)(TYPE34[id] + 1);
            o[OFF[V_DORA_INDICATOR_RED] + j] = (float)is_red(id);
            o[OFF[V_DORA] + DORA_OF[TYPE34[id]]] += 1;
        }
        o[OFF[V_SEAT_WIND] + (s - dealer + 4) % 4] = 1;
        o[OFF[V_ROUND_WIND] + rw] = 1;
        o[OFF[V_ROUND]] = (float)g->round_index;
        o[OFF[V_HONBA]] = (float)g->honba;
        o[OFF[V_RIICHI_STICKS]] = (float)g->sticks;
        o[OFF[V_FURITEN]] = !over && is_furiten(g, s);
        o[OFF[V_WALL_COUNT]] = (float)remaining(g);
        o[OFF[V_PHASE] + PHASE_INDEX[g->phase]] = 1;
        floats_of_i16(o + OFF[V_KNOWLEDGE_BASE], rec + REC_KBS + 34 * s, 34);
        if (OFF[V_TENPAI_AFTER_DISCARD] < 0) continue; /* observation="raw" */
        floats_fill(o + OFF[V_TENPAI_AFTER_DISCARD], -1, 34);
        floats_fill(o + OFF[V_YAKU_AFTER_DISCARD], -1, 34);
        if (s == turn && g->hn[s] % 3 == 2) {
            uint8_t yk[34], tenpai[34];
            tenpai_after_discard(g, s, mc[s], tenpai);
            tenpai_discards_yaku(g, s, tenpai, yk);
            for (int t = 0; t < 34; t++)
                if (g->cnt[s][t]) {
                    o[OFF[V_TENPAI_AFTER_DISCARD] + t] = (float)tenpai[t];
                    o[OFF[V_YAKU_AFTER_DISCARD] + t] = (float)(tenpai[t] && yk[t]);
                }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------------ the batch */
typedef struct {
    uint8_t *states;
    Py_ssize_t B;
    const uint8_t *ops;
    const int32_t *actions, *params;
    float *obs;
    int8_t *masks;
    int32_t *defs, *info;
    uint8_t *memos;
    Py_ssize_t M;
    const Layout *lay;
} RunJob;

static void start_game(ReTable *g, const int32_t *p) {
    uint8_t next[136];
    memcpy(next, g->next_wall, 136);
    memset(g, 0, sizeof *g);
    memcpy(g->next_wall, next, 136);
    for (int s = 0; s < 4; s++) g->scores[s] = p[s];
    g->round_index = p[4], g->honba = p[5], g->sticks = p[6];
    g->length = (uint8_t)(p[7] & 3), g->kokushi_robs = (uint8_t)(p[7] >> 2 & 1), g->wins_off = (uint8_t)(p[7] >> 3 & 1);
    g->when_possible = (uint8_t)(p[7] >> 4 & 1), g->acting_only = (uint8_t)(p[7] >> 5 & 1);
    deal(g);
}

static void run_range(RunJob *J, Py_ssize_t lo, Py_ssize_t hi) {
    for (Py_ssize_t i = lo; i < hi; i++) {
        if (!J->ops[i]) continue;
        ReTable *g = (ReTable *)(J->states + i * J->B);
        int32_t *I = J->info + i * RE_INFO;
        memset(I, 0, sizeof(int32_t) * RE_INFO);
        Out o = {I};
        if (J->ops[i] == 2) start_game(g, J->params + 8 * i);
        else if (step_table(g, J->actions + 4 * i, &o) < 0) {
            I[RE_I_ERROR] = 1;
            continue;
        }
        if (g->phase == PH_HAND_OVER) deal(g);
        compute_options(g);
        I[RE_I_ACTING] = g->acting;
        I[RE_I_PHASE] = g->phase;
        I[RE_I_TURN] = g->turn;
        I[RE_I_CLAIM_FROM] = g->claim_from;
        if (observe_table(g, J->lay, J->obs + i * 4 * J->lay->size, J->masks + i * 4 * RE_ACTIONS, J->defs + 4 * i,
                          J->memos ? J->memos + i * J->M : NULL) < 0)
            I[RE_I_ERROR] = 2;
    }
}

static void run_job(void *ctx, Py_ssize_t lo, Py_ssize_t hi) { run_range((RunJob *)ctx, lo, hi); }

/* pool(k): k - 1 threads kept for run() (a capsule; they stop when it is freed) */
#define POOL_CAPSULE "mjenv.rulesets.riichi._engine.pool"
static void pool_free(PyObject *cap) {
    Pool *p = PyCapsule_GetPointer(cap, POOL_CAPSULE);
    if (!p) return;
    Py_BEGIN_ALLOW_THREADS
    pool_stop(p);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(p);
}
static PyObject *py_pool(PyObject *self, PyObject *args) {
    (void)self;
    int k;
    if (!PyArg_ParseTuple(args, "i", &k)) return NULL;
    if (k < 1 || k > MAX_THREADS) return PyErr_Format(PyExc_ValueError, "pool(): threads must be in 1..%d, got %d",
                                                      MAX_THREADS, k);
    Pool *p = PyMem_RawCalloc(1, sizeof(Pool));
    if (!p) return PyErr_NoMemory();
    if (pool_start(p, k) < 0) {
        pool_stop(p);
        PyMem_RawFree(p);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(p, POOL_CAPSULE, pool_free);
    if (!cap) {
        pool_stop(p);
        PyMem_RawFree(p);
    }
    return cap;
}

static int need(Py_buffer *b, Py_ssize_t len, const char *fn, const char *name) {
    if (b->len != len) {
        PyErr_Format(PyExc_ValueError, "%s(): %s has %zd bytes, expected %zd", fn, name, b->len, len);
        return 0;
    }
    return 1;
}

/* bind(): the arrays a table set keeps (see the module comment). Their buffers are taken once here: run() is
 * called every step, and taking nine numpy buffers through a format string cost about 5,000 instructions a call
 * (callgrind), a tenth of a single table's step. */
#define BOUND_CAPSULE "mjenv.rulesets.riichi._engine.bound"
typedef struct {
    Py_buffer st, ops, par, dfs, inf, mem;
    Py_ssize_t N, M; /* tables, memo bytes per table (0: no memos) */
} Bound;
static void bound_release(Bound *b) {
    PyBuffer_Release(&b->st), PyBuffer_Release(&b->ops), PyBuffer_Release(&b->par);
    PyBuffer_Release(&b->dfs), PyBuffer_Release(&b->inf), PyBuffer_Release(&b->mem);
}
static void bound_free(PyObject *cap) {
    Bound *b = PyCapsule_GetPointer(cap, BOUND_CAPSULE);
    if (!b) return;
    bound_release(b);
    PyMem_Free(b);
}
static PyObject *py_bind(PyObject *self, PyObject *args) {
    (void)self;
    Bound *b = PyMem_Calloc(1, sizeof(Bound));
    if (!b) return PyErr_NoMemory();
    /* on a failure PyArg_ParseTuple releases the buffers it took */
    if (!PyArg_ParseTuple(args, "w*y*y*w*w*w*", &b->st, &b->ops, &b->par, &b->dfs, &b->inf, &b->mem)) {
        PyMem_Free(b);
        return NULL;
    }
    Py_ssize_t N = b->N = b->ops.len;
    b->M = N ? b->mem.len / N : 0;
    if (!need(&b->st, N * (Py_ssize_t)sizeof(ReTable), "bind", "states") || !need(&b->par, N * 32, "bind", "params") ||
        !need(&b->dfs, N * 16, "bind", "defs") || !need(&b->inf, N * RE_INFO * 4, "bind", "info"))
        goto fail;
    if (b->mem.len && b->M * N != b->mem.len) {
        PyErr_SetString(PyExc_ValueError, "bind(): memos must be uint8[N, memo_bytes]");
        goto fail;
    }
    PyObject *cap = PyCapsule_New(b, BOUND_CAPSULE, bound_free);
    if (cap) return cap;
fail:
    bound_release(b);
    PyMem_Free(b);
    return NULL;
}

/* a C-contiguous buffer of obj (writable: PyBUF_WRITABLE), as PyArg_ParseTuple's y* / w* take it: 0, or -1 with an
 * exception set (nothing held) */
static int contiguous(PyObject *obj, Py_buffer *b, int writable, const char *name) {
    if (PyObject_GetBuffer(obj, b, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0) return -1;
    if (!PyBuffer_IsContiguous(b, 'C')) {
        PyBuffer_Release(b);
        PyErr_Format(PyExc_ValueError, "run(): %s must be a C-contiguous buffer", name);
        return -1;
    }
    return 0;
}

/* what the caller of a run must look at (ops: the run's per table): 1 a table it ran failed, 2 a table wants its next
 * wall, 4 a hand ended on a table it ran */
static long run_flags(const Bound *b, const uint8_t *ops) {
    long flags = 0;
    const int32_t *inf = b->inf.buf;
    for (Py_ssize_t i = 0; i < b->N; i++) {
        const ReTable *g = (const ReTable *)((const uint8_t *)b->st.buf + i * (Py_ssize_t)sizeof(ReTable));
        if (ops[i] && inf[i * RE_INFO + RE_I_ERROR]) flags |= 1;
        if (g->need_wall) flags |= 2;
        if (ops[i] && inf[i * RE_INFO + RE_I_HAND_ENDED]) flags |= 4;
    }
    return flags;
}

static PyObject *py_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 6) return PyErr_Format(PyExc_TypeError, "run() takes 6 arguments (bound, actions, obs, masks, "
                                                         "workers, which), got %zd", nargs);
    Bound *b = PyCapsule_GetPointer(args[0], BOUND_CAPSULE);
    if (!b) return NULL;
    int which = PyLong_AsLong(args[5]);
    if (which == -1 && PyErr_Occurred()) return NULL;
    PyObject *workers = args[4];
    Pool *pool = NULL; /* None: the tables run on the calling thread */
    if (workers != Py_None && !(pool = PyCapsule_GetPointer(workers, POOL_CAPSULE))) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "run(): workers must be None or a pool()");
        return NULL;
    }
    if (which < 0 || which > 1 || !LAYOUTS[which].plan)
        return PyErr_Format(PyExc_RuntimeError, "run(): configure() observation layout %d of the engine first", which);
    const Layout *lay = &LAYOUTS[which];
    Py_buffer act, obs, msk;
    if (contiguous(args[1], &act, 0, "actions") < 0) return NULL;
    if (contiguous(args[2], &obs, 1, "obs") < 0) {
        PyBuffer_Release(&act);
        return NULL;
    }
    if (contiguous(args[3], &msk, 1, "masks") < 0) {
        PyBuffer_Release(&act), PyBuffer_Release(&obs);
        return NULL;
    }
    PyObject *ret = NULL;
    const Py_ssize_t N = b->N, B = sizeof(ReTable);
    if (!need(&act, N * 16, "run", "actions") || !need(&obs, N * 4 * lay->size * 4, "run", "obs") ||
        !need(&msk, N * 4 * RE_ACTIONS, "run", "masks"))
        goto done;
    RunJob J = {b->st.buf, B, b->ops.buf, act.buf, b->par.buf, obs.buf, msk.buf, b->dfs.buf, b->inf.buf,
                b->mem.len ? b->mem.buf : NULL, b->M, lay};
    Py_BEGIN_ALLOW_THREADS
    if (pool) pool_run(pool, run_job, &J, N);
    else run_range(&J, 0, N);
    Py_END_ALLOW_THREADS
    ret = PyLong_FromLong(run_flags(b, b->ops.buf));
done:
    PyBuffer_Release(&act), PyBuffer_Release(&obs), PyBuffer_Release(&msk);
    return ret;
}

/* bind_observer() / step_observe(): the single env's step (see the module comment) */
#define OBSERVER_CAPSULE "mjenv.rulesets.riichi._engine.observer"
typedef struct {
    PyObject *bound; /* the bind() capsule (held: its buffers are the table's) */
    Bound *b;
    int which;
    Slots slots;
} Observer;
static void observer_free(PyObject *cap) {
    Observer *O = PyCapsule_GetPointer(cap, OBSERVER_CAPSULE);
    if (!O) return;
    Py_XDECREF(O->bound);
    slots_clear(&O->slots);
    PyMem_Free(O);
}
static PyObject *py_bind_observer(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *bound, *empty, *integer, *omitted;
    int which;
    if (!PyArg_ParseTuple(args, "OiOOO", &bound, &which, &empty, &integer, &omitted)) return NULL;
    Bound *b = PyCapsule_GetPointer(bound, BOUND_CAPSULE);
    if (!b) return NULL;
    if (b->N != 1) return PyErr_Format(PyExc_ValueError, "bind_observer(): a bound set of 1 table, got %zd", b->N);
    if (which < 0 || which > 1 || !LAYOUTS[which].plan)
        return PyErr_Format(PyExc_RuntimeError, "bind_observer(): configure() observation layout %d of the engine "
                            "first", which);
    Observer *O = PyMem_Calloc(1, sizeof(Observer));
    if (!O) return PyErr_NoMemory();
    Py_INCREF(bound);
    O->bound = bound, O->b = b, O->which = which;
    PyObject *cap = NULL;
    if (slots_init(&O->slots, empty, integer, omitted, LAYOUTS[which].size, RE_ACTIONS) == 0)
        cap = PyCapsule_New(O, OBSERVER_CAPSULE, observer_free);
    if (!cap) {
        Py_DECREF(bound);
        slots_clear(&O->slots);
        PyMem_Free(O);
    }
    return cap;
}

static PyObject *py_step_observe(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "step_observe() takes 5 arguments, got %zd", nargs);
    Observer *O = PyCapsule_GetPointer(args[0], OBSERVER_CAPSULE);
    if (!O) return NULL;
    Bound *b = O->b;
    ReTable *g = (ReTable *)b->st.buf;
    if (g->phase >= PH_HAND_OVER) Py_RETURN_NONE;
    int32_t acts[4];
    int8_t legal[RE_ACTIONS];
    for (int s = 0; s < 4; s++) {
        int64_t v = action_of(&O->slots, args[s + 1]);
        if (v == -2) {
            if (g->acting >> s & 1) Py_RETURN_NONE; /* an acting seat without an action: the caller's checks decide */
            v = A_PASS;                             /* a seat not acting has PASS as its only legal action */
        }
        if (v < 0 || v >= RE_ACTIONS) Py_RETURN_NONE;
        mask_row(g, s, 0, legal);
        if (!legal[v]) Py_RETURN_NONE;
        acts[s] = (int32_t)v;
    }
    PyObject *pairs = PyList_New(0);
    for (int s = 0; pairs && s < 4; s++) {
        if (!(g->acting >> s & 1)) continue;
        PyObject *pair = Py_BuildValue("[ii]", s, acts[s]);
        if (!pair || PyList_Append(pairs, pair) < 0) Py_CLEAR(pairs);
        Py_XDECREF(pair);
    }
    Slot *sl = pairs ? take_slot(&O->slots) : NULL;
    if (!sl) {
        Py_XDECREF(pairs);
        return NULL;
    }
    const uint8_t op = 1;
    RunJob J = {b->st.buf, sizeof(ReTable), &op, acts, b->par.buf, sl->od, sl->md, b->dfs.buf, b->inf.buf,
                b->mem.len ? b->mem.buf : NULL, b->M, &LAYOUTS[O->which]};
    run_range(&J, 0, 1);
    const int32_t *I = b->inf.buf, *d = b->dfs.buf;
    /* the tuple built item by item (Py_BuildValue's format parse cost about 2,500 instructions a call) */
    PyObject *out = PyTuple_New(10), *defs = PyList_New(4);
    if (!out || !defs) {
        Py_XDECREF(out), Py_XDECREF(defs), Py_DECREF(pairs);
        return NULL;
    }
    for (int s = 0; s < 4; s++) PyList_SET_ITEM(defs, s, PyLong_FromLong(d[s]));
    PyObject *items[10] = {PyLong_FromLong(run_flags(b, &op)), PyLong_FromLong(I[RE_I_ACTING]),
                           PyLong_FromLong(I[RE_I_PHASE]), PyLong_FromLong(I[RE_I_HAND_ENDED]), defs,
                           sl->obs, sl->masks, sl->orows, sl->mrows, pairs};
    for (int k = 5; k < 9; k++) Py_INCREF(items[k]);
    int ok = 1;
    for (int k = 0; k < 10; k++) {
        ok &= items[k] != NULL;
        PyTuple_SET_ITEM(out, k, items[k]);
    }
    for (int s = 0; s < 4; s++) ok &= PyList_GET_ITEM(defs, s) != NULL;
    if (!ok) Py_CLEAR(out); /* an int not made (no memory): the tuple's dealloc skips the NULL items */
    return out;
}

/* Layout.zero of a layout whose view offsets are set (features: the kernel writes its feature views): 0, or -1
 * with an exception set */
static int zero_ranges(Layout *L, const void *plan, Py_ssize_t size, int features) {
    uint8_t *w = PyMem_Calloc((size_t)size, 1);
    if (!w) {
        PyErr_NoMemory();
        return -1;
    }
    if (features) kernel_api->observe_written(plan, w);
    static const int FULL[] = {V_HAND, V_KNOWLEDGE_BASE, V_TENPAI_AFTER_DISCARD, V_YAKU_AFTER_DISCARD}; /* 34 each */
    for (size_t v = 0; v < sizeof FULL / sizeof FULL[0]; v++)
        if (L->off[FULL[v]] >= 0) memset(w + L->off[FULL[v]], 1, 34);
    /* the first observer writes every seat's meld counts (4 rows of 34), the later ones copy them */
    if (L->off[V_MELD_COUNTS] >= 0) memset(w + L->off[V_MELD_COUNTS], 1, 4 * 34);
    int ok = 1;
    for (int z = 0; z < 2 && ok; z++) {
        if (z) /* a later observer: its rotated views are copies */
            for (int v = 0; v < NROTATED; v++) memset(w + L->off[ROTATED[v][0]], 1, 4 * (size_t)ROTATED[v][1]);
        L->nzero[z] = 0;
        for (Py_ssize_t i = 0; i < size && ok; i++) {
            if (w[i]) continue;
            Py_ssize_t e = i;
            while (e < size && !w[e]) e++;
            if (L->nzero[z] == MAX_ZERO_RANGES) ok = 0;
            else L->zero[z][L->nzero[z]][0] = (int32_t)i, L->zero[z][L->nzero[z]++][1] = (int32_t)(e - i), i = e;
        }
    }
    PyMem_Free(w);
    if (!ok) PyErr_SetString(PyExc_ValueError, "configure(): the layout's views leave too many gaps");
    return ok ? 0 : -1;
}

/* legal(masks, actions): whether every seat's action (int32 or int64[N, 4], C order) is in 0..RE_ACTIONS - 1 and
 * in its mask (int8[N, 4, RE_ACTIONS]); False for any other dtype or shape (the caller then checks in numpy and
 * says what was wrong). One pass, no array made: the vector env's check of a step whose actions are all legal. */
static PyObject *py_legal(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer msk, act;
    if (!PyArg_ParseTuple(args, "y*y*", &msk, &act)) return NULL;
    const Py_ssize_t N = msk.len / (4 * RE_ACTIONS);
    const int8_t *m = msk.buf;
    int ok = msk.len == N * 4 * RE_ACTIONS && (act.len == N * 16 || act.len == N * 32);
    const int wide = act.len == N * 32;
    for (Py_ssize_t k = 0; ok && k < 4 * N; k++) {
        int64_t a = wide ? ((const int64_t *)act.buf)[k] : ((const int32_t *)act.buf)[k];
        ok = a >= 0 && a < RE_ACTIONS && m[k * RE_ACTIONS + a];
    }
    PyBuffer_Release(&msk), PyBuffer_Release(&act);
    return PyBool_FromLong(ok);
}

static PyObject *py_configure(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *cap;
    Py_buffer off;
    Py_ssize_t size;
    int which = 0;
    if (!PyArg_ParseTuple(args, "Oy*n|i", &cap, &off, &size, &which)) return NULL;
    if (which < 0 || which > 1) {
        PyErr_Format(PyExc_ValueError, "configure(): layout %d outside 0..1", which);
        PyBuffer_Release(&off);
        return NULL;
    }
    Layout *L = &LAYOUTS[which];
    if (off.len != (Py_ssize_t)sizeof L->off) {
        PyErr_Format(PyExc_ValueError, "configure(): %d view offsets expected", NV);
        PyBuffer_Release(&off);
        return NULL;
    }
    if (!kernel_api) kernel_api = PyCapsule_Import(KERNEL_API_NAME, 0);
    if (!kernel_api) {
        PyBuffer_Release(&off);
        return NULL;
    }
    void *p = kernel_api->plan_of(cap);
    if (!p) {
        PyBuffer_Release(&off);
        return NULL;
    }
    if (kernel_api->record_length(p) != REC_LEN || kernel_api->size(p) != size) {
        PyErr_SetString(PyExc_ValueError, "configure(): the plan's record or size does not fit the engine");
        PyBuffer_Release(&off);
        return NULL;
    }
    memcpy(L->off, off.buf, sizeof L->off);
    PyBuffer_Release(&off);
    if (zero_ranges(L, p, size, which == 0) < 0) return NULL;
    Py_INCREF(cap);
    Py_XDECREF(L->capsule);
    L->capsule = cap, L->plan = p, L->size = size, L->features = which == 0;
    Py_RETURN_NONE;
}

static PyObject *py_table_bytes(PyObject *self, PyObject *args) {
    (void)self, (void)args;
    return PyLong_FromSsize_t((Py_ssize_t)sizeof(ReTable));
}

static PyObject *py_layout(PyObject *self, PyObject *args) {
    (void)self, (void)args;
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "next_wall", (Py_ssize_t)offsetof(ReTable, next_wall),
                         "need_wall", (Py_ssize_t)offsetof(ReTable, need_wall), "wall",
                         (Py_ssize_t)offsetof(ReTable, wall), "record_length", (Py_ssize_t)REC_LEN, "hands",
                         (Py_ssize_t)REC_HANDS, "info", (Py_ssize_t)RE_INFO, "views", (Py_ssize_t)NV);
}

static PyMethodDef methods[] = {
    {"bind", py_bind, METH_VARARGS, "The arrays of N tables that stay from call to call, for run()."},
    {"run", (PyCFunction)(void (*)(void))py_run, METH_FASTCALL,
     "Step, start and observe the tables of a bind() capsule (see the module comment)."},
    {"legal", py_legal, METH_VARARGS, "Whether every seat's action (int32 or int64[N, 4]) is in its mask."},
    {"configure", py_configure, METH_VARARGS, "The kernel plan and the spec's view offsets."},
    {"pool", py_pool, METH_VARARGS, "Threads kept for run() (a capsule; they stop when it is freed)."},
    {"bind_observer", py_bind_observer, METH_VARARGS, "The single table of a bind() capsule, for step_observe()."},
    {"step_observe", (PyCFunction)(void (*)(void))py_step_observe, METH_FASTCALL,
     "The single env's common step: checked actions, the move and the observation in one call."},
    {"table_bytes", py_table_bytes, METH_NOARGS, "Bytes of one table."},
    {"layout", py_layout, METH_NOARGS, "Byte offsets of the fields Python writes, and sizes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_engine", "The compiled Riichi engine.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__engine(void) {
    tile_tables();
    return PyModule_Create(&module);
}
