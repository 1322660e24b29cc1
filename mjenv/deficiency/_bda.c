/* Compiled local type search of the BDA paper (``method="bda"``, ``variant="corrected"``).
 *
 * BDA paper (Yan, Li & Li; ``mjenv/deficiency/bda.py``), Sec. 4.1 / Sec. 6 and Definitions 11-12:
 * the types (m, n, p, e, re, rm, em) of every local quasi-decomposition (qDCMP) of one KB-block,
 * found by the 6-ary local search (at each rank t: chows, pongs, pairs, pchows (t t+1) and (t t+2),
 * and the rest to the remainder). This is the step that dominates BDA's time (its Python form,
 * ``bda._local_search`` and its lean variants, takes 60-70% of a fresh three-suit hand). It is a C
 * port of ``bda._local_search(counts, k, honour, max_elements, paper=False, track=False)`` followed
 * by ``bda._prune`` and ``bda._as_bitsets``, with the corrected variant's rules:
 *
 *   - Definition 11 (3): a pchow must be completable under the KB, and the pmelds together: each
 *     pair / pchow gets its own KB copy (every such assignment is a leftover KB);
 *   - re, rm, em (Sec. 4.3) are judged on the KB left after those completions
 *     (``bda._remainder_attrs``);
 *   - at most one incompletable pair (e <= 1), at most ``max_elements`` melds and pmelds.
 *
 * Types are returned as 8 bitsets, one per flag class re * 4 + rm * 2 + em, over the code
 * (m << 12) | (n << 8) | (p << 4) | e (``bda._code``), after dropping dominated types (same
 * (m, n, p, e), re and rm no larger, em no smaller: ``bda._prune``). ``tests/test_bda.py`` compares
 * it with the Python search on random blocks.
 *
 * Python API (module ``mjenv.deficiency._bda``):
 *
 *   window_types(counts, kb, honour, max_elements) -> tuple of 8 bytes
 *       counts, kb: tuples of ints (the block's window, ranks lo-2..hi+2 of a suit, or one honour),
 *       honour: bool, max_elements: 1..6. Each bytes object is a little-endian bitset
 *       (``int.from_bytes(b, "little")``).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAXW 16                 /* window ranks: a suit's 9 + 4 padding, with room */
#define MAXNEEDS 8              /* pmelds: at most max_elements (<= 6) */
#define NCODES ((6 << 12) | (6 << 8) | (6 << 4) | 1) + 1
#define NBYTES ((NCODES + 7) / 8)

typedef struct {
    int size, honour, max_elements;
    int c[MAXW + 2], k[MAXW], rem[MAXW];
    int needs[MAXNEEDS][2], nneeds[MAXNEEDS], depth; /* each pmeld's completing KB ranks */
    uint8_t *classes;   /* classes[code]: bit (re * 4 + rm * 2 + em) set when that type was found */
    int *touched;       /* codes with classes[code] != 0 */
    int ntouched;
    int left[MAXW];     /* KB after the current assignment of completions */
} Search;

/* can a meld be made from rank y and two KB tiles, after one copy of x left the KB (x = -1: none) */
static int meldable(const Search *s, const int *k, int y, int x) {
    if (k[y] - (x == y) >= 2) return 1;
    if (s->honour) return 0;
    int n = s->size;
    int m2 = y >= 2 ? k[y - 2] - (x == y - 2) : 0;
    int m1 = y >= 1 ? k[y - 1] - (x == y - 1) : 0;
    int p1 = y + 1 < n ? k[y + 1] - (x == y + 1) : 0;
    int p2 = y + 2 < n ? k[y + 2] - (x == y + 2) : 0;
    return (m2 > 0 && m1 > 0) || (m1 > 0 && p1 > 0) || (p1 > 0 && p2 > 0);
}

/* (re, rm, em) of the remainder under KB k, as the class re * 4 + rm * 2 + em (bda._remainder_attrs) */
static int remainder_class(const Search *s, const int *k) {
    int eyes[MAXW], melds[MAXW], ne = 0, nm = 0;
    for (int y = 0; y < s->size; y++) {
        if (!s->rem[y]) continue;
        if (k[y]) eyes[ne++] = y;
        if (meldable(s, k, y, -1)) melds[nm++] = y;
    }
    if (!ne || !nm) return (ne ? 4 : 0) | (nm ? 2 : 0);
    for (int i = 0; i < ne; i++) {
        int x = eyes[i];
        for (int j = 0; j < nm; j++) {
            int y = melds[j];
            if (y == x) {
                if (s->rem[x] >= 2 && meldable(s, k, y, x)) return 6;
            } else if (y - x > 2 || x - y > 2 || meldable(s, k, y, x)) {
                return 6;
            }
        }
    }
    return 7;
}

static void add_type(Search *s, int code, int cls) {
    if (!s->classes[code]) s->touched[s->ntouched++] = code;
    s->classes[code] |= (uint8_t)(1 << cls);
}

/* give each pmeld j.. its own KB copy; at the end, record the type on the KB left */
static void assign(Search *s, int j, int code) {
    if (j == s->depth) {
        add_type(s, code, remainder_class(s, s->left));
        return;
    }
    for (int i = 0; i < s->nneeds[j]; i++) {
        int z = s->needs[j][i];
        if (s->left[z] > 0) {
            s->left[z]--;
            assign(s, j + 1, code);
            s->left[z]++;
            if (s->classes[code] & (1 << 6)) return; /* (1, 1, 0) dominates every other class */
        }
    }
}

static void leaf(Search *s, int m, int n, int p, int e) {
    int code = (m << 12) | (n << 8) | (p << 4) | e;
    if (s->classes[code] & (1 << 6)) return; /* already (1, 1, 0): nothing can add to this code */
    memcpy(s->left, s->k, sizeof(int) * s->size);
    assign(s, 0, code);
}

static void push(Search *s, int count, const int *ranks, int nranks) {
    for (int i = 0; i < count; i++) {
        s->nneeds[s->depth] = nranks;
        s->needs[s->depth][0] = ranks[0];
        s->needs[s->depth][1] = nranks > 1 ? ranks[1] : -1;
        s->depth++;
    }
}

static void walk(Search *s, int t, int m, int n, int p, int e) {
    int *c = s->c;
    const int *k = s->k;
    int size = s->size;
    while (t < size && c[t] == 0) t++;
    if (t == size) {
        leaf(s, m, n, p, e);
        return;
    }
    int avail = c[t];
    int chow_ok = !s->honour && t + 2 < size;
    int max_chow = 0;
    if (chow_ok) {
        max_chow = avail;
        if (c[t + 1] < max_chow) max_chow = c[t + 1];
        if (c[t + 2] < max_chow) max_chow = c[t + 2];
    }
    int adj_needs[2], nadj = 0;
    if (!s->honour) {
        if (t - 1 >= 0 && k[t - 1] > 0) adj_needs[nadj++] = t - 1;
        if (t + 2 < size && k[t + 2] > 0) adj_needs[nadj++] = t + 2;
    }
    int adj_ok = t + 1 < size && c[t + 1] > 0 && nadj > 0;
    int gap_ok = !s->honour && t + 2 < size && c[t + 2] > 0 && k[t + 1] > 0;
    int pair_ok = k[t] > 0;
    int pair_rank[1] = {t}, gap_rank[1] = {t + 1};
    for (int ch = 0; ch <= max_chow; ch++) {
        for (int pong = 0; pong <= (avail - ch >= 3 ? 1 : 0); pong++) {
            for (int pairs = 0; pairs <= (avail - ch - 3 * pong) / 2; pairs++) {
                int e2 = e + (pair_ok ? 0 : pairs);
                if (e2 > 1) break;
                int used = ch + 3 * pong + 2 * pairs;
                int adj_max = 0;
                if (adj_ok) {
                    adj_max = avail - used;
                    if (c[t + 1] - ch < adj_max) adj_max = c[t + 1] - ch;
                }
                for (int adj = 0; adj <= adj_max; adj++) {
                    int gap_max = 0;
                    if (gap_ok) {
                        gap_max = avail - used - adj;
                        if (c[t + 2] - ch < gap_max) gap_max = c[t + 2] - ch;
                    }
                    for (int gap = 0; gap <= gap_max; gap++) {
                        if (m + n + ch + pong + pairs + adj + gap > s->max_elements) break;
                        c[t] = 0;
                        s->rem[t] = avail - used - adj - gap; /* the "pass" action, for the rest */
                        c[t + 1] -= ch + adj;
                        c[t + 2] -= ch + gap;
                        int mark = s->depth;
                        if (pair_ok) push(s, pairs, pair_rank, 1);
                        push(s, adj, adj_needs, nadj);
                        push(s, gap, gap_rank, 1);
                        walk(s, t + 1, m + ch + pong, n + pairs + adj + gap, p + pairs, e2);
                        s->depth = mark;
                        c[t + 1] += ch + adj;
                        c[t + 2] += ch + gap;
                        s->rem[t] = 0;
                        c[t] = avail;
                    }
                }
            }
        }
    }
}

/* keep[mask]: the classes of mask that no other class of mask dominates (bda._prune) */
static uint8_t keep_table[256];

static void build_keep_table(void) {
    for (int mask = 0; mask < 256; mask++) {
        uint8_t out = 0;
        for (int a = 0; a < 8; a++) {
            if (!(mask >> a & 1)) continue;
            int dominated = 0;
            for (int b = 0; b < 8 && !dominated; b++) {
                if (b == a || !(mask >> b & 1)) continue;
                if ((b >> 2) >= (a >> 2) && ((b >> 1) & 1) >= ((a >> 1) & 1) && (b & 1) <= (a & 1)) dominated = 1;
            }
            if (!dominated) out |= (uint8_t)(1 << a);
        }
        keep_table[mask] = out;
    }
}

static int read_ints(PyObject *seq, int *out, int *len, const char *name) {
    PyObject *fast = PySequence_Fast(seq, name);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n < 1 || n > MAXW) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s must hold 1..%d ints", name, MAXW);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        if (v < 0 || v > 4) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_ValueError, "%s entries must be 0..4", name);
            return -1;
        }
        out[i] = (int)v;
    }
    *len = (int)n;
    Py_DECREF(fast);
    return 0;
}

static PyObject *window_types(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *oc, *ok;
    int honour, max_elements;
    if (!PyArg_ParseTuple(args, "OOpi", &oc, &ok, &honour, &max_elements)) return NULL;
    if (max_elements < 0 || max_elements > 6) {
        PyErr_SetString(PyExc_ValueError, "max_elements must be 0..6");
        return NULL;
    }
    Search s;
    memset(&s, 0, sizeof(s));
    int nc, nk;
    if (read_ints(oc, s.c, &nc, "counts") < 0 || read_ints(ok, s.k, &nk, "kb") < 0) return NULL;
    if (nc != nk) {
        PyErr_SetString(PyExc_ValueError, "counts and kb must have the same length");
        return NULL;
    }
    s.size = nc;
    s.honour = honour;
    s.max_elements = max_elements;
    s.classes = PyMem_Calloc(NCODES, 1);
    s.touched = PyMem_Malloc(sizeof(int) * NCODES);
    if (!s.classes || !s.touched) {
        PyMem_Free(s.classes);
        PyMem_Free(s.touched);
        return PyErr_NoMemory();
    }
    walk(&s, 0, 0, 0, 0, 0);
    uint8_t bits[8][NBYTES];
    int top[8] = {0};
    memset(bits, 0, sizeof(bits));
    for (int i = 0; i < s.ntouched; i++) {
        int code = s.touched[i];
        uint8_t kept = keep_table[s.classes[code]];
        for (int cls = 0; cls < 8; cls++)
            if (kept >> cls & 1) {
                bits[cls][code >> 3] |= (uint8_t)(1 << (code & 7));
                if ((code >> 3) + 1 > top[cls]) top[cls] = (code >> 3) + 1;
            }
    }
    PyMem_Free(s.classes);
    PyMem_Free(s.touched);
    PyObject *out = PyTuple_New(8);
    if (!out) return NULL;
    for (int cls = 0; cls < 8; cls++) {
        PyObject *b = PyBytes_FromStringAndSize((const char *)bits[cls], top[cls]);
        if (!b) { Py_DECREF(out); return NULL; }
        PyTuple_SET_ITEM(out, cls, b);
    }
    return out;
}

static PyMethodDef methods[] = {
    {"window_types", window_types, METH_VARARGS,
     "window_types(counts, kb, honour, max_elements) -> 8 little-endian bitsets (bytes) of pruned local types."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_bda", "Compiled BDA local type search (see _bda.c).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__bda(void) {
    build_keep_table();
    return PyModule_Create(&module);
}
