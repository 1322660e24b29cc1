/* First building block of the compiled batch step: the game's win check over a batch.
 *
 * A C port of ``mjenv/game/_win.py`` (``is_winning_bytes``), which it must equal exactly
 * (``tests/test_step_kernel.py`` compares the two on random, near-complete and seven-pairs hands).
 * A concealed hand of 3k + 2 tiles is complete when every suit splits on its own into melds (plus
 * the one pair, in the suit whose count is 2 mod 3) and the honours are pongs and at most one pair;
 * a suit splits by the leftmost-tile recursion (the lowest tile present is in a pong or starts a
 * chow). Seven pairs (every count 0 or 2, 14 tiles) is accepted when asked.
 *
 * Below it: the batched step (``step``, the port of ``Game``'s transitions over state arrays [N, ...])
 * and ``records``, which reads those arrays into the observation writer's state records.
 *
 * Python API (module ``mjenv.game._step``; ``mjenv/game/batch.py`` wraps it):
 *
 *   is_winning(hands, T, seven_pairs, out) -> None
 *     hands: C-contiguous int8[M * T] tile counts (T = 27 or 34); seven_pairs: int (0/1);
 *     out: writable uint8[M], out[i] = 1 when hand i is complete.
 *
 *   claim_rows(hands, tiles, chow_ok, can_kong, rob, T, seven_pairs, out) -> None
 *     The legal-action row of one seat facing a discard or a robbable kong tile (engine.py
 *     ``Game._claim_masks`` / ``Game._kong``): hands int8[M * T]; tiles int64[M] (the tile);
 *     chow_ok, can_kong, rob uint8[M] (this seat may chow it; the wall has a tile left; a rob window:
 *     only a win may be claimed); out int8[M * A], A = 2T + 7, written whole: all zeros when the seat
 *     can claim nothing, else its claims plus PASS.
 *
 *   turn_rows(hands, pongs, claimed, can_kong, T, seven_pairs, out) -> None
 *     The current player's row on her own turn (``Game._set_turn_masks``): hands, pongs int8[M * T]
 *     (pongs: 1 where the seat has an exposed pong of that tile); claimed, can_kong uint8[M] (the turn
 *     follows a chow or pong: discard only; the wall has a tile left); out int8[M * A] written whole.
 */
#define _POSIX_C_SOURCE 200809L
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "../deficiency/_kernel_api.h" /* the observation writer's C entry points */
#include "_step_room.h"            /* the rooms' hooks, the step's state and params */
#include "_numpy_random.h"          /* numpy's draws of a deal (the next hand's seed, its wall) */
#include "_pool.h"                   /* the kept thread pool */
#include "_slots.h"                  /* the arrays a single table's step hands out */

static int melds_only(int8_t *c) {
    int i = 0;
    while (i < 9 && c[i] == 0) i++;
    if (i == 9) return 1;
    if (c[i] >= 3) {
        c[i] -= 3;
        int ok = melds_only(c);
        c[i] += 3;
        if (ok) return 1;
    }
    if (i <= 6 && c[i + 1] && c[i + 2]) {
        c[i]--; c[i + 1]--; c[i + 2]--;
        int ok = melds_only(c);
        c[i]++; c[i + 1]++; c[i + 2]++;
        return ok;
    }
    return 0;
}

static int suit_complete(const int8_t *seg) {
    int8_t c[9];
    int total = 0;
    for (int t = 0; t < 9; t++) { c[t] = seg[t]; total += seg[t]; }
    if (total % 3 == 0) return melds_only(c);
    for (int t = 0; t < 9; t++) {
        if (c[t] >= 2) {
            c[t] -= 2;
            int ok = melds_only(c);
            c[t] += 2;
            if (ok) return 1;
        }
    }
    return 0;
}

static int winning(const int8_t *h, int T, int seven_pairs) {
    if (seven_pairs) {
        int total = 0, ok = 1;
        for (int t = 0; t < T; t++) {
            total += h[t];
            if (h[t] != 0 && h[t] != 2) ok = 0;
        }
        if (ok && total == 14) return 1;
    }
    int pair = 0;
    for (int lo = 0; lo < 27; lo += 9) {
        int s = 0;
        for (int t = lo; t < lo + 9; t++) s += h[t];
        int r = s % 3;
        if (r == 1) return 0;
        if (r == 2) { if (pair) return 0; pair = 1; }
    }
    for (int t = 27; t < T; t++) {
        if (h[t] == 1 || h[t] == 4) return 0;
        if (h[t] == 2) { if (pair) return 0; pair = 1; }
    }
    if (!pair) return 0;
    for (int lo = 0; lo < 27; lo += 9) {
        int any = 0;
        for (int t = lo; t < lo + 9; t++) any |= h[t];
        if (any && !suit_complete(h + lo)) return 0;
    }
    return 1;
}

static PyObject *py_is_winning(PyObject *self, PyObject *args) {
    PyObject *oh, *oo;
    int T, seven;
    if (!PyArg_ParseTuple(args, "OipO", &oh, &T, &seven, &oo)) return NULL;
    if (T != 27 && T != 34) {
        PyErr_Format(PyExc_ValueError, "T must be 27 or 34, got %d", T);
        return NULL;
    }
    Py_buffer bh, bo;
    if (PyObject_GetBuffer(oh, &bh, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(oo, &bo, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&bh);
        return NULL;
    }
    Py_ssize_t m = bh.len / T;
    if (bh.len % T != 0 || bo.len != m) {
        PyErr_Format(PyExc_ValueError, "hands must hold M * %d int8 and out M uint8 (got %zd and %zd bytes)",
                     T, bh.len, bo.len);
        PyBuffer_Release(&bh);
        PyBuffer_Release(&bo);
        return NULL;
    }
    const int8_t *h = (const int8_t *)bh.buf;
    uint8_t *out = (uint8_t *)bo.buf;
    for (Py_ssize_t i = 0; i < m; i++) out[i] = (uint8_t)winning(h + i * T, T, seven);
    PyBuffer_Release(&bh);
    PyBuffer_Release(&bo);
    Py_RETURN_NONE;
}

/* A seat's claim row on tile t (all zeros: nothing to claim; else its claims plus PASS); A entries. */
static int claim_row(const int8_t *h, int t, int chow_ok, int can_kong, int rob, int T, int seven, int A, int8_t *row) {
    const int CHOW_LOW = ACT_CHOW_LOW(T), PONG = ACT_PONG(T), EKONG = ACT_EKONG(T), WIN = ACT_WIN(T);
    memset(row, 0, A);
    if (t < 0 || t >= T) return 0;
    int any = 0;
    if (!rob) {
        if (h[t] >= 2) {
            row[PONG] = 1;
            any = 1;
            if (h[t] >= 3 && can_kong) row[EKONG] = 1;
        }
        if (chow_ok && t < 27) {
            int r = t % 9;
            row[CHOW_LOW] = r <= 6 && h[t + 1] > 0 && h[t + 2] > 0;
            row[CHOW_LOW + 1] = r >= 1 && r <= 7 && h[t - 1] > 0 && h[t + 1] > 0;
            row[CHOW_LOW + 2] = r >= 2 && h[t - 2] > 0 && h[t - 1] > 0;
            any |= row[CHOW_LOW] | row[CHOW_LOW + 1] | row[CHOW_LOW + 2];
        }
    }
    int8_t c[34];
    memcpy(c, h, T);
    c[t]++;
    if (winning(c, T, seven)) {
        row[WIN] = 1;
        any = 1;
    }
    if (any) row[ACT_PASS(T)] = 1;
    return any;
}

/* The current player's own-turn row (pg[t]: she has an exposed pong of t); A entries. */
static void turn_row(const int8_t *h, const int8_t *pg, int claimed, int can_kong, int T, int seven, int A,
                     int8_t *row) {
    memset(row, 0, A);
    for (int t = 0; t < T; t++) row[t] = h[t] > 0;
    if (claimed) return;
    if (can_kong)
        for (int t = 0; t < T; t++) row[T + t] = h[t] == 4 || (pg[t] && h[t] > 0);
    row[ACT_WIN(T)] = (int8_t)winning(h, T, seven);
}

/* Borrow C-contiguous buffers; n of them, each (object, itemsize, writable, count per row). */
typedef struct { PyObject *obj; Py_ssize_t item; int writable; Py_ssize_t per_row; Py_buffer b; } Arg;

static int get_args(Arg *a, int n, Py_ssize_t *m_out) {
    Py_ssize_t m = -1;
    for (int i = 0; i < n; i++) {
        int flags = PyBUF_C_CONTIGUOUS | (a[i].writable ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(a[i].obj, &a[i].b, flags) < 0) {
            for (int j = 0; j < i; j++) PyBuffer_Release(&a[j].b);
            return -1;
        }
        Py_ssize_t row = a[i].item * a[i].per_row;
        Py_ssize_t rows = a[i].b.len / row;
        if (a[i].b.len % row != 0 || (m >= 0 && rows != m)) {
            PyErr_Format(PyExc_ValueError, "argument %d: %zd bytes is not M rows of %zd bytes (M = %zd)", i,
                         a[i].b.len, row, m);
            for (int j = 0; j <= i; j++) PyBuffer_Release(&a[j].b);
            return -1;
        }
        m = rows;
    }
    *m_out = m;
    return 0;
}

static void release_args(Arg *a, int n) {
    for (int i = 0; i < n; i++) PyBuffer_Release(&a[i].b);
}

static int check_t(int T) {
    if (T == 27 || T == 34) return 0;
    PyErr_Format(PyExc_ValueError, "T must be 27 or 34, got %d", T);
    return -1;
}

static int num_rooms;

/* params int32[NPARAMS] (the Params fields in order) read and checked; 0, or -1 with an exception set */
static int read_params(PyObject *op, Params *P, const char *fn) {
    Py_buffer pb;
    if (PyObject_GetBuffer(op, &pb, PyBUF_C_CONTIGUOUS) < 0) return -1;
    int good = pb.len == NPARAMS * 4;
    if (good) {
        const int32_t *pp = pb.buf;
        Params p = {pp[0], pp[1], pp[2], pp[3], pp[4], pp[5], pp[6], pp[7], pp[8], pp[9], pp[10], pp[11], pp[12],
                    pp[13]};
        *P = p;
    }
    PyBuffer_Release(&pb);
    if (!good) {
        PyErr_Format(PyExc_ValueError, "%s(): params must be int32[%d]", fn, NPARAMS);
        return -1;
    }
    if (check_t(P->T) < 0) return -1;
    if ((P->A != 2 * P->T + 7 && P->A != 2 * P->T + 10) || P->room < 0 || P->room >= num_rooms || P->draw_at < 0 ||
        P->hand_size < 1 || P->MM < 1 || 4 * P->hand_size + 1 > P->W) {
        PyErr_Format(PyExc_ValueError, "%s(): params out of range (A must be 2T + 7 or 2T + 10, room a room_index(), "
                     "4 hands and a draw within the wall)", fn);
        return -1;
    }
    return 0;
}

static PyObject *py_claim_rows(PyObject *self, PyObject *args) {
    PyObject *o[6];
    int T, seven;
    if (!PyArg_ParseTuple(args, "OOOOOipO", &o[0], &o[1], &o[2], &o[3], &o[4], &T, &seven, &o[5])) return NULL;
    if (check_t(T) < 0) return NULL;
    const int A = 2 * T + 7;
    Arg a[6] = {{o[0], 1, 0, T}, {o[1], 8, 0, 1}, {o[2], 1, 0, 1}, {o[3], 1, 0, 1}, {o[4], 1, 0, 1}, {o[5], 1, 1, A}};
    Py_ssize_t m;
    if (get_args(a, 6, &m) < 0) return NULL;
    const int8_t *hands = a[0].b.buf;
    const int64_t *tiles = a[1].b.buf;
    const uint8_t *chow_ok = a[2].b.buf, *can_kong = a[3].b.buf, *rob = a[4].b.buf;
    int8_t *out = a[5].b.buf;
    for (Py_ssize_t i = 0; i < m; i++)
        claim_row(hands + i * T, (int)tiles[i], chow_ok[i], can_kong[i], rob[i], T, seven, A, out + i * A);
    release_args(a, 6);
    Py_RETURN_NONE;
}

static PyObject *py_turn_rows(PyObject *self, PyObject *args) {
    PyObject *o[5];
    int T, seven;
    if (!PyArg_ParseTuple(args, "OOOOipO", &o[0], &o[1], &o[2], &o[3], &T, &seven, &o[4])) return NULL;
    if (check_t(T) < 0) return NULL;
    const int A = 2 * T + 7;
    Arg a[5] = {{o[0], 1, 0, T}, {o[1], 1, 0, T}, {o[2], 1, 0, 1}, {o[3], 1, 0, 1}, {o[4], 1, 1, A}};
    Py_ssize_t m;
    if (get_args(a, 5, &m) < 0) return NULL;
    const int8_t *hands = a[0].b.buf, *pongs = a[1].b.buf;
    const uint8_t *claimed = a[2].b.buf, *can_kong = a[3].b.buf;
    int8_t *out = a[4].b.buf;
    for (Py_ssize_t i = 0; i < m; i++)
        turn_row(hands + i * T, pongs + i * T, claimed[i], can_kong[i], T, seven, A, out + i * A);
    release_args(a, 5);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- the batched step
 * A C port of the transitions of ``mjenv.game.engine.Game`` (``_advance`` and what it calls), which
 * it must equal exactly: ``tests/test_step_kernel.py`` loads Python games into the arrays and checks
 * every array after every step. Per table: tiles int8[9, T] (hands, meld counts, public counts), wall
 * int8[W], discards int16[4, D], num_discards int16[4], meld_table int8[4, MM, 4], melds_declared
 * int8[4], won uint8[4], scores int64[4], masks int8[4, A], scalars int32[NSC] (the SC_ names). */
/* the rooms' compiled hooks (_step_room.h), by index (0: none), kept while the module lives */
enum { MAX_ROOMS = 16 };
static const RoomHooks *rooms_tab[MAX_ROOMS];
static PyObject *room_caps[MAX_ROOMS];
static int num_rooms = 1; /* index 0: no room */
#define ROOM(P) ((P)->room ? rooms_tab[(P)->room] : (const RoomHooks *)NULL)

static void pass_only(const Params *P, Tab *b) {
    memset(b->masks, 0, 4 * P->A);
    for (int s = 0; s < 4; s++) b->masks[s * P->A + ACT_PASS(P->T)] = 1;
}

static void finish(const Params *P, Tab *b, int winners, int deal_in, int tile, int reason) {
    int32_t *sc = b->sc;
    sc[SC_PHASE] = PH_END;
    sc[SC_END] = reason;
    for (int s = 0; s < 4; s++) if (winners >> s & 1) b->won[s] = 1;
    sc[SC_DEAL_IN] = deal_in;
    sc[SC_WIN_TILE] = tile;
    sc[SC_LAST_DISCARD] = -1;
    sc[SC_LAST_DISCARDER] = -1;
    pass_only(P, b);
    sc[SC_ACTING] = 0;
    int64_t base[4] = {0, 0, 0, 0};
    if (winners && deal_in >= 0) {
        for (int w = 0; w < 4; w++)
            if (winners >> w & 1) { base[w] += P->dpts; base[deal_in] -= P->dpts; }
    } else if (winners) {
        int w = 0;
        while (!(winners >> w & 1)) w++;
        for (int s = 0; s < 4; s++) base[s] -= P->spts;
        base[w] += 4 * P->spts;
    }
    const RoomHooks *R = ROOM(P);
    if (R && R->settles) R->settle(P, b, winners, deal_in, reason, base); /* the room scores the hand */
    else for (int s = 0; s < 4; s++) b->scores[s] = base[s];
}

static void set_turn_masks(const Params *P, Tab *b, int p) {
    int8_t pg[34];
    memset(pg, 0, sizeof pg);
    for (int k = 0; k < b->ndecl[p]; k++) {
        const int8_t *r = b->melds + (p * P->MM + k) * 4;
        if (r[0] == MK_PONG) pg[r[1]] = 1;
    }
    pass_only(P, b);
    int8_t *row = b->masks + p * P->A;
    turn_row(b->tiles + p * P->T, pg, b->sc[SC_CLAIMED], b->sc[SC_TAIL] - b->sc[SC_HEAD] > P->draw_at, P->T, P->seven,
             P->A, row);
    const RoomHooks *R = ROOM(P);
    if (R && R->restricts) R->restrict_turn(P, b, p, row);
    b->sc[SC_ACTING] = 1 << p;
}

static void draw(const Params *P, Tab *b, int p, int replacement) {
    int32_t *sc = b->sc;
    if (sc[SC_TAIL] - sc[SC_HEAD] <= P->draw_at) {
        finish(P, b, 0, -1, -1, END_EXHAUSTIVE);
        return;
    }
    int t = replacement ? b->wall[--sc[SC_TAIL]] : b->wall[sc[SC_HEAD]++];
    if (t >= P->T) { /* a tile the room sets aside (its hook draws again) */
        ROOM(P)->drawn(P, b, p, t);
        return;
    }
    b->tiles[p * P->T + t]++;
    sc[SC_LAST_DRAWN] = t;
    sc[SC_AFTER_KONG] = replacement;
    sc[SC_LAST_DISCARD] = -1;
    sc[SC_LAST_DISCARDER] = -1;
    sc[SC_CUR] = p;
    sc[SC_PHASE] = PH_DISCARD;
    sc[SC_CLAIMED] = 0;
    set_turn_masks(P, b, p);
}

static const StepCore CORE = {draw, finish, set_turn_masks, pass_only, winning};

static void add_meld(const Params *P, Tab *b, int s, int kind, int tile, int from, int claimed) {
    int8_t *r = b->melds + (s * P->MM + b->ndecl[s]) * 4;
    r[0] = kind; r[1] = tile; r[2] = from; r[3] = claimed;
    b->ndecl[s]++;
}

static int8_t *pong_row(const Params *P, Tab *b, int s, int t, int kind) {
    for (int k = 0; k < b->ndecl[s]; k++) {
        int8_t *r = b->melds + (s * P->MM + k) * 4;
        if (r[0] == kind && r[1] == t) return r;
    }
    return NULL; /* unreachable for a legal action: the mask offered the kong */
}

/* Opens a claim window on tile t from p (a rob window when rob); 0: nobody may claim and the
 * rule opens no empty window. Under a room's restrictions a seat that has won is out of the window, its
 * melds and wins are the room's. */
static int open_window(const Params *P, Tab *b, int p, int t, int rob) {
    const RoomHooks *R = ROOM(P);
    const int restricts = R && R->restricts, T = P->T, A = P->A;
    int acting = 0;
    int can_kong = b->sc[SC_TAIL] - b->sc[SC_HEAD] > P->draw_at;
    int8_t row[2 * 34 + 10];
    pass_only(P, b);
    for (int k = 1; k < 4; k++) {
        int s = (p + k) % 4;
        int chow_ok = P->allow_chow && k == 1;
        int any;
        if (restricts) {
            if (b->won[s]) continue;
            claim_row(b->tiles + s * T, t, chow_ok, can_kong, rob, T, P->seven, A, row);
            if (!R->may_meld(P, b, s, t)) row[ACT_PONG(T)] = row[ACT_EKONG(T)] = 0;
            row[ACT_WIN(T)] = (int8_t)R->wins_with(P, b, s, t);
            any = 0;
            for (int a = ACT_CHOW_LOW(T); a <= ACT_WIN(T); a++) any |= row[a];
            row[ACT_PASS(T)] = (int8_t)any;
        } else {
            any = claim_row(b->tiles + s * T, t, chow_ok, can_kong, rob, T, P->seven, A, row);
        }
        if (any) {
            memcpy(b->masks + s * A, row, A);
            acting |= 1 << s;
        }
    }
    if (!acting && !P->always) return 0;
    b->sc[SC_ACTING] = acting;
    return 1;
}

static void discard(const Params *P, Tab *b, int p, int t) {
    int32_t *sc = b->sc;
    b->tiles[p * P->T + t]--;
    b->disc[p * P->D + b->ndisc[p]] = t;
    b->ndisc[p]++;
    b->tiles[8 * P->T + t]++;
    sc[SC_LAST_DISCARD] = t;
    sc[SC_LAST_DISCARDER] = p;
    sc[SC_LAST_DRAWN] = -1;
    sc[SC_CLAIMED] = 0;
    if (open_window(P, b, p, t, 0)) sc[SC_PHASE] = PH_CLAIM;
    else draw(P, b, (p + 1) % 4, 0);
}

static void after_claim(const Params *P, Tab *b, int s, int kong) {
    int32_t *sc = b->sc;
    sc[SC_LAST_DISCARD] = -1;
    sc[SC_LAST_DISCARDER] = -1;
    if (kong) { draw(P, b, s, 1); return; }
    sc[SC_CUR] = s;
    sc[SC_PHASE] = PH_DISCARD;
    sc[SC_CLAIMED] = 1;
    sc[SC_LAST_DRAWN] = -1;
    set_turn_masks(P, b, s);
}

/* Winners among the three seats after p, in turn order (only the first unless multiple winners). */
static int winners_of(const Params *P, int p, const int64_t *chosen, int win) {
    int w = 0;
    for (int k = 1; k < 4; k++) {
        int s = (p + k) % 4;
        if (chosen[s] == win) {
            w |= 1 << s;
            if (!P->multi) break;
        }
    }
    return w;
}

/* a win: the hand ends, or (a room that plays on) the room pays it and goes on */
static void win_or_finish(const Params *P, Tab *b, int winners, int deal_in, int tile, int reason) {
    const RoomHooks *R = ROOM(P);
    if (R && R->plays_on) R->win(P, b, winners, deal_in, tile, reason);
    else finish(P, b, winners, deal_in, tile, reason);
}

static void pay_kong(const Params *P, Tab *b, int seat, int kind, int discarder) {
    const RoomHooks *R = ROOM(P);
    if (R && R->pays_kongs) R->pay_kong(P, b, seat, kind, discarder);
}

static void on_claims(const Params *P, Tab *b, const int64_t *chosen) {
    int p = b->sc[SC_LAST_DISCARDER], t = b->sc[SC_LAST_DISCARD], T = P->T;
    const int CHOW_LOW = ACT_CHOW_LOW(T), PONG = ACT_PONG(T), EKONG = ACT_EKONG(T), WIN = ACT_WIN(T);
    int w = winners_of(P, p, chosen, WIN);
    if (w) { win_or_finish(P, b, w, p, t, END_DISCARD); return; }
    for (int k = 1; k < 4; k++) {
        int s = (p + k) % 4;
        if (chosen[s] == PONG || chosen[s] == EKONG) {
            int kong = chosen[s] == EKONG, n = kong ? 3 : 2;
            b->tiles[s * T + t] -= n;
            b->tiles[(4 + s) * T + t] += n + 1;
            b->tiles[8 * T + t] += n;
            add_meld(P, b, s, kong ? MK_EKONG : MK_PONG, t, p, t);
            if (kong) pay_kong(P, b, s, KONG_EXPOSED, p);
            after_claim(P, b, s, kong);
            return;
        }
    }
    for (int k = 1; k < 4; k++) {
        int s = (p + k) % 4;
        int a = (int)chosen[s];
        if (a >= CHOW_LOW && a <= CHOW_LOW + 2) {
            int low = t - (a - CHOW_LOW);
            for (int u = low; u < low + 3; u++) {
                if (u != t) { b->tiles[s * T + u]--; b->tiles[8 * T + u]++; }
                b->tiles[(4 + s) * T + u]++;
            }
            add_meld(P, b, s, MK_CHOW, low, p, t);
            after_claim(P, b, s, 0);
            return;
        }
    }
    const RoomHooks *R = ROOM(P);
    draw(P, b, R && R->plays_on ? R->next_seat(P, b, p) : (p + 1) % 4, 0);
}

static void kong(const Params *P, Tab *b, int p, int t) {
    int T = P->T;
    int8_t *h = b->tiles + p * T;
    if (h[t] == 4) {
        h[t] = 0;
        b->tiles[(4 + p) * T + t] += 4;
        b->tiles[8 * T + t] += 4;
        add_meld(P, b, p, MK_CKONG, t, -1, -1);
        pay_kong(P, b, p, KONG_CONCEALED, -1);
        draw(P, b, p, 1);
        return;
    }
    h[t]--;
    pong_row(P, b, p, t, MK_PONG)[0] = MK_AKONG;
    b->tiles[(4 + p) * T + t]++;
    b->tiles[8 * T + t]++;
    if (!open_window(P, b, p, t, 1)) { pay_kong(P, b, p, KONG_ADDED, -1); draw(P, b, p, 1); return; }
    b->sc[SC_PHASE] = PH_ROB;
    b->sc[SC_KONG_TILE] = t;
    b->sc[SC_LAST_DISCARD] = t;
    b->sc[SC_LAST_DISCARDER] = p;
    b->sc[SC_LAST_DRAWN] = -1;
}

static void on_rob(const Params *P, Tab *b, const int64_t *chosen) {
    int p = b->sc[SC_CUR], t = b->sc[SC_KONG_TILE];
    int w = winners_of(P, p, chosen, ACT_WIN(P->T));
    b->sc[SC_KONG_TILE] = -1;
    if (!w) { pay_kong(P, b, p, KONG_ADDED, -1); draw(P, b, p, 1); return; }
    pong_row(P, b, p, t, MK_AKONG)[0] = MK_PONG;
    b->tiles[(4 + p) * P->T + t]--;
    b->disc[p * P->D + b->ndisc[p]] = t;
    b->ndisc[p]++;
    win_or_finish(P, b, w, p, t, END_ROBBED);
}

static void advance(const Params *P, Tab *b, const int64_t *chosen) {
    int ph = b->sc[SC_PHASE];
    if (ph == PH_DISCARD) {
        int p = b->sc[SC_CUR], a = (int)chosen[p];
        if (a < P->T) discard(P, b, p, a);
        else if (a < 2 * P->T) kong(P, b, p, a - P->T);
        else win_or_finish(P, b, 1 << p, -1, b->sc[SC_LAST_DRAWN], END_SELF_DRAW);
    } else if (ph == PH_CLAIM) on_claims(P, b, chosen);
    else if (ph == PH_ROB) on_rob(P, b, chosen);
    else if (ph != PH_END) ROOM(P)->on_phase(P, b, chosen); /* a phase of the room's own */
}

/* Table i of the step's ten arrays, given their base pointers in this order: tiles, wall, discards, num_discards,
 * meld_table, melds_declared, won, scores, masks, scalars. */
static Tab tab_at(const Params *P, void *const *base, Py_ssize_t i) {
    Tab t = {(int8_t *)base[0] + i * 9 * P->T, (int8_t *)base[1] + i * P->W, (int8_t *)base[4] + i * 4 * P->MM * 4,
             (int8_t *)base[5] + i * 4, (int8_t *)base[8] + i * 4 * P->A, (int16_t *)base[2] + i * 4 * P->D,
             (int16_t *)base[3] + i * 4, (uint8_t *)base[6] + i * 4, (int64_t *)base[7] + i * 4,
             (int32_t *)base[9] + i * NSC};
    return t;
}

/* step(params, actions, tiles, wall, discards, num_discards, meld_table, melds_declared, won, scores,
 *      masks, scalars) -> int: advances every table not over by one step; returns how many tables
 * refused their actions (then nothing of those tables changed). params int32[NPARAMS] (T, A, W, D, MM,
 * allow_chow, seven_pairs, claim_window_always, multiple_winners, discard_win_points,
 * self_draw_points, draw_at, hand_size, room); actions int64[N * 4], one per seat (PASS for seats not acting); an action not
 * legal in the table's mask refuses the table: the caller raises. */
static PyObject *py_step(PyObject *self, PyObject *args) {
    PyObject *op, *o[11];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOO", &op, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10]))
        return NULL;
    Params P;
    if (read_params(op, &P, "step") < 0) return NULL;
    Arg a[11] = {{o[0], 8, 0, 4}, {o[1], 1, 1, 9 * P.T}, {o[2], 1, 0, P.W}, {o[3], 2, 1, 4 * P.D}, {o[4], 2, 1, 4},
                 {o[5], 1, 1, 4 * P.MM * 4}, {o[6], 1, 1, 4}, {o[7], 1, 1, 4}, {o[8], 8, 1, 4}, {o[9], 1, 1, 4 * P.A},
                 {o[10], 4, 1, NSC}};
    Py_ssize_t n;
    if (get_args(a, 11, &n) < 0) return NULL;
    const int64_t *acts = a[0].b.buf;
    void *base[10];
    for (int k = 0; k < 10; k++) base[k] = a[k + 1].b.buf;
    int refused = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Tab b = tab_at(&P, base, i);
        if (b.sc[SC_PHASE] == PH_END) continue;
        const int64_t *c = acts + i * 4;
        int ok = 1;
        for (int s = 0; s < 4; s++)
            if (c[s] < 0 || c[s] >= P.A || !b.masks[s * P.A + c[s]]) ok = 0;
        if (!ok) { refused++; continue; }
        advance(&P, &b, c);
    }
    release_args(a, 11);
    return PyLong_FromLong(refused);
}

/* ---------------------------------------------------------------- state records
 * records(params, layout, rows, tiles, discards, melds_declared, won, scalars, dealer, out) -> None
 * The observation writer's state record (``mjenv.observation.ObservationSpec.state``: the same
 * values as ``ObservationSpec.sources`` reads from a ``Game``) of tables ``rows`` (int64[R]), into
 * out int16[R * L]. layout int32[NLAY]: the record's field offsets (the LY_ names, from the spec's
 * state layout, LY_ROOM the start of the room's fields, which end at LY_ZERO) and its length L; params, tiles,
 * discards, melds_declared, won, scalars as ``step``, dealer int8[N]. The room's fields are its record hook's. */
enum { LY_HANDS, LY_MELD_COUNTS, LY_KB, LY_DISCARDS, LY_NUM_MELDS, LY_NEEDED, LY_TURN, LY_CLAIM, LY_CHOW,
       LY_LAST, LY_WHO, LY_WALL, LY_DEALER, LY_PHASE, LY_ZERO, LY_ROOM, LY_LEN, NLAY };

static int read_params_layout(PyObject *op, PyObject *ol, Params *P, int32_t *ly, const char *fn);

/* One table's state record into st (what py_records writes per row). */
static void write_record(const Params *P, const int32_t *ly, const Tab *t, int8_t dealer, int16_t *restrict st) {
    const int T = P->T, D = P->D, MM = P->MM, allow_chow = P->allow_chow;
    const int8_t *restrict tl = t->tiles, *nm = t->ndecl;
    const int16_t *restrict disc = t->disc;
    const int32_t *sc = t->sc;
    /* plain ranges (no j % T; 4 - public once per tile) and the fields' pointers restrict (an int8 store may alias
     * anything otherwise): the compiler vectorises each loop (64 records: 12.5 us before, 4.7 us) */
    int16_t *restrict hd = st + ly[LY_HANDS], *restrict mc = st + ly[LY_MELD_COUNTS], *restrict kb = st + ly[LY_KB];
    int16_t *restrict ds = st + ly[LY_DISCARDS];
    const int8_t *restrict pub = tl + 8 * T;
    const int n4T = 4 * T, n4D = 4 * D;
    int16_t four_minus_pub[34];
    for (int j = 0; j < T; j++) four_minus_pub[j] = (int16_t)(4 - pub[j]);
    for (int j = 0; j < n4T; j++) mc[j] = tl[n4T + j];
    for (int s = 0; s < 4; s++)
        for (int j = 0; j < T; j++) {
            int16_t h = tl[s * T + j];
            hd[s * T + j] = h;
            kb[s * T + j] = (int16_t)(four_minus_pub[j] - h); /* 4 - H - public */
        }
    for (int j = 0; j < n4D; j++) ds[j] = (int16_t)(disc[j] + 1); /* tile id + 1, 0 none */
    int phase = sc[SC_PHASE], last = sc[SC_LAST_DISCARD], who = sc[SC_LAST_DISCARDER];
    int claim = phase == PH_CLAIM && last >= 0;
    for (int s = 0; s < 4; s++) {
        st[ly[LY_NUM_MELDS] + s] = nm[s];
        st[ly[LY_NEEDED] + s] = (int16_t)(MM - nm[s]);
        st[ly[LY_TURN] + s] = phase == PH_DISCARD && sc[SC_CUR] == s;
        st[ly[LY_CLAIM] + s] = (int16_t)(claim && s != who ? last : -1);
        st[ly[LY_CHOW] + s] = claim && allow_chow && s == (who + 1) % 4;
    }
    st[ly[LY_LAST]] = (int16_t)last;
    st[ly[LY_WHO]] = (int16_t)(last >= 0 ? who : -1);
    st[ly[LY_WALL]] = (int16_t)(sc[SC_TAIL] - sc[SC_HEAD]);
    st[ly[LY_DEALER]] = dealer;
    st[ly[LY_PHASE]] = (int16_t)phase;
    st[ly[LY_ZERO]] = 0;
    const RoomHooks *R = ROOM(P);
    if (R && R->record && ly[LY_ZERO] > ly[LY_ROOM]) R->record(P, t, st + ly[LY_ROOM], ly[LY_ZERO] - ly[LY_ROOM]);
}

static PyObject *py_records(PyObject *self, PyObject *args) {
    PyObject *op, *ol, *o[8];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO", &op, &ol, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7]))
        return NULL;
    Params P;
    int32_t ly[NLAY];
    if (read_params_layout(op, ol, &P, ly, "records") < 0) return NULL;
    const int T = P.T, D = P.D, L = ly[LY_LEN];
    /* the table arrays: one row per table (N rows); rows and out are checked against them below */
    Arg a[6] = {{o[1], 1, 0, 9 * T}, {o[2], 2, 0, 4 * D}, {o[3], 1, 0, 4}, {o[4], 1, 0, 4}, {o[5], 4, 0, NSC},
                {o[6], 1, 0, 1}};
    Py_ssize_t n;
    if (get_args(a, 6, &n) < 0) return NULL;
    Py_buffer rb, ob;
    if (PyObject_GetBuffer(o[0], &rb, PyBUF_C_CONTIGUOUS) < 0) { release_args(a, 6); return NULL; }
    if (PyObject_GetBuffer(o[7], &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&rb);
        release_args(a, 6);
        return NULL;
    }
    Py_ssize_t R = rb.len / 8;
    const int64_t *rows = rb.buf;
    PyObject *result = NULL;
    if (rb.len % 8 || ob.len != R * L * 2) {
        PyErr_Format(PyExc_ValueError, "records(): rows must be int64[R] and out int16[R * %d]", L);
        goto done;
    }
    for (Py_ssize_t k = 0; k < R; k++)
        if (rows[k] < 0 || rows[k] >= n) {
            PyErr_Format(PyExc_ValueError, "records(): row %lld outside 0..%zd", (long long)rows[k], n - 1);
            goto done;
        }
    for (Py_ssize_t k = 0; k < R; k++) {
        Py_ssize_t i = rows[k];
        Tab t = {(int8_t *)a[0].b.buf + i * 9 * T, NULL, NULL, (int8_t *)a[2].b.buf + i * 4, NULL,
                 (int16_t *)a[1].b.buf + i * 4 * D, NULL, (uint8_t *)a[3].b.buf + i * 4, NULL,
                 (int32_t *)a[4].b.buf + i * NSC};
        write_record(&P, ly, &t, ((const int8_t *)a[5].b.buf)[i], (int16_t *)ob.buf + k * L);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&ob);
    release_args(a, 6);
    return result;
}


/* ---------------------------------------------------------------- one table, bound once
 * The PettingZoo envs step one table (mjenv.compiled_table): step and records above would take
 * eleven and seven buffers per call, about 1.5 us of the step. bind_one takes them once:
 *   bind_one(params, layout, tiles, wall, discards, num_discards, meld_table, melds_declared, won, scores,
 *            masks, scalars, dealer, record) -> capsule
 * (the arrays of step and records with exactly one table; record int16[L], kept exported while the
 * capsule lives), then
 *   step_one(bound, a0, a1, a2, a3) -> int: the table's step with the four seats' actions (step's
 *     check: -1, nothing changed, when one is not legal in its mask; a table over does not move),
 *     then its state record written into record; returns the phase after the step;
 *   record_one(bound) -> int: the record of the table as it is; returns its phase. */
#define BOUND_CAPSULE "mjenv.game._step.bound_one"
enum { NBOUND_ARGS = 13 };
typedef struct {
    Params P;
    int32_t ly[NLAY];
    Py_buffer b[NBOUND_ARGS];
    Tab t;
    int16_t *log; /* the moves since the last clear_taken, 4 actions each (taken) */
    Py_ssize_t nlog, caplog;
} Bound;

/* params (read_params) and a record layout (int32[NLAY]) read and checked: every field inside a record of length
 * L >= 1, the room's fields before the zero entry. 0, or -1 with an exception set. */
static int read_params_layout(PyObject *op, PyObject *ol, Params *P, int32_t *ly, const char *fn) {
    if (read_params(op, P, fn) < 0) return -1;
    Py_buffer lb;
    if (PyObject_GetBuffer(ol, &lb, PyBUF_C_CONTIGUOUS) < 0) return -1;
    int good = lb.len == NLAY * 4;
    if (good) memcpy(ly, lb.buf, NLAY * 4);
    PyBuffer_Release(&lb);
    if (!good) {
        PyErr_Format(PyExc_ValueError, "%s(): layout must be int32[%d]", fn, NLAY);
        return -1;
    }
    const int L = ly[LY_LEN];
    if (L < 1) {
        PyErr_Format(PyExc_ValueError, "%s(): the record length must be >= 1", fn);
        return -1;
    }
    for (int f = 0; f < LY_LEN; f++) {
        int w = f <= LY_KB ? 4 * P->T : f == LY_DISCARDS ? 4 * P->D : f <= LY_CHOW ? 4 : f == LY_ROOM ? 0 : 1;
        if (ly[f] < 0 || ly[f] + w > L) {
            PyErr_Format(PyExc_ValueError, "%s(): layout field %d does not fit a record of %d", fn, f, L);
            return -1;
        }
    }
    if (ly[LY_ROOM] > ly[LY_ZERO]) {
        PyErr_Format(PyExc_ValueError, "%s(): the room's fields must end where the zero entry starts", fn);
        return -1;
    }
    return 0;
}

/* count writable C-contiguous buffers, each of N rows of per[i] bytes (the same N >= 1 for all; *n: N, or N must
 * equal *n when it is >= 1 on entry). 0, or -1 with an exception set and nothing exported. */
static int bind_buffers(PyObject **o, Py_buffer *b, const Py_ssize_t *per, int count, Py_ssize_t *n,
                        const char *fn) {
    for (int i = 0; i < count; i++) {
        if (PyObject_GetBuffer(o[i], &b[i], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
            for (int j = 0; j < i; j++) PyBuffer_Release(&b[j]);
            return -1;
        }
        Py_ssize_t rows = b[i].len / per[i];
        if (b[i].len % per[i] || rows < 1 || (*n >= 1 && rows != *n)) {
            PyErr_Format(PyExc_ValueError, "%s(): argument %d holds %zd bytes, not %zd table(s) of %zd", fn, i + 3,
                         b[i].len, *n, per[i]);
            for (int j = 0; j <= i; j++) PyBuffer_Release(&b[j]);
            return -1;
        }
        *n = rows;
    }
    return 0;
}

static void bound_free(PyObject *cap) {
    Bound *B = PyCapsule_GetPointer(cap, BOUND_CAPSULE);
    if (!B) return;
    for (int i = 0; i < NBOUND_ARGS; i++) PyBuffer_Release(&B->b[i]);
    PyMem_Free(B->log);
    PyMem_Free(B);
}

static PyObject *py_bind_one(PyObject *self, PyObject *args) {
    PyObject *op, *ol, *o[NBOUND_ARGS];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOO", &op, &ol, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &o[10], &o[11]))
        return NULL;
    Bound *B = PyMem_Calloc(1, sizeof(Bound));
    if (!B) return PyErr_NoMemory();
    if (read_params_layout(op, ol, &B->P, B->ly, "bind_one") < 0) { PyMem_Free(B); return NULL; }
    const Params *P = &B->P;
    /* bytes of each argument's one table: tiles, wall, discards, num_discards, meld_table,
     * melds_declared, won, scores, masks, scalars, dealer, record */
    const Py_ssize_t want[12] = {9 * P->T, P->W, 2 * 4 * P->D, 2 * 4, 4 * P->MM * 4, 4, 4, 8 * 4, 4 * P->A,
                                 4 * NSC, 1, 2 * (Py_ssize_t)B->ly[LY_LEN]};
    Py_ssize_t one = 1;
    if (bind_buffers(o, B->b, want, 12, &one, "bind_one") < 0) { PyMem_Free(B); return NULL; }
    void *base[10];
    for (int k = 0; k < 10; k++) base[k] = B->b[k].buf;
    B->t = tab_at(P, base, 0);
    PyObject *cap = PyCapsule_New(B, BOUND_CAPSULE, bound_free);
    if (!cap) {
        for (int j = 0; j < 12; j++) PyBuffer_Release(&B->b[j]);
        PyMem_Free(B);
    }
    return cap;
}

static int bound_record(Bound *B) {
    const Params *P = &B->P;
    write_record(P, B->ly, &B->t, ((const int8_t *)B->b[10].buf)[0], B->b[11].buf);
    return B->t.sc[SC_PHASE];
}

static int log_move(Bound *B, const int64_t c[4]);

static PyObject *py_step_one(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "step_one() takes 5 arguments (%zd given)", nargs);
    Bound *B = PyCapsule_GetPointer(args[0], BOUND_CAPSULE);
    if (!B) return NULL;
    int64_t c[4];
    for (int s = 0; s < 4; s++) {
        c[s] = PyLong_AsLongLong(args[s + 1]);
        if (c[s] == -1 && PyErr_Occurred()) return NULL;
    }
    if (B->t.sc[SC_PHASE] != PH_END) {
        for (int s = 0; s < 4; s++)
            if (c[s] < 0 || c[s] >= B->P.A || !B->t.masks[s * B->P.A + c[s]]) return PyLong_FromLong(-1);
        if (log_move(B, c) < 0) return NULL;
        advance(&B->P, &B->t, c);
    }
    return PyLong_FromLong(bound_record(B));
}

static PyObject *py_record_one(PyObject *self, PyObject *cap) {
    Bound *B = PyCapsule_GetPointer(cap, BOUND_CAPSULE);
    return B ? PyLong_FromLong(bound_record(B)) : NULL;
}

/* ---------------------------------------------------------------- one table: step and observe in one call
 * The PettingZoo envs' compiled table (mjenv.compiled_table) on a bind_one table, with the observation writer
 * bound too, so that a step is one C call that returns arrays (what the step means to the agents is the env's,
 * defined once in mjenv.contract):
 *   bind_observer(bound, plan, memos, empty, integer, omitted) -> capsule
 *     bound: a bind_one capsule (kept alive); plan: a _kernel.bind capsule whose one source is the whole record;
 *     memos: a list of the table's one memo array (or [None]), kept alive; empty: numpy.empty; integer:
 *     numpy.integer (an action of that type counts as its int); omitted: the object that marks a seat
 *     without an action.
 *   step_observe(observer, a0, a1, a2, a3) -> (obs, masks, phase, acting, deficiency, obs_rows, mask_rows) or None
 *     The four seats' actions: an int (a numpy integer counts), or ``omitted`` for a seat without one, which
 *     takes PASS. None, with nothing changed, when the actions need the caller's checks: one not an int or
 *     outside the action space, one not legal in its mask, an acting seat omitted, or the hand over.
 *     Otherwise the table moves, the move goes to its log (taken) and the new state is observed: obs a
 *     float32[4, S], masks an int8[4, A] copy of the table's (both new to the caller: arrays handed out before
 *     are written again only once nothing holds them, see Slot), phase the phase after the step, acting the
 *     acting-seat bit set, deficiency a tuple of the 4 seats' deficiencies (the writer's), obs_rows and mask_rows
 *     tuples of the 4 rows of obs and masks (views).
 *   observe_state(observer) -> the same tuple for the table as it is (no move).
 *   taken(bound, start) -> list: the moves logged since the last clear_taken, from index start, each a list
 *     of the 4 seats' actions (step_one's and step_observe's); clear_taken(bound) -> None (after a deal). */
#define OBSERVER_CAPSULE "mjenv.game._step.observer"
static const KernelApi *kernel_api = NULL;

/* the writer's C entry points (_kernel_api.h), imported on first use; NULL with an exception set */
static const KernelApi *need_kernel(void) {
    if (!kernel_api) kernel_api = PyCapsule_Import(KERNEL_API_NAME, 0);
    return kernel_api;
}

typedef struct {
    PyObject *bound, *memos, *plan_cap;
    Bound *B;
    void *plan, *memo[1];
    Slots slots; /* the arrays handed out (_slots.h) */
} Observer;

static void observer_clear(Observer *O) {
    Py_XDECREF(O->bound); Py_XDECREF(O->memos); Py_XDECREF(O->plan_cap);
    slots_clear(&O->slots);
    PyMem_Free(O);
}

static void observer_free(PyObject *cap) {
    Observer *O = PyCapsule_GetPointer(cap, OBSERVER_CAPSULE);
    if (O) observer_clear(O);
}

static PyObject *py_bind_observer(PyObject *self, PyObject *args) {
    PyObject *bound, *plan, *memos, *empty, *integer, *omitted;
    if (!PyArg_ParseTuple(args, "OOOOOO", &bound, &plan, &memos, &empty, &integer, &omitted)) return NULL;
    Bound *B = PyCapsule_GetPointer(bound, BOUND_CAPSULE);
    const KernelApi *K = B ? need_kernel() : NULL;
    if (!K) return NULL;
    void *pl = K->plan_of(plan);
    if (!pl) return NULL;
    if (K->record_length(pl) != B->ly[LY_LEN])
        return PyErr_Format(PyExc_ValueError, "bind_observer(): the plan's record has %zd entries, the table's %d",
                            K->record_length(pl), B->ly[LY_LEN]);
    Observer *O = PyMem_Calloc(1, sizeof(Observer));
    if (!O) return PyErr_NoMemory();
    O->B = B;
    O->plan = pl;
    PyObject *held[3] = {bound, memos, plan};
    PyObject **to[3] = {&O->bound, &O->memos, &O->plan_cap};
    for (int i = 0; i < 3; i++) { Py_INCREF(held[i]); *to[i] = held[i]; }
    PyObject *cap = NULL;
    if (slots_init(&O->slots, empty, integer, omitted, K->size(pl), B->P.A) == 0 && K->memos_of(memos, 1, O->memo) == 0)
        cap = PyCapsule_New(O, OBSERVER_CAPSULE, observer_free);
    if (!cap) observer_clear(O);
    return cap;
}

/* the table's state as step_observe's tuple, after bound_record wrote its record */
static PyObject *observe_now(Observer *O, int phase) {
    Bound *B = O->B;
    Slot *sl = take_slot(&O->slots);
    if (!sl) return NULL;
    memcpy(sl->md, B->t.masks, 4 * B->P.A);
    int32_t d[4];
    char err[KERNEL_ERR_LEN];
    if (kernel_api->observe(O->plan, B->b[11].buf, O->memo[0] ? O->memo : NULL, NULL, 1, sl->od, d, err) < 0) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    return Py_BuildValue("(OOii(iiii)OO)", sl->obs, sl->masks, phase, B->t.sc[SC_ACTING], d[0], d[1], d[2], d[3],
                         sl->orows, sl->mrows);
}

/* the move c (checked) into the table's log */
static int log_move(Bound *B, const int64_t c[4]) {
    if (B->nlog == B->caplog) {
        Py_ssize_t cap = B->caplog ? 2 * B->caplog : 256;
        int16_t *grown = PyMem_Realloc(B->log, sizeof(int16_t) * 4 * (size_t)cap);
        if (!grown) { PyErr_NoMemory(); return -1; }
        B->log = grown;
        B->caplog = cap;
    }
    for (int s = 0; s < 4; s++) B->log[4 * B->nlog + s] = (int16_t)c[s];
    B->nlog++;
    return 0;
}

static Observer *observer_of(PyObject *cap) {
    Observer *O = PyCapsule_GetPointer(cap, OBSERVER_CAPSULE);
    return O && need_kernel() ? O : NULL;
}

static PyObject *py_step_observe(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "step_observe() takes 5 arguments (%zd given)", nargs);
    Observer *O = observer_of(args[0]);
    if (!O) return NULL;
    Bound *B = O->B;
    const int A = B->P.A, acting = B->t.sc[SC_ACTING];
    if (B->t.sc[SC_PHASE] == PH_END) Py_RETURN_NONE;
    int64_t c[4];
    for (int s = 0; s < 4; s++) {
        int64_t v = action_of(&O->slots, args[s + 1]);
        if (v == -2) {
            if (acting >> s & 1) Py_RETURN_NONE; /* an acting seat without an action: the caller's checks decide */
            v = ACT_PASS(B->P.T);                /* PASS: a seat not acting has it as its only legal action */
        }
        if (v < 0 || v >= A || !B->t.masks[s * A + v]) Py_RETURN_NONE;
        c[s] = v;
    }
    if (log_move(B, c) < 0) return NULL;
    advance(&B->P, &B->t, c);
    return observe_now(O, bound_record(B));
}

static PyObject *py_observe_state(PyObject *self, PyObject *cap) {
    Observer *O = observer_of(cap);
    return O ? observe_now(O, bound_record(O->B)) : NULL;
}

static PyObject *py_taken(PyObject *self, PyObject *args) {
    PyObject *cap;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "On", &cap, &start)) return NULL;
    Bound *B = PyCapsule_GetPointer(cap, BOUND_CAPSULE);
    if (!B) return NULL;
    if (start < 0 || start > B->nlog) start = B->nlog;
    PyObject *out = PyList_New(B->nlog - start);
    for (Py_ssize_t k = start; out && k < B->nlog; k++) {
        const int16_t *m = B->log + 4 * k;
        PyObject *row = Py_BuildValue("[iiii]", m[0], m[1], m[2], m[3]);
        if (!row) { Py_CLEAR(out); break; }
        PyList_SET_ITEM(out, k - start, row);
    }
    return out;
}

static PyObject *py_clear_taken(PyObject *self, PyObject *cap) {
    Bound *B = PyCapsule_GetPointer(cap, BOUND_CAPSULE);
    if (!B) return NULL;
    B->nlog = 0;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- the vector env's N tables, bound once
 * mjenv.vector_batch steps N tables a call of the vector env: the checks, the moves, the state records and the
 * observation writer's call (through the writer's C entry points, _kernel_api.h) in C on arrays bound once, on k
 * threads with the GIL released. Each table's move and observation depend on that table alone (its arrays, its
 * memo), so the outputs are the same for every k.
 *   bind_batch(params, layout, tiles, wall, discards, num_discards, meld_table, melds_declared, won, scores, masks,
 *              scalars, dealer, records, plan, memos, threads) -> capsule
 *     the N tables' arrays of step and records (kept exported while the capsule lives); records int16[N, L] the
 *     tables' state records; plan a _kernel.bind capsule whose one source is the whole record; memos a list of the
 *     N tables' memo arrays (kept alive); threads k >= 1 (k - 1 threads are started here and kept).
 *   step_batch(batch, actions, raise_illegal, done, illegal, scores, winners, final_masks, final_obs, obs, deficiency)
 *     -> list or None
 *     actions int64[N, 4]. None, with nothing changed, when they need the env's checks: an action outside
 *     0..A-1, or one not legal in its mask with raise_illegal. Otherwise a table with an illegal action does not
 *     move and its hand ends on the state it had (illegal[i, s] = 1 for those seats); every other table takes its
 *     step. Written: done uint8[N] (the hand ended), illegal uint8[N, 4], scores int64[N, 4] and winners
 *     uint8[N, 4] of the hands that ended by a move (0 elsewhere), final_masks int8[N, 4, A] and final_obs
 *     float32[N, 4, S] the masks and observations of the hands that ended (untouched elsewhere), obs
 *     float32[N, 4, S] and deficiency int32[N, 4] every table's observation of its state after the step. A hand
 *     that ended is dealt again at once when bind_deals gave the tables' generators (the next hand's seed drawn
 *     from the table's generator, its wall shuffled as numpy shuffles it: _numpy_random.h), and obs and
 *     deficiency are its new hand's; without them, its final state's. Returns the ended tables, ascending.
 *     With one more argument, masks_out int8[N, 4, A]: every table's masks after the step, copied there.
 *   bind_deals(batch, tiles, generators) -> None (below). */
#define BATCH_CAPSULE "mjenv.game._step.batch"
enum { NBATCH_ARGS = 12, MAX_WALL = 256 };

typedef struct {
    Params P;
    int32_t ly[NLAY];
    Py_buffer b[NBATCH_ARGS]; /* tiles, wall, discards, num_discards, meld_table, melds_declared, won, scores,
                                 masks, scalars, dealer, records */
    Py_ssize_t n;
    PyObject *memo_list, *plan_cap;
    void *plan;
    void **memos;
    Pool pool;
    /* bind_deals: the tile set (the wall before its shuffle) and each table's generator; gens NULL: step_batch
     * leaves the hands that ended as they ended */
    int8_t tile_set[MAX_WALL];
    NpyBitGen **gens;
    PyObject *gen_owners; /* the generators' BitGenerators (which hold the NpyBitGen), kept alive */
} Batch;

static void batch_free(PyObject *cap) {
    Batch *B = PyCapsule_GetPointer(cap, BATCH_CAPSULE);
    if (!B) return;
    pool_stop(&B->pool);
    for (int i = 0; i < NBATCH_ARGS; i++)
        if (B->b[i].obj) PyBuffer_Release(&B->b[i]);
    Py_XDECREF(B->memo_list);
    Py_XDECREF(B->plan_cap);
    Py_XDECREF(B->gen_owners);
    PyMem_Free(B->memos);
    PyMem_Free(B->gens);
    PyMem_Free(B);
}

/* table i of a batch */
static Tab batch_tab(const Batch *B, Py_ssize_t i) {
    void *base[10];
    for (int k = 0; k < 10; k++) base[k] = B->b[k].buf;
    return tab_at(&B->P, base, i);
}

/* table i's state record into its records row */
static void batch_record(const Batch *B, Py_ssize_t i) {
    const Params *P = &B->P;
    Tab t = batch_tab(B, i);
    write_record(P, B->ly, &t, ((const int8_t *)B->b[10].buf)[i], (int16_t *)B->b[11].buf + i * B->ly[LY_LEN]);
}

static PyObject *py_bind_batch(PyObject *self, PyObject *args) {
    PyObject *op, *ol, *o[NBATCH_ARGS], *plan, *memos;
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOOi", &op, &ol, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8], &o[9], &o[10], &o[11], &plan, &memos, &threads))
        return NULL;
    if (threads < 1 || threads > MAX_THREADS)
        return PyErr_Format(PyExc_ValueError, "bind_batch(): threads must be in 1..%d, got %d", MAX_THREADS, threads);
    const KernelApi *K = need_kernel();
    if (!K) return NULL;
    void *pl = K->plan_of(plan);
    if (!pl) return NULL;
    Batch *B = PyMem_Calloc(1, sizeof(Batch));
    if (!B) return PyErr_NoMemory();
    PyObject *cap = NULL;
    if (read_params_layout(op, ol, &B->P, B->ly, "bind_batch") < 0) { PyMem_Free(B); return NULL; }
    const Params *P = &B->P;
    /* bytes of one table in each argument */
    const Py_ssize_t per[NBATCH_ARGS] = {9 * P->T, P->W, 2 * 4 * P->D, 2 * 4, 4 * P->MM * 4, 4, 4, 8 * 4, 4 * P->A,
                                         4 * NSC, 1, 2 * (Py_ssize_t)B->ly[LY_LEN]};
    Py_ssize_t n = 0;
    if (bind_buffers(o, B->b, per, NBATCH_ARGS, &n, "bind_batch") < 0) { PyMem_Free(B); return NULL; }
    B->n = n;
    B->plan = pl;
    Py_INCREF(plan);
    B->plan_cap = plan;
    Py_INCREF(memos);
    B->memo_list = memos;
    B->memos = PyMem_Calloc((size_t)n, sizeof(void *));
    if (!B->memos) PyErr_NoMemory();
    else if (K->record_length(pl) != B->ly[LY_LEN])
        PyErr_Format(PyExc_ValueError, "bind_batch(): the plan's record has %zd entries, the tables' %d",
                     K->record_length(pl), B->ly[LY_LEN]);
    else if (K->memos_of(memos, n, B->memos) == 0 && pool_start(&B->pool, threads) == 0)
        cap = PyCapsule_New(B, BATCH_CAPSULE, batch_free);
    if (cap) return cap;
    PyObject *err_type, *err_value, *err_tb;
    PyErr_Fetch(&err_type, &err_value, &err_tb);
    PyObject *owner = PyCapsule_New(B, BATCH_CAPSULE, batch_free); /* frees what B holds */
    if (owner) Py_DECREF(owner);
    PyErr_Restore(err_type, err_value, err_tb);
    return NULL;
}

/* n C-contiguous buffers of exactly the given byte lengths (writable ones where asked); -1 with all released */
static int exact_buffers(PyObject *const *objs, Py_buffer *b, const Py_ssize_t *len, const int *writable, int n,
                         const char *fn) {
    for (int i = 0; i < n; i++) {
        if (PyObject_GetBuffer(objs[i], &b[i], PyBUF_C_CONTIGUOUS | (writable[i] ? PyBUF_WRITABLE : 0)) < 0 ||
            b[i].len != len[i]) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s(): argument %d holds %zd bytes, expected %zd", fn, i + 1, b[i].len,
                             len[i]);
            else i--; /* b[i] was not exported */
            for (int j = 0; j <= i; j++) PyBuffer_Release(&b[j]);
            return -1;
        }
    }
    return 0;
}

static Batch *batch_of(PyObject *cap) { return PyCapsule_GetPointer(cap, BATCH_CAPSULE); }

/* what a step's threads share: its inputs and outputs, and the first writer error */
typedef struct {
    Batch *B;
    const int64_t *acts;
    uint8_t *done, *illegal, *winners;
    int64_t *scores;
    int8_t *final_masks;
    float *final_obs, *obs;
    int32_t *defs;
    int8_t *masks_out; /* step_batch's optional output (NULL: not asked): the masks after the step */
    int failed;
    char err[KERNEL_ERR_LEN];
} StepJob;

static void job_failed(StepJob *J, const char *err) {
    if (__atomic_exchange_n(&J->failed, 1, __ATOMIC_ACQ_REL) == 0) memcpy(J->err, err, KERNEL_ERR_LEN);
}

static void deal_tab(const Params *P, Tab *t, const int8_t *w);

/* the next hand at table i, as mjenv.vector_batch.BatchTables.deal deals it without a seed: the seed drawn from the
 * table's generator (mjenv.tables.game_seed_of), its wall shuffled (mjenv.game.engine.seeded_wall), seat 0 dealing;
 * then its record */
static void batch_deal(const Batch *B, Py_ssize_t i) {
    const Params *P = &B->P;
    int8_t wall[MAX_WALL];
    seeded_permutation(next_game_seed(B->gens[i]), B->tile_set, wall, P->W);
    Tab t = batch_tab(B, i);
    deal_tab(P, &t, wall);
    ((int8_t *)B->b[10].buf)[i] = 0;
    batch_record(B, i);
}

/* tables lo..hi-1: their moves, records and observations (the final states of the hands that ended copied); with
 * generators bound, the hands that ended dealt again and observed */
static void step_job(void *ctx, Py_ssize_t lo, Py_ssize_t hi) {
    StepJob *J = ctx;
    Batch *B = J->B;
    const Params *P = &B->P;
    const Py_ssize_t A = P->A, L = B->ly[LY_LEN], S = kernel_api->size(B->plan);
    for (Py_ssize_t i = lo; i < hi; i++) {
        Tab t = batch_tab(B, i);
        const uint8_t *bad = J->illegal + 4 * i;
        int moved = !(bad[0] | bad[1] | bad[2] | bad[3]);
        if (moved && t.sc[SC_PHASE] != PH_END) advance(P, &t, J->acts + 4 * i); /* a table over does not move */
        int over = !moved || t.sc[SC_PHASE] == PH_END;
        J->done[i] = (uint8_t)over;
        for (int s = 0; s < 4; s++) {
            J->scores[4 * i + s] = over && moved ? t.scores[s] : 0;
            J->winners[4 * i + s] = over && moved && t.won[s];
        }
        batch_record(B, i);
        if (over) memcpy(J->final_masks + i * 4 * A, t.masks, 4 * A);
    }
    char err[KERNEL_ERR_LEN];
    if (kernel_api->observe(B->plan, (const int16_t *)B->b[11].buf + lo * L, B->memos + lo, NULL, hi - lo,
                            J->obs + lo * 4 * S, J->defs + lo * 4, err) < 0) {
        job_failed(J, err);
        return;
    }
    for (Py_ssize_t i = lo; i < hi; i++) {
        if (!J->done[i]) continue;
        memcpy(J->final_obs + i * 4 * S, J->obs + i * 4 * S, sizeof(float) * 4 * S);
        if (!B->gens) continue;
        batch_deal(B, i);
        if (kernel_api->observe(B->plan, (const int16_t *)B->b[11].buf + i * L, B->memos + i, NULL, 1, J->obs + i * 4 * S,
                                J->defs + i * 4, err) < 0) {
            job_failed(J, err);
            return;
        }
    }
    if (J->masks_out)
        memcpy(J->masks_out + lo * 4 * A, (const int8_t *)B->b[8].buf + lo * 4 * A, (size_t)((hi - lo) * 4 * A));
}

static PyObject *py_step_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 11 && nargs != 12)
        return PyErr_Format(PyExc_TypeError, "step_batch() takes 11 or 12 arguments (%zd given)", nargs);
    Batch *B = batch_of(args[0]);
    if (!B) return NULL;
    int raise_illegal = PyObject_IsTrue(args[2]);
    if (raise_illegal < 0) return NULL;
    const Params *P = &B->P;
    const Py_ssize_t n = B->n, A = P->A, S = kernel_api->size(B->plan);
    const int nb = nargs == 12 ? 10 : 9;
    PyObject *objs[10] = {args[1], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10],
                          nargs == 12 ? args[11] : NULL};
    const Py_ssize_t len[10] = {8 * 4 * n, n, 4 * n, 8 * 4 * n, 4 * n, 4 * A * n, 16 * S * n, 16 * S * n, 16 * n,
                                4 * A * n};
    const int writable[10] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    Py_buffer b[10];
    if (exact_buffers(objs, b, len, writable, nb, "step_batch") < 0) return NULL;
    StepJob J = {B, b[0].buf, b[1].buf, b[2].buf, b[4].buf, b[3].buf, b[5].buf, b[6].buf, b[7].buf, b[8].buf,
                 nb > 9 ? b[9].buf : NULL, 0, {0}};
    const int8_t *masks = B->b[8].buf;
    PyObject *ended = NULL;
    /* the checks first: nothing moves unless every action is in range (and legal, with raise_illegal) */
    int any_bad = 0;
    for (Py_ssize_t k = 0; k < 4 * n; k++) {
        if (J.acts[k] < 0 || J.acts[k] >= A) goto refuse;
        int bad = !masks[k * A + J.acts[k]];
        J.illegal[k] = (uint8_t)bad;
        any_bad |= bad;
    }
    if (any_bad && raise_illegal) goto refuse;
    Py_BEGIN_ALLOW_THREADS
    pool_run(&B->pool, step_job, &J, n);
    Py_END_ALLOW_THREADS
    if (J.failed) {
        PyErr_SetString(PyExc_ValueError, J.err);
        goto out;
    }
    Py_ssize_t k_end = 0;
    for (Py_ssize_t i = 0; i < n; i++) k_end += J.done[i];
    ended = PyList_New(k_end);
    if (!ended) goto out;
    for (Py_ssize_t i = 0, j = 0; i < n; i++) {
        if (!J.done[i]) continue;
        PyObject *x = PyLong_FromSsize_t(i);
        if (!x) { Py_CLEAR(ended); goto out; }
        PyList_SET_ITEM(ended, j++, x);
    }
    goto out;
refuse:
    ended = Py_None;
    Py_INCREF(ended);
out:
    for (int i = 0; i < nb; i++) PyBuffer_Release(&b[i]);
    return ended;
}

/* thread_stats(batch) -> (work, critical, spun): CPU seconds of the batch's threaded runs so far (step_batch's), of
 * all threads together and of the slowest thread of each run summed (the runs' critical path: their wall time on
 * cores of their own), and of the threads' spinning between and at the end of runs (waiting, awake). */
static PyObject *py_thread_stats(PyObject *self, PyObject *cap) {
    Batch *B = batch_of(cap);
    return B ? Py_BuildValue("(ddd)", B->pool.work, B->pool.critical,
                             1e-9 * (double)__atomic_load_n(&B->pool.spun, __ATOMIC_RELAXED))
             : NULL;
}

/* Game(rules, seed)'s first state from its shuffled wall w (seat 0 dealing; BatchGames.deal): the hands (tiles of
 * the room's own >= T left to its dealt hook), the dealer's first draw, then the room's start (a phase of its own). */
static void deal_tab(const Params *P, Tab *t, const int8_t *w) {
    const int T = P->T, hs = P->hand_size;
    const RoomHooks *R = ROOM(P);
    memset(t->tiles, 0, 9 * T);
    for (int s = 0; s < 4; s++)
        for (int j = 0; j < hs; j++)
            if (w[s * hs + j] < T) t->tiles[s * T + w[s * hs + j]]++;
    memcpy(t->wall, w, P->W);
    for (int j = 0; j < 4 * P->D; j++) t->disc[j] = -1;
    memset(t->ndisc, 0, 4 * sizeof(int16_t));
    memset(t->melds, -1, 4 * P->MM * 4);
    memset(t->ndecl, 0, 4);
    memset(t->won, 0, 4);
    for (int s = 0; s < 4; s++) t->scores[s] = 0;
    int32_t *sc = t->sc;
    for (int k = 0; k < NSC; k++) sc[k] = 0;
    sc[SC_PHASE] = PH_DISCARD; sc[SC_CUR] = 0; sc[SC_LAST_DISCARD] = -1; sc[SC_LAST_DISCARDER] = -1;
    sc[SC_LAST_DRAWN] = -1; sc[SC_DEAL_IN] = -1; sc[SC_WIN_TILE] = -1; sc[SC_END] = END_NONE;
    sc[SC_HEAD] = 4 * hs; sc[SC_TAIL] = P->W; sc[SC_CLAIMED] = 0; sc[SC_KONG_TILE] = -1;
    if (R && R->dealt) R->dealt(P, t, w);
    draw(P, t, 0, 0); /* the dealer's draw: her turn row, PASS only for seats 1-3; acting = seat 0 */
    if (R && R->start) R->start(P, t);
}

/* deal(params, rows, walls, tiles, wall, discards, num_discards, meld_table, melds_declared, won,
 *      scores, masks, scalars, dealer) -> None: BatchGames.deal's arrays (step's, and dealer int8[N]); rows int64[R]
 * distinct tables, walls int8[R, W] (each the shuffled wall of Game(rules, seed)): deals those tables the state
 * Game(rules, seed) starts in, seat 0 dealing. */
static PyObject *py_deal(PyObject *self, PyObject *args) {
    PyObject *op, *orows, *owalls, *o[11];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOO", &op, &orows, &owalls, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &o[7], &o[8], &o[9], &o[10]))
        return NULL;
    Params P;
    if (read_params(op, &P, "deal") < 0) return NULL;
    const RoomHooks *R = ROOM(&P);
    const int max_id = R && R->drawn ? R->max_wall_id : P.T - 1;
    Arg a[11] = {{o[0], 1, 1, 9 * P.T}, {o[1], 1, 1, P.W}, {o[2], 2, 1, 4 * P.D}, {o[3], 2, 1, 4},
                 {o[4], 1, 1, 4 * P.MM * 4}, {o[5], 1, 1, 4}, {o[6], 1, 1, 4}, {o[7], 8, 1, 4}, {o[8], 1, 1, 4 * P.A},
                 {o[9], 4, 1, NSC}, {o[10], 1, 1, 1}};
    Py_ssize_t n;
    if (get_args(a, 11, &n) < 0) return NULL;
    Py_buffer rb, wb;
    if (PyObject_GetBuffer(orows, &rb, PyBUF_C_CONTIGUOUS) < 0) { release_args(a, 11); return NULL; }
    if (PyObject_GetBuffer(owalls, &wb, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&rb);
        release_args(a, 11);
        return NULL;
    }
    const Py_ssize_t R_ = rb.len / 8;
    const int64_t *rows = rb.buf;
    const int8_t *walls = wb.buf;
    PyObject *result = NULL;
    if (rb.len % 8 || wb.len != R_ * P.W) {
        PyErr_Format(PyExc_ValueError, "deal(): rows must be int64[R] and walls int8[R, %d]", P.W);
        goto done;
    }
    for (Py_ssize_t k = 0; k < R_; k++) {
        if (rows[k] < 0 || rows[k] >= n) {
            PyErr_Format(PyExc_ValueError, "deal(): row %lld outside 0..%zd", (long long)rows[k], n - 1);
            goto done;
        }
        for (int j = 0; j < P.W; j++)
            if (walls[k * P.W + j] < 0 || walls[k * P.W + j] > max_id) {
                PyErr_Format(PyExc_ValueError, "deal(): wall %zd holds tile %d outside 0..%d", k, walls[k * P.W + j],
                             max_id);
                goto done;
            }
    }
    void *base[10];
    for (int j = 0; j < 10; j++) base[j] = a[j].b.buf;
    for (Py_ssize_t k = 0; k < R_; k++) {
        Tab t = tab_at(&P, base, rows[k]);
        deal_tab(&P, &t, walls + k * P.W);
        ((int8_t *)a[10].b.buf)[rows[k]] = 0; /* seat 0 deals */
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&wb);
    release_args(a, 11);
    return result;
}

/* the NpyBitGen of a numpy Generator (its bit_generator's capsule); *owner: a new reference to the BitGenerator that
 * holds it; NULL with an exception set */
static NpyBitGen *bitgen_of(PyObject *generator, PyObject **owner) {
    PyObject *bg = PyObject_GetAttrString(generator, "bit_generator");
    if (!bg) return NULL;
    PyObject *cap = PyObject_GetAttrString(bg, "capsule");
    NpyBitGen *g = cap ? PyCapsule_GetPointer(cap, NPY_BITGEN_CAPSULE) : NULL;
    Py_XDECREF(cap);
    if (!g) {
        Py_DECREF(bg);
        return NULL;
    }
    *owner = bg;
    return g;
}

/* bind_deals(batch, tiles, generators) -> None: tiles int8[W] the rule set's tile set (mjenv.game.engine.tile_set),
 * generators a list of the N tables' numpy Generators (kept alive; call again when a table gets another one). From
 * then on step_batch deals the hands that end at once, each from its table's generator, and observes them. */
static PyObject *py_bind_deals(PyObject *self, PyObject *args) {
    PyObject *cap, *tiles, *gens;
    if (!PyArg_ParseTuple(args, "OOO!", &cap, &tiles, &PyList_Type, &gens)) return NULL;
    Batch *B = batch_of(cap);
    if (!B) return NULL;
    const Params *P = &B->P;
    if (PyList_GET_SIZE(gens) != B->n)
        return PyErr_Format(PyExc_ValueError, "bind_deals(): %zd generators for %zd tables", PyList_GET_SIZE(gens), B->n);
    Py_buffer tb;
    if (PyObject_GetBuffer(tiles, &tb, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (tb.len != P->W || P->W > MAX_WALL) {
        PyBuffer_Release(&tb);
        return PyErr_Format(PyExc_ValueError, "bind_deals(): tiles must be int8[%d] (at most %d), got %zd bytes", P->W,
                            MAX_WALL, tb.len);
    }
    NpyBitGen **g = PyMem_Calloc((size_t)B->n, sizeof(NpyBitGen *));
    PyObject *owners = PyTuple_New(B->n);
    if (!g || !owners) {
        PyBuffer_Release(&tb);
        PyMem_Free(g);
        Py_XDECREF(owners);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < B->n; i++) {
        PyObject *owner;
        if (!(g[i] = bitgen_of(PyList_GET_ITEM(gens, i), &owner))) {
            PyBuffer_Release(&tb);
            PyMem_Free(g);
            Py_DECREF(owners);
            return NULL;
        }
        PyTuple_SET_ITEM(owners, i, owner);
    }
    memcpy(B->tile_set, tb.buf, P->W);
    PyBuffer_Release(&tb);
    PyMem_Free(B->gens);
    Py_XDECREF(B->gen_owners);
    B->gens = g, B->gen_owners = owners;
    Py_RETURN_NONE;
}

/* shuffled_walls(tiles, seeds, out) -> None: tiles int8[W], seeds uint64[K], out int8[K, W]: out[k] =
 * numpy.random.default_rng(seeds[k]).permutation(tiles) (mjenv.game.engine.seeded_wall) */
static PyObject *py_shuffled_walls(PyObject *self, PyObject *args) {
    PyObject *objs[3];
    if (!PyArg_ParseTuple(args, "OOO", &objs[0], &objs[1], &objs[2])) return NULL;
    Py_buffer b[3];
    for (int i = 0; i < 3; i++)
        if (PyObject_GetBuffer(objs[i], &b[i], PyBUF_C_CONTIGUOUS | (i == 2 ? PyBUF_WRITABLE : 0)) < 0) {
            for (int j = 0; j < i; j++) PyBuffer_Release(&b[j]);
            return NULL;
        }
    const Py_ssize_t W = b[0].len, K = b[1].len / 8;
    PyObject *result = Py_None;
    if (b[1].len % 8 || b[2].len != K * W) {
        PyErr_Format(PyExc_ValueError, "shuffled_walls(): seeds must be uint64[K] and out int8[K, %zd]", W);
        result = NULL;
    } else {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t k = 0; k < K; k++)
            seeded_permutation(((const uint64_t *)b[1].buf)[k], b[0].buf, (int8_t *)b[2].buf + k * W, W);
        Py_END_ALLOW_THREADS
        Py_INCREF(result);
    }
    for (int i = 0; i < 3; i++) PyBuffer_Release(&b[i]);
    return result;
}

/* game_seeds(generator, out) -> None: out uint64[K] the next K draws of generator.integers(0, 2**63 - 1) (the
 * generator moves as those K calls move it; the deals' draw, for the tests) */
static PyObject *py_game_seeds(PyObject *self, PyObject *args) {
    PyObject *gen, *out, *owner;
    if (!PyArg_ParseTuple(args, "OO", &gen, &out)) return NULL;
    NpyBitGen *g = bitgen_of(gen, &owner);
    if (!g) return NULL;
    Py_buffer ob;
    if (PyObject_GetBuffer(out, &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        Py_DECREF(owner);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < ob.len / 8; k++) ((uint64_t *)ob.buf)[k] = next_game_seed(g);
    PyBuffer_Release(&ob);
    Py_DECREF(owner);
    Py_RETURN_NONE;
}

/* room_index(capsule) -> int: the index (>= 1) of a room's compiled hooks (a STEP_ROOM_CAPSULE capsule holding a
 * RoomHooks, which gets the step's functions in its core), for the params' room entry; the same capsule's hooks
 * get the same index, kept while the module lives. */
static PyObject *py_room_index(PyObject *self, PyObject *cap) {
    RoomHooks *R = PyCapsule_GetPointer(cap, STEP_ROOM_CAPSULE);
    if (!R) return NULL;
    for (int i = 1; i < num_rooms; i++)
        if (rooms_tab[i] == R) return PyLong_FromLong(i);
    if (num_rooms == MAX_ROOMS) return PyErr_Format(PyExc_ValueError, "room_index(): at most %d rooms", MAX_ROOMS - 1);
    if ((R->restricts && (!R->may_meld || !R->wins_with || !R->restrict_turn)) || (R->plays_on && (!R->win ||
        !R->next_seat)) || (R->pays_kongs && !R->pay_kong) || (R->settles && !R->settle) ||
        (R->max_wall_id > 0 && !R->drawn))
        return PyErr_Format(PyExc_ValueError, "room_index(): the room's flags need hooks it does not have");
    R->core = &CORE;
    Py_INCREF(cap);
    room_caps[num_rooms] = cap;
    rooms_tab[num_rooms] = R;
    return PyLong_FromLong(num_rooms++);
}

static PyMethodDef methods[] = {
    {"step", py_step, METH_VARARGS, "Advances N tables by one step (see the comment above py_step)."},
    {"records", py_records, METH_VARARGS, "The observation writer's state records of some tables (see above)."},
    {"bind_one", py_bind_one, METH_VARARGS, "One table's arrays bound for step_one and record_one (see above)."},
    {"step_one", (PyCFunction)(void (*)(void))py_step_one, METH_FASTCALL, "One bound table's step and record."},
    {"record_one", py_record_one, METH_O, "One bound table's state record."},
    {"bind_observer", py_bind_observer, METH_VARARGS, "A bound table with the writer bound (see above)."},
    {"step_observe", (PyCFunction)(void (*)(void))py_step_observe, METH_FASTCALL, "One table's step and observation."},
    {"observe_state", py_observe_state, METH_O, "One table's observation as it is."},
    {"taken", py_taken, METH_VARARGS, "A bound table's logged moves from an index on."},
    {"clear_taken", py_clear_taken, METH_O, "Empties a bound table's log of moves."},
    {"bind_batch", py_bind_batch, METH_VARARGS, "The vector env's N tables bound once (see the comment above it)."},
    {"step_batch", (PyCFunction)(void (*)(void))py_step_batch, METH_FASTCALL, "The vector env's step of N tables."},
    {"bind_deals", py_bind_deals, METH_VARARGS, "The tile set and generators of a batch's deals (see above)."},
    {"shuffled_walls", py_shuffled_walls, METH_VARARGS, "numpy's default_rng(seed).permutation(tiles) (see above)."},
    {"game_seeds", py_game_seeds, METH_VARARGS, "A generator's integers(0, 2**63 - 1) draws (see above)."},
    {"thread_stats", py_thread_stats, METH_O, "CPU seconds of a batch's threaded runs (see above)."},
    {"deal", py_deal, METH_VARARGS, "New hands at some tables from their shuffled walls (see above)."},
    {"room_index", py_room_index, METH_O, "The params' index of a room's compiled hooks (see above)."},
    {"claim_rows", py_claim_rows, METH_VARARGS, "A seat's claim-window row per hand (see the module comment)."},
    {"turn_rows", py_turn_rows, METH_VARARGS, "The current player's own-turn row per hand (see the module comment)."},
    {"is_winning", py_is_winning, METH_VARARGS, "Batched win check (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_step", NULL, -1, methods};

PyMODINIT_FUNC PyInit__step(void) { return PyModule_Create(&module); }
