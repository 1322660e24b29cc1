/* The compiled Riichi engine's table: one hand and the game around it, in plain arrays (no pointer, so a table is
 * copied and pickled as bytes). It plays exactly what mjenv/rulesets/riichi/game.py's RiichiGame plays with
 * claim_window="always" (the env's default) or, with the when_possible flag, claim_window="when_possible" (an empty
 * window resolved inside the step that opened it), and _engine.c writes the observation of mjenv/rulesets/riichi/observation.py.
 *
 * Tiles: the wall and the hands hold Tenhou 136-ids (so that which copy is taken follows game.py: a discard takes
 * the drawn tile when it fits the action, else the lowest id of it); counts and every action id use mjenv's 34
 * types (0-8 bamboo, 9-17 characters, 18-26 dots, 27-33 honours). */
#ifndef MJENV_RIICHI_ENGINE_H
#define MJENV_RIICHI_ENGINE_H
#include <stdint.h>

#define RE_MAX_DISCARDS 48 /* kept per seat (the observation shows the first 32) */
#define RE_ACTIONS 85
#define RE_INFO 32 /* int32 entries of a step's result per table (RE_I_* below) */

enum { PH_ACT, PH_AFTER_CALL, PH_RIICHI_DISCARD, PH_CLAIM, PH_CHANKAN, PH_HAND_OVER, PH_GAME_OVER };
enum { MK_CHI, MK_PON, MK_MINKAN, MK_ANKAN, MK_KAKAN };
enum { RES_AGARI, RES_EXHAUSTIVE, RES_NM, RES_YAO9, RES_KAZE4, RES_REACH4, RES_KAN4, RES_RON3 };
enum { LEN_HANCHAN, LEN_EAST, LEN_HAND };

typedef struct {
    uint8_t tile, flags, order, pad; /* 136-id; bit 1 tsumogiri, 2 riichi declaration, 4 called away; global order */
} ReDiscard;

typedef struct {
    uint8_t kind, n;     /* MK_*, tiles */
    uint8_t tiles[4];    /* 136-ids, sorted */
    int16_t called;      /* the taken 136-id (-1 for a closed kan) */
    int8_t from, pad;    /* the discarder (-1 for a closed kan) */
} ReMeld;

typedef struct {
    int32_t scores[4], start_scores[4];
    int32_t final_scores[4], final_points[4];
    int32_t round_index, honba, sticks, start_round, start_honba, start_sticks;
    uint8_t length, kokushi_robs, wins_off, phase, turn, need_wall, live_pos, live_end;
    uint8_t rinshan_drawn, n_dora, pending_dora, uninterrupted, n_discards, riichi_pending_double, drawn_rinshan, acting;
    int16_t drawn;                       /* the last drawn 136-id, -1 none */
    int16_t claim_tile;                  /* the tile on offer (136-id), -1 none */
    int8_t claim_from, riichi_pending, pending_kan_seat, pending_kan_kind;
    int8_t kuikae[2];                    /* types that may not be discarded now, -1 none */
    uint8_t wall[136], next_wall[136];
    uint8_t hand[4][14], hn[4];          /* concealed 136-ids in game.py's list order */
    uint8_t cnt[4][34];                  /* and their counts by type */
    ReMeld melds[4][4];
    uint8_t nmelds[4];
    ReDiscard disc[4][RE_MAX_DISCARDS];
    uint8_t ndisc[4];
    uint8_t riichi[4], ippatsu[4], stf[4], rf[4], kans[4];
    int8_t pao[4];
    uint8_t opts[4][RE_ACTIONS];         /* the acting seats' legal actions (PASS added in a window) */
    uint64_t waits[4];                   /* cached waits of each seat's concealed part (no meld rule), */
    uint8_t waits_ok[4];                 /* valid while the hand is unchanged */
    uint8_t when_possible;               /* 1: claim_window="when_possible" (no window nobody can use) */
    uint8_t acting_only;                 /* 1: observers="acting" (only the acting seats observed, but every */
    uint8_t fresh, pad2;                 /* seat after a deal (fresh) and at an end); */
    int32_t last_def[4];                 /* each seat's deficiency when it was last observed */
    uint64_t discard_waits[34];          /* per held type t: the waits (no meld rule) of the hand without one t, */
    uint8_t discard_waits_seat, pad3[7]; /* of seat discard_waits_seat - 1 while its hand is unchanged (0: none) */
} ReTable;

/* a step's result per table (int32[RE_INFO]) */
enum {
    RE_I_ACTING, RE_I_PHASE, RE_I_HAND_ENDED, RE_I_RESULT, RE_I_DELTAS, RE_I_NWIN = RE_I_DELTAS + 4, RE_I_WINNERS,
    RE_I_ROUND = RE_I_WINNERS + 3, RE_I_HONBA, RE_I_GAME_OVER, RE_I_SCORES, RE_I_FINAL = RE_I_SCORES + 4,
    RE_I_POINTS = RE_I_FINAL + 4, RE_I_ERROR = RE_I_POINTS + 4, RE_I_TURN, RE_I_CLAIM_FROM, RE_I_END
};
#endif
