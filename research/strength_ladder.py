"""The strength ladder: every pair of agents on the same fresh duplicate deals.

Each pair plays as teams (``mjenv eval A B``: A on seats 0 and 2, B on 1 and 3, every deal in both
rotations), all pairs on the same walls (one seed), so the whole matrix is measured on the same hands.
The seed 646464 was fixed for the ladder before any result and is never used in training or model
selection (research/notes/TRAINING.md, "The RL policy").

Resumable: a pair whose ``OUT/<a>_vs_<b>.json`` (or its ``.md`` table) exists is not played again. At
the end it writes the matrix of win-rate differences (row minus column, per seat, mean and 95% CI over
deals, paired by deal) as ``OUT/ladder.md`` and a heat map ``OUT/ladder.png``, and says whether each
step of the expected order (the order of ``--agents``, weakest first) is significantly positive.

Run: ``python -m research.strength_ladder --deals 100 --out runs/ladder`` (about 40 CPU-minutes,
nearly all of it the flat Monte Carlo pairs).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

DEFAULT_AGENTS = "random,greedy,policy:bc,flatmc,policy:rl"


def pair_name(a: str, b: str) -> str:
    """File stem of a pair's results, e.g. ``policy_bc_vs_greedy``."""
    return f"{a.replace(':', '_')}_vs_{b.replace(':', '_')}"


def eval_command(a: str, b: str, deals: int, seed: int, out: Path, workers: int) -> list[str]:
    """The exact ``mjenv eval`` command line of one pair."""
    return ["mjenv", "eval", a, b, "--deals", str(deals), "--seed", str(seed), "--workers", str(workers),
            "--no-progress", "--out", str(out), "--name", pair_name(a, b)]


def find_result(out: Path, a: str, b: str) -> tuple[float, float, bool] | None:
    """Win-rate difference ``a - b`` (mean, CI half-width, significant), from either ordering's json."""
    for x, y, sign in ((a, b, 1.0), (b, a, -1.0)):
        f = out / f"{pair_name(x, y)}.json"
        if f.is_file():
            pw = [p for p in json.loads(f.read_text())["pairwise"] if p["metric"] == "win_rate"][0]
            return sign * pw["diff"], pw["ci"], bool(pw["significant"])
        md = f.with_suffix(".md")  # docs/ keeps only each pair's table
        if md.is_file():
            row = re.search(rf"\| {re.escape(x)} − {re.escape(y)} \| ([+-][\d.]+) ± ([\d.]+) pp \| (\w+)",
                            md.read_text())
            if row:
                return sign * float(row.group(1)) / 100, float(row.group(2)) / 100, row.group(3) == "yes"
    return None


def report(agents: list[str], out: Path, deals: int, seed: int) -> str:
    """Markdown matrix of the measured pairs, the ladder's steps, and a heat map ``out/ladder.png``."""
    lines = [f"Win-rate difference per seat, row minus column, pp (mean ± 95% CI over {deals} deals, seed "
             f"{seed}, teams, 2 rotations per deal); **bold** = significant at 95%.", "",
             "| | " + " | ".join(f"`{b}`" for b in agents) + " |", "|---" * (len(agents) + 1) + "|"]
    matrix = [[float("nan")] * len(agents) for _ in agents]
    for i, a in enumerate(agents):
        cells = []
        for j, b in enumerate(agents):
            r = None if i == j else find_result(out, a, b)
            if r is None:
                cells.append("" if i == j else "not run")
                continue
            d, ci, sig = r
            matrix[i][j] = 100 * d
            s = f"{100 * d:+.1f} ± {100 * ci:.1f}"
            cells.append(f"**{s}**" if sig else s)
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    lines += ["", "| step of the ladder | difference, pp | significant |", "|---|---|---|"]
    for lo, hi in itertools.pairwise(agents):
        r = find_result(out, hi, lo)
        if r is None:
            lines.append(f"| `{lo}` < `{hi}` | not run | |")
        else:
            d, ci, sig = r
            verdict = "yes" if sig and d > 0 else ("no (reversed)" if sig else "no")
            lines.append(f"| `{lo}` < `{hi}` | {100 * d:+.1f} ± {100 * ci:.1f} | {verdict} |")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
        from mjenv.baselines.league import difference_heatmap

        fig, ax = plt.subplots(figsize=(1.3 * len(agents) + 2, 1.1 * len(agents) + 1))
        difference_heatmap(fig, ax, np.array(matrix), agents)
        ax.set_title(f"win rate, row minus column (pp), {deals} deals, seed {seed}")
        fig.tight_layout()
        fig.savefig(out / "ladder.png", dpi=90)
        plt.close(fig)
    except ImportError:  # the plot is optional; the table is the result
        pass
    text = "\n".join(lines) + "\n"
    (out / "ladder.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", default=DEFAULT_AGENTS,
                   help=f"comma-separated agent specs, weakest expected first (default {DEFAULT_AGENTS})")
    p.add_argument("--deals", type=int, default=100, help="duplicate deals per pair (default 100)")
    p.add_argument("--seed", type=int, default=646464, help="seed of the walls (default 646464)")
    p.add_argument("--workers", type=int, default=1, help="worker processes per pair (default 1)")
    p.add_argument("--out", default="runs/ladder", help="results folder (default runs/ladder)")
    p.add_argument("--report-only", action="store_true", help="only write the table and plot")
    args = p.parse_args(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise ValueError(f"--agents needs at least two distinct agent specs, got {args.agents!r}")
    if args.deals < 1:
        raise ValueError(f"--deals must be at least 1, got {args.deals}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        for a, b in itertools.combinations(agents, 2):
            if find_result(out, a, b) is not None:
                continue
            cmd = eval_command(b, a, args.deals, args.seed, out, args.workers)  # stronger (later) first
            print("$", shlex.join(cmd), flush=True)
            subprocess.run([sys.executable, "-m", "mjenv.cli", *cmd[1:]], check=True,
                           stdout=subprocess.DEVNULL)
    print(report(agents, out, args.deals, args.seed))


if __name__ == "__main__":
    main()
