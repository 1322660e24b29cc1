/* First building block of the compiled batch step (issue 16): the game's win check over a batch.
 *
 * A C port of ``mjenv/game/_win.py`` (``is_winning_bytes``), which it must equal exactly
 * (``tests/test_step_kernel.py`` compares the two on random, near-complete and seven-pairs hands).
 * A concealed hand of 3k + 2 tiles is complete when every suit splits on its own into melds (plus
 * the one pair, in the suit whose count is 2 mod 3) and the honours are pongs and at most one pair;
 * a suit splits by the leftmost-tile recursion (the lowest tile present is in a pong or starts a
 * chow). Seven pairs (every count 0 or 2, 14 tiles) is accepted when asked.
 *
 * The batched step itself (state arrays [N, ...], legal masks, rewards, autoreset) is not written
 * yet; this module is where it goes.
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
    const int CHOW_LOW = 2 * T, PONG = 2 * T + 3, EKONG = 2 * T + 4, WIN = 2 * T + 5, PASS = 2 * T + 6;
    for (Py_ssize_t i = 0; i < m; i++) {
        const int8_t *h = hands + i * T;
        int8_t *row = out + i * A;
        int t = (int)tiles[i];
        memset(row, 0, A);
        if (t < 0 || t >= T) continue;
        int any = 0;
        if (!rob[i]) {
            if (h[t] >= 2) {
                row[PONG] = 1;
                any = 1;
                if (h[t] >= 3 && can_kong[i]) row[EKONG] = 1;
            }
            if (chow_ok[i] && t < 27) {
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
    }
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
    for (Py_ssize_t i = 0; i < m; i++) {
        const int8_t *h = hands + i * T, *pg = pongs + i * T;
        int8_t *row = out + i * A;
        memset(row, 0, A);
        for (int t = 0; t < T; t++) row[t] = h[t] > 0;
        if (claimed[i]) continue;
        if (can_kong[i])
            for (int t = 0; t < T; t++) row[T + t] = h[t] == 4 || (pg[t] && h[t] > 0);
        row[2 * T + 5] = (int8_t)winning(h, T, seven);
    }
    release_args(a, 5);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"claim_rows", py_claim_rows, METH_VARARGS, "A seat's claim-window row per hand (see the module comment)."},
    {"turn_rows", py_turn_rows, METH_VARARGS, "The current player's own-turn row per hand (see the module comment)."},
    {"is_winning", py_is_winning, METH_VARARGS, "Batched win check (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_step", NULL, -1, methods};

PyMODINIT_FUNC PyInit__step(void) { return PyModule_Create(&module); }
