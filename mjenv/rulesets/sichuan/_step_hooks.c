/* The sichuan room's hooks into the compiled batch step (mjenv/game/_step_room.h): the bloody battle.
 *
 * The C twin of mjenv/rulesets/sichuan/game.py (its GameHooks) and of the fan and payments of
 * mjenv/rulesets/sichuan/scoring.py, which it must equal exactly (``tests/test_step_kernel.py`` plays both side by
 * side and compares every array after every step):
 *   - the declaration (定缺): after the deal every seat declares a missing suit at once (phase PH_DECLARE); a seat
 *     holding its missing suit discards it first, never melds or kongs it, and cannot win holding it;
 *   - play on after a win (血战到底): a win is paid at once by fan (2 ** min(fan, FAN_CAP)), the winners leave, the
 *     first seat still in after the last winner draws; the hand ends at the third winner or an exhaustive draw,
 *     which settles 查花猪 and 查大叫 among the seats still in;
 *   - kongs are paid as they are made (刮风下雨).
 * The room's state: scalars SC_ROOM + s, seat s's declared missing suit (-1 before the declaration); its
 * state-record fields ``missing_suit`` int[4, 3] (one-hot) and ``won`` int[4].
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "../../game/_step_room.h"

enum { FAN_CAP = 4, PAY_KONG_EXPOSED = 2, PAY_KONG_ADDED = 1, PAY_KONG_CONCEALED = 2, SUITED = 27 };

static RoomHooks HOOKS;

static int missing_of(const Tab *b, int s) { return b->sc[SC_ROOM + s]; }

static int holds_suit(const int8_t *h, int m) {
    if (m < 0) return 0;
    for (int t = 9 * m; t < 9 * m + 9; t++)
        if (h[t]) return 1;
    return 0;
}

/* whether concealed counts c (27) are a win for a seat with missing suit m and `melds` declared melds */
static int complete(const int8_t *c, int m, int melds, int seven) {
    if (m < 0 || holds_suit(c, m)) return 0;
    if (HOOKS.core->winning(c, SUITED, 0)) return 1;
    if (!seven || melds) return 0;
    int total = 0;
    for (int t = 0; t < SUITED; t++) {
        if (c[t] % 2) return 0;
        total += c[t];
    }
    return total == 14;
}

/* game.py can_win: hand h plus tile (-1: none) */
static int can_win(const int8_t *h, int tile, int m, int melds, int seven) {
    int8_t c[SUITED];
    memcpy(c, h, SUITED);
    if (tile >= 0) c[tile]++;
    return complete(c, m, melds, seven);
}

static int wins_with(const Params *P, const Tab *b, int s, int t) {
    return can_win(b->tiles + s * P->T, t, missing_of(b, s), b->ndecl[s], P->seven);
}

static int may_meld(const Params *P, const Tab *b, int s, int t) { return t / 9 != missing_of(b, s); }

static void restrict_turn(const Params *P, Tab *b, int s, int8_t *row) {
    const int m = missing_of(b, s), T = P->T;
    if (m < 0) return; /* before the declaration */
    const int8_t *h = b->tiles + s * T;
    if (holds_suit(h, m))
        for (int t = 0; t < T; t++)
            if (t / 9 != m) row[t] = 0;
    for (int t = 9 * m; t < 9 * m + 9; t++) row[T + t] = 0;
    row[ACT_WIN(T)] = (int8_t)(!b->sc[SC_CLAIMED] && can_win(h, -1, m, b->ndecl[s], P->seven));
}

/* scoring.py _decomposes' pattern test: counts in {0, 2, 3} with exactly one pair */
static int all_pongs(const int8_t *c) {
    int pairs = 0;
    for (int t = 0; t < SUITED; t++) {
        if (c[t] == 1 || c[t] == 4) return 0;
        pairs += c[t] == 2;
    }
    return pairs == 1;
}

/* points of seat s's win (game.py fans, scoring.py fan and points): tile added unless a self-draw (reason 1) */
static int win_points(const Params *P, const Tab *b, int s, int tile, int reason) {
    int8_t c[SUITED], total[SUITED];
    memcpy(c, b->tiles + s * P->T, SUITED);
    if (reason != END_SELF_DRAW) c[tile]++;
    memcpy(total, c, SUITED);
    const int nm = b->ndecl[s];
    for (int k = 0; k < nm; k++) {
        const int8_t *r = b->melds + (s * P->MM + k) * 4;
        total[r[1]] += r[0] == MK_PONG ? 3 : 4;
    }
    int sum = 0, even = 1;
    for (int t = 0; t < SUITED; t++) { sum += c[t]; even &= c[t] % 2 == 0; }
    const int seven = nm == 0 && sum == 14 && even;
    const int standard = sum == 3 * (4 - nm) + 2 && HOOKS.core->winning(c, SUITED, 0);
    int fan = 0;
    if (standard && all_pongs(c)) fan += 1;
    else if (seven) fan += 2;
    int suits = 0;
    for (int u = 0; u < 3; u++)
        for (int t = 9 * u; t < 9 * u + 9; t++)
            if (total[t]) { suits++; break; }
    if (suits == 1) fan += 2;
    for (int t = 0; t < SUITED; t++) fan += total[t] == 4;
    if (reason == END_SELF_DRAW) fan += 1 + (b->sc[SC_AFTER_KONG] != 0);
    if (reason == END_ROBBED) fan += 1;
    return 1 << (fan < FAN_CAP ? fan : FAN_CAP);
}

static int next_live(const Params *P, const Tab *b, int seat) {
    for (int k = 1; k <= 4; k++) {
        int s = (seat + k) % 4;
        if (!b->won[s]) return s;
    }
    return -1;
}

static void win(const Params *P, Tab *b, int winners, int deal_in, int tile, int reason) {
    uint8_t live[4];
    memcpy(live, b->won, 4); /* live[s]: 0 for a seat still in before these wins */
    int last = -1, count = 0;
    const int from = deal_in >= 0 ? deal_in : 0;
    for (int k = 1; k <= 4; k++) {
        int w = (from + k) % 4;
        if (!(winners >> w & 1)) continue;
        int pts = win_points(P, b, w, tile, reason);
        if (deal_in >= 0) {
            b->scores[deal_in] -= pts;
            b->scores[w] += pts;
        } else {
            for (int s = 0; s < 4; s++)
                if (!live[s] && s != w) { b->scores[s] -= pts; b->scores[w] += pts; }
        }
        last = w;
    }
    for (int s = 0; s < 4; s++) {
        if (winners >> s & 1) b->won[s] = 1;
        count += b->won[s];
    }
    if (count >= 3) {
        HOOKS.core->finish(P, b, winners, deal_in, tile, reason);
        return;
    }
    b->sc[SC_LAST_DISCARD] = -1;
    b->sc[SC_LAST_DISCARDER] = -1;
    HOOKS.core->draw(P, b, next_live(P, b, last), 0);
}

static void pay_kong(const Params *P, Tab *b, int seat, int kind, int discarder) {
    if (kind == KONG_EXPOSED) {
        b->scores[discarder] -= PAY_KONG_EXPOSED;
        b->scores[seat] += PAY_KONG_EXPOSED;
        return;
    }
    const int amount = kind == KONG_ADDED ? PAY_KONG_ADDED : PAY_KONG_CONCEALED;
    for (int s = 0; s < 4; s++)
        if (!b->won[s] && s != seat) { b->scores[s] -= amount; b->scores[seat] += amount; }
}

/* the scores were paid as the hand went; an exhaustive draw settles 查花猪 and 查大叫 among the seats still in */
static void settle(const Params *P, Tab *b, int winners, int deal_in, int reason, const int64_t *base) {
    if (reason != END_EXHAUSTIVE) return;
    int pig[4] = {0, 0, 0, 0}, ready[4] = {0, 0, 0, 0};
    int64_t d[4] = {0, 0, 0, 0};
    for (int s = 0; s < 4; s++)
        if (!b->won[s]) pig[s] = holds_suit(b->tiles + s * P->T, missing_of(b, s));
    for (int s = 0; s < 4; s++) {
        if (b->won[s] || pig[s]) continue;
        const int8_t *h = b->tiles + s * P->T;
        for (int t = 0; t < SUITED; t++)
            if (h[t] < 4 && can_win(h, t, missing_of(b, s), b->ndecl[s], P->seven)) {
                int v = win_points(P, b, s, t, END_DISCARD);
                if (v > ready[s]) ready[s] = v;
            }
    }
    const int cap = 1 << FAN_CAP;
    for (int p = 0; p < 4; p++) {
        if (b->won[p] || !pig[p]) continue;
        for (int s = 0; s < 4; s++)
            if (!b->won[s] && !pig[s]) { d[p] -= cap; d[s] += cap; }
    }
    for (int s = 0; s < 4; s++) {
        if (b->won[s] || pig[s] || ready[s]) continue;
        for (int r = 0; r < 4; r++)
            if (!b->won[r] && ready[r]) { d[s] -= ready[r]; d[r] += ready[r]; }
    }
    for (int s = 0; s < 4; s++) b->scores[s] += d[s];
}

static void dealt(const Params *P, Tab *b, const int8_t *w) {
    for (int s = 0; s < 4; s++) b->sc[SC_ROOM + s] = -1; /* nobody has declared */
}

/* after the dealer's first draw: every seat declares at once (the three declaration ids after PASS) */
static void start(const Params *P, Tab *b) {
    memset(b->masks, 0, 4 * P->A);
    for (int s = 0; s < 4; s++)
        for (int u = 0; u < 3; u++) b->masks[s * P->A + ACT_PASS(P->T) + 1 + u] = 1;
    b->sc[SC_PHASE] = PH_DECLARE;
    b->sc[SC_ACTING] = 15;
}

static void on_phase(const Params *P, Tab *b, const int64_t *chosen) {
    for (int s = 0; s < 4; s++) b->sc[SC_ROOM + s] = (int32_t)(chosen[s] - ACT_PASS(P->T) - 1);
    b->sc[SC_PHASE] = PH_DISCARD;
    HOOKS.core->set_turn_masks(P, b, b->sc[SC_CUR]);
}

/* missing_suit int[4, 3] one-hot (all 0 before the declaration), then won int[4] */
static void record(const Params *P, const Tab *b, int16_t *out, int n) {
    if (n != 16) return;
    for (int k = 0; k < 12; k++) out[k] = 0;
    for (int s = 0; s < 4; s++) {
        int m = missing_of(b, s);
        if (m >= 0) out[3 * s + m] = 1;
        out[12 + s] = b->won[s];
    }
}

static RoomHooks HOOKS = {
    .restricts = 1, .plays_on = 1, .pays_kongs = 1, .settles = 1,
    .dealt = dealt, .start = start, .on_phase = on_phase, .may_meld = may_meld, .wins_with = wins_with,
    .restrict_turn = restrict_turn, .win = win, .next_seat = next_live, .pay_kong = pay_kong, .settle = settle,
    .record = record,
};

STEP_ROOM_MODULE(HOOKS, "sichuan's hooks into the compiled step")
