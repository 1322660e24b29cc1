/* mjenv.rulesets.riichi._score: the C Riichi scorer (_score.h) for Python.
 *
 * A thin layer: arguments are bytes of 34 counts (mjenv's type order), melds are bytes of 4 per meld
 * (kind as scoring.MELD_KINDS' index, lowest type, red fives, called type), and the results are what
 * scoring.score_hand needs to build its ScoreResult. The 136-id conversion stays in Python
 * (scoring.py), which also checks the inputs.
 *
 *   score(tiles, red, win34, melds, flags, seat_wind, round_wind, dora, ura)
 *       tiles: bytes of the concealed tiles' 34-types (winning tile included, any order)
 *       -> None (no win or no yaku) or (han, fu, yaku, yakuman, ron, tsumo_dealer, tsumo_nondealer,
 *          total, limit): yaku a list of (name, han) in score_hand's order, limit 0 (none) ..
 *          6 (kazoe yakuman). flags: bit 0 tsumo, 1 riichi, 2 double riichi, 3 ippatsu, 4 rinshan,
 *          5 chankan, 6 haitei, 7 houtei, 8 tenhou, 9 chiihou. dora, ura: bytes of indicator types.
 *          Raises ValueError on malformed counts or melds.
 *   waits(counts) -> sorted list of wait types;  is_winning(counts) -> bool
 *   tenpai_has_yaku(counts, melds, seat_wind, round_wind) -> bool
 *   discards_tenpai_yaku(counts, melds, seat_wind, round_wind) -> list of 34 bools
 *   yaku_names() -> the names by yaku id;  group_options(counts, honour, with_pair) -> int (for tests:
 *   how many set lists one group has, to check the header's bounds)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_score.h"

static PyObject *yaku_entry[RS_NUM_YAKU][2]; /* (name, han) per id, [open, closed] */
static PyObject *name_dora, *name_ura, *name_aka;

static int get_counts(PyObject *o, uint8_t out[34]) {
    char *buf;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(o, &buf, &n) < 0) return -1;
    if (n != 34) {
        PyErr_Format(PyExc_ValueError, "counts are 34 bytes (mjenv's tile types); got %zd", n);
        return -1;
    }
    memcpy(out, buf, 34);
    return 0;
}

static int get_melds(PyObject *o, RsMeld *melds) {
    char *buf;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(o, &buf, &n) < 0) return -1;
    if (n % 4 || n > 16) {
        PyErr_Format(PyExc_ValueError, "melds are 4 bytes each (kind, type, red, called), at most 4; got %zd bytes", n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n / 4; i++) {
        melds[i].kind = (uint8_t)buf[4 * i];
        melds[i].type = (uint8_t)buf[4 * i + 1];
        melds[i].red = (uint8_t)buf[4 * i + 2];
        melds[i].called = (uint8_t)buf[4 * i + 3];
        if (melds[i].kind > RS_KAKAN || melds[i].type >= 34) {
            PyErr_SetString(PyExc_ValueError, "a meld's kind is 0..4 and its type 0..33");
            return -1;
        }
    }
    return (int)(n / 4);
}

static int get_indicators(PyObject *o, uint8_t *out, uint8_t *count) {
    char *buf;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(o, &buf, &n) < 0) return -1;
    if (n > RS_MAX_INDICATORS) {
        PyErr_Format(PyExc_ValueError, "at most %d indicators; got %zd", RS_MAX_INDICATORS, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = (uint8_t)buf[i];
        if (out[i] >= 34) {
            PyErr_SetString(PyExc_ValueError, "indicator types are 0..33");
            return -1;
        }
    }
    *count = (uint8_t)n;
    return 0;
}

static PyObject *py_score(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError,
                        "score(tiles, red, win34, melds, flags, seat_wind, round_wind, dora, ura) takes 9 arguments");
        return NULL;
    }
    RsHand h;
    RsContext ctx;
    RsResult r;
    memset(&h, 0, sizeof(h));
    memset(&ctx, 0, sizeof(ctx));
    {
        char *buf;
        Py_ssize_t n;
        if (PyBytes_AsStringAndSize(args[0], &buf, &n) < 0) return NULL;
        if (n > 14) {
            PyErr_Format(PyExc_ValueError, "at most 14 concealed tiles; got %zd", n);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            uint8_t t = (uint8_t)buf[i];
            if (t >= 34) {
                PyErr_SetString(PyExc_ValueError, "tile types are 0..33");
                return NULL;
            }
            h.c34[t]++;
        }
    }
    long red = PyLong_AsLong(args[1]), win = PyLong_AsLong(args[2]);
    long flags = PyLong_AsLong(args[4]), seat = PyLong_AsLong(args[5]), round = PyLong_AsLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (red < 0 || red > 3 || win < 0 || win >= 34 || seat < 0 || seat > 3 || round < 0 || round > 3) {
        PyErr_SetString(PyExc_ValueError, "red is 0..3, win34 0..33, winds 0..3");
        return NULL;
    }
    h.red[0] = (uint8_t)red; /* only the sum is read */
    h.win34 = (uint8_t)win;
    int nm = get_melds(args[3], h.melds);
    if (nm < 0) return NULL;
    h.n_melds = (uint8_t)nm;
    if (get_indicators(args[7], ctx.dora, &ctx.n_dora) < 0 || get_indicators(args[8], ctx.ura, &ctx.n_ura) < 0)
        return NULL;
    ctx.is_tsumo = flags & 1;
    ctx.is_riichi = (flags >> 1) & 1;
    ctx.is_double_riichi = (flags >> 2) & 1;
    ctx.is_ippatsu = (flags >> 3) & 1;
    ctx.is_rinshan = (flags >> 4) & 1;
    ctx.is_chankan = (flags >> 5) & 1;
    ctx.is_haitei = (flags >> 6) & 1;
    ctx.is_houtei = (flags >> 7) & 1;
    ctx.is_tenhou = (flags >> 8) & 1;
    ctx.is_chiihou = (flags >> 9) & 1;
    ctx.seat_wind = (uint8_t)seat;
    ctx.round_wind = (uint8_t)round;
    int ok = rs_score(&h, &ctx, &r);
    if (ok < 0) {
        PyErr_SetString(PyExc_ValueError, "malformed hand: a count over 4, over 14 concealed tiles or a bad meld");
        return NULL;
    }
    if (ok == 0) Py_RETURN_NONE;
    PyObject *yaku = PyList_New(0);
    if (!yaku) return NULL;
    for (int id = 0; id < RS_NUM_YAKU; id++) {
        if (!((r.yaku >> id) & 1)) continue;
        if (PyList_Append(yaku, yaku_entry[id][r.menzen]) < 0) goto fail;
    }
    PyObject *const names[3] = {name_dora, name_ura, name_aka};
    const int counts[3] = {r.dora, r.ura, r.aka};
    for (int k = 0; k < 3; k++) {
        if (!counts[k]) continue;
        PyObject *e = Py_BuildValue("(Oi)", names[k], counts[k]);
        if (!e || PyList_Append(yaku, e) < 0) {
            Py_XDECREF(e);
            goto fail;
        }
        Py_DECREF(e);
    }
    return Py_BuildValue("(iiNiiiiii)", r.han, r.fu, yaku, r.yakuman, r.ron, r.tsumo_dealer, r.tsumo_nondealer,
                         r.total, r.limit);
fail:
    Py_DECREF(yaku);
    return NULL;
}

static PyObject *py_waits(PyObject *self, PyObject *arg) {
    (void)self;
    uint8_t c[34], w[34];
    if (get_counts(arg, c) < 0) return NULL;
    int n = rs_waits(c, w);
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "waits need 3n + 1 tiles (at most 13) with counts 0..4");
        return NULL;
    }
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int t = 0, k = 0; t < 34; t++)
        if (w[t]) PyList_SET_ITEM(out, k++, PyLong_FromLong(t));
    return out;
}

static PyObject *py_is_winning(PyObject *self, PyObject *arg) {
    (void)self;
    uint8_t c[34];
    if (get_counts(arg, c) < 0) return NULL;
    return PyBool_FromLong(rs_is_winning(c));
}

/* Shared parsing of (counts, melds, seat_wind, round_wind). */
static int get_tenpai_args(PyObject *const *args, Py_ssize_t nargs, uint8_t c[34], RsMeld *melds, int *nm,
                           int *seat, int *round) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "takes (counts, melds, seat_wind, round_wind)");
        return -1;
    }
    if (get_counts(args[0], c) < 0) return -1;
    *nm = get_melds(args[1], melds);
    if (*nm < 0) return -1;
    long s = PyLong_AsLong(args[2]), r = PyLong_AsLong(args[3]);
    if (PyErr_Occurred()) return -1;
    if (s < 0 || s > 3 || r < 0 || r > 3) {
        PyErr_SetString(PyExc_ValueError, "winds are 0..3 (E, S, W, N)");
        return -1;
    }
    for (int t = 0; t < 34; t++)
        if (c[t] > 4) {
            PyErr_SetString(PyExc_ValueError, "counts are 0..4");
            return -1;
        }
    *seat = (int)s;
    *round = (int)r;
    return 0;
}

static PyObject *py_tenpai_has_yaku(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    uint8_t c[34];
    RsMeld melds[4];
    int nm, seat, round;
    if (get_tenpai_args(args, nargs, c, melds, &nm, &seat, &round) < 0) return NULL;
    return PyBool_FromLong(rs_tenpai_has_yaku(c, melds, nm, seat, round));
}

static PyObject *py_discards_tenpai_yaku(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    uint8_t c[34], out[34];
    RsMeld melds[4];
    int nm, seat, round;
    if (get_tenpai_args(args, nargs, c, melds, &nm, &seat, &round) < 0) return NULL;
    rs_discards_tenpai_yaku(c, melds, nm, seat, round, out);
    PyObject *list = PyList_New(34);
    if (!list) return NULL;
    for (int t = 0; t < 34; t++) {
        PyObject *b = out[t] ? Py_True : Py_False;
        Py_INCREF(b);
        PyList_SET_ITEM(list, t, b);
    }
    return list;
}

static PyObject *py_yaku_names(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyObject *out = PyTuple_New(RS_NUM_YAKU);
    if (!out) return NULL;
    for (int id = 0; id < RS_NUM_YAKU; id++) PyTuple_SET_ITEM(out, id, PyUnicode_FromString(rs_yaku_name(id)));
    return out;
}

static PyObject *py_group_options(PyObject *self, PyObject *args) {
    (void)self;
    const char *buf;
    Py_ssize_t n;
    int honour, with_pair;
    if (!PyArg_ParseTuple(args, "y#pp", &buf, &n, &honour, &with_pair)) return NULL;
    if (n != (honour ? 7 : 9)) {
        PyErr_SetString(PyExc_ValueError, "a suit is 9 counts, the honours 7");
        return NULL;
    }
    uint8_t c[34] = {0};
    int g = honour ? 3 : 0;
    memcpy(c + 9 * g, buf, (size_t)n);
    RsGroupOpts opts;
    rs__group(c, g, with_pair, &opts);
    return PyLong_FromLong(opts.overflow ? -1 : opts.n);
}

static PyMethodDef methods[] = {
    {"score", (PyCFunction)(void (*)(void))py_score, METH_FASTCALL, "Score a winning hand (see the module doc)."},
    {"waits", py_waits, METH_O, "Sorted wait types of a 3n + 1 tile concealed part (34 count bytes)."},
    {"is_winning", py_is_winning, METH_O, "Whether a 3n + 2 tile concealed part wins (34 count bytes)."},
    {"tenpai_has_yaku", (PyCFunction)(void (*)(void))py_tenpai_has_yaku, METH_FASTCALL,
     "Whether some wait wins by ron with a yaku (counts, melds, seat_wind, round_wind)."},
    {"discards_tenpai_yaku", (PyCFunction)(void (*)(void))py_discards_tenpai_yaku, METH_FASTCALL,
     "Per type, whether its discard leaves a tenpai with a yaku (counts, melds, seat_wind, round_wind)."},
    {"yaku_names", py_yaku_names, METH_NOARGS, "The yaku names by id."},
    {"group_options", py_group_options, METH_VARARGS, "How many set lists one group has (-1: over the bound)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_score",
                                    "Riichi scoring in C (see _score.h and scoring.py).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__score(void) {
    for (int id = 0; id < RS_NUM_YAKU; id++)
        for (int menzen = 0; menzen < 2; menzen++) {
            yaku_entry[id][menzen] = Py_BuildValue("(si)", rs_yaku_name(id), rs_yaku_han(id, menzen));
            if (!yaku_entry[id][menzen]) return NULL;
        }
    name_dora = PyUnicode_InternFromString("dora");
    name_ura = PyUnicode_InternFromString("ura dora");
    name_aka = PyUnicode_InternFromString("aka dora");
    if (!name_dora || !name_ura || !name_aka) return NULL;
    return PyModule_Create(&module);
}
