/* Compiled exact deficiency of one hand (or a batch), the default engine of ``deficiency()``.
 *
 * Not from the papers: the ``dp`` backend's table method (``mjenv/deficiency/dp.py``,
 * ``_dp_tables.py``) in C, for the single call. A complete pattern W splits into one part per suit
 * plus the honours (no chow crosses a suit), so the deficiency is the min-plus combination at
 * (melds m, pair 1) of per-part minimum costs for every (melds k, pair p):
 *
 *   - a suit is cut between ranks 5 and 6 into a left part (ranks 1-5) and a right part (ranks 6-9);
 *     ``_dp_tables.half_tables()`` gives each part's min cost for every per-rank option
 *     (h, a = h + KB) and every boundary state b (the chows crossing the cut), and the suit's (k, p)
 *     vector is the min over (k1, p1, b) of left + right;
 *   - the honours form pongs and pairs only, each honour independently, so their (k, p) vector is
 *     folded directly here (no table).
 *
 * The vectors' layout, the option code and the final join (``final_value``) are shared with
 * ``_kernel.c`` (the observation kernel) through ``_minplus.h``; ``suit_vector`` and ``minplus`` here
 * are the plain loops the kernel unrolls and vectorises.
 *
 * It gives exactly the ``dp`` backend's values (same tables; ``tests/test_fast.py`` compares both with
 * the brute-force reference).
 *
 * Validation is done here, on the values as given (no cast that could wrap): ``one()`` answers None
 * for anything that is not the plain call (1-D integer ndarrays of 27 or 34 counts in 0..4,
 * hand + kb <= 4, plain int ``exposed_melds`` and ``melds``, a hand of 3m+1 or 3m+2 tiles), and the
 * Python caller then goes through the full validation, which raises the ValueError or handles the
 * other input forms.
 *
 * Python API (module ``mjenv.deficiency._fast``; wrapped in ``mjenv/deficiency/__init__.py``):
 *
 *   setup(left, right, ndarray_type) -> None
 *       left uint8[15**5 * 108], right uint8[15**4 * 108] (C-contiguous; kept referenced), and the
 *       numpy ndarray type (``one`` accepts only exact ndarrays).
 *   one(hand, kb, exposed_melds, melds[, form]) -> int | None
 *   batch(hands, kbs, needed, out[, form, melds]) -> None
 *       validated buffers: hands, kbs int8[B * T] (T = 27 or 34, from the sizes), needed int64[B]
 *       (0..5), out int32[B].
 *       ``form`` (0 by default: melds and a pair only) is a closed-hand form's code (``_closed.h``;
 *       1 seven distinct pairs, 2 seven pairs with fours, 3 seven distinct pairs or thirteen
 *       orphans): a hand with no exposed meld (needed == melds) then takes the least of melds-and-pair
 *       and that form. ``one`` answers None for a form outside 0..3, ``batch`` raises ValueError.
 *   contains(hands, needed, out) -> None
 *       whether each hand (any size, counts 0..4) CONTAINS m melds and a pair, i.e. deficiency 0 with
 *       an empty KB (flat MC's win check, ``mjenv.deficiency.contains``); hands int8[B * T], needed
 *       int64[B], out uint8[B]. Needs no setup(): its own per-suit table (below) is built on first use.
 *       ValueError on a count outside 0..4.

 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_minplus.h"  /* INF, INCOMPLETABLE, KM, VEC, NBOUND, BIG, code_of, final_value (shared with _kernel.c) */
#include "_contains.h"  /* build_contains_table, contains_of (shared with baselines/_flatmc.c) */
#include "_closed.h"    /* closed_deficiency: seven pairs, thirteen orphans (shared with _kernel.c) */

#define ROW (VEC * NBOUND)
#define LEFT_ROWS 759375   /* 15 ** 5 */
#define RIGHT_ROWS 50625   /* 15 ** 4 */

static Py_buffer left_buf, right_buf;
static int have_tables = 0;
static PyObject *ndarray_type = NULL;

static const int P15[5] = {1, 15, 225, 3375, 50625};

/* one suit's (k, p) vector for k <= kmax from its 9 counts and availabilities */
static void suit_vector(const int *h, const int *a, int *out, int kmax) {
    int li = 0, ri = 0;
    for (int r = 0; r < 5; r++) li += code_of(h[r], a[r]) * P15[4 - r];
    for (int r = 5; r < 9; r++) ri += code_of(h[r], a[r]) * P15[r - 5];
    const uint8_t *l = (const uint8_t *)left_buf.buf + (size_t)li * ROW;
    const uint8_t *rr = (const uint8_t *)right_buf.buf + (size_t)ri * ROW;
    for (int k = 0; k <= kmax; k++)
        for (int p = 0; p < 2; p++) {
            int best = BIG;
            for (int k1 = 0; k1 <= k; k1++)
                for (int p1 = 0; p1 <= p; p1++) {
                    const uint8_t *x = l + (2 * k1 + p1) * NBOUND;
                    const uint8_t *y = rr + (2 * (k - k1) + (p - p1)) * NBOUND;
                    for (int b = 0; b < NBOUND; b++) {
                        int v = x[b] + y[b];
                        if (v < best) best = v;
                    }
                }
            out[2 * k + p] = best;
        }
}

/* the honours' (k, p) vector: each honour adds nothing, a pong (a >= 3) or a pair (a >= 2) */
static void honour_vector(const int *h, const int *a, int *out, int kmax) {
    int v[VEC];
    for (int i = 0; i < VEC; i++) v[i] = BIG;
    v[0] = 0;
    for (int j = 0; j < 7; j++) {
        int pong = a[j] >= 3 ? (h[j] < 3 ? 3 - h[j] : 0) : BIG;
        int pair = a[j] >= 2 ? (h[j] < 2 ? 2 - h[j] : 0) : BIG;
        if (pong == BIG && pair == BIG) continue;
        for (int k = kmax; k >= 0; k--)
            for (int p = 1; p >= 0; p--) {
                int best = v[2 * k + p];
                if (k > 0 && v[2 * (k - 1) + p] + pong < best) best = v[2 * (k - 1) + p] + pong;
                if (p > 0 && v[2 * k] + pair < best) best = v[2 * k] + pair;
                v[2 * k + p] = best;
            }
    }
    memcpy(out, v, sizeof(v));
}

/* out[k][p] = min over splits of a[k1][p1] + b[k - k1][p - p1], k <= kmax */
static void minplus(const int *a, const int *b, int *out, int kmax) {
    for (int k = 0; k <= kmax; k++)
        for (int p = 0; p < 2; p++) {
            int best = BIG;
            for (int k1 = 0; k1 <= k; k1++)
                for (int p1 = 0; p1 <= p; p1++) {
                    int v = a[2 * k1 + p1] + b[2 * (k - k1) + (p - p1)];
                    if (v < best) best = v;
                }
            out[2 * k + p] = best;
        }
}

/* deficiency of one hand: h, a int[n] (n = 27 or 34), m melds needed (0..5) */
static int deficiency_of(const int *h, const int *a, int n, int m) {
    int s0[VEC], s1[VEC], s2[VEC], x[VEC], y[VEC];
    suit_vector(h, a, s0, m);
    suit_vector(h + 9, a + 9, s1, m);
    suit_vector(h + 18, a + 18, s2, m);
    minplus(s0, s1, x, m);
    if (n == 34) {
        int hv[VEC];
        honour_vector(h + 27, a + 27, hv, m);
        minplus(s2, hv, y, m);
    } else {
        memcpy(y, s2, sizeof(y));
    }
    return final_value(x, y, m);
}

/* Read a 1-D integer ndarray of 27 or 34 entries into out, every entry checked to be 0..4 in its
 * own type. Returns the length, 0 when the input is not of that form or a value is out of range. */
static int read_counts(PyObject *obj, int *out) {
    if (ndarray_type == NULL || (PyObject *)Py_TYPE(obj) != ndarray_type) return 0;
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        return 0;
    }
    int n = 0;
    const char *f = v.format ? v.format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;  /* native order (x86-64 and aarch64 are little-endian) */
    char c = f[0];
    int sgn = (c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q' || c == 'n');
    int uns = (c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q' || c == 'N');
    if (v.ndim == 1 && (sgn || uns) && f[1] == '\0' && (v.shape[0] == 27 || v.shape[0] == 34)) {
        Py_ssize_t len = v.shape[0], st = v.strides[0];
        const char *p = (const char *)v.buf;
        n = (int)len;
        for (Py_ssize_t i = 0; i < len && n; i++, p += st) {
            int64_t x;
            switch (v.itemsize) {
            case 1: x = sgn ? *(const int8_t *)p : *(const uint8_t *)p; break;
            case 2: x = sgn ? *(const int16_t *)p : *(const uint16_t *)p; break;
            case 4: x = sgn ? *(const int32_t *)p : (int64_t) * (const uint32_t *)p; break;
            case 8:
                if (uns) {
                    uint64_t u = *(const uint64_t *)p;
                    x = u > 4 ? 5 : (int64_t)u;
                } else {
                    x = *(const int64_t *)p;
                }
                break;
            default: x = -1;
            }
            if (x < 0 || x > 4) n = 0;
            else out[i] = (int)x;
        }
    }
    PyBuffer_Release(&v);
    return n;
}

static PyObject *fast_one(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 && nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "one(hand, kb, exposed_melds, melds[, form]) takes 4 or 5 arguments");
        return NULL;
    }
    if (!have_tables || !PyLong_CheckExact(args[2]) || !PyLong_CheckExact(args[3])) Py_RETURN_NONE;
    int overflow = 0;
    long exposed = PyLong_AsLongAndOverflow(args[2], &overflow);
    if (overflow) Py_RETURN_NONE;
    long melds = PyLong_AsLongAndOverflow(args[3], &overflow);
    if (overflow || melds < 1 || melds > 5 || exposed < 0 || exposed > melds) Py_RETURN_NONE;
    long form = 0;
    if (nargs == 5) {
        if (!PyLong_CheckExact(args[4])) Py_RETURN_NONE;
        form = PyLong_AsLongAndOverflow(args[4], &overflow);
        if (overflow || form < 0 || form > 3) Py_RETURN_NONE;
    }
    int h[34], a[34];
    int n = read_counts(args[0], h);
    if (!n) Py_RETURN_NONE;
    if (args[1] == Py_None) {
        for (int t = 0; t < n; t++) a[t] = 4;
    } else {
        int k[34];
        if (read_counts(args[1], k) != n) Py_RETURN_NONE;
        for (int t = 0; t < n; t++) {
            a[t] = h[t] + k[t];
            if (a[t] > 4) Py_RETURN_NONE;
        }
    }
    int m = (int)(melds - exposed), size = 0;
    for (int t = 0; t < n; t++) size += h[t];
    if (size != 3 * m + 1 && size != 3 * m + 2) Py_RETURN_NONE;
    int d = deficiency_of(h, a, n, m);
    if (form && exposed == 0) {
        int c = closed_deficiency((int)form, h, a, n);
        if (c < d) d = c;
    }
    return PyLong_FromLong(d);
}

static int get_buffer(PyObject *obj, Py_buffer *v, Py_ssize_t itemsize, const char *name, int writable) {
    if (PyObject_GetBuffer(obj, v, writable ? (PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) : PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (v->len % itemsize) {
        PyBuffer_Release(v);
        PyErr_Format(PyExc_ValueError, "%s: buffer size %zd is not a multiple of %zd", name, v->len, itemsize);
        return -1;
    }
    return 0;
}

static PyObject *fast_batch(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *oh, *ok, *om, *oo;
    int form = 0, melds = 4;
    if (!PyArg_ParseTuple(args, "OOOO|ii", &oh, &ok, &om, &oo, &form, &melds)) return NULL;
    if (form < 0 || form > 3) {
        PyErr_Format(PyExc_ValueError, "batch(): closed-hand form %d outside 0..3", form);
        return NULL;
    }
    if (!have_tables) {
        PyErr_SetString(PyExc_RuntimeError, "_fast.setup() has not been called");
        return NULL;
    }
    Py_buffer bh, bk, bm, bo;
    if (get_buffer(oh, &bh, 1, "hands", 0) < 0) return NULL;
    if (get_buffer(ok, &bk, 1, "kbs", 0) < 0) { PyBuffer_Release(&bh); return NULL; }
    if (get_buffer(om, &bm, 8, "needed", 0) < 0) { PyBuffer_Release(&bh); PyBuffer_Release(&bk); return NULL; }
    if (get_buffer(oo, &bo, 4, "out", 1) < 0) {
        PyBuffer_Release(&bh); PyBuffer_Release(&bk); PyBuffer_Release(&bm);
        return NULL;
    }
    Py_ssize_t rows = bm.len / 8;
    int n = rows ? (int)(bh.len / rows) : 27;
    PyObject *ret = Py_None;
    if (bk.len != bh.len || bo.len != rows * 4 || (rows && (n != 27 && n != 34)) || bh.len != rows * n) {
        PyErr_SetString(PyExc_ValueError, "batch(): hands, kbs int8[B*T] (T = 27 or 34), needed int64[B], out int32[B]");
        ret = NULL;
    } else {
        const int8_t *hs = (const int8_t *)bh.buf, *ks = (const int8_t *)bk.buf;
        const int64_t *ms = (const int64_t *)bm.buf;
        int32_t *out = (int32_t *)bo.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < rows; i++) {
            int h[34], a[34];
            for (int t = 0; t < n; t++) {
                h[t] = hs[i * n + t];
                a[t] = h[t] + ks[i * n + t];
            }
            int m = (int)ms[i];
            int d = (m < 0 || m > 5) ? INCOMPLETABLE : deficiency_of(h, a, n, m);
            if (form && m == melds) {
                int c = closed_deficiency(form, h, a, n);
                if (c < d) d = c;
            }
            out[i] = d;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&bh); PyBuffer_Release(&bk); PyBuffer_Release(&bm); PyBuffer_Release(&bo);
    if (ret == NULL) return NULL;
    Py_RETURN_NONE;
}

static PyObject *fast_contains(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *oh, *om, *oo;
    if (!PyArg_ParseTuple(args, "OOO", &oh, &om, &oo)) return NULL;
    if (suit_k0 == NULL && build_contains_table() < 0) return NULL;
    Py_buffer bh, bm, bo;
    if (get_buffer(oh, &bh, 1, "hands", 0) < 0) return NULL;
    if (get_buffer(om, &bm, 8, "needed", 0) < 0) { PyBuffer_Release(&bh); return NULL; }
    if (get_buffer(oo, &bo, 1, "out", 1) < 0) { PyBuffer_Release(&bh); PyBuffer_Release(&bm); return NULL; }
    Py_ssize_t rows = bm.len / 8;
    int n = rows ? (int)(bh.len / rows) : 27;
    const char *err = NULL;
    if (bo.len != rows || (rows && (n != 27 && n != 34)) || bh.len != rows * n) {
        err = "contains(): hands int8[B*T] (T = 27 or 34), needed int64[B], out uint8[B]";
    } else {
        const int8_t *hs = (const int8_t *)bh.buf;
        const int64_t *ms = (const int64_t *)bm.buf;
        uint8_t *out = (uint8_t *)bo.buf;
        for (Py_ssize_t i = 0; i < (Py_ssize_t)bh.len; i++)
            if (hs[i] < 0 || hs[i] > 4) err = "contains(): a tile count outside 0..4";
        if (err == NULL) {
            Py_BEGIN_ALLOW_THREADS
            for (Py_ssize_t i = 0; i < rows; i++) out[i] = ms[i] >= 0 && contains_of(hs + i * n, n, (int)ms[i]);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&bh); PyBuffer_Release(&bm); PyBuffer_Release(&bo);
    if (err != NULL) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *fast_setup(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ol, *orr, *otype;
    if (!PyArg_ParseTuple(args, "OOO", &ol, &orr, &otype)) return NULL;
    Py_buffer l, r;
    if (PyObject_GetBuffer(ol, &l, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(orr, &r, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&l); return NULL; }
    if (l.len != (Py_ssize_t)LEFT_ROWS * ROW || r.len != (Py_ssize_t)RIGHT_ROWS * ROW) {
        PyBuffer_Release(&l); PyBuffer_Release(&r);
        PyErr_SetString(PyExc_ValueError, "setup(): left must be uint8[15**5 * 108], right uint8[15**4 * 108]");
        return NULL;
    }
    if (have_tables) {
        PyBuffer_Release(&left_buf);
        PyBuffer_Release(&right_buf);
    }
    left_buf = l;   /* the buffers keep the tables alive */
    right_buf = r;
    have_tables = 1;
    Py_XDECREF(ndarray_type);
    Py_INCREF(otype);
    ndarray_type = otype;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", fast_setup, METH_VARARGS, "setup(left, right, ndarray_type): the dp half tables."},
    {"one", (PyCFunction)(void (*)(void))fast_one, METH_FASTCALL,
     "one(hand, kb, exposed_melds, melds[, form]) -> int, or None when the input is not the plain valid call."},
    {"batch", fast_batch, METH_VARARGS,
     "batch(hands, kbs, needed, out[, form, melds]): validated int8 rows, int64 m, int32 out."},
    {"contains", fast_contains, METH_VARARGS,
     "contains(hands, needed, out): int8 rows (any size) contain m melds and a pair; uint8 out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast", "Compiled exact deficiency (see _fast.c).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void) { return PyModule_Create(&module); }
