/* Riichi scoring in C: winning shapes, waits, yaku, fu and points under Tenhou's ranked rules.
 *
 * A header of static functions, included by the Python extension `_score.c` and by the compiled batch
 * step. It is a port of the Python scorer (`hand.py`, `yaku.py`, `fu.py`, `scoring.py`) and gives the
 * same answers: the same decompositions in the same order, the same readings, the same choice among
 * readings (most points, then most han, then most fu; the first one found on a tie), so that
 * `score_hand` can use it as a fast path (tests/test_riichi_c_score.py compares the two).
 *
 * Tiles are mjenv's 34 types: 0-8 bamboo 1-9 (s), 9-17 characters (m), 18-26 dots (p), 27-33 E S W N
 * white green red. The 136-id conversion (which copy is red) stays with the caller.
 *
 * API (every function is `static inline`, pure and thread-safe: nothing allocates, no mutable globals):
 *
 *   int rs_is_winning(const uint8_t c34[34]);
 *       1 when a concealed part of 3n + 2 tiles wins (n sets and a pair, seven distinct pairs or
 *       thirteen orphans), else 0.
 *   int rs_waits(const uint8_t c34[34], uint8_t out34[34]);
 *       Waits of a concealed part of 3n + 1 tiles: out34[t] = 1 for each wait; returns how many
 *       (0: not tenpai), -1 for a malformed count vector. A type whose four copies are all in c34 is
 *       never a wait (as `hand.waits`).
 *   int rs_score(const RsHand *h, const RsContext *ctx, RsResult *out);
 *       1: the hand wins with a yaku and *out holds its value; 0: not a win or no yaku (dora alone is
 *       no yaku); -1: malformed input (more than 14 concealed tiles, a type over 4 copies with the
 *       melds, a bad meld or winning type).
 *   int rs_tenpai_has_yaku(const uint8_t c34[34], const RsMeld *melds, int n_melds, int seat_wind,
 *                          int round_wind);
 *       1 when some wait of a 13 - 3 * n_melds tile concealed part wins by ron with a yaku (riichi off,
 *       only the winds of the situation; a wait whose four copies are in the hand and melds is none).
 *   int rs_discards_tenpai_yaku(const uint8_t c34[34], const RsMeld *melds, int n_melds, int seat_wind,
 *                               int round_wind, uint8_t out34[34]);
 *       For each type held in the 14 - 3 * n_melds tile concealed part, out34[t] = 1 when discarding
 *       one copy leaves rs_tenpai_has_yaku; 0 for the others. Returns the number of 1s.
 *   int rs_yaku_han(int id, int menzen);  const char *rs_yaku_name(int id);
 *       Han and `score_hand` name of a yaku id (RS_Y_*; RsResult.yaku is a bitmask of them).
 */
#ifndef MJENV_RIICHI_SCORE_H
#define MJENV_RIICHI_SCORE_H

#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- inputs and outputs */

/* Meld kinds, in the order of scoring.MELD_KINDS. */
enum { RS_CHI = 0, RS_PON = 1, RS_MINKAN = 2, RS_ANKAN = 3, RS_KAKAN = 4 };

typedef struct {
    uint8_t kind;   /* RS_CHI .. RS_KAKAN */
    uint8_t type;   /* its lowest 34-type (a chi is type, type + 1, type + 2) */
    uint8_t red;    /* red fives among its tiles (0 or 1) */
    uint8_t called; /* 34-type of the tile taken from another seat (not read by the scorer) */
} RsMeld;

typedef struct {
    uint8_t c34[34];  /* the concealed tiles, winning tile included (14 - 3 * n_melds) */
    uint8_t red[3];   /* red fives among the concealed tiles: 5s, 5m, 5p */
    uint8_t win34;    /* the winning tile's type */
    uint8_t n_melds;  /* 0..4 */
    RsMeld melds[4];
} RsHand;

/* Most indicators a context holds (Tenhou shows at most 5: one and one per kan). */
#define RS_MAX_INDICATORS 8

typedef struct { /* the fields of scoring.WinContext; indicators as 34-types */
    uint8_t is_tsumo, is_riichi, is_double_riichi, is_ippatsu, is_rinshan, is_chankan, is_haitei, is_houtei;
    uint8_t is_tenhou, is_chiihou;
    uint8_t seat_wind, round_wind; /* 0..3 = East..North; the dealer is seat_wind 0 */
    uint8_t n_dora, n_ura;
    uint8_t dora[RS_MAX_INDICATORS], ura[RS_MAX_INDICATORS]; /* indicator types (ura read only with riichi) */
} RsContext;

/* Limits, in the order of scoring's names (none, "mangan", ..., "kazoe yakuman"). */
enum { RS_LIMIT_NONE, RS_MANGAN, RS_HANEMAN, RS_BAIMAN, RS_SANBAIMAN, RS_YAKUMAN, RS_KAZOE_YAKUMAN };

typedef struct {
    int han;        /* total han, dora included; a yakuman hand 13 per yakuman */
    int fu;         /* fu of the scored reading (a yakuman hand: the largest fu of its readings) */
    int yakuman;    /* number of yakuman (kazoe yakuman counts 0) */
    uint64_t yaku;  /* bit RS_Y_x per yaku scored: in id order, then dora/ura/aka, it is score_hand's list */
    int dora, ura, aka; /* bonus han (0 for a yakuman hand) */
    int menzen;     /* closed hand (closed kans allowed): decides the han of a few yaku, rs_yaku_han */
    int dealer;     /* seat_wind == 0 */
    int limit;      /* RS_LIMIT_NONE .. RS_KAZOE_YAKUMAN */
    int base;       /* basic points */
    int ron, tsumo_dealer, tsumo_nondealer, total; /* payments as scoring.payments, no honba or sticks */
} RsResult;

/* Yaku ids. Their order is the order score_hand lists them in (situation, tiles, sets, pinfu,
 * sanankou; yakuman apart), so a bitmask read in id order rebuilds the same list. */
enum {
    RS_Y_DOUBLE_RIICHI, RS_Y_RIICHI, RS_Y_IPPATSU, RS_Y_MENZEN_TSUMO, RS_Y_RINSHAN, RS_Y_CHANKAN,
    RS_Y_HAITEI, RS_Y_HOUTEI,
    RS_Y_TANYAO, RS_Y_HONITSU, RS_Y_CHINITSU, RS_Y_HONROUTOU, RS_Y_HAKU, RS_Y_HATSU, RS_Y_CHUN,
    RS_Y_SHOUSANGEN,
    RS_Y_SEAT_WIND,                     /* + seat wind: 4 ids */
    RS_Y_ROUND_WIND = RS_Y_SEAT_WIND + 4, /* + round wind: 4 ids */
    RS_Y_CHIITOITSU = RS_Y_ROUND_WIND + 4,
    RS_Y_RYANPEIKOU, RS_Y_IIPEIKOU, RS_Y_SANSHOKU_DOUJUN, RS_Y_ITTSU, RS_Y_CHANTA, RS_Y_JUNCHAN, RS_Y_TOITOI,
    RS_Y_SANSHOKU_DOUKOU, RS_Y_SANKANTSU, RS_Y_PINFU, RS_Y_SANANKOU,
    RS_Y_TENHOU, /* the first yakuman */
    RS_Y_CHIIHOU, RS_Y_KOKUSHI, RS_Y_KOKUSHI_13, RS_Y_DAISANGEN, RS_Y_TSUUIISOU, RS_Y_RYUUIISOU,
    RS_Y_CHINROUTOU, RS_Y_DAISUUSHII, RS_Y_SHOUSUUSHII, RS_Y_SUUKANTSU, RS_Y_CHUUREN, RS_Y_JUNSEI_CHUUREN,
    RS_Y_SUUANKOU, RS_Y_SUUANKOU_TANKI,
    RS_NUM_YAKU
};

#define RS_BIT(id) ((uint64_t)1 << (id))

static inline const char *rs_yaku_name(int id) {
    static const char *const names[RS_NUM_YAKU] = {
        "double riichi", "riichi", "ippatsu", "menzen tsumo", "rinshan kaihou", "chankan", "haitei", "houtei",
        "tanyao", "honitsu", "chinitsu", "honroutou", "haku", "hatsu", "chun", "shousangen",
        "seat wind east", "seat wind south", "seat wind west", "seat wind north",
        "round wind east", "round wind south", "round wind west", "round wind north",
        "chiitoitsu", "ryanpeikou", "iipeikou", "sanshoku doujun", "ittsu", "chanta", "junchan", "toitoi",
        "sanshoku doukou", "sankantsu", "pinfu", "sanankou",
        "tenhou", "chiihou", "kokushi musou", "kokushi musou 13-wait", "daisangen", "tsuuiisou", "ryuuiisou",
        "chinroutou", "daisuushii", "shousuushii", "suukantsu", "chuuren poutou", "junsei chuuren poutou",
        "suuankou", "suuankou tanki",
    };
    return (id >= 0 && id < RS_NUM_YAKU) ? names[id] : "";
}

/* Han of a yaku (yakuman 13); six yaku are worth one han less open (yaku.py). */
static inline int rs_yaku_han(int id, int menzen) {
    switch (id) {
    case RS_Y_HONITSU: case RS_Y_JUNCHAN: return menzen ? 3 : 2;
    case RS_Y_CHINITSU: return menzen ? 6 : 5;
    case RS_Y_SANSHOKU_DOUJUN: case RS_Y_ITTSU: case RS_Y_CHANTA: return menzen ? 2 : 1;
    case RS_Y_DOUBLE_RIICHI: case RS_Y_CHIITOITSU: case RS_Y_TOITOI: case RS_Y_SANSHOKU_DOUKOU:
    case RS_Y_SANKANTSU: case RS_Y_SANANKOU: case RS_Y_SHOUSANGEN: case RS_Y_HONROUTOU: return 2;
    case RS_Y_RYANPEIKOU: return 3;
    default: return id >= RS_Y_TENHOU ? 13 : 1;
    }
}

/* ---------------------------------------------------------------- tiles (yaku.py's tables) */

static inline int rs_terminal_or_honour(int t) { return t >= 27 || t % 9 == 0 || t % 9 == 8; }

/* The dora an indicator shows: suits wrap 9 -> 1, winds E S W N E, dragons white green red white. */
static inline int rs_dora_of(int ind) {
    if (ind < 27) return ind % 9 == 8 ? ind - 8 : ind + 1;
    if (ind < 31) return 27 + (ind - 27 + 1) % 4;
    return 31 + (ind - 31 + 1) % 3;
}

static const uint8_t RS_ORPHANS[13] = {0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33};

/* ---------------------------------------------------------------- winning shapes (hand.py) */

/* Whether counts c[0..n) of one group are sets only. At the lowest held rank r every copy starts a
 * run or is in a triplet; three runs from r are as good as three triplets, so c[r] % 3 runs start
 * there and the rest are triplets (honours: triplets only). */
static inline int rs__sets_only(const uint8_t *c0, int n, int honour) {
    int c[9];
    for (int i = 0; i < n; i++) c[i] = c0[i];
    for (int i = 0; i < n; i++) {
        int runs = c[i] % 3;
        if (!runs) continue;
        if (honour || i + 2 >= n || c[i + 1] < runs || c[i + 2] < runs) return 0;
        c[i + 1] -= runs;
        c[i + 2] -= runs;
    }
    return 1;
}

/* Whether one group's counts are sets and one pair. */
static inline int rs__sets_and_pair(const uint8_t *c0, int n, int honour) {
    uint8_t c[9];
    memcpy(c, c0, (size_t)n);
    for (int r = 0; r < n; r++) {
        if (c[r] < 2) continue;
        c[r] -= 2;
        int ok = rs__sets_only(c, n, honour);
        c[r] += 2;
        if (ok) return 1;
    }
    return 0;
}

static inline int rs__group_len(int g) { return g == 3 ? 7 : 9; }

static inline int rs__group_sum(const uint8_t *c, int g) {
    int s = 0;
    for (int i = 0; i < rs__group_len(g); i++) s += c[9 * g + i];
    return s;
}

/* n sets and a pair (hand.is_regular): one group holds the pair, each group decomposes alone. */
static inline int rs__is_regular(const uint8_t c[34]) {
    int pairs = 0;
    for (int g = 0; g < 4; g++) {
        int m = rs__group_sum(c, g) % 3;
        const uint8_t *k = c + 9 * g;
        if (m == 1) return 0;
        if (m == 2) {
            if (++pairs > 1 || !rs__sets_and_pair(k, rs__group_len(g), g == 3)) return 0;
        } else if (!rs__sets_only(k, rs__group_len(g), g == 3)) {
            return 0;
        }
    }
    return pairs == 1;
}

/* Seven distinct pairs (four of a kind is not two pairs). */
static inline int rs__is_seven_pairs(const uint8_t c[34]) {
    int pairs = 0, total = 0;
    for (int t = 0; t < 34; t++) {
        total += c[t];
        pairs += c[t] == 2;
    }
    return total == 14 && pairs == 7;
}

/* Each terminal and honour once, one of them twice. */
static inline int rs__is_thirteen_orphans(const uint8_t c[34]) {
    int total = 0, orph = 0;
    for (int t = 0; t < 34; t++) total += c[t];
    for (int i = 0; i < 13; i++) {
        if (!c[RS_ORPHANS[i]]) return 0;
        orph += c[RS_ORPHANS[i]];
    }
    return total == 14 && orph == 14;
}

static inline int rs_is_winning(const uint8_t c34[34]) {
    int total = 0;
    for (int t = 0; t < 34; t++) total += c34[t];
    if (total == 14 && (rs__is_seven_pairs(c34) || rs__is_thirteen_orphans(c34))) return 1;
    return rs__is_regular(c34);
}

/* Waits: each type that, added once, makes a winning shape (hand.waits). The added tile changes one
 * group, so each group's state is computed once: a regular win needs every other group complete as it
 * is (sets only, or sets and the pair) with one pair in all, and the changed group complete after the
 * addition. Only types that can matter are tried: a held type or a same-suit neighbour within two
 * ranks; with 13 tiles also the terminals and honours (thirteen orphans; a seven-pairs wait is held). */
static inline int rs_waits(const uint8_t c34[34], uint8_t out34[34]) {
    uint8_t c[34];
    int total = 0, mod[4], done[4], pairs = 0, broken = 0;
    memset(out34, 0, 34);
    for (int t = 0; t < 34; t++) {
        if (c34[t] > 4) return -1;
        total += c34[t];
    }
    if (total % 3 != 1 || total > 13) return -1;
    memcpy(c, c34, 34);
    for (int g = 0; g < 4; g++) {
        const uint8_t *k = c + 9 * g;
        int n = rs__group_len(g);
        mod[g] = rs__group_sum(c, g) % 3;
        done[g] = mod[g] == 0 ? rs__sets_only(k, n, g == 3) : mod[g] == 2 ? rs__sets_and_pair(k, n, g == 3) : 0;
        pairs += mod[g] == 2;
        broken += !done[g];
    }
    /* seven pairs: six pairs and a single; thirteen orphans: 13 of the orphan types, at most one missing */
    int pairs7 = 0, singles = 0, orphans = 0, orphan_types = 0;
    if (total == 13) {
        for (int t = 0; t < 34; t++) {
            pairs7 += c[t] == 2;
            singles += c[t] == 1;
        }
        for (int i = 0; i < 13; i++) {
            orphans += c[RS_ORPHANS[i]];
            orphan_types += c[RS_ORPHANS[i]] > 0;
        }
    }
    int n = 0;
    for (int t = 0; t < 34; t++) {
        if (c[t] >= 4) continue; /* the fifth copy is no wait */
        int g = t / 9, near = c[t] > 0;
        if (!near && t < 27) {
            int r = t % 9;
            for (int d = -2; d <= 2 && !near; d++)
                if (d && r + d >= 0 && r + d < 9 && c[t + d]) near = 1;
        }
        if (!near && total == 13 && rs_terminal_or_honour(t)) near = 1;
        if (!near) continue;
        int win = 0, newmod = (mod[g] + 1) % 3;
        /* the other groups complete as they are, one pair in all */
        if (newmod != 1 && broken - !done[g] == 0 && pairs - (mod[g] == 2) + (newmod == 2) == 1) {
            c[t]++;
            const uint8_t *k = c + 9 * g;
            win = newmod == 0 ? rs__sets_only(k, rs__group_len(g), g == 3)
                              : rs__sets_and_pair(k, rs__group_len(g), g == 3);
            c[t]--;
        }
        if (!win && total == 13) {
            if (pairs7 == 6 && singles == 1 && c[t] == 1) win = 1;
            if (orphans == 13 && rs_terminal_or_honour(t) && (orphan_types == 13 || (orphan_types == 12 && !c[t])))
                win = 1;
        }
        if (win) {
            out34[t] = 1;
            n++;
        }
    }
    return n;
}

/* ---------------------------------------------------------------- decompositions (hand.decompose) */

/* One regular decomposition of the concealed part: a pair type and set codes (t: triplet of type t,
 * 34 + t: run from t). */
typedef struct {
    int8_t pair;
    uint8_t n;
    uint8_t sets[4];
} RsDecomp;

/* Bounds: a group of at most 14 tiles has at most 5 set lists with a pair and 4 without (some list
 * the same sets in two orders, as the Python recursion does; checked over every count vector by
 * tests/test_riichi_c_score.py), so the bounds below leave room; passing one returns -1. */
#define RS_MAX_GROUP_OPTS 32
#define RS_MAX_DECOMPS 256

typedef struct {
    RsDecomp opt[RS_MAX_GROUP_OPTS];
    int n;
    int overflow;
} RsGroupOpts;

/* hand._sets: every way to split group counts c[i..n) into sets, in the Python recursion's order
 * (at the lowest held rank a triplet first, then a run), codes already global. */
static inline void rs__sets(uint8_t *c, int i, int n, int honour, int base, RsDecomp *acc, int8_t pair,
                            RsGroupOpts *out) {
    while (i < n && c[i] == 0) i++;
    if (i == n) {
        if (out->n == RS_MAX_GROUP_OPTS) {
            out->overflow = 1;
            return;
        }
        out->opt[out->n] = *acc;
        out->opt[out->n].pair = pair;
        out->n++;
        return;
    }
    if (acc->n == 4) return; /* more than four sets: more tiles than a hand holds */
    if (c[i] >= 3) {
        c[i] -= 3;
        acc->sets[acc->n++] = (uint8_t)(base + i);
        rs__sets(c, i, n, honour, base, acc, pair, out);
        acc->n--;
        c[i] += 3;
    }
    if (!honour && i <= 6 && c[i + 1] && c[i + 2]) {
        c[i]--, c[i + 1]--, c[i + 2]--;
        acc->sets[acc->n++] = (uint8_t)(34 + base + i);
        rs__sets(c, i, n, honour, base, acc, pair, out);
        acc->n--;
        c[i]++, c[i + 1]++, c[i + 2]++;
    }
}

/* hand._group: the set lists of one group, with a pair (pair = its type) when its size is 2 mod 3. */
static inline void rs__group(const uint8_t *c34, int g, int with_pair, RsGroupOpts *out) {
    int n = rs__group_len(g), base = 9 * g;
    uint8_t c[9];
    RsDecomp acc;
    memcpy(c, c34 + base, (size_t)n);
    out->n = 0;
    out->overflow = 0;
    acc.n = 0;
    acc.pair = -1;
    if (!with_pair) {
        rs__sets(c, 0, n, g == 3, base, &acc, -1, out);
        return;
    }
    for (int r = 0; r < n; r++) {
        if (c[r] < 2) continue;
        c[r] -= 2;
        rs__sets(c, 0, n, g == 3, base, &acc, (int8_t)(base + r), out);
        c[r] += 2;
    }
}

/* hand.decompose: every regular decomposition, in the Python order: the pair group's lists outermost,
 * then the other held groups in group order, the last one varying fastest; sets listed pair group
 * first, then the others in group order. Returns the count, -1 when a bound is passed. */
static inline int rs__decompose(const uint8_t c[34], RsDecomp *out) {
    RsGroupOpts groups[4];
    int pair_g = -1, rest[3], n_rest = 0;
    for (int g = 0; g < 4; g++) {
        int s = rs__group_sum(c, g), m = s % 3;
        if (m == 1) return 0;
        if (m == 2) {
            if (pair_g >= 0) return 0;
            pair_g = g;
        } else if (s == 0) {
            continue;
        } else {
            if (n_rest == 3) return 0; /* four groups of sets only: no pair */
            rest[n_rest++] = g;
        }
        /* cheap test before listing: most non-winning hands stop here */
        if (m == 2 ? !rs__sets_and_pair(c + 9 * g, rs__group_len(g), g == 3)
                   : !rs__sets_only(c + 9 * g, rs__group_len(g), g == 3))
            return 0;
    }
    if (pair_g < 0) return 0;
    rs__group(c, pair_g, 1, &groups[pair_g]);
    if (groups[pair_g].overflow) return -1;
    for (int k = 0; k < n_rest; k++) {
        rs__group(c, rest[k], 0, &groups[rest[k]]);
        if (groups[rest[k]].overflow) return -1;
    }
    int total = groups[pair_g].n;
    for (int k = 0; k < n_rest; k++) total *= groups[rest[k]].n;
    if (total > RS_MAX_DECOMPS) return -1;
    int nd = 0;
    for (int p = 0; p < groups[pair_g].n; p++) {
        int idx[3] = {0, 0, 0};
        for (;;) {
            RsDecomp d = groups[pair_g].opt[p];
            for (int k = 0; k < n_rest; k++) {
                const RsDecomp *o = &groups[rest[k]].opt[idx[k]];
                for (int j = 0; j < o->n; j++) d.sets[d.n++] = o->sets[j];
            }
            out[nd++] = d;
            int k = n_rest - 1; /* odometer: the last group fastest */
            while (k >= 0 && ++idx[k] == groups[rest[k]].n) idx[k--] = 0;
            if (k < 0) break;
        }
    }
    return nd;
}

/* ---------------------------------------------------------------- yaku (yaku.py) */

/* yaku.situational: yaku of the win's situation. */
static inline uint64_t rs__situational(const RsContext *ctx, int menzen) {
    uint64_t y = 0;
    if (ctx->is_double_riichi) y |= RS_BIT(RS_Y_DOUBLE_RIICHI);
    else if (ctx->is_riichi) y |= RS_BIT(RS_Y_RIICHI);
    if (ctx->is_ippatsu) y |= RS_BIT(RS_Y_IPPATSU);
    if (ctx->is_tsumo && menzen) y |= RS_BIT(RS_Y_MENZEN_TSUMO);
    if (ctx->is_rinshan) y |= RS_BIT(RS_Y_RINSHAN);
    if (ctx->is_chankan) y |= RS_BIT(RS_Y_CHANKAN);
    if (ctx->is_haitei) y |= RS_BIT(RS_Y_HAITEI);
    if (ctx->is_houtei) y |= RS_BIT(RS_Y_HOUTEI);
    return y;
}

/* yaku.tile_yaku: yakuman and yaku decided by the counts of all tiles (melds included, a kan 4). In a
 * regular or seven-pairs hand an honour held 3-4 times is a triplet or kan and one held twice the pair.
 * Sets *ym (yakuman bits) and returns the yaku bits (none when there is a yakuman). */
static inline uint64_t rs__tile_yaku(const uint8_t c[34], int menzen, int kans, int seat, int round,
                                     uint64_t *ym) {
    int s[3] = {0, 0, 0}, wind = c[27] + c[28] + c[29] + c[30], dragon = c[31] + c[32] + c[33];
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < 9; i++) s[g] += c[9 * g + i];
    int honours = wind + dragon, total = s[0] + s[1] + s[2] + honours;
    int terms = c[0] + c[8] + c[9] + c[17] + c[18] + c[26];
    int nsuits = (s[0] > 0) + (s[1] > 0) + (s[2] > 0);
    uint64_t y = 0;
    *ym = 0;
    /* yakuman */
    if (dragon >= 9 && c[31] >= 3 && c[32] >= 3 && c[33] >= 3) *ym |= RS_BIT(RS_Y_DAISANGEN);
    if (honours == total) *ym |= RS_BIT(RS_Y_TSUUIISOU);
    else if (s[1] == 0 && s[2] == 0 && c[1] + c[2] + c[3] + c[5] + c[7] + c[32] == total)
        *ym |= RS_BIT(RS_Y_RYUUIISOU); /* all green: 23468s and the green dragon (not needed) */
    if (terms == total) *ym |= RS_BIT(RS_Y_CHINROUTOU);
    if (wind >= 11) {
        int trips = (c[27] >= 3) + (c[28] >= 3) + (c[29] >= 3) + (c[30] >= 3);
        int pairs = (c[27] == 2) + (c[28] == 2) + (c[29] == 2) + (c[30] == 2);
        if (trips == 4) *ym |= RS_BIT(RS_Y_DAISUUSHII);
        else if (trips == 3 && pairs == 1) *ym |= RS_BIT(RS_Y_SHOUSUUSHII);
    }
    if (kans == 4) *ym |= RS_BIT(RS_Y_SUUKANTSU);
    if (*ym) return 0;
    /* yaku */
    if (honours == 0 && terms == 0) y |= RS_BIT(RS_Y_TANYAO);
    if (nsuits == 1) y |= RS_BIT(honours ? RS_Y_HONITSU : RS_Y_CHINITSU);
    if (honours && terms && honours + terms == total) y |= RS_BIT(RS_Y_HONROUTOU);
    if (dragon >= 3) {
        for (int i = 0; i < 3; i++)
            if (c[31 + i] >= 3) y |= RS_BIT(RS_Y_HAKU + i);
        int lo = c[31] < c[32] ? c[31] : c[32];
        if (c[33] < lo) lo = c[33];
        if (dragon >= 8 && lo == 2) y |= RS_BIT(RS_Y_SHOUSANGEN);
    }
    (void)menzen; /* honitsu/chinitsu's open han come from rs_yaku_han */
    if (c[27 + seat] >= 3) y |= RS_BIT(RS_Y_SEAT_WIND + seat);
    if (c[27 + round] >= 3) y |= RS_BIT(RS_Y_ROUND_WIND + round);
    return y;
}

/* yaku.set_yaku: yaku of one regular decomposition, melds' codes included. */
static inline uint64_t rs__set_yaku(int pair, const uint8_t *sets, int n, int menzen, int kans) {
    int runs[4], trips[4], nr = 0, nt = 0;
    uint64_t y = 0;
    for (int i = 0; i < n; i++) {
        if (sets[i] >= 34) runs[nr++] = sets[i] - 34;
        else trips[nt++] = sets[i];
    }
    if (menzen && nr >= 2) { /* twin runs: count disjoint equal pairs among the sorted runs */
        int rs[4];
        memcpy(rs, runs, sizeof(int) * (size_t)nr);
        for (int i = 1; i < nr; i++)
            for (int j = i; j > 0 && rs[j - 1] > rs[j]; j--) {
                int x = rs[j];
                rs[j] = rs[j - 1];
                rs[j - 1] = x;
            }
        int pairs = 0;
        for (int i = 0; i + 1 < nr;) {
            if (rs[i] == rs[i + 1]) {
                pairs++;
                i += 2;
            } else {
                i++;
            }
        }
        if (pairs == 2) y |= RS_BIT(RS_Y_RYANPEIKOU);
        else if (pairs == 1) y |= RS_BIT(RS_Y_IIPEIKOU);
    }
    if (nr >= 3) {
        int has[27] = {0};
        for (int i = 0; i < nr; i++) has[runs[i]] = 1;
        for (int r = 0; r < 7; r++)
            if (has[r] && has[r + 9] && has[r + 18]) {
                y |= RS_BIT(RS_Y_SANSHOKU_DOUJUN);
                break;
            }
        for (int s = 0; s < 27; s += 9)
            if (has[s] && has[s + 3] && has[s + 6]) {
                y |= RS_BIT(RS_Y_ITTSU);
                break;
            }
    }
    if (nr) { /* every set and the pair hold a terminal or honour */
        int ok = rs_terminal_or_honour(pair), honour = pair >= 27;
        for (int i = 0; i < nt && ok; i++) {
            ok = rs_terminal_or_honour(trips[i]);
            honour |= trips[i] >= 27;
        }
        for (int i = 0; i < nr && ok; i++) ok = runs[i] % 9 == 0 || runs[i] % 9 == 6;
        if (ok) y |= RS_BIT(honour ? RS_Y_CHANTA : RS_Y_JUNCHAN);
    } else {
        y |= RS_BIT(RS_Y_TOITOI);
    }
    if (nt >= 3) {
        int has[34] = {0};
        for (int i = 0; i < nt; i++) has[trips[i]] = 1;
        for (int r = 0; r < 9; r++)
            if (has[r] && has[r + 9] && has[r + 18]) {
                y |= RS_BIT(RS_Y_SANSHOKU_DOUKOU);
                break;
            }
    }
    if (kans == 3) y |= RS_BIT(RS_Y_SANKANTSU);
    return y;
}

/* yaku.chuuren: nine gates, a closed hand without melds, 14 tiles of one suit over 1112345678999. */
static inline uint64_t rs__chuuren(const uint8_t c[34], int win34) {
    static const uint8_t pattern[9] = {3, 1, 1, 1, 1, 1, 1, 1, 3};
    for (int s = 0; s < 27; s += 9) {
        int sum = 0;
        for (int i = 0; i < 9; i++) sum += c[s + i];
        if (sum != 14) continue;
        int extra_at = -1;
        for (int i = 0; i < 9; i++) {
            if (c[s + i] < pattern[i]) return 0;
            if (c[s + i] > pattern[i]) extra_at = i;
        }
        /* junsei: the winning tile is the one beyond the pattern (a nine-sided wait) */
        if (win34 >= s && win34 < s + 9 && extra_at == win34 - s) return RS_BIT(RS_Y_JUNSEI_CHUUREN);
        return RS_BIT(RS_Y_CHUUREN);
    }
    return 0;
}

/* ---------------------------------------------------------------- fu (fu.py) */

enum { RS_RYANMEN, RS_SHANPON, RS_KANCHAN, RS_PENCHAN };

/* fu.finish: round up to 10; an open hand without any fu (open pinfu shape) is 30. */
static inline int rs__finish(int fu, int menzen) {
    if (fu == 20 && !menzen) return 30;
    return (fu + 9) / 10 * 10;
}

/* fu.wait_kind: the wait a set had before the winning tile completed it. */
static inline int rs__wait_kind(int code, int win34) {
    if (code < 34) return RS_SHANPON;
    int r = code - 34;
    if (win34 == r + 1) return RS_KANCHAN;
    if ((win34 == r + 2 && r % 9 == 0) || (win34 == r && r % 9 == 6)) return RS_PENCHAN;
    return RS_RYANMEN;
}

/* One reading of a decomposition: the set (or pair) the winning tile completed. */
typedef struct {
    int fu, pinfu, ron_trip;
} RsReading;

/* fu.readings: each reading's fu, pinfu flag and whether a ron completed a concealed triplet (then
 * counted open). `meld_fu` is the fu of the melds; a set code read twice in a row (twin runs) counts
 * once. Returns the number of readings (at most 5). */
static inline int rs__readings(const RsDecomp *d, int meld_fu, int n_melds, int win34, int tsumo, int menzen,
                               int seat, int round, RsReading *out) {
    int pair = d->pair, pf;
    if (pair >= 31) pf = 2;
    else pf = 2 * (pair == 27 + seat) + 2 * (pair == 27 + round);
    int fixed = 20 + pf + meld_fu, all_runs = n_melds == 0 && pf == 0;
    for (int i = 0; i < d->n; i++)
        if (d->sets[i] < 34) {
            fixed += rs_terminal_or_honour(d->sets[i]) ? 8 : 4;
            all_runs = 0;
        }
    if (tsumo) fixed += 2;
    else if (menzen) fixed += 10;
    int n = 0, seen = -1;
    for (int i = 0; i < d->n; i++) {
        int s = d->sets[i];
        if (s == seen) continue;
        if (s < 34) {
            if (s != win34) continue;
            int f = fixed;
            if (!tsumo) f -= rs_terminal_or_honour(s) ? 4 : 2; /* the ron made this triplet: open */
            out[n].fu = rs__finish(f, menzen);
            out[n].pinfu = 0;
            out[n].ron_trip = !tsumo;
            n++;
        } else if (s - 34 <= win34 && win34 <= s - 32) {
            if (rs__wait_kind(s, win34) == RS_RYANMEN) {
                if (all_runs) {
                    out[n].fu = tsumo ? 20 : 30;
                    out[n].pinfu = 1;
                } else {
                    out[n].fu = rs__finish(fixed, menzen);
                    out[n].pinfu = 0;
                }
            } else {
                out[n].fu = rs__finish(fixed + 2, menzen);
                out[n].pinfu = 0;
            }
            out[n].ron_trip = 0;
            n++;
        } else {
            continue;
        }
        seen = s;
    }
    if (pair == win34) { /* tanki */
        out[n].fu = rs__finish(fixed + 2, menzen);
        out[n].pinfu = 0;
        out[n].ron_trip = 0;
        n++;
    }
    return n;
}

/* fu.set_fu for a meld: 2 simples / 4 terminals-honours, doubled concealed, x4 a kan; runs 0. */
static inline int rs__meld_fu(int code, int concealed, int kan) {
    if (code >= 34) return 0;
    int f = rs_terminal_or_honour(code) ? 4 : 2;
    if (concealed) f *= 2;
    if (kan) f *= 4;
    return f;
}

/* ---------------------------------------------------------------- points (scoring.py) */

/* scoring.basic_points: basic points and the limit (no kiriage; kazoe yakuman at 13+ han). */
static inline int rs__basic_points(int han, int fu, int yakuman, int *limit) {
    if (yakuman) return *limit = RS_YAKUMAN, 8000 * yakuman;
    if (han >= 13) return *limit = RS_KAZOE_YAKUMAN, 8000;
    if (han >= 11) return *limit = RS_SANBAIMAN, 6000;
    if (han >= 8) return *limit = RS_BAIMAN, 4000;
    if (han >= 6) return *limit = RS_HANEMAN, 3000;
    int base = fu * (1 << (han + 2));
    if (han >= 5 || base > 2000) return *limit = RS_MANGAN, 2000;
    *limit = RS_LIMIT_NONE;
    return base;
}

static inline int rs__ceil100(int x) { return (x + 99) / 100 * 100; }

/* scoring.payments: ron 4x basic (dealer 6x); tsumo 1x from each non-dealer and 2x from the dealer
 * (dealer tsumo 2x from each); each payment rounded up to 100. */
static inline void rs__payments(RsResult *r, int tsumo) {
    int base = r->base;
    r->ron = r->tsumo_dealer = r->tsumo_nondealer = 0;
    if (tsumo) {
        if (r->dealer) {
            r->tsumo_nondealer = rs__ceil100(2 * base);
            r->total = 3 * r->tsumo_nondealer;
        } else {
            r->tsumo_dealer = rs__ceil100(2 * base);
            r->tsumo_nondealer = rs__ceil100(base);
            r->total = r->tsumo_dealer + 2 * r->tsumo_nondealer;
        }
    } else {
        r->ron = rs__ceil100((r->dealer ? 6 : 4) * base);
        r->total = r->ron;
    }
}

/* scoring.score_hand (without the input checks, which stay in Python; malformed counts give -1). */
static inline int rs_score(const RsHand *h, const RsContext *ctx, RsResult *out) {
    const uint8_t *cc = h->c34;
    uint8_t ac[34]; /* all tiles, melds included */
    RsDecomp decomps[RS_MAX_DECOMPS];
    int n_melds = h->n_melds, win34 = h->win34, tsumo = ctx->is_tsumo != 0;
    int seat = ctx->seat_wind & 3, round = ctx->round_wind & 3;
    int kans = 0, ankans = 0, menzen = 1, meld_fu = 0, total = 0;
    uint8_t meld_codes[4];

    memset(out, 0, sizeof(*out));
    if (n_melds > 4 || win34 >= 34) return -1;
    for (int t = 0; t < 34; t++) {
        if (cc[t] > 4) return -1;
        total += cc[t];
    }
    if (total > 14) return -1;
    memcpy(ac, cc, 34);
    int aka = h->red[0] + h->red[1] + h->red[2];
    for (int i = 0; i < n_melds; i++) {
        const RsMeld *m = &h->melds[i];
        int t = m->type;
        aka += m->red;
        if (m->kind == RS_CHI) {
            if (t >= 27 || t % 9 > 6) return -1;
            ac[t]++, ac[t + 1]++, ac[t + 2]++;
            meld_codes[i] = (uint8_t)(34 + t);
            menzen = 0;
        } else {
            if (t >= 34 || m->kind > RS_KAKAN) return -1;
            int kan = m->kind != RS_PON, closed = m->kind == RS_ANKAN;
            ac[t] += kan ? 4 : 3;
            meld_codes[i] = (uint8_t)t;
            kans += kan;
            ankans += closed;
            if (!closed) menzen = 0;
            meld_fu += rs__meld_fu(t, closed, kan);
        }
    }
    for (int t = 0; t < 34; t++)
        if (ac[t] > 4) return -1;
    int nd = rs__decompose(cc, decomps);
    if (nd < 0) return -1;
    int chiitoi = 0, kokushi = 0;
    if (n_melds) {
        if (!nd) return 0;
    } else {
        chiitoi = rs__is_seven_pairs(cc);
        if (!nd && !chiitoi) {
            kokushi = rs__is_thirteen_orphans(cc);
            if (!kokushi) return 0;
        }
    }
    out->dealer = seat == 0;
    out->menzen = menzen;

    /* --- yakuman */
    uint64_t ym = 0, tyk = 0;
    if (ctx->is_tenhou) ym |= RS_BIT(RS_Y_TENHOU);
    if (ctx->is_chiihou) ym |= RS_BIT(RS_Y_CHIIHOU);
    if (kokushi) {
        ym |= RS_BIT(cc[win34] == 2 ? RS_Y_KOKUSHI_13 : RS_Y_KOKUSHI);
    } else {
        uint64_t tym;
        tyk = rs__tile_yaku(ac, menzen, kans, seat, round, &tym);
        ym |= tym;
        if (!n_melds) ym |= rs__chuuren(cc, win34);
        if (menzen) { /* four concealed triplets: tanki on the pair, or any tsumo */
            for (int k = 0; k < nd; k++) {
                int trips = ankans;
                for (int i = 0; i < decomps[k].n; i++) trips += decomps[k].sets[i] < 34;
                if (trips != 4) continue;
                if (decomps[k].pair == win34) {
                    ym |= RS_BIT(RS_Y_SUUANKOU_TANKI);
                    break;
                }
                if (tsumo) {
                    ym |= RS_BIT(RS_Y_SUUANKOU);
                    break;
                }
            }
        }
    }
    RsReading rd[8];
    if (ym) {
        int n = 0, best_fu = chiitoi ? 25 : 0;
        for (int id = RS_Y_TENHOU; id < RS_NUM_YAKU; id++) n += (int)((ym >> id) & 1);
        for (int k = 0; k < nd; k++) {
            int nr = rs__readings(&decomps[k], meld_fu, n_melds, win34, tsumo, menzen, seat, round, rd);
            for (int j = 0; j < nr; j++)
                if (rd[j].fu > best_fu) best_fu = rd[j].fu;
        }
        out->han = 13 * n;
        out->fu = best_fu;
        out->yakuman = n;
        out->yaku = ym;
        out->base = rs__basic_points(0, 0, n, &out->limit);
        rs__payments(out, tsumo);
        return 1;
    }

    /* --- ordinary yaku */
    uint64_t common = rs__situational(ctx, menzen) | tyk;
    int common_han = 0;
    for (int id = 0; id < RS_Y_TENHOU; id++)
        if ((common >> id) & 1) common_han += rs_yaku_han(id, menzen);
    int dora = 0, ura = 0;
    for (int i = 0; i < ctx->n_dora && i < RS_MAX_INDICATORS; i++) dora += ac[rs_dora_of(ctx->dora[i])];
    if (ctx->is_riichi || ctx->is_double_riichi)
        for (int i = 0; i < ctx->n_ura && i < RS_MAX_INDICATORS; i++) ura += ac[rs_dora_of(ctx->ura[i])];
    int nbonus = dora + ura + aka;

    int have = 0, b_base = 0, b_han = 0, b_fu = 0, limit;
    uint64_t b_yaku = 0;
    if (chiitoi) { /* chiitoitsu is itself a yaku */
        b_han = common_han + 2 + nbonus;
        b_fu = 25;
        b_base = rs__basic_points(b_han, b_fu, 0, &limit);
        b_yaku = common | RS_BIT(RS_Y_CHIITOITSU);
        have = 1;
    }
    for (int k = 0; k < nd; k++) {
        const RsDecomp *d = &decomps[k];
        uint8_t all_sets[8];
        int n_all = 0, trips = ankans;
        for (int i = 0; i < d->n; i++) {
            all_sets[n_all++] = d->sets[i];
            trips += d->sets[i] < 34;
        }
        for (int i = 0; i < n_melds; i++) all_sets[n_all++] = meld_codes[i];
        uint64_t dy = rs__set_yaku(d->pair, all_sets, n_all, menzen, kans);
        int dy_han = common_han;
        for (int id = RS_Y_CHIITOITSU; id < RS_Y_PINFU; id++)
            if ((dy >> id) & 1) dy_han += rs_yaku_han(id, menzen);
        int nr = rs__readings(d, meld_fu, n_melds, win34, tsumo, menzen, seat, round, rd);
        for (int j = 0; j < nr; j++) {
            int han = dy_han + rd[j].pinfu, ankou = trips - rd[j].ron_trip;
            if (ankou == 3) han += 2; /* sanankou (four would be suuankou, a yakuman above) */
            if (han == 0) continue;  /* dora alone is no yaku */
            han += nbonus;
            int base = rs__basic_points(han, rd[j].fu, 0, &limit);
            if (!have || base > b_base || (base == b_base && (han > b_han || (han == b_han && rd[j].fu > b_fu)))) {
                have = 1;
                b_base = base;
                b_han = han;
                b_fu = rd[j].fu;
                b_yaku = common | dy;
                if (rd[j].pinfu) b_yaku |= RS_BIT(RS_Y_PINFU);
                if (ankou == 3) b_yaku |= RS_BIT(RS_Y_SANANKOU);
            }
        }
    }
    if (!have) return 0;
    out->han = b_han;
    out->fu = b_fu;
    out->yaku = b_yaku;
    out->dora = dora;
    out->ura = ura;
    out->aka = aka;
    out->base = rs__basic_points(b_han, b_fu, 0, &out->limit);
    rs__payments(out, tsumo);
    return 1;
}

/* ---------------------------------------------------------------- tenpai with a yaku (scoring.py) */

/* scoring.tenpai_has_yaku on counts: some wait, with a copy left outside the hand and melds, wins by
 * ron with a yaku (winds only; red fives change no yaku, only the bonus). */
static inline int rs_tenpai_has_yaku(const uint8_t c34[34], const RsMeld *melds, int n_melds, int seat_wind,
                                     int round_wind) {
    uint8_t w[34];
    if (n_melds < 0 || n_melds > 4 || rs_waits(c34, w) <= 0) return 0;
    uint8_t seen[34]; /* copies of each type in the hand and melds */
    memcpy(seen, c34, 34);
    RsHand h;
    memset(&h, 0, sizeof(h));
    memcpy(h.c34, c34, 34);
    h.n_melds = (uint8_t)n_melds;
    for (int i = 0; i < n_melds; i++) {
        const RsMeld *m = &melds[i];
        h.melds[i] = *m;
        h.melds[i].red = 0;
        if (m->type >= 34) return 0;
        if (m->kind == RS_CHI) {
            if (m->type >= 25) return 0;
            seen[m->type]++, seen[m->type + 1]++, seen[m->type + 2]++;
        } else {
            seen[m->type] += m->kind == RS_PON ? 3 : 4;
        }
    }
    RsContext ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.seat_wind = (uint8_t)(seat_wind & 3);
    ctx.round_wind = (uint8_t)(round_wind & 3);
    RsResult r;
    for (int t = 0; t < 34; t++) {
        if (!w[t] || seen[t] >= 4) continue;
        h.c34[t]++;
        h.win34 = (uint8_t)t;
        int ok = rs_score(&h, &ctx, &r);
        h.c34[t]--;
        if (ok > 0) return 1;
    }
    return 0;
}

/* hand.may_leave_tenpai: a quick necessary condition for some discard of a 3n + 2 tile part to leave
 * tenpai. A discard changes one group and the winning tile one more, so in the regular form at most
 * two groups may be incomplete now; seven pairs needs six pairs, thirteen orphans twelve orphan types. */
static inline int rs__may_leave_tenpai(const uint8_t c[34]) {
    int incomplete = 0, total = 0;
    for (int g = 0; g < 4; g++) {
        int sum = rs__group_sum(c, g), m = sum % 3, n = rs__group_len(g);
        total += sum;
        if (m == 1) incomplete++;
        else if (sum && !(m == 2 ? rs__sets_and_pair(c + 9 * g, n, g == 3) : rs__sets_only(c + 9 * g, n, g == 3)))
            incomplete++;
    }
    if (incomplete <= 2) return 1;
    if (total == 14) {
        int pairs = 0, orphan_types = 0;
        for (int t = 0; t < 34; t++) pairs += c[t] >= 2;
        for (int i = 0; i < 13; i++) orphan_types += c[RS_ORPHANS[i]] > 0;
        if (pairs >= 6 || orphan_types >= 12) return 1;
    }
    return 0;
}

/* scoring.discards_tenpai_yaku on counts: per held type, whether discarding a copy leaves a tenpai
 * with a yaku. */
static inline int rs_discards_tenpai_yaku(const uint8_t c34[34], const RsMeld *melds, int n_melds, int seat_wind,
                                          int round_wind, uint8_t out34[34]) {
    uint8_t c[34];
    int n = 0;
    memcpy(c, c34, 34);
    memset(out34, 0, 34);
    if (!rs__may_leave_tenpai(c)) return 0;
    for (int t = 0; t < 34; t++) {
        if (!c[t]) continue;
        c[t]--;
        out34[t] = (uint8_t)rs_tenpai_has_yaku(c, melds, n_melds, seat_wind, round_wind);
        c[t]++;
        n += out34[t];
    }
    return n;
}

#endif /* MJENV_RIICHI_SCORE_H */
