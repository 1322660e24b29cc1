/* The observation writer's C entry points, for other compiled modules (mjenv.game._step).
 *
 * mjenv.deficiency._kernel exports one capsule, ``_C_API`` (name KERNEL_API_NAME), holding a KernelApi. A caller
 * takes it once with PyCapsule_Import and then writes observations of whole state records with no Python object in
 * between: ``observe`` touches none, so it may run without the GIL and on several threads at once, provided no two
 * threads share a memo (each memo is one table's).
 *
 *   plan_of(capsule) -> the plan of a ``_kernel.bind`` capsule (GIL held; NULL with an exception set), whose one
 *     source is the whole record (mjenv.observation.ObservationSpec._kernel_observe_records' plan).
 *   record_length(plan), size(plan): the record's length L and the observation's length S.
 *   memos_of(memos, n, out): the memos of a sequence of n memo arrays (None each allowed) into out (GIL held; 0, or
 *     -1 with an exception set); the arrays must outlive every use of out.
 *   observe(plan, records, memos, seats, n, obs, defs, err): records int16[n, L]; memos n pointers or NULL; seats
 *     NULL (every seat observed) or uint8[n] bit sets (bit s: seat s observed); obs float32[n, 4, S] written (an
 *     unobserved seat's row zeros) and defs int32[n, 4] (the observed seats' entries); 0, or -1 with a message in
 *     err (KERNEL_ERR_LEN bytes).
 *   deficiency(plan, hand, kb, m): the deficiency of one seat alone (hand and kb int8[T], m melds to build): the
 *     deficiency observe writes for it, without the other features.
 *   observe_unzeroed(...): observe for a caller that zeroes obs itself: it writes only the floats observe_written
 *     marks, in the observed seats' rows, and leaves the rest of obs as it is.
 *   observe_written(plan, written): written[i] = 1 for each float of a row (S entries) that observe writes in full
 *     whatever the state (the feature views);
 *     the other entries left as they are. */
#ifndef MJENV_KERNEL_API_H
#define MJENV_KERNEL_API_H
#include <Python.h>
#include <stdint.h>

#define KERNEL_API_NAME "mjenv.deficiency._kernel._C_API"
#define KERNEL_ERR_LEN 200

typedef struct {
    void *(*plan_of)(PyObject *capsule);
    Py_ssize_t (*record_length)(const void *plan);
    Py_ssize_t (*size)(const void *plan);
    int (*memos_of)(PyObject *memos, Py_ssize_t n, void **out);
    int (*observe)(const void *plan, const int16_t *records, void *const *memos, const uint8_t *seats, Py_ssize_t n,
                   float *obs, int32_t *defs, char *err);
    int (*deficiency)(const void *plan, const int8_t *hand, const int8_t *kb, int m);
    int (*observe_unzeroed)(const void *plan, const int16_t *records, void *const *memos, const uint8_t *seats,
                            Py_ssize_t n, float *obs, int32_t *defs, char *err);
    void (*observe_written)(const void *plan, uint8_t *written);
} KernelApi;

#endif
