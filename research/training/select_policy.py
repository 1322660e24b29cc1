"""Model selection of the training recipes: the best of several policy files on selection deals.

Both recipes of ``examples/`` (``train_rl_policy.sh``: PPO checkpoints against three GreedyAgents;
``train_rollout_policy.sh``: policy-improvement candidates against the BC policy as teams) pick
their result here, one way: every candidate plays the same duplicate deals of one selection seed
through the evaluation harness, its win-rate difference to the opponent is cached in a JSON file (an
interrupted selection resumes), and the best difference wins (ties to the later name). Selection
seeds are never evaluation seeds (``research/notes/TRAINING.md`` lists both).

Run: ``python -m research.training.select_policy --help``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

__all__ = ["score", "select_best", "main"]


def score(policy_path: str | Path, against: str, *, deals: int, seed: int, rules: str = "basic",
          out_dir: str | Path | None = None, name: str = "selection") -> dict:
    """One candidate on the selection deals.

    Args:
        policy_path: a policy checkpoint.
        against: ``"greedy"``: the policy with three GreedyAgents; any other agent spec (e.g.
            ``"policy:bc"``): the two as teams on opposite seats.
        deals: duplicate deals (each in every seat rotation).
        seed: the harness's seed.
        rules: the rules preset.
        out_dir, name: when given, the harness writes its table there (``name.md``, ``.json``, ``.png``).

    Returns:
        ``{"win_rate": the policy's (per seat), "diff": its win-rate difference to the opponent}``.

    Raises:
        ValueError: ``deals`` below 1 or an unknown agent spec (from the harness).
    """
    from mjenv.baselines.evaluate import evaluate

    lineup = [f"policy:{policy_path}", "greedy", "greedy", "greedy"] if against == "greedy" else [
        f"policy:{policy_path}", against]
    labels = ["candidate"] + ["opponent"] * (len(lineup) - 1)
    report = evaluate(lineup, deals, seed, rules=rules, labels=labels, progress=False,
                      out_dir=None if out_dir is None else str(out_dir), name=name)
    return {"win_rate": report.stats["candidate"]["win_rate"][0], "diff": report.difference("candidate", "opponent")[0]}


def select_best(candidates: dict[str, Path], against: str, *, deals: int, seed: int, cache: Path,
                dest: Path | None = None, rules: str = "basic", out_dir: Path | None = None, log=print) -> str:
    """The candidate with the best win-rate difference against ``against`` (ties: the later name).

    Args:
        candidates: name -> policy file (at least one).
        against: as :func:`score`.
        deals, seed, rules: the selection deals (as :func:`score`).
        cache: a JSON file of the scores so far ({name: {"win_rate", "diff"}}); written after each
            candidate, read first, so a selection resumes where it stopped.
        dest: when given, the chosen file is copied there.
        out_dir: when given, each scored candidate's harness table is written there (``select_NAME.md``).
        log: called with one line per candidate scored now (none for cached ones) and one for the choice.

    Returns:
        The chosen name.

    Raises:
        ValueError: no candidates, or a candidate file that does not exist.
    """
    if not candidates:
        raise ValueError("select_best needs at least one candidate policy file")
    missing = [str(p) for p in candidates.values() if not Path(p).is_file()]
    if missing:
        raise ValueError(f"candidate policy files not found: {missing}")
    cache = Path(cache)
    scores = json.loads(cache.read_text()) if cache.is_file() else {}
    for name, path in candidates.items():
        if name not in scores:
            s = scores[name] = score(path, against, deals=deals, seed=seed, rules=rules, out_dir=out_dir,
                                     name=f"select_{name}")
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps(scores, indent=1))
            log(f"{name}: win rate {s['win_rate']:.3f}, win-rate difference against {against} {s['diff']:+.3f}")
    best = max(candidates, key=lambda k: (scores[k]["diff"], k))
    if dest is not None:
        shutil.copy(candidates[best], dest)
    log(f"selected {best} ({scores[best]['diff']:+.3f}){'' if dest is None else f': {dest}'}")
    return best


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(prog="python -m research.training.select_policy", description=__doc__.split("\n\n")[0])
    p.add_argument("candidates", nargs="+", help="policy files; NAME=PATH names one (default name: the file's stem)")
    p.add_argument("--against", required=True, help="'greedy' (three GreedyAgents) or an agent spec played as teams")
    p.add_argument("--deals", type=int, required=True, help="selection deals")
    p.add_argument("--seed", type=int, required=True, help="selection seed (never an evaluation seed)")
    p.add_argument("--cache", required=True, help="JSON file of the scores (resumes)")
    p.add_argument("--dest", help="copy the chosen file here")
    p.add_argument("--rules", default="basic")
    p.add_argument("--out-dir", help="write each scored candidate's harness table here")
    a = p.parse_args(argv)
    if a.deals < 1:
        p.error(f"--deals must be at least 1, got {a.deals}")
    cands: dict[str, Path] = {}
    for c in a.candidates:
        name, _, path = c.partition("=") if "=" in c else (Path(c).stem, "", c)
        cands[name] = Path(path)
    try:
        return select_best(cands, a.against, deals=a.deals, seed=a.seed, cache=Path(a.cache),
                           dest=None if a.dest is None else Path(a.dest), rules=a.rules,
                           out_dir=None if a.out_dir is None else Path(a.out_dir),
                           log=lambda line: print(line, flush=True))
    except ValueError as e:
        p.error(str(e))


if __name__ == "__main__":
    main()
