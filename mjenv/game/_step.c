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
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

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

/* A seat's claim row on tile t (all zeros: nothing to claim; else its claims plus PASS). */
static int claim_row(const int8_t *h, int t, int chow_ok, int can_kong, int rob, int T, int seven, int8_t *row) {
    const int A = 2 * T + 7, CHOW_LOW = 2 * T, PONG = 2 * T + 3, EKONG = 2 * T + 4, WIN = 2 * T + 5, PASS = 2 * T + 6;
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
    if (any) row[PASS] = 1;
    return any;
}

/* The current player's own-turn row (pg[t]: she has an exposed pong of t). */
static void turn_row(const int8_t *h, const int8_t *pg, int claimed, int can_kong, int T, int seven, int8_t *row) {
    memset(row, 0, 2 * T + 7);
    for (int t = 0; t < T; t++) row[t] = h[t] > 0;
    if (claimed) return;
    if (can_kong)
        for (int t = 0; t < T; t++) row[T + t] = h[t] == 4 || (pg[t] && h[t] > 0);
    row[2 * T + 5] = (int8_t)winning(h, T, seven);
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
        claim_row(hands + i * T, (int)tiles[i], chow_ok[i], can_kong[i], rob[i], T, seven, out + i * A);
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
        turn_row(hands + i * T, pongs + i * T, claimed[i], can_kong[i], T, seven, out + i * A);
    release_args(a, 5);
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- the batched step
 * A C port of the transitions of ``mjenv.game.engine.Game`` (``_advance`` and what it calls), which
 * it must equal exactly: ``tests/test_step_kernel.py`` loads Python games into the arrays and checks
 * every array after every step. Per table: tiles int8[9, T] (hands, meld counts, public counts), wall
 * int8[W], discards int16[4, D], num_discards int16[4], meld_table int8[4, MM, 4], melds_declared
 * int8[4], won uint8[4], scores int64[4], masks int8[4, A], scalars int32[NSC] (the SC_ names). */
enum { SC_PHASE, SC_CUR, SC_LAST_DISCARD, SC_LAST_DISCARDER, SC_LAST_DRAWN, SC_DEAL_IN, SC_WIN_TILE, SC_END,
       SC_HEAD, SC_TAIL, SC_ACTING, SC_CLAIMED, SC_KONG_TILE, NSC };
enum { PH_DISCARD, PH_CLAIM, PH_ROB, PH_END };
enum { MK_CHOW, MK_PONG, MK_EKONG, MK_CKONG, MK_AKONG };
enum { END_NONE, END_SELF_DRAW, END_DISCARD, END_ROBBED, END_EXHAUSTIVE };

typedef struct {
    int T, A, W, D, MM, allow_chow, seven, always, multi, dpts, spts;
} Params;

typedef struct {
    int8_t *tiles, *wall, *melds, *ndecl, *masks;
    int16_t *disc, *ndisc;
    uint8_t *won;
    int64_t *scores;
    int32_t *sc;
} Tab;

static void pass_only(const Params *P, Tab *b) {
    memset(b->masks, 0, 4 * P->A);
    for (int s = 0; s < 4; s++) b->masks[s * P->A + P->A - 1] = 1;
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
    for (int s = 0; s < 4; s++) b->scores[s] = 0;
    if (winners && deal_in >= 0) {
        for (int w = 0; w < 4; w++)
            if (winners >> w & 1) { b->scores[w] += P->dpts; b->scores[deal_in] -= P->dpts; }
    } else if (winners) {
        int w = 0;
        while (!(winners >> w & 1)) w++;
        for (int s = 0; s < 4; s++) b->scores[s] -= P->spts;
        b->scores[w] += 4 * P->spts;
    }
    pass_only(P, b);
    sc[SC_ACTING] = 0;
}

static void set_turn_masks(const Params *P, Tab *b, int p) {
    int8_t pg[34];
    memset(pg, 0, sizeof pg);
    for (int k = 0; k < b->ndecl[p]; k++) {
        const int8_t *r = b->melds + (p * P->MM + k) * 4;
        if (r[0] == MK_PONG) pg[r[1]] = 1;
    }
    pass_only(P, b);
    turn_row(b->tiles + p * P->T, pg, b->sc[SC_CLAIMED], b->sc[SC_TAIL] > b->sc[SC_HEAD], P->T, P->seven,
             b->masks + p * P->A);
    b->sc[SC_ACTING] = 1 << p;
}

static void draw(const Params *P, Tab *b, int p, int replacement) {
    int32_t *sc = b->sc;
    if (sc[SC_TAIL] == sc[SC_HEAD]) {
        finish(P, b, 0, -1, -1, END_EXHAUSTIVE);
        return;
    }
    int t = replacement ? b->wall[--sc[SC_TAIL]] : b->wall[sc[SC_HEAD]++];
    b->tiles[p * P->T + t]++;
    sc[SC_LAST_DRAWN] = t;
    sc[SC_LAST_DISCARD] = -1;
    sc[SC_LAST_DISCARDER] = -1;
    sc[SC_CUR] = p;
    sc[SC_PHASE] = PH_DISCARD;
    sc[SC_CLAIMED] = 0;
    set_turn_masks(P, b, p);
}

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
 * rule opens no empty window. */
static int open_window(const Params *P, Tab *b, int p, int t, int rob) {
    int acting = 0;
    int can_kong = b->sc[SC_TAIL] > b->sc[SC_HEAD];
    int8_t row[2 * 34 + 7];
    pass_only(P, b);
    for (int k = 1; k < 4; k++) {
        int s = (p + k) % 4;
        int chow_ok = P->allow_chow && k == 1;
        if (claim_row(b->tiles + s * P->T, t, chow_ok, can_kong, rob, P->T, P->seven, row)) {
            memcpy(b->masks + s * P->A, row, P->A);
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

static void on_claims(const Params *P, Tab *b, const int64_t *chosen) {
    int p = b->sc[SC_LAST_DISCARDER], t = b->sc[SC_LAST_DISCARD], T = P->T;
    const int CHOW_LOW = 2 * T, PONG = 2 * T + 3, EKONG = 2 * T + 4, WIN = 2 * T + 5;
    int w = winners_of(P, p, chosen, WIN);
    if (w) { finish(P, b, w, p, t, END_DISCARD); return; }
    for (int k = 1; k < 4; k++) {
        int s = (p + k) % 4;
        if (chosen[s] == PONG || chosen[s] == EKONG) {
            int kong = chosen[s] == EKONG, n = kong ? 3 : 2;
            b->tiles[s * T + t] -= n;
            b->tiles[(4 + s) * T + t] += n + 1;
            b->tiles[8 * T + t] += n;
            add_meld(P, b, s, kong ? MK_EKONG : MK_PONG, t, p, t);
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
    draw(P, b, (p + 1) % 4, 0);
}

static void kong(const Params *P, Tab *b, int p, int t) {
    int T = P->T;
    int8_t *h = b->tiles + p * T;
    if (h[t] == 4) {
        h[t] = 0;
        b->tiles[(4 + p) * T + t] += 4;
        b->tiles[8 * T + t] += 4;
        add_meld(P, b, p, MK_CKONG, t, -1, -1);
        draw(P, b, p, 1);
        return;
    }
    h[t]--;
    pong_row(P, b, p, t, MK_PONG)[0] = MK_AKONG;
    b->tiles[(4 + p) * T + t]++;
    b->tiles[8 * T + t]++;
    if (!open_window(P, b, p, t, 1)) { draw(P, b, p, 1); return; }
    b->sc[SC_PHASE] = PH_ROB;
    b->sc[SC_KONG_TILE] = t;
    b->sc[SC_LAST_DISCARD] = t;
    b->sc[SC_LAST_DISCARDER] = p;
    b->sc[SC_LAST_DRAWN] = -1;
}

static void on_rob(const Params *P, Tab *b, const int64_t *chosen) {
    int p = b->sc[SC_CUR], t = b->sc[SC_KONG_TILE];
    int w = winners_of(P, p, chosen, 2 * P->T + 5);
    b->sc[SC_KONG_TILE] = -1;
    if (!w) { draw(P, b, p, 1); return; }
    pong_row(P, b, p, t, MK_AKONG)[0] = MK_PONG;
    b->tiles[(4 + p) * P->T + t]--;
    b->disc[p * P->D + b->ndisc[p]] = t;
    b->ndisc[p]++;
    finish(P, b, w, p, t, END_ROBBED);
}

static void advance(const Params *P, Tab *b, const int64_t *chosen) {
    int ph = b->sc[SC_PHASE];
    if (ph == PH_DISCARD) {
        int p = b->sc[SC_CUR], a = (int)chosen[p];
        if (a < P->T) discard(P, b, p, a);
        else if (a < 2 * P->T) kong(P, b, p, a - P->T);
        else finish(P, b, 1 << p, -1, b->sc[SC_LAST_DRAWN], END_SELF_DRAW);
    } else if (ph == PH_CLAIM) on_claims(P, b, chosen);
    else if (ph == PH_ROB) on_rob(P, b, chosen);
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
 * refused their actions (then nothing of those tables changed). params int32[11] (T, A, W, D, MM,
 * allow_chow, seven_pairs, claim_window_always, multiple_winners, discard_win_points,
 * self_draw_points); actions int64[N * 4], one per seat (PASS for seats not acting); an action not
 * legal in the table's mask refuses the table: the caller raises. */
static PyObject *py_step(PyObject *self, PyObject *args) {
    PyObject *op, *o[11];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOO", &op, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &o[9], &o[10]))
        return NULL;
    Py_buffer pb;
    if (PyObject_GetBuffer(op, &pb, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (pb.len != 11 * 4) {
        PyBuffer_Release(&pb);
        PyErr_SetString(PyExc_ValueError, "params must be int32[11]");
        return NULL;
    }
    const int32_t *pp = pb.buf;
    Params P = {pp[0], pp[1], pp[2], pp[3], pp[4], pp[5], pp[6], pp[7], pp[8], pp[9], pp[10]};
    PyBuffer_Release(&pb);
    if (check_t(P.T) < 0) return NULL;
    if (P.A != 2 * P.T + 7) return PyErr_Format(PyExc_ValueError, "A must be 2T + 7");
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
 * records(params, layout, rows, tiles, discards, melds_declared, scalars, dealer, out) -> None
 * The observation writer's state record (``mjenv.observation.ObservationSpec.state``: the same
 * values as ``ObservationSpec.sources`` reads from a ``Game``) of tables ``rows`` (int64[R]), into
 * out int16[R * L]. layout int32[NLAY]: the record's field offsets (the LY_ names, from the spec's
 * state layout) and its length L; params, tiles, discards, melds_declared, scalars as ``step``,
 * dealer int8[N]. Rule sets with flowers are not in the batch step, so the record has none. */
enum { LY_HANDS, LY_MELD_COUNTS, LY_KB, LY_DISCARDS, LY_NUM_MELDS, LY_NEEDED, LY_TURN, LY_CLAIM, LY_CHOW,
       LY_LAST, LY_WHO, LY_WALL, LY_DEALER, LY_PHASE, LY_ZERO, LY_LEN, NLAY };

/* One table's state record into st (what py_records writes per row). */
static void write_record(const int32_t *ly, int T, int D, int MM, int allow_chow, const int8_t *restrict tl,
                         const int16_t *restrict disc, const int8_t *nm, const int32_t *sc, int8_t dealer,
                         int16_t *restrict st) {
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
}

static PyObject *py_records(PyObject *self, PyObject *args) {
    PyObject *op, *ol, *o[7];
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &op, &ol, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6])) return NULL;
    Py_buffer pb, lb;
    if (PyObject_GetBuffer(op, &pb, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(ol, &lb, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&pb); return NULL; }
    int32_t pp[11], ly[NLAY];
    int good = pb.len == (Py_ssize_t)sizeof pp && lb.len == (Py_ssize_t)sizeof ly;
    if (good) { memcpy(pp, pb.buf, sizeof pp); memcpy(ly, lb.buf, sizeof ly); }
    PyBuffer_Release(&pb);
    PyBuffer_Release(&lb);
    if (!good) return PyErr_Format(PyExc_ValueError, "params must be int32[11] and layout int32[%d]", NLAY);
    const int T = pp[0], D = pp[3], MM = pp[4], allow_chow = pp[5], L = ly[LY_LEN];
    if (check_t(T) < 0) return NULL;
    /* the table arrays: one row per table (N rows); rows and out are checked against them below */
    Arg a[5] = {{o[1], 1, 0, 9 * T}, {o[2], 2, 0, 4 * D}, {o[3], 1, 0, 4}, {o[4], 4, 0, NSC}, {o[5], 1, 0, 1}};
    Py_ssize_t n;
    if (get_args(a, 5, &n) < 0) return NULL;
    Py_buffer rb, ob;
    if (PyObject_GetBuffer(o[0], &rb, PyBUF_C_CONTIGUOUS) < 0) { release_args(a, 5); return NULL; }
    if (PyObject_GetBuffer(o[6], &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&rb);
        release_args(a, 5);
        return NULL;
    }
    Py_ssize_t R = rb.len / 8;
    const int64_t *rows = rb.buf;
    PyObject *result = NULL;
    if (rb.len % 8 || ob.len != R * L * 2 || L < 1) {
        PyErr_Format(PyExc_ValueError, "records(): rows must be int64[R] and out int16[R * %d]", L);
        goto done;
    }
    for (Py_ssize_t k = 0; k < R; k++)
        if (rows[k] < 0 || rows[k] >= n) {
            PyErr_Format(PyExc_ValueError, "records(): row %lld outside 0..%zd", (long long)rows[k], n - 1);
            goto done;
        }
    for (int f = 0; f < LY_LEN; f++) {
        static const int width[LY_LEN] = {-4, -4, -4, -5, 4, 4, 4, 4, 4, 1, 1, 1, 1, 1, 1}; /* -4: 4T, -5: 4D */
        int w = width[f] == -4 ? 4 * T : width[f] == -5 ? 4 * D : width[f];
        if (ly[f] < 0 || ly[f] + w > L) {
            PyErr_Format(PyExc_ValueError, "records(): layout field %d does not fit a record of %d", f, L);
            goto done;
        }
    }
    for (Py_ssize_t k = 0; k < R; k++) {
        Py_ssize_t i = rows[k];
        write_record(ly, T, D, MM, allow_chow, (const int8_t *)a[0].b.buf + i * 9 * T,
                     (const int16_t *)a[1].b.buf + i * 4 * D, (const int8_t *)a[2].b.buf + i * 4,
                     (const int32_t *)a[3].b.buf + i * NSC, ((const int8_t *)a[4].b.buf)[i], (int16_t *)ob.buf + k * L);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&rb);
    PyBuffer_Release(&ob);
    release_args(a, 5);
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
} Bound;

/* params (int32[11]) and a record layout (int32[NLAY]) read and checked: T, A = 2T + 7, every field inside a record
 * of length L >= 1. 0, or -1 with an exception set. */
static int read_params_layout(PyObject *op, PyObject *ol, Params *P, int32_t *ly, const char *fn) {
    Py_buffer pb, lb;
    if (PyObject_GetBuffer(op, &pb, PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (PyObject_GetBuffer(ol, &lb, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&pb); return -1; }
    int good = pb.len == 11 * 4 && lb.len == NLAY * 4;
    if (good) {
        const int32_t *pp = pb.buf;
        Params p = {pp[0], pp[1], pp[2], pp[3], pp[4], pp[5], pp[6], pp[7], pp[8], pp[9], pp[10]};
        *P = p;
        memcpy(ly, lb.buf, NLAY * 4);
    }
    PyBuffer_Release(&pb);
    PyBuffer_Release(&lb);
    if (!good) {
        PyErr_Format(PyExc_ValueError, "%s(): params must be int32[11] and layout int32[%d]", fn, NLAY);
        return -1;
    }
    if (check_t(P->T) < 0) return -1;
    const int L = ly[LY_LEN];
    if (P->A != 2 * P->T + 7 || L < 1) {
        PyErr_Format(PyExc_ValueError, "%s(): A must be 2T + 7 and the record length >= 1", fn);
        return -1;
    }
    for (int f = 0; f < LY_LEN; f++) {
        int w = f <= LY_KB ? 4 * P->T : f == LY_DISCARDS ? 4 * P->D : f <= LY_CHOW ? 4 : 1;
        if (ly[f] < 0 || ly[f] + w > L) {
            PyErr_Format(PyExc_ValueError, "%s(): layout field %d does not fit a record of %d", fn, f, L);
            return -1;
        }
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
    write_record(B->ly, P->T, P->D, P->MM, P->allow_chow, B->t.tiles, B->t.disc, B->t.ndecl, B->t.sc,
                 ((const int8_t *)B->b[10].buf)[0], B->b[11].buf);
    return B->t.sc[SC_PHASE];
}

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
        advance(&B->P, &B->t, c);
    }
    return PyLong_FromLong(bound_record(B));
}

static PyObject *py_record_one(PyObject *self, PyObject *cap) {
    Bound *B = PyCapsule_GetPointer(cap, BOUND_CAPSULE);
    return B ? PyLong_FromLong(bound_record(B)) : NULL;
}

/* ---------------------------------------------------------------- one env step in one call
 * The PettingZoo envs' step on a bound table (mjenv.compiled_table), in one C call instead of about
 * 4 us of Python glue around step_one: the actions checked, the step and its state record, the
 * observation writer's call into fresh arrays, the rewards (scores at the end of the hand plus the
 * shaping term) and the env's dicts. Everything the env's vocabulary names (agents, dict keys, the
 * table's attributes, the writer, numpy's ``empty``) is given once by the caller:
 *   bind_env(bound, observe, record, memos, empty, float32, deficiency, masks, integer, size, agents, keys,
 *            attrs, phi, shaped, gamma) -> capsule
 *     bound: a bind_one capsule (kept alive); observe(record, memos, out, deficiency): the writer's
 *     call on the bound record (record int16[L], bind_one's; memos its list); empty: numpy.empty;
 *     float32: its dtype; deficiency: an int32[4] array the writer's deficiencies are written into
 *     (kept exported while the capsule lives; internal state, not handed to users); masks: the
 *     table's int8[4, A] masks (its fresh copy is made with .copy()); integer: numpy.integer (an
 *     action of that type counts as its int); size: the observation's length; agents: the 4 agent
 *     names; keys: the 9 info and observation keys (observation, action_mask, seat, needs_action,
 *     deficiency, potential, illegal_action, scores, winners); attrs: the table's 7 attribute names
 *     (obs, masks, deficiency, acting, _phase, _taken, ended_by_illegal); phi: the shaping potential
 *     of each deficiency (floats); shaped: 0/1; gamma.
 *   step_env(table, actions) -> (obs, rewards, terminations, truncations, infos) or None
 *     table: the table whose attribute _env is its bind_env capsule (None: table._bind_env() is
 *     called first, and returns it); actions: the parallel env's {agent: action}. None, with
 *     nothing changed, when they need the env's checks (not a dict, a key not an agent, an action
 *     not an int or numpy integer in the mask, an acting seat left out, the hand over or ended by an
 *     illegal action, no hand dealt). Otherwise the table moves; its obs (float32[4, size]) and
 *     masks (int8[4, A]) become fresh arrays, deficiency the bound int32[4] one, acting the list of
 *     acting seats, _phase the phase; _taken gets the 4 actions.
 *   step_seats(table, a0, a1, a2, a3) -> (rewards, infos)
 *     The same step with checked actions (the AEC env's; PASS for the seats not acting); rewards a
 *     list of 4 floats. RuntimeError if an action is not legal (the caller checked them).
 * The dicts equal mjenv.env's Python ones key for key (tests/test_compiled_table.py). */
#define ENV_CAPSULE "mjenv.game._step.env"
enum { K_OBS, K_MASK, K_SEAT, K_NEEDS, K_DEF, K_POT, K_ILLEGAL, K_SCORES, K_WINNERS, NKEYS };
enum { A_OBS, A_MASKS, A_DEF, A_ACTING, A_PHASE, A_TAKEN, A_ENDED, NATTRS };
enum { NPHI_MAX = 256 };
typedef struct {
    PyObject *bound, *observe, *record, *memos, *empty, *f32, *def, *masks, *integer, *obs_shape, *copy;
    PyObject *agents[4], *keys[NKEYS], *attrs[NATTRS];
    Py_buffer defb; /* def's int32[4], exported while the capsule lives */
    Bound *B;
    double phi[NPHI_MAX], gamma;
    int nphi, shaped;
} Env;

static void env_clear(Env *E) {
    Py_XDECREF(E->bound); Py_XDECREF(E->observe); Py_XDECREF(E->record); Py_XDECREF(E->memos);
    if (E->defb.obj) PyBuffer_Release(&E->defb);
    Py_XDECREF(E->empty); Py_XDECREF(E->f32); Py_XDECREF(E->def); Py_XDECREF(E->masks); Py_XDECREF(E->integer);
    Py_XDECREF(E->obs_shape); Py_XDECREF(E->copy);
    for (int i = 0; i < 4; i++) Py_XDECREF(E->agents[i]);
    for (int i = 0; i < NKEYS; i++) Py_XDECREF(E->keys[i]);
    for (int i = 0; i < NATTRS; i++) Py_XDECREF(E->attrs[i]);
    PyMem_Free(E);
}

static void env_free(PyObject *cap) {
    Env *E = PyCapsule_GetPointer(cap, ENV_CAPSULE);
    if (E) env_clear(E);
}

/* n interned strings from a tuple of exactly n str into out (new references) */
static int take_names(PyObject *tup, int n, PyObject **out, const char *what) {
    if (!PyTuple_Check(tup) || PyTuple_GET_SIZE(tup) != n) {
        PyErr_Format(PyExc_ValueError, "bind_env(): %s must be a tuple of %d str", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(tup, i);
        if (!PyUnicode_CheckExact(x)) {
            PyErr_Format(PyExc_ValueError, "bind_env(): %s must be a tuple of %d str", what, n);
            return -1;
        }
        Py_INCREF(x);
        PyUnicode_InternInPlace(&x);
        out[i] = x;
    }
    return 0;
}

static PyObject *py_bind_env(PyObject *self, PyObject *args) {
    PyObject *o[9], *agents, *keys, *attrs, *phi;
    Py_ssize_t size;
    int shaped;
    double gamma;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOnOOOOpd", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &size, &agents, &keys, &attrs, &phi, &shaped, &gamma))
        return NULL;
    Bound *B = PyCapsule_GetPointer(o[0], BOUND_CAPSULE);
    if (!B) return NULL;
    if (!PyCallable_Check(o[1]) || !PyCallable_Check(o[4]) || !PyType_Check(o[8]) || size < 1)
        return PyErr_Format(PyExc_ValueError, "bind_env(): observe and empty must be callables, integer a type, "
                            "size >= 1");
    Env *E = PyMem_Calloc(1, sizeof(Env));
    if (!E) return PyErr_NoMemory();
    PyObject **held[9] = {&E->bound, &E->observe, &E->record, &E->memos, &E->empty, &E->f32, &E->def, &E->masks,
                          &E->integer};
    for (int i = 0; i < 9; i++) { Py_INCREF(o[i]); *held[i] = o[i]; }
    E->B = B;
    E->shaped = shaped;
    E->gamma = gamma;
    E->obs_shape = Py_BuildValue("(in)", 4, size);
    E->copy = PyUnicode_InternFromString("copy");
    if (PyObject_GetBuffer(E->def, &E->defb, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto fail;
    if (E->defb.len != 16) {
        PyErr_SetString(PyExc_ValueError, "bind_env(): deficiency must be int32[4]");
        goto fail;
    }
    if (!E->obs_shape || !E->copy || take_names(agents, 4, E->agents, "agents") < 0 ||
        take_names(keys, NKEYS, E->keys, "keys") < 0 || take_names(attrs, NATTRS, E->attrs, "attrs") < 0)
        goto fail;
    if (!PyTuple_Check(phi) || PyTuple_GET_SIZE(phi) < 1 || PyTuple_GET_SIZE(phi) > NPHI_MAX) {
        PyErr_Format(PyExc_ValueError, "bind_env(): phi must be a tuple of 1..%d floats", NPHI_MAX);
        goto fail;
    }
    E->nphi = (int)PyTuple_GET_SIZE(phi);
    for (int i = 0; i < E->nphi; i++) {
        E->phi[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(phi, i));
        if (E->phi[i] == -1.0 && PyErr_Occurred()) goto fail;
    }
    PyObject *cap = PyCapsule_New(E, ENV_CAPSULE, env_free);
    if (cap) return cap;
fail:
    env_clear(E);
    return NULL;
}

/* the table's int32[4] deficiency attribute (the state before the step: the shaping term's Phi(s)) */
static int read_deficiency(PyObject *arr, int32_t d[4]) {
    Py_buffer b;
    if (PyObject_GetBuffer(arr, &b, PyBUF_C_CONTIGUOUS) < 0) return -1;
    int good = b.len == 16;
    if (good) memcpy(d, b.buf, 16);
    PyBuffer_Release(&b);
    if (!good) PyErr_SetString(PyExc_ValueError, "step_env(): the table's deficiency is not int32[4]");
    return good ? 0 : -1;
}

/* The step of checked actions c (legal in the masks), the fresh observations installed on the table;
 * rewards and infos out (new references), and the fresh obs and masks arrays (new references). */
static int env_move(Env *E, PyObject *table, const int64_t c[4], PyObject **rewards, PyObject **infos,
                    PyObject **obs_out, PyObject **masks_out) {
    Bound *B = E->B;
    const Params *P = &B->P;
    int32_t before[4] = {0, 0, 0, 0}, d[4];
    PyObject *obs = NULL, *masks = NULL, *acting = NULL, *phase_obj = NULL, *x;
    *rewards = *infos = NULL;
    if (E->shaped) {
        x = PyObject_GetAttr(table, E->attrs[A_DEF]);
        if (!x) return -1;
        int bad = read_deficiency(x, before);
        Py_DECREF(x);
        if (bad) return -1;
        for (int s = 0; s < 4; s++)
            if (before[s] < 0 || before[s] >= E->nphi) {
                PyErr_Format(PyExc_ValueError, "step_env(): deficiency %d has no potential", before[s]);
                return -1;
            }
    }
    advance(P, &B->t, c);
    int phase = bound_record(B);
    /* the table's record of this hand's moves (the Game it rebuilds on demand replays them) */
    PyObject *taken = PyObject_GetAttr(table, E->attrs[A_TAKEN]);
    if (!taken) return -1;
    PyObject *chosen = Py_BuildValue("[LLLL]", (long long)c[0], (long long)c[1], (long long)c[2], (long long)c[3]);
    int bad = !chosen || PyList_Append(taken, chosen) < 0;
    Py_DECREF(taken);
    Py_XDECREF(chosen);
    if (bad) return -1;
    PyObject *a_obs[2] = {E->obs_shape, E->f32};
    obs = PyObject_Vectorcall(E->empty, a_obs, 2, NULL);
    if (!obs) goto fail;
    PyObject *a_w[4] = {E->record, E->memos, obs, E->def};
    x = PyObject_Vectorcall(E->observe, a_w, 4, NULL);
    if (!x) goto fail;
    Py_DECREF(x);
    memcpy(d, E->defb.buf, sizeof d);
    masks = PyObject_CallMethodNoArgs(E->masks, E->copy);
    if (!masks) goto fail;
    int bits = B->t.sc[SC_ACTING], over = phase == PH_END;
    acting = PyList_New(0);
    if (!acting) goto fail;
    for (int s = 0; s < 4; s++) {
        if (!(bits >> s & 1)) continue;
        x = PyLong_FromLong(s);
        if (!x || PyList_Append(acting, x) < 0) { Py_XDECREF(x); goto fail; }
        Py_DECREF(x);
    }
    phase_obj = PyLong_FromLong(phase);
    if (!phase_obj || PyObject_SetAttr(table, E->attrs[A_OBS], obs) < 0 ||
        PyObject_SetAttr(table, E->attrs[A_MASKS], masks) < 0 || PyObject_SetAttr(table, E->attrs[A_DEF], E->def) < 0 ||
        PyObject_SetAttr(table, E->attrs[A_ACTING], acting) < 0 ||
        PyObject_SetAttr(table, E->attrs[A_PHASE], phase_obj) < 0)
        goto fail;
    /* rewards: the scores at the end of the hand, plus gamma * Phi(s') - Phi(s) (Phi(s') = 0 at the
     * end), the same double operations in the same order as mjenv.tables.step_tables */
    for (int s = 0; s < 4; s++)
        if (!over && (d[s] < 0 || d[s] >= E->nphi)) {
            PyErr_Format(PyExc_ValueError, "step_env(): deficiency %d has no potential", d[s]);
            goto fail;
        }
    double r[4];
    for (int s = 0; s < 4; s++) r[s] = over ? (double)B->t.scores[s] : 0.0;
    if (E->shaped)
        for (int s = 0; s < 4; s++) {
            double after = over ? 0.0 : E->phi[d[s]];
            double term = E->gamma * after;
            term = term - E->phi[before[s]];
            r[s] = r[s] + term;
        }
    /* the infos: seat, needs_action, deficiency, potential; at the end of the hand the end keys
     * (this path moves legal actions only: illegal_action is False) */
    PyObject *winners_proto = NULL;
    if (over) {
        winners_proto = PyList_New(0);
        if (!winners_proto) goto fail;
        for (int s = 0; s < 4; s++) {
            if (!B->t.won[s]) continue;
            x = PyLong_FromLong(s);
            if (!x || PyList_Append(winners_proto, x) < 0) { Py_XDECREF(x); Py_DECREF(winners_proto); goto fail; }
            Py_DECREF(x);
        }
    }
    *infos = PyDict_New();
    *rewards = PyList_New(4);
    if (!*infos || !*rewards) { Py_XDECREF(winners_proto); goto fail; }
    for (int s = 0; s < 4; s++) {
        PyObject *fr = PyFloat_FromDouble(r[s]);
        if (!fr) { Py_XDECREF(winners_proto); goto fail; }
        PyList_SET_ITEM(*rewards, s, fr);
        PyObject *info = PyDict_New(), *v[4] = {NULL, NULL, NULL, NULL};
        double pot = over ? 0.0 : E->phi[d[s]];
        int ok = info && (v[0] = PyLong_FromLong(s)) && (v[2] = PyLong_FromLong(d[s])) && (v[3] = PyFloat_FromDouble(pot));
        if (ok) {
            v[1] = (bits >> s & 1) ? Py_True : Py_False;
            Py_INCREF(v[1]);
            ok = PyDict_SetItem(info, E->keys[K_SEAT], v[0]) == 0 && PyDict_SetItem(info, E->keys[K_NEEDS], v[1]) == 0 &&
                 PyDict_SetItem(info, E->keys[K_DEF], v[2]) == 0 && PyDict_SetItem(info, E->keys[K_POT], v[3]) == 0;
        }
        for (int k = 0; k < 4; k++) Py_XDECREF(v[k]);
        if (ok && over) {
            PyObject *sc = PyLong_FromLongLong(B->t.scores[s]), *w = PyList_GetSlice(winners_proto, 0, 4);
            ok = sc && w && PyDict_SetItem(info, E->keys[K_ILLEGAL], Py_False) == 0 &&
                 PyDict_SetItem(info, E->keys[K_SCORES], sc) == 0 && PyDict_SetItem(info, E->keys[K_WINNERS], w) == 0;
            Py_XDECREF(sc);
            Py_XDECREF(w);
        }
        ok = ok && PyDict_SetItem(*infos, E->agents[s], info) == 0;
        Py_XDECREF(info);
        if (!ok) { Py_XDECREF(winners_proto); goto fail; }
    }
    Py_XDECREF(winners_proto);
    Py_DECREF(acting);
    Py_DECREF(phase_obj);
    *obs_out = obs;
    *masks_out = masks;
    return 0;
fail:
    Py_XDECREF(obs); Py_XDECREF(masks); Py_XDECREF(acting); Py_XDECREF(phase_obj);
    Py_CLEAR(*rewards);
    Py_CLEAR(*infos);
    return -1;
}

/* the seat of an agent name (-1: not an agent) */
static int seat_of(Env *E, PyObject *key) {
    for (int s = 0; s < 4; s++)
        if (key == E->agents[s]) return s;
    if (PyUnicode_CheckExact(key))
        for (int s = 0; s < 4; s++)
            if (PyUnicode_Compare(key, E->agents[s]) == 0) return s;
    return -1;
}

/* an action as an int64 (a Python int, or a numpy integer as its int); 0: not one (no error set) */
static int action_of(Env *E, PyObject *x, int64_t *out) {
    PyObject *own = NULL;
    if (!PyLong_CheckExact(x)) {
        int is = PyObject_IsInstance(x, E->integer);
        if (is <= 0 || !(own = PyNumber_Index(x))) { PyErr_Clear(); return 0; }
        x = own;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    Py_XDECREF(own);
    if (overflow || (v == -1 && PyErr_Occurred())) { PyErr_Clear(); return 0; }
    *out = v;
    return 1;
}

/* the table's bind_env capsule (its attribute _env; None: bound first by table._bind_env()) */
static Env *env_of(PyObject *table) {
    static PyObject *name_env = NULL, *name_bind = NULL;
    if (!name_env && !(name_env = PyUnicode_InternFromString("_env"))) return NULL;
    if (!name_bind && !(name_bind = PyUnicode_InternFromString("_bind_env"))) return NULL;
    PyObject *cap = PyObject_GetAttr(table, name_env);
    if (cap == Py_None) {
        Py_DECREF(cap);
        cap = PyObject_CallMethodNoArgs(table, name_bind);
    }
    if (!cap) return NULL;
    Env *E = PyCapsule_GetPointer(cap, ENV_CAPSULE);
    Py_DECREF(cap); /* the table holds it */
    return E;
}

static PyObject *py_step_env(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "step_env() takes 2 arguments (%zd given)", nargs);
    PyObject *table = args[0], *actions = args[1];
    Env *E = env_of(table);
    if (!E) return NULL;
    Bound *B = E->B;
    const int A = B->P.A;
    if (!PyDict_CheckExact(actions) || B->t.sc[SC_PHASE] == PH_END) Py_RETURN_NONE;
    /* the table's own view: no hand dealt yet (its _phase is END then), or one ended by an illegal action */
    for (int k = 0; k < 2; k++) {
        PyObject *x = PyObject_GetAttr(table, E->attrs[k ? A_ENDED : A_PHASE]);
        if (!x) return NULL;
        long v = k ? PyObject_IsTrue(x) : PyLong_AsLong(x);
        Py_DECREF(x);
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (k ? v != 0 : v == PH_END) Py_RETURN_NONE;
    }
    int64_t c[4] = {A - 1, A - 1, A - 1, A - 1}; /* PASS: a seat not acting has it as its only legal action */
    int given = 0;
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (PyDict_Next(actions, &pos, &key, &val)) {
        int s = seat_of(E, key);
        int64_t v = -1;
        Py_INCREF(val); /* a numpy integer's conversion runs Python code: keep the value alive */
        int ok = s >= 0 && action_of(E, val, &v);
        Py_DECREF(val);
        if (!ok || v < 0 || v >= A || !B->t.masks[s * A + v]) Py_RETURN_NONE;
        c[s] = v;
        given |= 1 << s;
    }
    if (B->t.sc[SC_ACTING] & ~given) Py_RETURN_NONE; /* an acting seat left out: the env's checks decide */
    PyObject *rewards, *infos, *obs, *masks;
    if (env_move(E, table, c, &rewards, &infos, &obs, &masks) < 0) return NULL;
    const int over = B->t.sc[SC_PHASE] == PH_END;
    PyObject *od = PyDict_New(), *rd = PyDict_New(), *td = PyDict_New(), *fd = PyDict_New(), *result = NULL;
    if (!od || !rd || !td || !fd) goto done;
    for (int s = 0; s < 4; s++) {
        PyObject *row = PySequence_GetItem(obs, s), *mrow = PySequence_GetItem(masks, s), *one = PyDict_New();
        int ok = row && mrow && one && PyDict_SetItem(one, E->keys[K_OBS], row) == 0 &&
                 PyDict_SetItem(one, E->keys[K_MASK], mrow) == 0 && PyDict_SetItem(od, E->agents[s], one) == 0 &&
                 PyDict_SetItem(rd, E->agents[s], PyList_GET_ITEM(rewards, s)) == 0 &&
                 PyDict_SetItem(td, E->agents[s], over ? Py_True : Py_False) == 0 &&
                 PyDict_SetItem(fd, E->agents[s], Py_False) == 0;
        Py_XDECREF(row);
        Py_XDECREF(mrow);
        Py_XDECREF(one);
        if (!ok) goto done;
    }
    result = PyTuple_Pack(5, od, rd, td, fd, infos);
done:
    Py_XDECREF(od); Py_XDECREF(rd); Py_XDECREF(td); Py_XDECREF(fd);
    Py_DECREF(rewards); Py_DECREF(infos); Py_DECREF(obs); Py_DECREF(masks);
    return result;
}

static PyObject *py_step_seats(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) return PyErr_Format(PyExc_TypeError, "step_seats() takes 5 arguments (%zd given)", nargs);
    Env *E = env_of(args[0]);
    if (!E) return NULL;
    Bound *B = E->B;
    int64_t c[4];
    for (int s = 0; s < 4; s++) {
        c[s] = PyLong_AsLongLong(args[s + 1]);
        if (c[s] == -1 && PyErr_Occurred()) return NULL;
    }
    int legal = B->t.sc[SC_PHASE] != PH_END;
    for (int s = 0; s < 4; s++)
        if (c[s] < 0 || c[s] >= B->P.A || !B->t.masks[s * B->P.A + c[s]]) legal = 0;
    if (!legal)
        return PyErr_Format(PyExc_RuntimeError, "step_seats(): actions the legal masks do not allow, or the hand over");
    PyObject *rewards, *infos, *obs, *masks;
    if (env_move(E, args[0], c, &rewards, &infos, &obs, &masks) < 0) return NULL;
    Py_DECREF(obs);
    Py_DECREF(masks);
    PyObject *result = PyTuple_Pack(2, rewards, infos);
    Py_DECREF(rewards);
    Py_DECREF(infos);
    return result;
}

/* ---------------------------------------------------------------- the vector env's step, bound once
 * mjenv.vector_batch steps N tables a call of the vector env. Around step and records, its checks, rewards, final
 * states and infos were numpy temporaries: about 1.2 us a table-step with the deal. These calls do them in C on
 * arrays bound once (the deal's walls and the kernel's observe between them stay numpy's and the writer's):
 *   bind_batch(params, layout, tiles, wall, discards, num_discards, meld_table, melds_declared, won, scores, masks,
 *              scalars, dealer, records) -> capsule
 *     the N tables' arrays of step and records (kept exported while the capsule lives); records int16[2N, L]:
 *     rows 0..N-1 the tables' current state records, rows N.. the final states of the hands that ended in the
 *     last step_batch, in ascending table order.
 *   step_batch(batch, actions, raise_illegal, done, illegal, scores, winners, final_masks) -> list or None
 *     actions int64[N, 4]. None, with nothing changed, when they need the env's checks (mjenv.tables.step_tables
 *     raises then): an action outside 0..A-1, or one not legal in its mask with raise_illegal. Otherwise a table
 *     with an illegal action does not move and its hand ends on the state it had (illegal[i, s] = 1 for those
 *     seats); every other table takes its step. The fresh outputs: done uint8[N] (the hand ended), illegal
 *     uint8[N, 4], scores int64[N, 4] and winners uint8[N, 4] of the hands that ended by a move, final_masks
 *     int8[N, 4, A] the masks of the hands that ended (all zeros elsewhere, as given). Every table's record is
 *     written, the ended ones' copied to rows N.. Returns the ended tables, ascending (mjenv.tables.step_tables'
 *     move, final_states and rewards, byte for byte).
 *   records_batch(batch, rows) -> None
 *     the records of tables rows (int64[R]) into their rows 0..N-1 (after BatchGames.deal dealt them: _step.deal).
 *   finish_batch(batch, before, after, out, final_obs, rewards, deficiency, potential, needs, gamma, shaped, cap)
 *     -> None, after the writer observed records[:N + K] into out float32[N + K, 4, S] and after int32[N + K, 4]
 *     (K = the hands that ended): final_obs float32[N, 4, S] (zeros) gets the ended tables' final observations;
 *     rewards float32[N, 4] = float32(score changes, or -1.0 for an illegal action, plus when shaped
 *     gamma * Phi(s') - Phi(s), Phi = -min(deficiency, cap), 0 once the hand is over), with the done, illegal
 *     and scores of the last step_batch (kept in the batch) and before int32[N, 4] the deficiencies the step
 *     started from; deficiency int64[N, 4], potential float32[N, 4] = -min(deficiency, cap), needs uint8[N, 4]
 *     (the seat acts) of the new states. */
#define BATCH_CAPSULE "mjenv.game._step.batch"
enum { NBATCH_ARGS = 12 };
typedef struct {
    Params P;
    int32_t ly[NLAY];
    Py_buffer b[NBATCH_ARGS]; /* tiles, wall, discards, num_discards, meld_table, melds_declared, won, scores,
                                 masks, scalars, dealer, records */
    Py_ssize_t n;
    uint8_t *done, *illegal; /* the last step_batch's, for finish_batch */
    int64_t *scores;
} Batch;

static void batch_free(PyObject *cap) {
    Batch *B = PyCapsule_GetPointer(cap, BATCH_CAPSULE);
    if (!B) return;
    for (int i = 0; i < NBATCH_ARGS; i++)
        if (B->b[i].obj) PyBuffer_Release(&B->b[i]);
    PyMem_Free(B->done);
    PyMem_Free(B);
}

/* table i of a batch */
static Tab batch_tab(const Batch *B, Py_ssize_t i) {
    void *base[10];
    for (int k = 0; k < 10; k++) base[k] = B->b[k].buf;
    return tab_at(&B->P, base, i);
}

/* table i's state record into records row `row` */
static void batch_record(const Batch *B, Py_ssize_t i, Py_ssize_t row) {
    const Params *P = &B->P;
    Tab t = batch_tab(B, i);
    write_record(B->ly, P->T, P->D, P->MM, P->allow_chow, t.tiles, t.disc, t.ndecl, t.sc,
                 ((const int8_t *)B->b[10].buf)[i], (int16_t *)B->b[11].buf + row * B->ly[LY_LEN]);
}

static PyObject *py_bind_batch(PyObject *self, PyObject *args) {
    PyObject *op, *ol, *o[NBATCH_ARGS];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOO", &op, &ol, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &o[10], &o[11]))
        return NULL;
    Batch *B = PyMem_Calloc(1, sizeof(Batch));
    if (!B) return PyErr_NoMemory();
    if (read_params_layout(op, ol, &B->P, B->ly, "bind_batch") < 0) { PyMem_Free(B); return NULL; }
    const Params *P = &B->P;
    /* bytes of one table in each argument (records: two rows a table) */
    const Py_ssize_t per[NBATCH_ARGS] = {9 * P->T, P->W, 2 * 4 * P->D, 2 * 4, 4 * P->MM * 4, 4, 4, 8 * 4, 4 * P->A,
                                         4 * NSC, 1, 2 * 2 * (Py_ssize_t)B->ly[LY_LEN]};
    Py_ssize_t n = 0;
    if (bind_buffers(o, B->b, per, NBATCH_ARGS, &n, "bind_batch") < 0) { PyMem_Free(B); return NULL; }
    B->n = n;
    B->done = PyMem_Calloc(8 * n + 32 * n, 1); /* done[N], illegal[4N], then scores int64[4N] at 8N */
    if (B->done) {
        B->illegal = B->done + n;
        B->scores = (int64_t *)(B->done + 8 * n);
    }
    PyObject *cap = B->done ? PyCapsule_New(B, BATCH_CAPSULE, batch_free) : PyErr_NoMemory();
    if (cap) return cap;
    for (int i = 0; i < NBATCH_ARGS; i++) PyBuffer_Release(&B->b[i]);
    PyMem_Free(B->done);
    PyMem_Free(B);
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

static PyObject *py_step_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 8) return PyErr_Format(PyExc_TypeError, "step_batch() takes 8 arguments (%zd given)", nargs);
    Batch *B = batch_of(args[0]);
    if (!B) return NULL;
    int raise_illegal = PyObject_IsTrue(args[2]);
    if (raise_illegal < 0) return NULL;
    const Params *P = &B->P;
    const Py_ssize_t n = B->n, A = P->A;
    PyObject *objs[6] = {args[1], args[3], args[4], args[5], args[6], args[7]};
    const Py_ssize_t len[6] = {8 * 4 * n, n, 4 * n, 8 * 4 * n, 4 * n, 4 * A * n};
    const int writable[6] = {0, 1, 1, 1, 1, 1};
    Py_buffer b[6];
    if (exact_buffers(objs, b, len, writable, 6, "step_batch") < 0) return NULL;
    const int64_t *acts = b[0].buf;
    uint8_t *done = b[1].buf, *illegal = b[2].buf, *winners = b[4].buf;
    int64_t *scores = b[3].buf;
    int8_t *final_masks = b[5].buf;
    const int8_t *masks = B->b[8].buf;
    int8_t *records = B->b[11].buf; /* int16 rows, addressed in bytes below */
    const Py_ssize_t L = B->ly[LY_LEN];
    PyObject *ended = NULL;
    /* the checks first: nothing moves unless every action is in range (and legal, with raise_illegal) */
    int any_bad = 0;
    for (Py_ssize_t k = 0; k < 4 * n; k++) {
        if (acts[k] < 0 || acts[k] >= A) goto refuse;
        int bad = !masks[k * A + acts[k]];
        B->illegal[k] = (uint8_t)bad;
        any_bad |= bad;
    }
    if (any_bad && raise_illegal) goto refuse;
    Py_ssize_t k_end = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Tab t = batch_tab(B, i);
        const uint8_t *bad = B->illegal + 4 * i;
        int moved = !(bad[0] | bad[1] | bad[2] | bad[3]);
        if (moved && t.sc[SC_PHASE] != PH_END) advance(P, &t, acts + 4 * i); /* a table over does not move */
        int over = !moved || t.sc[SC_PHASE] == PH_END;
        B->done[i] = done[i] = (uint8_t)over;
        for (int s = 0; s < 4; s++) {
            illegal[4 * i + s] = bad[s];
            B->scores[4 * i + s] = scores[4 * i + s] = over && moved ? t.scores[s] : 0;
            winners[4 * i + s] = over && moved && t.won[s];
        }
        batch_record(B, i, i);
        if (over) {
            memcpy(final_masks + i * 4 * A, t.masks, 4 * A);
            memcpy(records + (n + k_end) * 2 * L, records + i * 2 * L, 2 * L);
            k_end++;
        }
    }
    ended = PyList_New(k_end);
    if (!ended) goto out;
    for (Py_ssize_t i = 0, j = 0; i < n; i++) {
        if (!B->done[i]) continue;
        PyObject *x = PyLong_FromSsize_t(i);
        if (!x) { Py_CLEAR(ended); goto out; }
        PyList_SET_ITEM(ended, j++, x);
    }
    goto out;
refuse:
    ended = Py_None;
    Py_INCREF(ended);
out:
    for (int i = 0; i < 6; i++) PyBuffer_Release(&b[i]);
    return ended;
}

/* Game(rules, seed)'s first state from its shuffled wall w (seat 0 dealing; BatchGames.deal). */
static void deal_tab(const Params *P, Tab *t, const int8_t *w, int hand_size) {
    const int T = P->T, head = 4 * hand_size;
    memset(t->tiles, 0, 9 * T);
    for (int s = 0; s < 4; s++)
        for (int j = 0; j < hand_size; j++) t->tiles[s * T + w[s * hand_size + j]]++;
    t->tiles[w[head]]++; /* the dealer's draw */
    memcpy(t->wall, w, P->W);
    for (int j = 0; j < 4 * P->D; j++) t->disc[j] = -1;
    memset(t->ndisc, 0, 4 * sizeof(int16_t));
    memset(t->melds, -1, 4 * P->MM * 4);
    memset(t->ndecl, 0, 4);
    memset(t->won, 0, 4);
    for (int s = 0; s < 4; s++) t->scores[s] = 0;
    int32_t *sc = t->sc;
    sc[SC_PHASE] = PH_DISCARD; sc[SC_CUR] = 0; sc[SC_LAST_DISCARD] = -1; sc[SC_LAST_DISCARDER] = -1;
    sc[SC_LAST_DRAWN] = w[head]; sc[SC_DEAL_IN] = -1; sc[SC_WIN_TILE] = -1; sc[SC_END] = END_NONE;
    sc[SC_HEAD] = head + 1; sc[SC_TAIL] = P->W; sc[SC_CLAIMED] = 0; sc[SC_KONG_TILE] = -1;
    set_turn_masks(P, t, 0); /* PASS only for seats 1-3, the dealer's turn row; acting = seat 0 */
}

/* deal(params, hand_size, rows, walls, tiles, wall, discards, num_discards, meld_table, melds_declared, won,
 *      scores, masks, scalars, dealer) -> None: BatchGames.deal's arrays (step's, and dealer int8[N]); rows int64[R]
 * distinct tables, walls int8[R, W] (each the shuffled wall of Game(rules, seed)): deals those tables the state
 * Game(rules, seed) starts in, seat 0 dealing. */
static PyObject *py_deal(PyObject *self, PyObject *args) {
    PyObject *op, *orows, *owalls, *o[11];
    int hand_size;
    if (!PyArg_ParseTuple(args, "OiOOOOOOOOOOOOO", &op, &hand_size, &orows, &owalls, &o[0], &o[1], &o[2], &o[3],
                          &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10]))
        return NULL;
    Py_buffer pb;
    if (PyObject_GetBuffer(op, &pb, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (pb.len != 11 * 4) {
        PyBuffer_Release(&pb);
        return PyErr_Format(PyExc_ValueError, "params must be int32[11]");
    }
    const int32_t *pp = pb.buf;
    Params P = {pp[0], pp[1], pp[2], pp[3], pp[4], pp[5], pp[6], pp[7], pp[8], pp[9], pp[10]};
    PyBuffer_Release(&pb);
    if (check_t(P.T) < 0) return NULL;
    if (P.A != 2 * P.T + 7 || hand_size < 1 || 4 * hand_size + 1 > P.W)
        return PyErr_Format(PyExc_ValueError, "deal(): A must be 2T + 7 and hand size %d fit a wall of %d", hand_size,
                            P.W);
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
    const Py_ssize_t R = rb.len / 8;
    const int64_t *rows = rb.buf;
    const int8_t *walls = wb.buf;
    PyObject *result = NULL;
    if (rb.len % 8 || wb.len != R * P.W) {
        PyErr_Format(PyExc_ValueError, "deal(): rows must be int64[R] and walls int8[R, %d]", P.W);
        goto done;
    }
    for (Py_ssize_t k = 0; k < R; k++) {
        if (rows[k] < 0 || rows[k] >= n) {
            PyErr_Format(PyExc_ValueError, "deal(): row %lld outside 0..%zd", (long long)rows[k], n - 1);
            goto done;
        }
        for (int j = 0; j < P.W; j++)
            if (walls[k * P.W + j] < 0 || walls[k * P.W + j] >= P.T) {
                PyErr_Format(PyExc_ValueError, "deal(): wall %zd holds tile %d outside 0..%d", k, walls[k * P.W + j],
                             P.T - 1);
                goto done;
            }
    }
    void *base[10];
    for (int j = 0; j < 10; j++) base[j] = a[j].b.buf;
    for (Py_ssize_t k = 0; k < R; k++) {
        Tab t = tab_at(&P, base, rows[k]);
        deal_tab(&P, &t, walls + k * P.W, hand_size);
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

/* records_batch(batch, rows) -> None: the bound tables' records of tables rows (int64[R]) into their rows 0..N-1
 * (after a deal) */
static PyObject *py_records_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "records_batch() takes 2 arguments (%zd given)", nargs);
    Batch *B = batch_of(args[0]);
    if (!B) return NULL;
    Py_buffer rb;
    if (PyObject_GetBuffer(args[1], &rb, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    const int64_t *rows = rb.buf;
    const Py_ssize_t R = rb.len / 8;
    int good = rb.len % 8 == 0;
    for (Py_ssize_t k = 0; good && k < R; k++) good = rows[k] >= 0 && rows[k] < B->n;
    if (good)
        for (Py_ssize_t k = 0; k < R; k++) batch_record(B, rows[k], rows[k]);
    PyBuffer_Release(&rb);
    if (!good) return PyErr_Format(PyExc_ValueError, "records_batch(): rows must be int64[R] in 0..%zd", B->n - 1);
    Py_RETURN_NONE;
}

static PyObject *py_finish_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 12) return PyErr_Format(PyExc_TypeError, "finish_batch() takes 12 arguments (%zd given)", nargs);
    Batch *B = batch_of(args[0]);
    if (!B) return NULL;
    const double gamma = PyFloat_AsDouble(args[9]);
    if (gamma == -1.0 && PyErr_Occurred()) return NULL;
    const int shaped = PyObject_IsTrue(args[10]);
    const long cap = PyLong_AsLong(args[11]);
    if (shaped < 0 || (cap == -1 && PyErr_Occurred())) return NULL;
    const Py_ssize_t n = B->n;
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < n; i++) k += B->done[i];
    /* the observation's length S from out's bytes: float32[N + K, 4, S] */
    Py_buffer ob;
    if (PyObject_GetBuffer(args[3], &ob, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    const Py_ssize_t row = ob.len / (n + k); /* bytes of one table's 4 observations */
    if (ob.len % (n + k) || row % 16 || row == 0) {
        PyBuffer_Release(&ob);
        return PyErr_Format(PyExc_ValueError, "finish_batch(): out must be float32[%zd, 4, S]", n + k);
    }
    PyObject *objs[7] = {args[1], args[2], args[4], args[5], args[6], args[7], args[8]};
    const Py_ssize_t len[7] = {16 * n, 16 * (n + k), row * n, 16 * n, 32 * n, 16 * n, 4 * n};
    const int writable[7] = {0, 0, 1, 1, 1, 1, 1};
    Py_buffer b[7];
    if (exact_buffers(objs, b, len, writable, 7, "finish_batch") < 0) { PyBuffer_Release(&ob); return NULL; }
    const int32_t *before = b[0].buf, *after = b[1].buf;
    float *rewards = b[3].buf, *potential = b[5].buf;
    int64_t *deficiency = b[4].buf;
    uint8_t *needs = b[6].buf;
    const int32_t *scalars = B->b[9].buf;
    for (Py_ssize_t i = 0, j = 0; i < n; i++) {
        const int over = B->done[i], bits = scalars[i * NSC + SC_ACTING];
        if (over) memcpy((char *)b[2].buf + i * row, (const char *)ob.buf + (n + j++) * row, row);
        for (int s = 0; s < 4; s++) {
            const Py_ssize_t x = 4 * i + s;
            /* mjenv.tables.step_tables' float64 operations in its order, then the float32 cast */
            double r = B->illegal[x] ? -1.0 : (double)B->scores[x];
            if (shaped) {
                double phi_after = over ? 0.0 : -(double)(after[x] < cap ? after[x] : cap);
                double phi_before = -(double)(before[x] < cap ? before[x] : cap);
                r = r + (gamma * phi_after - phi_before);
            }
            rewards[x] = (float)r;
            deficiency[x] = after[x];
            potential[x] = -(float)(after[x] < cap ? after[x] : cap);
            needs[x] = bits >> s & 1;
        }
    }
    for (int i = 0; i < 7; i++) PyBuffer_Release(&b[i]);
    PyBuffer_Release(&ob);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"step", py_step, METH_VARARGS, "Advances N tables by one step (see the comment above py_step)."},
    {"records", py_records, METH_VARARGS, "The observation writer's state records of some tables (see above)."},
    {"bind_one", py_bind_one, METH_VARARGS, "One table's arrays bound for step_one and record_one (see above)."},
    {"step_one", (PyCFunction)(void (*)(void))py_step_one, METH_FASTCALL, "One bound table's step and record."},
    {"record_one", py_record_one, METH_O, "One bound table's state record."},
    {"bind_env", py_bind_env, METH_VARARGS, "A bound table's env step bound once (see the comment above bind_env)."},
    {"step_env", (PyCFunction)(void (*)(void))py_step_env, METH_FASTCALL, "The parallel env's step in one call."},
    {"step_seats", (PyCFunction)(void (*)(void))py_step_seats, METH_FASTCALL, "The AEC env's step in one call."},
    {"bind_batch", py_bind_batch, METH_VARARGS, "The vector env's N tables bound once (see the comment above it)."},
    {"step_batch", (PyCFunction)(void (*)(void))py_step_batch, METH_FASTCALL, "The vector env's move of N tables."},
    {"records_batch", (PyCFunction)(void (*)(void))py_records_batch, METH_FASTCALL, "Some bound tables' records."},
    {"deal", py_deal, METH_VARARGS, "New hands at some tables from their shuffled walls (see above)."},
    {"finish_batch", (PyCFunction)(void (*)(void))py_finish_batch, METH_FASTCALL, "The vector env's rewards, infos."},
    {"claim_rows", py_claim_rows, METH_VARARGS, "A seat's claim-window row per hand (see the module comment)."},
    {"turn_rows", py_turn_rows, METH_VARARGS, "The current player's own-turn row per hand (see the module comment)."},
    {"is_winning", py_is_winning, METH_VARARGS, "Batched win check (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_step", NULL, -1, methods};

PyMODINIT_FUNC PyInit__step(void) { return PyModule_Create(&module); }
