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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

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

static PyMethodDef methods[] = {
    {"is_winning", py_is_winning, METH_VARARGS, "Batched win check (see the module comment)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_step", NULL, -1, methods};

PyMODINIT_FUNC PyInit__step(void) { return PyModule_Create(&module); }
