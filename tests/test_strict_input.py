"""Bad input is a ValueError saying what was wrong and what is allowed.

- Counts are checked on the values as given, before any cast: 65,536 as int16 is 0, so a check after
  the cast accepted it (``deficiency(h)`` with ``h[0] = 65536`` answered 2; a KB entry of -65535
  passed; the notation parser counted "1s" 65,538 times as 2).
- Unknown keyword options are a ValueError naming the method's options, for every method.
- ``deficiency_after_claim(h, discard=27)`` is a ValueError, not an IndexError.
- ``replay(log, steps=-1)`` is a ValueError, not "one step less".
- Full-width and other non-ASCII digits are not read as ASCII digits.

Property-based (hypothesis): every malformed count array or notation raises a ValueError naming the
problem and the allowed values; every valid notation parses to the counts it was written from.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mjenv
import mjenv.deficiency as dfc
from mjenv import tiles
from mjenv.deficiency import (
    deficiency,
    deficiency_after_claim,
    deficiency_after_discard,
    effective_tiles,
    is_complete,
)
from mjenv.deficiency._validate import METHOD_OPTIONS, METHODS
from mjenv.env import replay_observations
from mjenv.game import Game, log_rules, replay

from .game_helpers import play_random

HAND = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 0, 0, 0])  # 14 tiles
HAND13 = HAND.copy()
HAND13[19] = 1
#: every public entry point that takes counts, as f(hand, kb)
ENTRY_POINTS = {
    "deficiency": lambda h, k: deficiency(h, k),
    "deficiency hbba": lambda h, k: deficiency(h, k, method="hbba"),
    "deficiency dp": lambda h, k: deficiency(h, k, method="dp"),
    "deficiency bda": lambda h, k: deficiency(h, k, method="bda"),
    "deficiency_after_discard": lambda h, k: deficiency_after_discard(h, k),
    "effective_tiles": lambda h, k: effective_tiles(h, k),
}
COUNT_MESSAGE = r"counts must be integers 0\.\.4"


# --------------------------------------------------------------------------- counts wrap
@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@pytest.mark.parametrize("value", [65536, 256, -65535, 2**32, -(2**32) + 1, 2**63 - 1])
def test_a_count_that_wraps_to_a_valid_one_is_rejected(name, value):
    bad = HAND.astype(np.int64)
    bad[0] = value  # as int16 or int8 this would read as 0 or 1
    with pytest.raises(ValueError, match=COUNT_MESSAGE):
        ENTRY_POINTS[name](bad, None)
    kb = np.zeros(27, dtype=np.int64)
    kb[26] = value
    with pytest.raises(ValueError, match=COUNT_MESSAGE):
        ENTRY_POINTS[name](HAND, kb)


def test_the_issues_examples():
    h = HAND.copy()
    h[0] = 65536  # "deficiency(h) returns 1"
    with pytest.raises(ValueError, match="hand count 65536 for tile 1s .* out of range"):
        deficiency(h)
    kb = np.zeros(27, dtype=np.int64)
    kb[5] = -65535  # "a KB entry of -65535 passes"
    with pytest.raises(ValueError, match="kb count -65535 for tile 6s .* out of range"):
        deficiency(HAND, kb)
    with pytest.raises(ValueError, match="65538 copies of 1s; at most 4"):
        tiles.parse("1s" * 65538)


def test_claims_and_is_complete_check_counts_before_casting():
    h = HAND13.astype(np.int64)
    h[0] = 65537
    with pytest.raises(ValueError, match=COUNT_MESSAGE):
        deficiency_after_claim(h, discard=3)
    with pytest.raises(ValueError, match=COUNT_MESSAGE):
        is_complete(np.where(np.arange(27) == 0, 65536, HAND))


def test_unsigned_64_bit_counts_are_read_whole():
    h = HAND.astype(np.uint64)
    h[0] = 2**64 - 1  # as int64 this is -1; as int8 it is -1 too
    with pytest.raises(ValueError, match="18446744073709551615 .* out of range"):
        deficiency(h)
    assert deficiency(HAND.astype(np.uint64)) == deficiency(HAND)


def test_floats_must_be_whole_numbers_and_booleans_are_not_counts():
    assert deficiency(HAND.astype(np.float32)) == deficiency(HAND)
    for bad, what in ((0.5, "not a whole number"), (np.nan, "not a whole number"), (np.inf, "not a whole number"),
                      (65536.0, "out of range")):
        h = HAND.astype(np.float64)
        h[3] = bad
        with pytest.raises(ValueError, match=what):
            deficiency(h)
    with pytest.raises(ValueError, match="booleans"):
        deficiency(np.ones(27, dtype=bool))


def test_batch_errors_name_the_row():
    batch = np.stack([HAND, HAND, HAND]).astype(np.int32)
    batch[2, 4] = 70000
    with pytest.raises(ValueError, match=r"batch row 2\).*0\.\.4"):
        deficiency(batch)


# --------------------------------------------------------------------------- options
@pytest.mark.parametrize("method", METHODS)
def test_an_unknown_option_is_a_value_error_for_every_method(method):
    with pytest.raises(ValueError, match=rf"method '{method}' takes no option 'colour'; its options: "):
        deficiency(HAND, method=method, colour="red")


@pytest.mark.parametrize("method", [m for m in METHODS if m != "auto"])
def test_the_option_table_matches_each_backend(method):
    backend = dfc._backend(method).deficiency_batch
    keywords = [p.name for p in inspect.signature(backend).parameters.values() if p.kind is p.KEYWORD_ONLY]
    keywords += [p.name for p in list(inspect.signature(backend).parameters.values())[3:]
                 if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert sorted(keywords) == sorted(METHOD_OPTIONS[method])


def test_known_options_still_work():
    assert deficiency(HAND, method="bda", variant="paper") == deficiency(HAND)
    assert deficiency(HAND, method="ndde", seed=3) >= 0


# --------------------------------------------------------------------------- claims
@pytest.mark.parametrize("discard", [27, 34, -1, 2**63 - 1, 1.5, True, "1s", [0, 1]])
def test_claim_discard_out_of_range_is_a_value_error(discard):
    with pytest.raises(ValueError, match=r"discard must be a tile id .*0\.\.26"):
        deficiency_after_claim(HAND13, discard=discard)
    with pytest.raises(ValueError, match=r"discard must be a tile id .*0\.\.26"):
        deficiency_after_claim(HAND13, 4 - HAND13 - np.eye(27, dtype=int)[0], discard=discard)


def test_claim_discard_boundaries_are_accepted():
    assert deficiency_after_claim(HAND13, discard=0).shape == (5,)
    assert deficiency_after_claim(HAND13, discard=26).shape == (5,)
    assert deficiency_after_claim(np.r_[HAND13, np.zeros(7, int)], discard=33).shape == (5,)


# --------------------------------------------------------------------------- replay
@pytest.fixture(scope="module")
def hand_log():
    return play_random(Game("basic", seed=5), np.random.default_rng(5)).log


@pytest.mark.parametrize("steps", [-1, -5, 10**6, 1.0, True, "3"])
def test_replay_rejects_steps_it_cannot_replay(hand_log, steps):
    with pytest.raises(ValueError, match=rf"steps must be None \(all\) or an int in 0\.\.{len(hand_log['steps'])}"):
        replay(hand_log, steps=steps)


def test_replay_step_boundaries(hand_log):
    n = len(hand_log["steps"])
    assert replay(hand_log, steps=0).log["steps"] == []
    assert len(replay(hand_log, steps=n - 1).log["steps"]) == n - 1
    assert replay(hand_log, steps=n).log["steps"] == replay(hand_log).log["steps"]
    assert len(replay(hand_log, steps=np.int64(2)).log["steps"]) == 2


# --------------------------------------------------------------------------- digits
@pytest.mark.parametrize("text", ["１２３s", "12３s", "B１B2", "٣s", "१s", "(B1)(C²)", "1s²s", "Z７"])
def test_non_ascii_digits_are_rejected(text):
    with pytest.raises(ValueError, match="ASCII"):
        tiles.parse(text)


# --------------------------------------------------------------------------- properties: counts
DTYPES = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])


@st.composite
def malformed_counts(draw):
    """(hand, kb, which): one count of the hand or the KB out of 0..4, in a dtype that can hold it."""
    dtype = np.dtype(draw(DTYPES))
    info = np.iinfo(dtype)
    ranges = [st.integers(5, int(info.max))] + ([st.integers(int(info.min), -1)] if info.min < 0 else [])
    bad = draw(st.one_of(*ranges))
    which = draw(st.sampled_from(["hand", "kb"]))
    tile = draw(st.integers(0, 26))
    hand = HAND.astype(dtype)
    kb = np.zeros(27, dtype=dtype)
    (hand if which == "hand" else kb)[tile] = bad
    return hand, kb, which, bad


@settings(max_examples=150, deadline=None)
@given(malformed_counts(), st.sampled_from(list(ENTRY_POINTS)))
def test_every_out_of_range_count_is_named(case, name):
    hand, kb, which, bad = case
    with pytest.raises(ValueError, match=rf"{which} count {bad} for tile .*out of range; {COUNT_MESSAGE}"):
        ENTRY_POINTS[name](hand, kb)


@settings(max_examples=60, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True).filter(lambda v: not (v == int(v) if np.isfinite(v) else False)),
       st.integers(0, 26))
def test_every_fractional_count_is_named(value, tile):
    hand = HAND.astype(np.float64)
    hand[tile] = value
    with pytest.raises(ValueError, match=rf"not a whole number; {COUNT_MESSAGE}"):
        deficiency(hand)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8).filter(
    lambda s: s not in METHODS))
def test_every_unknown_method_is_named(method):
    with pytest.raises(ValueError, match="unknown method .*; allowed 'auto', 'hbba', 'bda', 'dp', 'ndde'"):
        deficiency(HAND, method=method)


# --------------------------------------------------------------------------- properties: notation
def mps_text(counts: np.ndarray, groups: list[int], spaces: list[bool]) -> str:
    """An mps string for ``counts`` whose tiles of each suit are split into runs at ``groups``."""
    out = []
    for letter, offset, n in (("s", 0, 9), ("m", 9, 9), ("p", 18, 9), ("z", 27, 7)):
        digits = "".join(str(r + 1) * int(counts[offset + r]) for r in range(n))
        cut = groups.pop() % (len(digits) + 1) if groups else 0
        for part in (digits[:cut], digits[cut:]):
            if part:
                out.append(part + letter + (" " if spaces and spaces.pop() else ""))
    return "".join(out)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=34, max_size=34), st.lists(st.integers(0, 40), max_size=4),
       st.lists(st.booleans(), max_size=8))
def test_every_valid_mps_text_parses_to_its_counts(counts, groups, spaces):
    c = np.array(counts, dtype=np.int8)
    text = mps_text(c, list(groups), list(spaces))
    if not text:
        return  # an empty hand has no mps text
    assert (tiles.parse(text, 34) == c).all()


#: characters that are never part of the notation: non-ASCII digits, letters outside it, punctuation
BAD_CHARS = st.sampled_from(list("０１２３４５６７８９٣१x#Aa-+*/\\é²⁵") + ["\u0e53", "\u1040"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=34, max_size=34).filter(any), BAD_CHARS, st.integers(0, 200),
       st.sampled_from(["mps", "paper"]))
def test_every_malformed_text_names_the_character_and_what_is_allowed(counts, bad, where, style):
    text = tiles.format_hand(np.array(counts, dtype=np.int8), style)
    pos = where % (len(text) + 1)
    broken = text[:pos] + bad + text[pos:]
    with pytest.raises(ValueError) as err:
        tiles.parse(broken)
    msg = str(err.value)
    assert re.search(r"position \d+", msg) and ("allowed" in msg or "must" in msg), msg
    assert repr(bad) in msg or "rank" in msg or "digit" in msg, msg


# --- logs and env inputs: each of these was accepted silently or failed with the wrong error


def _random_hand(rules, seed=0):
    env = mjenv.parallel_env(rules=rules)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    while env.agents:
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    return env.game


def test_a_log_with_draw_at_and_no_flowers_replays_under_its_own_rules():
    game = _random_hand({"name": "basic", "draw_at": 16})
    assert game.end_reason == "exhaustive_draw" and game.wall_remaining == 16
    log = game.log
    assert "flowers" not in log["rules"] and log["rules"]["draw_at"] == 16
    assert replay(log).result() == game.result()
    assert log_rules(log)["draw_at"] == 16
    states = replay_observations(log)
    assert len(states) == len(log["steps"]) + 1


def test_a_log_without_the_newer_fields_still_reads_as_written_before_they_existed():
    log = _random_hand("basic").log
    old = {**log, "rules": {k: v for k, v in log["rules"].items() if k not in ("flowers", "draw_at")}}
    old["rules"]["name"] = "taiwan16"  # a taiwan16 log from before flowers: none, and the wall ran dry
    rules = log_rules(old)
    assert rules["flowers"] == 0 and rules["draw_at"] == 0


@pytest.mark.parametrize("kind", ["float", "str", "bool seat", "bool action", "repeated", "short", "not a list"])
def test_replay_refuses_a_malformed_step(kind):
    env = mjenv.parallel_env()
    obs, _ = env.reset(seed=0, options={"dealer": 1})  # the first step is seat 1's discard
    env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents})
    log = env.game.log
    [[seat, action]] = log["steps"][0]
    assert seat == 1
    bad = {  # each one the logged step in a form a log never holds (most of them read as it once)
        "float": [[seat, action + 0.5]], "str": [[seat, str(action)]], "bool seat": [[True, action]],
        "bool action": [[seat, True]], "repeated": [[seat, action], [seat, action]], "short": [[seat]],
        "not a list": f"{seat}{action}",
    }[kind]
    broken = {**log, "steps": [bad]}
    with pytest.raises(ValueError, match="replay step 0"):
        replay(broken)
    with pytest.raises(ValueError, match="replay step 0"):
        replay_observations(broken)


@pytest.mark.parametrize("version", [True, 2.0, "2"])
def test_replay_refuses_a_version_that_is_not_an_int(version):
    log = _random_hand("basic").log
    with pytest.raises(ValueError, match="version"):
        replay({**log, "version": version})


def test_vector_env_reset_takes_a_zero_dim_seed_array():
    venv = mjenv.vector_env(2)
    obs, _ = venv.reset(seed=np.array(5))
    again, _ = mjenv.vector_env(2).reset(seed=5)
    np.testing.assert_array_equal(obs["observation"], again["observation"])


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_vector_env_names_a_huge_unsigned_action_as_given(engine):
    venv = mjenv.vector_env(2, engine=engine)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=f"action {2**64 - 1} is outside the action space"):
        venv.step(np.full((2, 4), 2**64 - 1, dtype=np.uint64))


def test_aec_step_before_reset_is_a_value_error():
    with pytest.raises(ValueError, match="reset"):
        mjenv.env().step(0)
