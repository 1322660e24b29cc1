/* The arrays a single table's compiled step hands out, kept for reuse (mjenv.game._step's observer for the rooms of
 * the shared step, and a room's own engine's), and the conversion of a seat's action object.
 * Static functions, included by each extension that uses them.
 *
 * A slot holds an observation float32[4, S] and masks int8[4, A], the tuples of their 4 row views, the data pointers,
 * and the reference counts of the two arrays when nothing but the slot holds them (the slot and the views' bases).
 * A slot is written again only when nothing else holds any of its objects: every array and view the caller was given
 * is then unreachable, so reusing its memory is invisible, and a step spares two numpy allocations and eight views. */
#ifndef MJENV_SLOTS_H
#define MJENV_SLOTS_H
#include <Python.h>
#include <stdint.h>

enum { NSLOTS = 3 };
typedef struct {
    PyObject *obs, *masks, *orows, *mrows;
    float *od;
    int8_t *md;
    Py_ssize_t obs_refs, mask_refs;
} Slot;

/* the slots of one table and what making and reading them needs: numpy.empty, the two dtypes and shapes,
 * numpy.integer (an action of that type counts as its int) and the object that marks a seat without an action */
typedef struct {
    PyObject *empty, *f32, *i8, *obs_shape, *mask_shape, *integer, *omitted;
    Slot slot[NSLOTS];
    int next_slot;
} Slots;

/* S's objects (S zeroed first): 0, or -1 with an exception set (slots_clear releases what was taken) */
static int slots_init(Slots *S, PyObject *empty, PyObject *integer, PyObject *omitted, Py_ssize_t size, int A) {
    if (!PyCallable_Check(empty) || !PyType_Check(integer)) {
        PyErr_SetString(PyExc_ValueError, "bind_observer(): empty must be callable and integer a type");
        return -1;
    }
    Py_INCREF(empty), Py_INCREF(integer), Py_INCREF(omitted);
    S->empty = empty, S->integer = integer, S->omitted = omitted;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return -1;
    S->f32 = PyObject_CallMethod(np, "dtype", "s", "float32");
    S->i8 = PyObject_CallMethod(np, "dtype", "s", "int8");
    Py_DECREF(np);
    S->obs_shape = Py_BuildValue("(in)", 4, size);
    S->mask_shape = Py_BuildValue("(ii)", 4, A);
    return S->f32 && S->i8 && S->obs_shape && S->mask_shape ? 0 : -1;
}

static void slots_clear(Slots *S) {
    Py_XDECREF(S->empty); Py_XDECREF(S->f32); Py_XDECREF(S->i8); Py_XDECREF(S->obs_shape); Py_XDECREF(S->mask_shape);
    Py_XDECREF(S->integer); Py_XDECREF(S->omitted);
    for (int i = 0; i < NSLOTS; i++) {
        Py_XDECREF(S->slot[i].obs); Py_XDECREF(S->slot[i].masks); Py_XDECREF(S->slot[i].orows);
        Py_XDECREF(S->slot[i].mrows);
    }
}

/* whether nothing but the slot holds its arrays, their views and the views' tuples */
static int slot_free(const Slot *sl) {
    if (!sl->obs || Py_REFCNT(sl->obs) != sl->obs_refs || Py_REFCNT(sl->masks) != sl->mask_refs ||
        Py_REFCNT(sl->orows) != 1 || Py_REFCNT(sl->mrows) != 1)
        return 0;
    for (int s = 0; s < 4; s++)
        if (Py_REFCNT(PyTuple_GET_ITEM(sl->orows, s)) != 1 || Py_REFCNT(PyTuple_GET_ITEM(sl->mrows, s)) != 1) return 0;
    return 1;
}

/* a slot to write: a free one, else fresh arrays in the next slot (its old objects left to whoever holds them); NULL
 * with an exception set */
static Slot *take_slot(Slots *S) {
    for (int i = 0; i < NSLOTS; i++)
        if (slot_free(&S->slot[i])) return &S->slot[i];
    PyObject *a_obs[2] = {S->obs_shape, S->f32}, *a_mask[2] = {S->mask_shape, S->i8};
    Slot fresh = {NULL, NULL, NULL, NULL, NULL, NULL, 0, 0};
    fresh.obs = PyObject_Vectorcall(S->empty, a_obs, 2, NULL);
    fresh.masks = fresh.obs ? PyObject_Vectorcall(S->empty, a_mask, 2, NULL) : NULL;
    fresh.orows = PyTuple_New(4);
    fresh.mrows = PyTuple_New(4);
    int ok = fresh.obs && fresh.masks && fresh.orows && fresh.mrows;
    for (int s = 0; ok && s < 4; s++) {
        PyObject *o = PySequence_GetItem(fresh.obs, s), *m = o ? PySequence_GetItem(fresh.masks, s) : NULL;
        if (o) PyTuple_SET_ITEM(fresh.orows, s, o);
        if (m) PyTuple_SET_ITEM(fresh.mrows, s, m);
        ok = o && m;
    }
    Py_buffer ob, mb;
    if (ok && PyObject_GetBuffer(fresh.obs, &ob, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) == 0) {
        fresh.od = ob.buf;
        PyBuffer_Release(&ob); /* the slot holds the array, so its memory stays where it is */
        if (PyObject_GetBuffer(fresh.masks, &mb, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) == 0) {
            fresh.md = mb.buf;
            PyBuffer_Release(&mb);
        }
    }
    if (!fresh.md) {
        Py_XDECREF(fresh.obs); Py_XDECREF(fresh.masks); Py_XDECREF(fresh.orows); Py_XDECREF(fresh.mrows);
        return NULL;
    }
    fresh.obs_refs = Py_REFCNT(fresh.obs);
    fresh.mask_refs = Py_REFCNT(fresh.masks);
    Slot *sl = &S->slot[S->next_slot];
    S->next_slot = (S->next_slot + 1) % NSLOTS;
    Py_XDECREF(sl->obs); Py_XDECREF(sl->masks); Py_XDECREF(sl->orows); Py_XDECREF(sl->mrows);
    *sl = fresh;
    return sl;
}

/* a seat's action: an int, a numpy integer as its int, or omitted (-2); -1: neither, or negative (the caller's
 * checks decide) */
static int64_t action_of(const Slots *S, PyObject *x) {
    if (x == S->omitted) return -2;
    PyObject *own = NULL;
    Py_INCREF(x); /* a numpy integer's conversion runs Python code: keep the value alive */
    if (!PyLong_CheckExact(x)) {
        int is = PyObject_IsInstance(x, S->integer);
        if (is <= 0 || !(own = PyNumber_Index(x))) {
            PyErr_Clear();
            Py_DECREF(x);
            return -1;
        }
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(own ? own : x, &overflow);
    Py_XDECREF(own);
    Py_DECREF(x);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return -1;
    }
    return v < 0 ? -1 : (int64_t)v;
}
#endif
