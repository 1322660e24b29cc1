"""Real Tenhou games as imitation data (``mjlog.decisions``, ``mjenv train bc --rules riichi --logs``): every row is a
decision the log shows, observed before it was taken: the counts of riichi, tsumo and ron rows equal the log's own
tags and the discard rows follow each seat's logged discards in order (the tags read here without the replay)."""

from __future__ import annotations

import csv
import gzip
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.mjlog import decisions, parse
from mjenv.rulesets.riichi.observation import decode, spec

LOGS = sorted((Path(__file__).parent / "data" / "mjlog").glob("*.mjlog"))
SOME = LOGS[:6]


def _tags(text: str) -> list[tuple[str, dict]]:
    """The log's tags in order, from a plain regular expression over the XML (not the replay's reader)."""
    out = []
    for name, attrs in re.findall(r"<(\w+)((?:\s+\w+=\"[^\"]*\")*)\s*/?>", text):
        out.append((name, dict(re.findall(r"(\w+)=\"([^\"]*)\"", attrs))))
    return out


@pytest.mark.parametrize("path", SOME, ids=[p.name for p in SOME])
def test_rows_are_the_logs_choices_observed_before_them(path):
    text = path.read_text()
    obs, masks, actions, hands = decisions(text)
    assert obs.shape == (len(actions), spec().size) and masks.shape == (len(actions), A.N_ACTIONS)
    assert (masks.sum(axis=1) > 1).all()  # a choice, every row
    assert masks[np.arange(len(actions)), actions].all()  # the action taken was legal
    assert (np.diff(hands) >= 0).all() and hands[-1] + 1 == len(parse(text)[1])
    tags = _tags(text)
    # riichi, tsumo and ron are always choices (a discard or a pass was open): one row each
    riichi = sum(1 for t, a in tags if t == "REACH" and a.get("step") == "1")
    tsumo = sum(1 for t, a in tags if t == "AGARI" and a["who"] == a["fromWho"])
    ron = sum(1 for t, a in tags if t == "AGARI" and a["who"] != a["fromWho"])
    assert (actions == A.RIICHI).sum() == riichi
    assert (actions == A.TSUMO).sum() == tsumo
    assert (actions == A.RON).sum() == ron
    # each discard row is the seat's next discard in the log (a forced discard, e.g. after riichi, gives no row)
    logged: dict[int, list[int]] = {s: [] for s in range(4)}
    for t, _ in tags:
        m = re.fullmatch(r"([DEFG])(\d+)", t)
        if m:
            logged["DEFG".index(m[1])].append(A.to_mjenv_type(int(m[2]) // 4))
    for s in range(4):
        rows = [i for i in range(len(actions)) if actions[i] < A.KAN and _seat(decode(obs[i])) == s]
        assert rows, s
        it = iter(logged[s])
        assert all(_discard_type(int(actions[i])) in it for i in rows), s  # in order: a subsequence of its discards
        for i in rows:  # observed before the discard: the tile is in the hand
            assert decode(obs[i])["hand"][_discard_type(int(actions[i]))] >= 1


def _discard_type(a: int) -> int:
    return a if a < A.DISCARD_RED else (4, 13, 22)[a - A.DISCARD_RED]


def _seat(view: dict) -> int:
    """The observer's seat: its seat wind is (seat - dealer) % 4, the dealer round_index % 4."""
    return (int(view["round"][0]) % 4 + int(np.argmax(view["seat_wind"]))) % 4


def test_a_pass_in_a_window_another_seat_took_is_left_out():
    """In a window a call or a win took, only the seats that called or won give rows (what the others chose is not
    in the log); in a window everybody passed, every seat that could act gives its pass."""
    import mjenv.rulesets.riichi.mjlog as mj

    windows = []

    def watch(game, actions):
        if game.phase in ("claim", "chankan"):
            chose = {s: int(actions[s]) for s in game.to_act() if int(game.legal_actions(s).sum()) > 1}
            windows.append(chose)

    for path in SOME:
        mj.replay_with_walls(path.read_text(), watch)
    taken = [w for w in windows if any(a != A.PASS for a in w.values()) and list(w.values()).count(A.PASS) > 0]
    assert taken  # windows where one seat called and another could have
    total_pass = sum(1 for w in windows if all(a == A.PASS for a in w.values()) for _ in w)
    rows = [decisions(p.read_text())[2] for p in SOME]
    assert sum(int((a == A.PASS).sum()) for a in rows) == total_pass


def test_behaviour_cloning_reads_a_folder_of_real_games_plain_and_gzipped(tmp_path):
    """``mjenv train bc --rules riichi --logs DIR``: every game of the folder (one gzip-compressed), the hands split
    for validation, and the clone agrees with the players far more often than a uniform legal pick."""
    from mjenv.baselines import train_bc
    from mjenv.baselines.policy import load_net

    from mjenv.rulesets.riichi.policy import RiichiPolicyNet, log_decisions

    folder = tmp_path / "logs"
    folder.mkdir()
    for p in LOGS[:3]:
        shutil.copy(p, folder / p.name)
    (folder / LOGS[3].name).with_suffix(".mjlog.gz").write_bytes(gzip.compress(LOGS[3].read_bytes()))
    obs, masks, actions, hands = log_decisions(str(folder), progress=False)
    direct = [decisions(p.read_text())[2] for p in LOGS[:4]]
    assert actions.tolist() == np.concatenate(direct).tolist()  # the games in name order, the .gz one read too
    again = log_decisions(str(folder), progress=False, workers=2)  # two processes: the same rows, in the same order
    assert all(np.array_equal(x, y) for x, y in zip(again, (obs, masks, actions, hands)))
    with pytest.raises(ValueError, match="workers must be a positive int"):
        log_decisions(str(folder), progress=False, workers=0)
    assert hands.max() + 1 == sum(len(parse(p.read_text())[1]) for p in LOGS[:4])
    out = tmp_path / "bc"
    policy = train_bc.main(["--rules", "riichi", "--logs", str(folder), "--log-workers", "2", "--epochs", "6",
                            "--batch-size", "128",
                            "--hidden", "64,64", "--val-fraction", "0.2", "--no-progress", "--no-tensorboard",
                            "--out-dir", str(out), "--seed", "1"])
    assert isinstance(load_net(policy), RiichiPolicyNet)
    with open(out / "bc_log.csv") as f:
        last = list(csv.DictReader(f))[-1]
    n_val = hands >= hands.max() + 1 - round(0.2 * (hands.max() + 1))
    chance = float(np.mean(1.0 / masks[n_val].sum(axis=1)))
    assert float(last["val_accuracy"]) > chance + 0.2, (last["val_accuracy"], chance)
    with pytest.raises(ValueError, match="no Tenhou log file or folder"):
        log_decisions(str(tmp_path / "missing"), progress=False)
    with pytest.raises(ValueError, match="no Tenhou logs"):
        log_decisions(str(out), progress=False)
    (folder / "broken.mjlog").write_text("<mjloggm><INIT")
    with pytest.raises(ValueError, match="broken.mjlog: broken XML"):
        log_decisions(str(folder), progress=False)
    from mjenv.rulesets.riichi.mjlog import MAX_LOG_CHARS

    bomb = tmp_path / "bomb.mjlog.gz"  # a small file that would expand far past any log
    bomb.write_bytes(gzip.compress(b"<mjloggm>" + b" " * (8 * MAX_LOG_CHARS)))
    with pytest.raises(ValueError, match="bomb.mjlog.gz: log too large"):
        log_decisions(str(bomb), progress=False)
