/* Compiled simulation of flat Monte Carlo (SIMCAT Fig. 3, OneSim): ``mjenv.baselines.flatmc.simulate``.
 *
 * The same simulation as the numpy path of ``baselines/flatmc.py`` (``_simulate_numpy``), one
 * (afterstate, simulation) at a time instead of all at once: the same reachable hands in the same
 * order, the same cap of ``cap`` hands per simulation (every pick kept, then the first steals in the
 * order pong of the lower / opposite / upper seat's discard, chow low / mid / high), the same ron
 * hands, and the same win check (``_contains.h``: the hand contains m melds and a pair; seven pairs
 * where the afterstate's form allows and no steal happened; the missing suit's counts left out).
 * The draws come from Python (``sample_draws``), so the random stream is the numpy path's.
 * ``tests/test_flatmc_speed.py`` compares both paths' wins bit for bit.
 *
 * Python API (module ``mjenv.baselines._flatmc``):
 *
 *   simulate(hands, needed, extra, forms, draws, n_sims, rounds, fp, allow_chow, ron, excluded_suit,
 *            cap, out) -> bool
 *       hands int8[A * T] (T = 27 or 34), needed int64[A], extra int64[A], forms int64[A] (0 none,
 *       1 distinct pairs, 2 fours), draws int16[n_sims * (4 * rounds + 1)], out uint8[A * n_sims].
 *       False (out unspecified) when a count leaves 0..4 or a drawn tile id is out of range: the
 *       caller then runs the numpy path, which answers such inputs as it always did.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../mjenv/deficiency/_contains.h"

#define MAXT 34
#define MAX_CAP 256

/* the win check of one reachable hand: melds and a pair; seven pairs of ``form`` (0 none) */
static int won(const int8_t *h, int n, int m, int form, int missing) {
    int8_t x[MAXT];
    if (missing >= 0) {
        memcpy(x, h, (size_t)n);
        memset(x + 9 * missing, 0, 9);
        h = x;
    }
    if (contains_of(h, n, m)) return 1;
    if (form == 0) return 0;
    int pairs = 0;
    for (int t = 0; t < n; t++) pairs += form == 1 ? h[t] >= 2 : h[t] / 2;
    return pairs >= 7;
}

static int in_range(const int8_t *h, int n) {
    for (int t = 0; t < n; t++)
        if (h[t] < 0 || h[t] > 4) return 0;
    return 1;
}

/* one simulation of one afterstate: 1 win, 0 no win, -1 a count out of range */
static int one_sim(const int8_t *hand0, int n, int m0, int extra, int form, const int16_t *d, int rounds, int fp,
                   int allow_chow, int ron, int missing, int cap, int8_t *st, int *st_m, int8_t *kid, int *kid_m) {
    int8_t *h = st;
    memcpy(h, hand0, (size_t)n);
    if (extra > 0) h[d[4 * rounds]]++;
    if (!fp || rounds == 0) {
        for (int i = 0; i < rounds; i++) h[d[4 * i + 3]]++;
        if (!in_range(h, n)) return -1;
        return won(h, n, m0, form, missing);
    }
    if (!in_range(h, n)) return -1;
    int ns = 1;
    st_m[0] = m0;
    for (int i = 0; i < rounds; i++) {
        int tl = d[4 * i], to = d[4 * i + 1], tu = d[4 * i + 2], tc = d[4 * i + 3];
        int disc[3], nd = 0; /* the distinct discards, in seat order */
        disc[nd++] = tl;
        if (to != tl) disc[nd++] = to;
        if (tu != tl && tu != to) disc[nd++] = tu;
        if (ron) { /* a win on a dummy's discard (the hand keeps playing on without it) */
            for (int k = 0; k < nd; k++)
                for (int j = 0; j < ns; j++) {
                    int8_t *x = kid; /* scratch row */
                    memcpy(x, st + j * n, (size_t)n);
                    x[disc[k]]++;
                    if (x[disc[k]] > 4) return -1;
                    if (won(x, n, st_m[j], st_m[j] == m0 ? form : 0, missing)) return 1;
                }
        }
        int nk = 0;
        for (int j = 0; j < ns; j++) { /* every pick child, always kept */
            int8_t *x = kid + nk * n;
            memcpy(x, st + j * n, (size_t)n);
            if (++x[tc] > 4) return -1;
            kid_m[nk++] = st_m[j];
        }
        int picks = nk;
        for (int k = 0; k < nd; k++) { /* one pong child per distinct discard */
            int t = disc[k];
            if (missing >= 0 && t / 9 == missing) continue;
            for (int j = 0; j < ns && nk < cap; j++) {
                const int8_t *p = st + j * n;
                if (st_m[j] < 1 || p[t] < 2) continue;
                int8_t *x = kid + nk * n;
                memcpy(x, p, (size_t)n);
                x[t] -= 2;
                kid_m[nk++] = st_m[j] - 1;
            }
        }
        if (allow_chow && tu < 27 && tu / 9 != missing) {
            int r = tu % 9;
            static const int lo_off[3] = {1, -1, -2}, hi_off[3] = {2, 1, -1};
            int ok_rank[3] = {r <= 6, r >= 1 && r <= 7, r >= 2};
            for (int c = 0; c < 3; c++) {
                if (!ok_rank[c]) continue;
                int a = tu + lo_off[c], b = tu + hi_off[c];
                for (int j = 0; j < ns && nk < cap; j++) {
                    const int8_t *p = st + j * n;
                    if (st_m[j] < 1 || p[a] < 1 || p[b] < 1) continue;
                    int8_t *x = kid + nk * n;
                    memcpy(x, p, (size_t)n);
                    x[a]--;
                    x[b]--;
                    kid_m[nk++] = st_m[j] - 1;
                }
            }
        }
        (void)picks; /* picks <= cap: the steals fill what is left of the cap, in order */
        memcpy(st, kid, (size_t)nk * n);
        memcpy(st_m, kid_m, sizeof(int) * (size_t)nk);
        ns = nk;
    }
    for (int j = 0; j < ns; j++)
        if (won(st + j * n, n, st_m[j], st_m[j] == m0 ? form : 0, missing)) return 1;
    return 0;
}

static int get_buffer(PyObject *obj, Py_buffer *v, Py_ssize_t itemsize, int writable) {
    if (PyObject_GetBuffer(obj, v, writable ? (PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) : PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (v->len % itemsize) {
        PyBuffer_Release(v);
        PyErr_SetString(PyExc_ValueError, "simulate(): a buffer of the wrong item size");
        return -1;
    }
    return 0;
}

static PyObject *flatmc_simulate(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *obj[6];
    int n_sims, rounds, fp, allow_chow, ron, missing, cap;
    if (!PyArg_ParseTuple(args, "OOOOOiiiiiiiO", &obj[0], &obj[1], &obj[2], &obj[3], &obj[4], &n_sims, &rounds, &fp,
                          &allow_chow, &ron, &missing, &cap, &obj[5]))
        return NULL;
    if (suit_k0 == NULL && build_contains_table() < 0) return NULL;
    static const Py_ssize_t sizes[6] = {1, 8, 8, 8, 2, 1};
    Py_buffer b[6];
    for (int i = 0; i < 6; i++)
        if (get_buffer(obj[i], &b[i], sizes[i], i == 5) < 0) {
            while (i--) PyBuffer_Release(&b[i]);
            return NULL;
        }
    Py_ssize_t n_a = b[1].len / 8;
    int n = n_a ? (int)(b[0].len / n_a) : 27;
    int width = 4 * rounds + 1, ok = 1;
    const char *err = NULL;
    if ((n_a && n != 27 && n != 34) || b[0].len != n_a * n || b[2].len != n_a * 8 || b[3].len != n_a * 8 ||
        n_sims < 0 || rounds < 0 || b[4].len != (Py_ssize_t)n_sims * width * 2 || b[5].len != n_a * n_sims ||
        cap < 1 || cap > MAX_CAP || missing < -1 || missing > 2)
        err = "simulate(): hands int8[A*T], needed/extra/forms int64[A], draws int16[n*(4r+1)], out uint8[A*n]";
    else {
        const int16_t *draws = (const int16_t *)b[4].buf;
        for (Py_ssize_t i = 0; i < (Py_ssize_t)n_sims * width; i++)
            if (draws[i] < 0 || draws[i] >= n) ok = 0;
    }
    int8_t *st = NULL, *kid = NULL;
    int *st_m = NULL, *kid_m = NULL;
    if (err == NULL && ok) {
        /* the kids of one round: every state's pick plus steals up to the cap */
        size_t rows = 2 * (size_t)cap + 1;
        st = (int8_t *)PyMem_Malloc(rows * MAXT);
        kid = (int8_t *)PyMem_Malloc(rows * MAXT);
        st_m = (int *)PyMem_Malloc(rows * sizeof(int));
        kid_m = (int *)PyMem_Malloc(rows * sizeof(int));
        if (!st || !kid || !st_m || !kid_m) err = "";
    }
    if (err == NULL && ok) {
        const int8_t *hands = (const int8_t *)b[0].buf;
        const int64_t *needed = (const int64_t *)b[1].buf, *extra = (const int64_t *)b[2].buf;
        const int64_t *forms = (const int64_t *)b[3].buf;
        const int16_t *draws = (const int16_t *)b[4].buf;
        uint8_t *out = (uint8_t *)b[5].buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t a = 0; a < n_a && ok; a++) {
            if (!in_range(hands + a * n, n)) ok = 0;
            for (int s = 0; s < n_sims && ok; s++) {
                int w = one_sim(hands + a * n, n, (int)needed[a], (int)extra[a], (int)forms[a], draws + (size_t)s * width,
                                rounds, fp, allow_chow, ron, missing, cap, st, st_m, kid, kid_m);
                if (w < 0) ok = 0;
                else out[a * n_sims + s] = (uint8_t)w;
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(st);
    PyMem_Free(kid);
    PyMem_Free(st_m);
    PyMem_Free(kid_m);
    for (int i = 0; i < 6; i++) PyBuffer_Release(&b[i]);
    if (err != NULL) {
        if (*err) PyErr_SetString(PyExc_ValueError, err);
        else PyErr_NoMemory();
        return NULL;
    }
    return PyBool_FromLong(ok);
}

static PyMethodDef methods[] = {
    {"simulate", flatmc_simulate, METH_VARARGS,
     "simulate(hands, needed, extra, forms, draws, n_sims, rounds, fp, allow_chow, ron, excluded_suit, cap, out) "
     "-> False when the inputs leave 0..4 (see _flatmc.c)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_flatmc", "Compiled flat MC simulation (see _flatmc.c).",
                                    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__flatmc(void) { return PyModule_Create(&module); }
