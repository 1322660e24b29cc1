"""``mjenv view``: the replay page, opened in headless Chromium at several steps of a hand of every rule
set, shows the engine's state at that step (hands, drawn tile, melds, discards with the claimed ones
marked, flowers, scores, declared suits; for Riichi red fives, sideways called and riichi tiles, tsumogiri
and called marks, dora indicators, winds, honba and sticks); its keys and buttons step through it."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from mjenv import cli
from mjenv.game import Game, replay
from mjenv.observation import ObservationSpec
from mjenv.rulesets.taiwan16.wall import FLOWER_NAMES
from mjenv.tiles import tile_name
from mjenv.view import FRAME_BUILDERS, build_frames, page, register_frame_builder

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install chromium); "
                             "the page's state in a real browser cannot be checked here")
RULE_SETS = ("basic", "honours", "sichuan", "taiwan16")


def _hand_log(rules: str, seed: int) -> dict:
    """A hand of four greedy seats (a claim early enough to matter: greedy pongs and chows)."""
    from mjenv.baselines.registry import make_agent

    spec, g = ObservationSpec(rules), Game(rules, seed)
    bots = [make_agent("greedy", seed=i, rules=rules) for i in range(4)]
    while not g.is_over:
        g.step({s: int(bots[s].act({"observation": spec.encode(g, s), "action_mask": g.legal_action_mask(s)}))
                for s in g.acting_seats()})
    return g.log


def _logged_hand(rules: str, tmp_path: Path) -> tuple[dict, Path]:
    """A hand with at least one claim (and flowers in taiwan16), written as JSON lines."""
    for seed in range(40):
        log = _hand_log(rules, seed)
        g = replay(log)
        if any(m.from_seat >= 0 for ms in g.melds for m in ms) and (rules != "taiwan16" or g.flowers.any()):
            path = tmp_path / f"{rules}.jsonl"
            replay(log).to_jsonl(str(path))
            return log, path
    raise AssertionError(f"no {rules} hand with a claim in 40 seeds")


class _Page(HTMLParser):
    """Tiles of each seat's rows (hand, melds, discards), flowers, notes and scores of a dumped page."""

    def __init__(self) -> None:
        super().__init__()
        self.seats: dict[int, dict] = {}
        self.indicators: list[tuple[str, frozenset]] = []
        self.info: list[str] = []
        self.step = None
        self._seat = self._row = None
        self._meld = -1
        self._depth = 0
        self._capture = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body" and "data-step" in a:
            self.step = int(a["data-step"])
        if "seat" in cls and "data-seat" in a:
            self._seat = int(a["data-seat"])
            self.seats[self._seat] = {"hand": [], "drawn": [], "melds": [], "discards": [], "rows": {},
                                      "notes": [], "score": int(a["data-score"]), "full": {}}
        elif "row" in cls and self._seat is not None:
            self._row = next(c for c in cls if c != "row")
            if self._row == "extra":
                self._label = a["data-label"]
                self.seats[self._seat]["rows"][self._label] = []
        elif "meld" in cls:
            self.seats[self._seat]["melds"].append((a.get("data-kind"), []))
        elif "tile" in cls and self._seat is None:
            self.indicators.append((a["data-t"], frozenset(cls) - {"tile"}))
        elif "item" in cls and "data-info" in a:
            self.info.append(a["data-info"])
        elif "tile" in cls and self._seat is not None and self._row is not None:
            entry = (a["data-t"], "claimed" in cls)
            full = self.seats[self._seat]["full"].setdefault(self._row, [])
            full.append((a["data-t"], frozenset(cls) - {"tile", a["data-t"][-1]}))
            if self._row == "melds":
                self.seats[self._seat]["melds"][-1][1].append(a["data-t"])
            elif self._row == "hand":
                self.seats[self._seat]["drawn" if "drawn" in cls else "hand"].append(a["data-t"])
            else:
                self.seats[self._seat][self._row].append(entry)
        elif "item" in cls and "data-item" in a:
            self.seats[self._seat]["rows"][self._label].append(a["data-item"])
        elif "note" in cls:
            self._capture = "notes"

    def handle_data(self, data):
        if self._capture:
            self.seats[self._seat][self._capture].append(data)
            self._capture = None


def _dump(html_path: Path, step: int | None = None) -> _Page:
    url = html_path.resolve().as_uri() + ("" if step is None else f"#step={step}")
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    parsed = _Page()
    parsed.feed(proc.stdout)
    return parsed


def _check_state(shown: _Page, log: dict, k: int) -> None:
    """The page at step k against the engine replayed for k steps (an independent reading of the game)."""
    g = replay(log, steps=k)
    assert shown.step == k
    assert sorted(shown.seats) == [0, 1, 2, 3]
    for s in range(4):
        seat = shown.seats[s]
        held = [tile_name(int(t)) for t in np.repeat(np.arange(len(g.hands[s])), g.hands[s].astype(int))]
        assert Counter(seat["hand"] + seat["drawn"]) == Counter(held), (k, s)
        if seat["drawn"]:
            assert seat["drawn"] == [tile_name(int(g.last_drawn))] and s == g.current_player
        assert [(kind, tiles) for kind, tiles in seat["melds"]] == [
            (m.kind, [tile_name(t) for t in m.tiles]) for m in g.melds[s]], (k, s)
        n = int(g.num_discards[s])
        assert [t for t, _ in seat["discards"]] == [tile_name(int(t)) for t in g.discards[s][:n]], (k, s)
        # claimed marks: one per meld made from this seat's discard, on that tile
        taken = Counter(tile_name(m.claimed) for ms in g.melds for m in ms if m.from_seat == s and m.claimed >= 0)
        assert Counter(t for t, c in seat["discards"] if c) == taken, (k, s)
        assert seat["score"] == int(g.scores[s])
        flowers = [FLOWER_NAMES[f][1:] for f in np.flatnonzero(g.flowers[s])]
        assert seat["rows"] == ({"flowers": flowers} if flowers else {})
        if g.rules.missing_suit:
            m = int(g.missing[s])
            assert (f"missing suit {'smp'[m]}" if m >= 0 else "missing suit not declared") in seat["notes"]


@needs_chromium
@pytest.mark.parametrize("rules", RULE_SETS)
def test_page_in_chromium_shows_the_engine_state_at_several_steps(rules, tmp_path):
    log, path = _logged_hand(rules, tmp_path)
    out = tmp_path / "hand.html"
    assert cli.main(["view", str(path), "--out", str(out)]) == 0
    n = len(log["steps"])
    g = replay(log)
    first_claim = next(i for i in range(1, n + 1)
                       if any(m.from_seat >= 0 for ms in replay(log, steps=i).melds for m in ms))
    for k in sorted({0, 1, first_claim, first_claim + 3, n // 2, n}):
        if k <= n:
            _check_state(_dump(out, k), log, k)
    assert g.is_over


@needs_chromium
def test_page_opens_at_the_deal_and_clamps_a_step_past_the_end(tmp_path):
    log, path = _logged_hand("basic", tmp_path)
    out = tmp_path / "hand.html"
    out.write_text(page(log), encoding="utf-8")
    _check_state(_dump(out), log, 0)
    _check_state(_dump(out, 10_000), log, len(log["steps"]))


@needs_chromium
def test_keys_and_buttons_step_through_the_page(tmp_path):
    log, _ = _logged_hand("honours", tmp_path)
    text = page(log)
    # the user's presses, run after the page's own script: 3 right arrows, 2 clicks on next, 1 left arrow,
    # one "l", then End and 2 left arrows
    presses = """<script>
      const key = k => document.dispatchEvent(new KeyboardEvent("keydown", {key: k}));
      key("ArrowRight"); key("ArrowRight"); key("ArrowRight");
      document.getElementById("next").click(); document.getElementById("next").click();
      key("ArrowLeft"); key("l");
      document.body.dataset.afterPresses = document.body.dataset.step;
      key("End"); key("ArrowLeft"); key("h");
    </script></body>"""
    out = tmp_path / "pressed.html"
    out.write_text(text.replace("</body>", presses), encoding="utf-8")
    shown = _dump(out, 2)
    _check_state(shown, log, len(log["steps"]) - 2)
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                          out.resolve().as_uri() + "#step=2"], capture_output=True, text=True, timeout=120).stdout
    assert 'data-after-presses="7"' in dom  # 2 + 3 + 2 - 1 + 1


@needs_chromium
def test_screenshot_of_two_steps_differs(tmp_path):
    log, path = _logged_hand("taiwan16", tmp_path)
    out = tmp_path / "hand.html"
    out.write_text(page(log), encoding="utf-8")
    shots = []
    for k in (0, len(log["steps"])):
        png = tmp_path / f"step{k}.png"
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={png}",
                        "--window-size=1000,900", out.resolve().as_uri() + f"#step={k}"],
                       capture_output=True, timeout=120, check=True)
        from PIL import Image

        shots.append(np.asarray(Image.open(png).convert("RGB")))
    assert shots[0].shape == (900, 1000, 3)
    assert shots[0].std() > 10 and not np.array_equal(*shots)  # a drawn page, and the end is not the deal


def test_page_is_self_contained():
    log = _hand_log("basic", 0)
    text = page(log)
    for needle in ("http://", "https://", "<link", " src="):
        assert needle not in text, needle
    assert text.count("</script>") == 2  # the data holds no closing tag (it is escaped)


def test_frames_one_per_state_and_the_last_holds_the_result():
    log = _hand_log("sichuan", 1)
    frames = build_frames(log)
    assert len(frames) == len(log["steps"]) + 1
    assert [f["step"] for f in frames] == list(range(len(frames)))
    assert frames[-1]["result"] and not frames[0]["result"]
    assert frames[-1]["phase"] == "end"


def test_a_log_format_needs_a_builder_and_builders_register_per_format():
    log = _hand_log("basic", 0)
    other = {**log, "format": "example-format"}
    with pytest.raises(ValueError, match="no frame builder for log format 'example-format'; registered: mjenv-hand"):
        build_frames(other)
    register_frame_builder("example-format", lambda lg: [{"step": 0}])
    try:
        assert build_frames(other) == [{"step": 0}]
        with pytest.raises(ValueError, match="already registered"):
            register_frame_builder("example-format", lambda lg: [])
    finally:
        del FRAME_BUILDERS["example-format"]


def test_view_command_errors_clearly(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header", "format": "mjenv-hand", "version": 2, "rules": "basic"}\n'
                   '{"type": "nonsense"}\n')
    assert cli.main(["view", str(bad), "--out", str(tmp_path / "x.html")]) == 2
    assert "has type 'nonsense'" in capsys.readouterr().err
    log_path = tmp_path / "one.jsonl"
    replay(_hand_log("basic", 0)).to_jsonl(str(log_path))
    assert cli.main(["view", str(log_path), "--out", str(tmp_path / "x.html"), "--hand", "3"]) == 2
    assert "holds 1 hand(s); --hand must be 0..0" in capsys.readouterr().err


# -- Riichi: the room's own log format, drawn by the frame builder its viewer registers ----------------


@pytest.fixture(scope="module")
def riichi_log(tmp_path_factory) -> Path:
    """An East game of the Riichi env, logged: seats win and declare riichi whenever they may, discard the
    tile that leaves the least deficiency, and call at random (a game with calls, riichi, kans and wins)."""
    import mjenv
    from mjenv.rulesets.riichi import actions as A
    from mjenv.rulesets.riichi.observation import decode

    tmp_path = tmp_path_factory.mktemp("riichi")
    env = mjenv.parallel_env(rules="riichi", episode="east", log_dir=tmp_path)
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(11)
    while env.agents:
        acts = {}
        for agent, o in obs.items():
            legal = np.flatnonzero(o["action_mask"])
            wins = [a for a in legal if a in (A.TSUMO, A.RON, A.RIICHI)]
            after = decode(o["observation"])["deficiency_after_discard"]
            discards = [a for a in legal if a < A.DISCARD_RED]
            if wins:
                acts[agent] = int(wins[0])
            elif discards:
                acts[agent] = int(min(discards, key=lambda a: (after[a], rng.random())))
            else:
                acts[agent] = int(rng.choice(legal))
        obs, *_ = env.step(acts)
    return tmp_path / "riichi.jsonl"


def _riichi_state(record: dict, hand: int, k: int):
    """The game after ``k`` steps of hand ``hand`` of a record, replayed by the room's log module."""
    from mjenv.rulesets.riichi import log

    cut = {**record, "final_scores": None,
           "hands": [*record["hands"][:hand], {"wall": record["hands"][hand]["wall"],
                                               "actions": record["hands"][hand]["actions"][:k]}]}
    return log.replay(cut)


def _check_riichi_state(shown: _Page, record: dict, hand: int, k: int) -> None:
    """The page at step k of a Riichi hand against the engine replayed for k steps."""
    from mjenv.rulesets.riichi.tiles136 import TYPE34, is_red

    def face(t):
        return tile_name(int(TYPE34[t])), is_red(t)

    g = _riichi_state(record, hand, k)
    assert shown.step == k
    start_round, start_honba, _ = g.hand_start
    for s in range(4):
        seat = shown.seats[s]
        full = seat["full"]
        hand_row = [(t, "red" in c) for t, c in full.get("hand", [])]
        assert Counter(hand_row) == Counter(face(t) for t in g.hands[s]), (k, s)
        if seat["drawn"]:
            assert s == g.turn and [face(g.drawn)] == [(t, "red" in c) for t, c in full["hand"] if "drawn" in c]
        melds = [(kind, [(t, "sideways" in c) for t, c in full["melds"][j0:j0 + len(tiles)]])
                 for (kind, tiles), j0 in zip(seat["melds"], np.cumsum([0] + [len(x[1]) for x in seat["melds"]]))]
        assert melds == [(m.kind, [(face(t)[0], m.kind != "ankan" and t == m.called) for t in m.tiles])
                         for m in g.melds[s]], (k, s)
        assert [(t, {"grey", "sideways", "claimed", "red"} & c) for t, c in full.get("discards", [])] == [
            (face(t)[0], {n for n, bit in (("grey", 1), ("sideways", 2), ("claimed", 4)) if f & bit}
             | ({"red"} if is_red(t) else set())) for t, f in zip(g.discards[s], g.discard_flags[s])], (k, s)
        assert seat["score"] == g.scores[s]
        wind = ("East", "South", "West", "North")[(s - start_round) % 4]
        assert f"{wind} seat" in seat["notes"]
        assert ("riichi" in seat["notes"] or "double riichi" in seat["notes"]) == bool(g.riichi[s]), (k, s)
    assert [(t, "red" in c) for t, c in shown.indicators] == [face(t) for t in g.dora_indicators]
    assert shown.info[1:] == [f"honba {start_honba}", f"riichi sticks {g.sticks}"]


@needs_chromium
def test_riichi_page_in_chromium_shows_the_engine_state_at_several_steps(riichi_log, tmp_path):
    from mjenv.rulesets.riichi import log

    path = riichi_log
    (record,) = log.read(path)
    # the hand with the most going on: calls, riichi and red fives in the discards
    def events(h):
        g = _riichi_state(record, h, len(record["hands"][h]["actions"]))
        flags = [f for fs in g.discard_flags for f in fs]
        return (sum(len(m) for m in g.melds) > 0) + any(f & 2 for f in flags) + any(f & 4 for f in flags), -h

    hand = max(range(len(record["hands"])), key=events)
    out = tmp_path / "riichi.html"
    assert cli.main(["view", str(path), "--out", str(out), "--hand", str(hand)]) == 0
    n = len(record["hands"][hand]["actions"])
    def first(test):
        return next((i for i in range(n + 1) if test(_riichi_state(record, hand, i))), n)
    call = first(lambda g: any(m.from_seat is not None for ms in g.melds for m in ms))
    riichi = first(lambda g: any(g.riichi))
    for k in sorted({0, 1, call, call + 1, riichi, riichi + 2, n // 2, n}):
        if k <= n:
            _check_riichi_state(_dump(out, k), record, hand, k)
    g = _riichi_state(record, hand, n)
    assert events(hand)[0] >= 2, "the game has no hand with calls and a riichi"
    assert g.phase in ("hand_over", "game_over")


def test_riichi_frames_split_a_game_into_hands(riichi_log, tmp_path):
    from mjenv.rulesets.riichi import log
    from mjenv.view import read_logs

    path = riichi_log
    (record,) = log.read(path)
    hands = read_logs(path)
    assert len(hands) == len(record["hands"]) >= 2
    last = build_frames(hands[-1])
    assert len(last) == len(record["hands"][-1]["actions"]) + 1
    assert [f["step"] for f in last] == list(range(len(last)))
    assert last[-1]["result"] and "game over: final scores" in last[-1]["result"] and not last[0]["result"]
    assert build_frames(hands[0])[0]["info"][0] == "East 1"
    assert cli.main(["view", str(path), "--out", str(tmp_path / "x.html"), "--hand", str(len(hands))]) == 2
    with pytest.raises(ValueError, match="the record has no hands"):
        build_frames({"format": "mjenv-riichi", "hands": []})
    bad = {**record, "hands": [{**record["hands"][0], "actions": [[[0, 200]]]}]}
    with pytest.raises(ValueError, match="hand 1, step 1"):
        build_frames(bad)
