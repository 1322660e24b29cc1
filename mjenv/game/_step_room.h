/* The protocol between the compiled batch step (mjenv/game/_step.c) and a rule-set room's compiled hooks.
 *
 * The C twin of mjenv/rulesets/protocol.py's GameHooks: the shared step calls a room's hooks at the same
 * hook points as the Python engine calls the room's GameHooks, and knows no rule set by name. A room's hooks
 * are an extension module of its own folder (mjenv/rulesets/<name>/_step_hooks.c) that exports a RoomHooks
 * through a capsule (STEP_ROOM_CAPSULE); the Python side hands the capsule to mjenv.game._step.room_index(),
 * which keeps it and fills in ``core`` (the shared step's functions a hook may call), and the index goes to
 * the step in its params (P_ROOM). A hook left NULL has the plain game's behaviour.
 *
 * Per table the arrays of the step (Tab) and its scalars (SC_ names); SC_ROOM .. SC_ROOM + NROOM - 1 are the
 * room's own state (ints it defines; mjenv.game.batch loads them from a Game through the room's Python side).
 */
#ifndef MJENV_STEP_ROOM_H
#define MJENV_STEP_ROOM_H

#include <stdint.h>

#define STEP_ROOM_CAPSULE "mjenv.game._step.RoomHooks"

enum { SC_PHASE, SC_CUR, SC_LAST_DISCARD, SC_LAST_DISCARDER, SC_LAST_DRAWN, SC_DEAL_IN, SC_WIN_TILE, SC_END,
       SC_HEAD, SC_TAIL, SC_ACTING, SC_CLAIMED, SC_KONG_TILE, SC_AFTER_KONG, SC_ROOM, NROOM = 8,
       NSC = SC_ROOM + NROOM };
enum { PH_DISCARD, PH_CLAIM, PH_ROB, PH_END, PH_DECLARE };
enum { MK_CHOW, MK_PONG, MK_EKONG, MK_CKONG, MK_AKONG };
enum { END_NONE, END_SELF_DRAW, END_DISCARD, END_ROBBED, END_EXHAUSTIVE };
enum { KONG_EXPOSED, KONG_ADDED, KONG_CONCEALED };

/* the rules as the step reads them (params int32[NPARAMS], in this order) */
typedef struct {
    int T, A, W, D, MM, allow_chow, seven, always, multi, dpts, spts, draw_at, hand_size, room;
} Params;
enum { NPARAMS = 14 };

/* one table's arrays: tiles int8[9, T], wall int8[W], meld_table int8[4, MM, 4], melds_declared int8[4],
 * masks int8[4, A], discards int16[4, D], num_discards int16[4], won uint8[4], scores int64[4], scalars int32[NSC] */
typedef struct {
    int8_t *tiles, *wall, *melds, *ndecl, *masks;
    int16_t *disc, *ndisc;
    uint8_t *won;
    int64_t *scores;
    int32_t *sc;
} Tab;

/* action ids of a layout with T tile types (declaration ids, where a room has them, follow PASS) */
#define ACT_CHOW_LOW(T) (2 * (T))
#define ACT_PONG(T) (2 * (T) + 3)
#define ACT_EKONG(T) (2 * (T) + 4)
#define ACT_WIN(T) (2 * (T) + 5)
#define ACT_PASS(T) (2 * (T) + 6)

/* the shared step's functions a hook may call */
typedef struct {
    void (*draw)(const Params *P, Tab *b, int seat, int replacement);
    void (*finish)(const Params *P, Tab *b, int winners, int deal_in, int tile, int reason);
    void (*set_turn_masks)(const Params *P, Tab *b, int seat);
    void (*pass_only)(const Params *P, Tab *b);
    int (*winning)(const int8_t *hand, int T, int seven_pairs);
} StepCore;

typedef struct {
    const StepCore *core; /* filled by room_index() */
    /* GameHooks' flags: restricts (may_meld, wins_with, restrict_turn; a seat that has won is out of the
     * windows), plays_on (win, next_seat), pays_kongs (pay_kong), settles (settle) */
    int restricts, plays_on, pays_kongs, settles;
    /* the deal, before the dealer's first draw (the hands counted, tiles >= T left out; head, tail set) */
    void (*dealt)(const Params *P, Tab *b, const int8_t *wall);
    /* a drawn tile t >= T (the shared step draws tiles < T): the room takes it and the turn goes on */
    void (*drawn)(const Params *P, Tab *b, int seat, int t);
    void (*start)(const Params *P, Tab *b);
    void (*on_phase)(const Params *P, Tab *b, const int64_t *chosen);
    int (*may_meld)(const Params *P, const Tab *b, int seat, int tile);
    int (*wins_with)(const Params *P, const Tab *b, int seat, int tile);
    void (*restrict_turn)(const Params *P, Tab *b, int seat, int8_t *row);
    /* winners: bit set; deal_in: the discarder (kong declarer), -1 for a self-draw */
    void (*win)(const Params *P, Tab *b, int winners, int deal_in, int tile, int reason);
    int (*next_seat)(const Params *P, const Tab *b, int seat);
    void (*pay_kong)(const Params *P, Tab *b, int seat, int kind, int discarder);
    /* base: the plain game's scores of the hand; writes b->scores */
    void (*settle)(const Params *P, Tab *b, int winners, int deal_in, int reason, const int64_t *base);
    /* the room's state-record fields (n int16 entries from out) */
    void (*record)(const Params *P, const Tab *b, int16_t *out, int n);
    /* the largest wall id the room draws (its own tiles above T - 1, set aside by drawn); 0: tiles 0..T-1 only */
    int max_wall_id;
} RoomHooks;

/* A room's hooks module (in its _step_hooks.c, after Python.h): ``_step_hooks`` with HOOKS, the capsule of
 * ``hooks`` (a RoomHooks). */
#define STEP_ROOM_MODULE(hooks, doc)                                                                          \
    static struct PyModuleDef step_room_module = {PyModuleDef_HEAD_INIT, "_step_hooks", doc, -1, NULL};      \
    PyMODINIT_FUNC PyInit__step_hooks(void) {                                                                 \
        PyObject *m = PyModule_Create(&step_room_module);                                                     \
        PyObject *cap = m ? PyCapsule_New(&(hooks), STEP_ROOM_CAPSULE, NULL) : NULL;                          \
        if (cap && PyModule_AddObject(m, "HOOKS", cap) == 0) return m;                                        \
        Py_XDECREF(cap);                                                                                      \
        Py_XDECREF(m);                                                                                        \
        return NULL;                                                                                          \
    }

#endif
