"""Malformed, hostile and foreign Tenhou logs are refused with a ValueError naming the place."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from mjenv.riichi import replay_mjlog
from mjenv.rulesets.riichi.mjlog import MAX_LOG_CHARS, decode_meld

GOOD = (Path(__file__).parent / "data" / "mjlog" / "double-ron.mjlog").read_text()


def _refused(text, *needles):
    t0 = time.perf_counter()
    with pytest.raises(ValueError) as e:
        replay_mjlog(text)
    assert time.perf_counter() - t0 < 30  # refused, not hanging
    for n in needles:
        assert n in str(e.value), str(e.value)
    return str(e.value)


def test_broken_xml():
    _refused(GOOD[: len(GOOD) // 2], "broken XML")
    _refused("<mjloggm><INIT seed=></mjloggm>", "broken XML")


def test_entity_expansion_is_refused_before_parsing():
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(f'<!ENTITY lol{i} "' + f"&lol{i - 1 if i > 1 else ''};" * 10 + '">' for i in range(1, 10))
        + "]><mjloggm>&lol9;</mjloggm>"
    )
    _refused(bomb, "DOCTYPE")
    _refused('<!ENTITY x "y"><mjloggm/>', "ENTITY")


def test_too_large_and_not_text():
    _refused(" " * (MAX_LOG_CHARS + 1), "too large")
    with pytest.raises(ValueError, match="str"):
        replay_mjlog(GOOD.encode())


def test_not_an_mjlog_and_no_hand():
    _refused("<html><body/></html>", "mjloggm")
    _refused('<mjloggm ver="2.3"><GO type="169"/></mjloggm>', "no hand")


@pytest.mark.parametrize(
    ("gotype", "what"), [("185", "three-player"), ("171", "without red fives"), ("173", "open tanyao")]
)
def test_another_rule_sets_log(gotype, what):
    _refused(GOOD.replace('<GO type="169"', f'<GO type="{gotype}"'), what)


def test_impossible_tile():
    text = re.sub(r'hai0="(\d+),', 'hai0="136,', GOOD, count=1)
    _refused(text, "hand 1", "INIT", "136")


def test_tile_dealt_twice_does_not_add_up():
    m = re.search(r'hai0="(\d+),', GOOD)
    text = re.sub(r'hai1="(\d+),', f'hai1="{m.group(1)},', GOOD, count=1)
    _refused(text, "hand 1", "does not add up")


def test_missing_attribute():
    text = re.sub(r'<N who="(\d)" m="\d+"', r'<N who="\1"', GOOD, count=1)
    _refused(text, "missing attribute m=", "tag")


def test_discard_of_a_tile_not_in_hand_names_hand_and_tag():
    # the first discard of seat 0 in hand 1 replaced by a tile seat 1 holds
    hai1 = re.search(r'hai1="(\d+),', GOOD).group(1)
    text = re.sub(r"<D\d+/>", f"<D{hai1}/>", GOOD, count=1)
    msg = _refused(text, "hand 1", "tag")
    assert f"<D{hai1}>" in msg


def test_riichi_without_tenpai_is_illegal():
    text = re.sub(r"(<T\d+/>)", r'\1<REACH who="0" step="1"/>', GOOD, count=1)
    _refused(text, "hand 1", "REACH", "riichi", "not legal")


def test_hand_numbers_that_do_not_add_up():
    inits = list(re.finditer(r'<INIT seed="(\d+),(\d+),', GOOD))
    second = inits[1]
    text = GOOD[: second.start()] + GOOD[second.start() :].replace(second.group(0), '<INIT seed="5,0,', 1)
    _refused(text, "hand 2", "INIT", "do not add up")


def test_truncated_log():
    cut = GOOD.rfind("<D")
    _refused(GOOD[:cut] + "</mjloggm>", "truncated")


def test_bad_meld_codes():
    for m in (1 << 16, 0x20):
        with pytest.raises(ValueError, match="meld|north-wind"):
            decode_meld(0, m, "here")


def test_decode_meld_examples():
    # chi 1m-2m-3m called 1m (from the seat on the left)
    chi = decode_meld(1, (0 * 3 + 0) << 10 | 0x4 | 3, "x")
    assert chi["kind"] == "chi" and [t >> 2 for t in chi["tiles"]] == [0, 1, 2] and chi["from"] == 0
    # closed kan of 1p: hai0 = 36
    kan = decode_meld(2, 36 << 8, "x")
    assert kan["kind"] == "ankan" and kan["tiles"] == [36, 37, 38, 39]
