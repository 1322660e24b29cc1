/* The taiwan16 room's hooks into the compiled batch step (mjenv/game/_step_room.h): flowers.
 *
 * The C twin of the flowers of the shared Python engine (``Game``: a flower dealt or drawn is set aside face up
 * and replaced by a draw from the wall's end). Flowers have wall ids FLOWER_BASE .. FLOWER_BASE + 7, above every
 * tile id, so the shared step hands each drawn one to ``drawn``. The room's state: scalars SC_ROOM + s, the
 * flowers seat s has set aside as a bit set (bit f: flower f); its state-record field ``flowers`` int[4, 8].
 * ``tests/test_step_kernel.py`` compares every array with the Python engine's after every step.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "../../game/_step_room.h"

enum { FLOWER_BASE = 34, NUM_FLOWERS = 8 };

static RoomHooks HOOKS;

/* flowers in the deal set aside, each replaced from the wall's end (flowers found there set aside too) */
static void dealt(const Params *P, Tab *b, const int8_t *w) {
    const int hs = P->hand_size;
    for (int s = 0; s < 4; s++)
        for (int j = 0; j < hs; j++) {
            int t = w[s * hs + j];
            if (t < FLOWER_BASE) continue;
            b->sc[SC_ROOM + s] |= 1 << (t - FLOWER_BASE);
            for (;;) {
                int u = b->wall[--b->sc[SC_TAIL]];
                if (u < FLOWER_BASE) { b->tiles[s * P->T + u]++; break; }
                b->sc[SC_ROOM + s] |= 1 << (u - FLOWER_BASE);
            }
        }
}

/* a drawn flower: set aside, and a replacement draw from the wall's end */
static void drawn(const Params *P, Tab *b, int seat, int t) {
    b->sc[SC_ROOM + seat] |= 1 << (t - FLOWER_BASE);
    HOOKS.core->draw(P, b, seat, 1);
}

static void record(const Params *P, const Tab *b, int16_t *out, int n) {
    for (int k = 0; k < n && k < 4 * NUM_FLOWERS; k++)
        out[k] = (int16_t)(b->sc[SC_ROOM + k / NUM_FLOWERS] >> (k % NUM_FLOWERS) & 1);
}

static RoomHooks HOOKS = {
    .dealt = dealt, .drawn = drawn, .record = record, .max_wall_id = FLOWER_BASE + NUM_FLOWERS - 1,
};

STEP_ROOM_MODULE(HOOKS, "taiwan16's hooks into the compiled step")
