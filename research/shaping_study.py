"""The shaping study: PPO from scratch with and without potential-based shaping, several seeds each.

One command runs everything (training, evaluation of the kept checkpoints, the table and the plots)::

    python -m research.shaping_study                         # the full study (1M env steps per run)
    python -m research.shaping_study --ppo-steps 300000 --sb3-steps 150000   # a reduced budget

Settings (``--settings``, run in this order, seeds interleaved):

* ``ppo:none``, ``ppo:deficiency``, ``ppo:deficiency_tiles``: ``mjenv train ppo`` (``baselines/train_ppo.py``)
  from a fresh network, opponents drawn per seat from three random/greedy agents
  (``--opponents random,greedy``), ``--shaping`` as named, ``--gamma 0.999`` per env step. The x axis is
  env steps of the vector env (every table's step counts once; a hand is about 130 steps).
* ``sb3:none``, ``sb3:deficiency``: sb3-contrib ``MaskablePPO`` through ``SingleAgentEnv`` (the learner
  at a random seat, three random agents), ``examples/sb3_maskable_ppo.py`` with its defaults: the
  ``PolicyNet`` policy (``--policy policynet``), ``gamma = 0.99`` per learner decision and the same gamma
  given to the wrapper's shaping, the potential unscaled (``--shaping-scale 1``). Its budget counts
  learner decisions (SB3 timesteps); the env steps they took are recorded too.

Every kept checkpoint is evaluated through the evaluation harness (``mjenv eval``) on FIXED duplicate
deals that no training run sees: the policy against three random agents with seed
:data:`EVAL_SEED_RANDOM` and against three greedy agents with seed :data:`EVAL_SEED_GREEDY` (or the two
``--eval-seeds``), ``--deals`` deals each played in the four seat rotations. These seeds were fixed
before any result was seen; training deals come from the training seeds 0, 1, 2 (``mjenv train ppo``
seeds its tables with ``seed + 1000 * k + i``; SB3 draws them from ``reset(seed=...)``), a different stream.

Outputs: per run ``OUT/<algo>_<shaping>_s<seed>/`` (training log, checkpoints, ``evals.json``); and in
``--docs`` (default ``research/notes/training/``): ``shaping_study.csv`` (one row per setting and checkpoint: mean
and 95% CI across seeds of the win rate against random and greedy), ``shaping_study.json`` (every
evaluation, the budget and the commands) and ``shaping_study_ppo.png`` / ``shaping_study_sb3.png``.
``--paired A,B`` adds to the report setting A minus setting B paired by training seed (the same initial
network and training deals), at each checkpoint and averaged over the checkpoints (the area under the
curve): mean ± 95% CI of the paired t-test (n - 1 df), per seed, in the JSON under ``"paired"`` and as a
table at the end of ``shaping_study.md``.
Runs and evaluations already done are skipped, so an interrupted study resumes by running it again.
At most ``--parallel`` processes run at once, each with one torch thread under ``nice``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: Evaluation seeds, chosen before any result: never a training seed or a model-selection seed.
EVAL_SEED_RANDOM = 424_242
EVAL_SEED_GREEDY = 434_343
#: Fractions of the budget at which checkpoints are evaluated (the learning-curve points).
GRID = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0)
PPO_BATCH = 16 * 128  # train_ppo's num_envs * num_steps: env steps per update
SB3_ROLLOUT = 2048  # the SB3 example's n_steps: decisions per update
SETTINGS = ("ppo:none", "ppo:deficiency", "sb3:none", "sb3:deficiency", "ppo:deficiency_tiles")


def run_dir(out: Path, setting: str, seed: int) -> Path:
    algo, shaping = setting.split(":")
    return out / f"{algo}_{shaping}_s{seed}"


def grid_steps(budget: int, unit: int, grid) -> list[int]:
    """Checkpoint steps of the grid, as multiples of the update size ``unit`` (at least one update)."""
    return sorted({max(unit, round(f * budget / unit) * unit) for f in grid})


def ppo_checkpoint_every(budget: int, grid) -> int:
    """train_ppo updates between kept policies: the grid's finest spacing."""
    return max(1, round(min(grid) * budget / PPO_BATCH))


def nearest(found: dict[int, Path], budget: int, grid) -> list[int]:
    """The found steps nearest to each grid point of the budget (each once, ascending)."""
    if not found:
        return []
    return sorted({min(found, key=lambda s: abs(s - f * budget)) for f in grid})


def train_command(setting: str, seed: int, args, d: Path) -> list[str]:
    algo, shaping = setting.split(":")
    py = sys.executable
    if algo == "ppo":
        cmd = [py, "-m", "mjenv.baselines.train_ppo", "--seed", str(seed), "--total-timesteps", str(args.ppo_steps),
               "--opponents", "random,greedy", "--eval-hands", "0", "--torch-threads", "1", "--no-progress",
               "--no-tensorboard", "--keep-policies", "--out-dir", str(d),
               "--checkpoint-every", str(ppo_checkpoint_every(args.ppo_steps, args.grid))]
        return cmd + ([] if shaping == "none" else ["--shaping", shaping])
    cmd = [py, str(ROOT / "examples" / "sb3_maskable_ppo.py"), "--timesteps", str(args.sb3_steps), "--seed", str(seed),
           "--save-at", ",".join(map(str, grid_steps(args.sb3_steps, SB3_ROLLOUT, args.grid))), "--out-dir", str(d),
           "--torch-threads", "1", "--eval-deals", "0"]
    return cmd + ["--shaping", shaping, *args.sb3_args.split()]


def checkpoints(setting: str, d: Path, args) -> list[tuple[int, int, Path]]:
    """(x step, env steps, path) of the checkpoints on the grid that exist."""
    algo = setting.split(":")[0]
    if algo == "ppo":
        found = {int(p.stem.split("_")[1]): p for p in (d / "policies").glob("step_*.pt")}
        return [(s, s, found[s]) for s in nearest(found, args.ppo_steps, args.grid)]
    out = []
    for p in sorted((d / "models").glob("step_*.zip")):
        meta = json.loads(p.with_suffix(".json").read_text())
        out.append((meta["timesteps"], meta["env_steps"], p))
    return out


def load_agent(setting: str, path: Path):
    if setting.startswith("ppo"):
        from mjenv.baselines.policy import PolicyAgent

        return PolicyAgent.load(str(path))
    import importlib.util

    spec = importlib.util.spec_from_file_location("sb3_example", ROOT / "examples" / "sb3_maskable_ppo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.SB3Agent.load(str(path))


def evaluate_run(setting: str, seed: int, args) -> None:
    """Evaluate the run's grid checkpoints (cached in evals.json) against random and greedy."""
    import torch
    from mjenv.baselines.evaluate import evaluate

    torch.set_num_threads(1)
    d = run_dir(Path(args.out), setting, seed)
    path = d / "evals.json"
    evals = json.loads(path.read_text()) if path.is_file() else {}
    for step, env_steps, ckpt in checkpoints(setting, d, args):
        key = f"{step}:{args.deals}"
        if key in evals:
            continue
        row = {"step": step, "env_steps": env_steps, "deals": args.deals}
        for opp, eseed in (("random", args.eval_seeds[0]), ("greedy", args.eval_seeds[1])):
            agent = load_agent(setting, ckpt)
            rep = evaluate([agent, opp, opp, opp], args.deals, eseed, labels=["policy", opp, opp, opp],
                           progress=False)
            row[f"win_{opp}"] = rep.stats["policy"]["win_rate"][0]
            row[f"win_{opp}_ci"] = rep.stats["policy"]["win_rate"][1]
            row[f"{opp}_seat_win_{opp}"] = rep.stats[opp]["win_rate"][0]
            row[f"score_{opp}"] = rep.stats["policy"]["mean_score"][0]
        evals[key] = row
        path.write_text(json.dumps(evals, indent=1))
        print(f"{d.name} step {step}: vs random {row['win_random']:.3f}, vs greedy {row['win_greedy']:.3f}", flush=True)


def one_run(setting: str, seed: int, args) -> None:
    """Train one (setting, seed) unless done, then evaluate its checkpoints (in this process)."""
    d = run_dir(Path(args.out), setting, seed)
    d.mkdir(parents=True, exist_ok=True)
    done = d / "trained.json"
    if not done.is_file():
        cmd = train_command(setting, seed, args, d)
        t0 = time.time()
        with open(d / "train.log", "w") as log:
            subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, check=True, cwd=ROOT,
                           env={**os.environ, "OMP_NUM_THREADS": "1"})
        done.write_text(json.dumps({"command": cmd, "seconds": time.time() - t0}, indent=1))
    evaluate_run(setting, seed, args)


def t975(n: int) -> float:
    from mjenv.baselines.evaluate import t975 as t

    return t(n)


def mean_ci(x) -> tuple[float, float]:
    """Mean and half-width of the 95% t-interval (n - 1 df) of the values ``x``; the half-width is nan for n < 2."""
    from mjenv.baselines.evaluate import mean_ci as m

    return m(x)


def seed_evals(setting: str, args) -> dict[int, dict[int, dict]]:
    """``{seed: {step: evaluation row}}`` of the setting's runs in ``--out`` (evaluations with ``--deals`` deals)."""
    out = {}
    for seed in args.seeds:
        p = run_dir(Path(args.out), setting, seed) / "evals.json"
        if p.is_file():
            out[seed] = {r["step"]: r for r in json.loads(p.read_text()).values() if r["deals"] == args.deals}
    return out


def aggregate(args) -> dict:
    """Per setting and grid step: mean and 95% CI (t, across seeds) of the eval win rates."""
    out: dict = {}
    for setting in args.settings:
        per_seed = seed_evals(setting, args)
        steps = sorted(set().union(*[set(v) for v in per_seed.values()])) if per_seed else []
        rows = []
        for s in steps:
            have = [per_seed[k][s] for k in per_seed if s in per_seed[k]]
            row = {"step": s, "seeds": len(have), "env_steps": float(np.mean([r["env_steps"] for r in have]))}
            for opp in ("random", "greedy"):
                x = [r[f"win_{opp}"] for r in have]
                row[f"win_{opp}"], row[f"win_{opp}_ci"] = mean_ci(x)
                row[f"win_{opp}_per_seed"] = x
                row[f"{opp}_seat_win_{opp}"] = float(np.mean([r[f"{opp}_seat_win_{opp}"] for r in have]))
            # --- study2: the policy's win rate minus a greedy seat's in the same hands, per seed, mean ± CI
            m = [r["win_greedy"] - r["greedy_seat_win_greedy"] for r in have]
            row["margin_greedy"], row["margin_greedy_ci"] = mean_ci(m)
            row["margin_greedy_per_seed"] = m
            # --- end study2
            rows.append(row)
        out[setting] = {"rows": rows, "seeds": sorted(per_seed), "to_50_vs_random": steps_to(rows, per_seed),
                        "budget": budget(setting, sorted(per_seed), args)}
    return out


def steps_to(rows: list[dict], per_seed: dict, level: float = 0.5) -> dict:
    """First grid step where the mean over seeds (and each seed) reaches ``level`` against random."""
    first = next((r["step"] for r in rows if r["seeds"] == len(per_seed) and r["win_random"] >= level), None)
    each = {str(k): next((s for s in sorted(v) if v[s]["win_random"] >= level), None) for k, v in per_seed.items()}
    return {"mean": first, "per_seed": each}


# --- study3: the paired comparison of two settings (one seed: the same initial network and training deals)
def paired(a: str, b: str, args) -> dict:
    """Setting ``a`` minus setting ``b``, paired by training seed, in win rate against random and greedy.

    Rows: each checkpoint both settings evaluated for every pair, then ``"mean"``, each run's win rate
    averaged over those checkpoints (the area under its learning curve) before the difference. Only seeds
    with runs of both settings count. Each row: the pairs' mean win rates of ``a`` and ``b``, the differences
    per seed, their mean ± the 95% paired-t half-width (n - 1 df) and the t statistic (mean / standard error).
    """
    ea, eb = seed_evals(a, args), seed_evals(b, args)
    seeds = sorted(set(ea) & set(eb))
    steps = sorted(set.intersection(*[set(ea[k]) & set(eb[k]) for k in seeds])) if seeds else []
    rows = []
    for step in [*steps, "mean"] if steps else []:
        at = steps if step == "mean" else [step]
        row: dict = {"step": step, "pairs": len(seeds)}
        for opp in ("random", "greedy"):
            xa = [float(np.mean([ea[k][s][f"win_{opp}"] for s in at])) for k in seeds]
            xb = [float(np.mean([eb[k][s][f"win_{opp}"] for s in at])) for k in seeds]
            d = np.subtract(xa, xb)
            row[f"{opp}_a"], row[f"{opp}_b"] = float(np.mean(xa)), float(np.mean(xb))
            row[f"diff_{opp}"], row[f"diff_{opp}_ci"] = mean_ci(d)
            sd = d.std(ddof=1) if len(d) > 1 else float("nan")
            row[f"diff_{opp}_t"] = float(d.mean() / (sd / np.sqrt(len(d)))) if sd > 0 else float("nan")
            row[f"diff_{opp}_per_seed"] = d.tolist()
        rows.append(row)
    return {"a": a, "b": b, "seeds": seeds, "steps": steps, "rows": rows}


def paired_markdown(res: dict) -> str:
    """The paired comparison as a table; ``*`` marks a difference whose 95% CI excludes 0."""
    a, b = res["a"], res["b"]
    lines = [f"Paired by training seed ({len(res['seeds'])} pairs, seeds {', '.join(map(str, res['seeds']))}): "
             f"{a} minus {b}; 'mean' averages each run over the checkpoints (area under the curve).", "",
             f"| checkpoint | vs 3 random: {a} | {b} | difference (95% CI), t | per seed (pp) "
             f"| vs 3 greedy: {a} | {b} | difference (95% CI), t | per seed (pp) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in res["rows"]:
        cells = [r["step"] if r["step"] == "mean" else f"{r['step']:,}"]
        for opp in ("random", "greedy"):
            mark = " *" if abs(r[f"diff_{opp}"]) > r[f"diff_{opp}_ci"] else ""
            cells += [f"{r[f'{opp}_a']:.1%}", f"{r[f'{opp}_b']:.1%}",
                      f"{100 * r[f'diff_{opp}']:+.1f} ± {100 * r[f'diff_{opp}_ci']:.1f} pp{mark}, "
                      f"t = {r[f'diff_{opp}_t']:.2f}",
                      ", ".join(f"{100 * x:+.1f}" for x in r[f"diff_{opp}_per_seed"])]
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines) + "\n"
# --- end study3


def plot(agg: dict, algo: str, path: Path, xlabel: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, opp in zip(axes, ("random", "greedy")):
        for setting, res in agg.items():
            if not setting.startswith(algo + ":") or not res["rows"]:
                continue
            x = np.array([r["step"] for r in res["rows"]])
            m = np.array([r[f"win_{opp}"] for r in res["rows"]])
            ci = np.nan_to_num(np.array([r[f"win_{opp}_ci"] for r in res["rows"]]))
            line, = ax.plot(x, m, marker="o", ms=3,
                            label=f"{setting.split(':')[1]} ({len(res['seeds'])} seeds"
                                  + (f", budget {res['budget']:,})" if "budget" in res else ")"))
            # the CI band drawn inside [0, 1]; each seed's own curve faintly
            ax.fill_between(x, np.clip(m - ci, 0, 1), np.clip(m + ci, 0, 1), color=line.get_color(), alpha=0.15)
            for k in range(len(res["seeds"])):
                pts = [(r["step"], r[f"win_{opp}_per_seed"][k]) for r in res["rows"] if r["seeds"] == len(res["seeds"])]
                if pts:
                    ax.plot(*zip(*pts), color=line.get_color(), lw=0.7, alpha=0.35)
        ref = [r[f"{opp}_seat_win_{opp}"] for res in agg.values() for r in res["rows"]]
        if ref:
            ax.axhline(np.mean(ref), color="grey", ls=":",
                       label="an opponent's own seat's win rate (same hands, mean of all points)")
        ax.axhline(0.25, color="k", lw=0.5, label="25%: one seat's share when all four are equal")
        ax.set_ylim(0, 1)
        ax.set_title(f"policy vs three {opp} agents (fresh duplicate deals)")
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate: mean, 95% CI (band), seeds (thin)")
    # one legend below both panels (the same settings and reference lines), so that it covers no band
    fig.set_size_inches(11, 5.2)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def markdown(agg: dict, at: dict[str, list[int]] | None = None) -> str:
    """A table: per setting its last evaluated step (or the steps in ``at``), mean ± 95% CI across seeds, and
    the env steps to 50% against random."""
    lines = ["| setting | budget | seeds | step | win rate vs 3 random | vs 3 greedy | a greedy seat, same hands "
             "| policy minus greedy seat (pp) | first grid step >= 50% vs random (mean over seeds; per seed) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for setting, res in agg.items():
        rows = [r for r in res["rows"] if at is not None and r["step"] in at.get(setting, [])] or res["rows"][-1:]
        for r in rows:
            to50 = res["to_50_vs_random"]
            per = ", ".join(f"{v if v is not None else 'not reached'}" for v in to50["per_seed"].values())
            mean = to50["mean"] if to50["mean"] is not None else "not reached"
            lines.append(f"| {setting} | {res['budget']:,} | {r['seeds']} | {r['step']:,} | {r['win_random']:.1%} ± "
                         f"{r['win_random_ci']:.1%} | {r['win_greedy']:.1%} ± {r['win_greedy_ci']:.1%} "
                         f"| {r['greedy_seat_win_greedy']:.1%} | {margin(r)} | {mean} ({per}) |")
    return "\n".join(lines) + "\n"


def margin(r: dict) -> str:
    """The policy-minus-greedy-seat cell; rows of an earlier report without per-seed seat rates get n/a."""
    if "margin_greedy" not in r:
        return "n/a"
    return f"{100 * r['margin_greedy']:+.1f} ± {100 * r['margin_greedy_ci']:.1f}"


def trained_command(setting: str, seed: int, args) -> list[str]:
    """The command that trained this run (from its trained.json), else the one this study would run."""
    d = run_dir(Path(args.out), setting, seed)
    done = d / "trained.json"
    cmd = json.loads(done.read_text())["command"] if done.is_file() else train_command(setting, seed, args, d)
    return ["python", *cmd[1:]]


# --- study2: each setting's own budget (settings of one report may have run at different budgets)
def budget(setting: str, seeds: list[int], args) -> int:
    """The budget the setting's evaluated seeds trained with (from their commands; the largest if they differ)."""
    flag = "--total-timesteps" if setting.startswith("ppo") else "--timesteps"
    cmds = [trained_command(setting, k, args) for k in (seeds or args.seeds)]
    return max(int(c[c.index(flag) + 1]) for c in cmds)
# --- end study2


# --- study2: settings carried over from an earlier report
def carry_over(agg: dict, path: str) -> dict:
    """Settings of this report without any run here, taken from an earlier report's JSON (``--previous``)
    when it has them, under the name ``SETTING (earlier report)`` and with the budget of their commands."""
    old = json.loads(Path(path).read_text())
    out = {}
    for setting, res in agg.items():
        prev = old["results"].get(setting)
        if res["rows"] or not prev or not prev["rows"]:
            out[setting] = res
            continue
        flag = "--total-timesteps" if setting.startswith("ppo") else "--timesteps"
        cmds = {k: c for k, c in old["meta"]["train_commands"].items() if k.split("/")[0] == setting}
        out[f"{setting} (earlier report)"] = {**prev, "train_commands": cmds, "from": str(path),
                                              "budget": max(int(c[c.index(flag) + 1]) for c in cmds.values())}
    return out
# --- end study2


def report(args) -> None:
    agg = aggregate(args)
    if args.previous:
        agg = carry_over(agg, args.previous)
    docs = Path(args.docs)
    docs.mkdir(parents=True, exist_ok=True)
    meta = {"command": " ".join(["python", "research/shaping_study.py", *sys.argv[1:]]),
            "ppo_steps": args.ppo_steps, "sb3_steps": args.sb3_steps, "seeds": args.seeds, "deals": args.deals,
            "eval_seed_random": args.eval_seeds[0], "eval_seed_greedy": args.eval_seeds[1],
            "train_commands": {f"{s}/{k}": trained_command(s, k, args) for s in args.settings for k in args.seeds}}
    # study2: a carried-over setting keeps the commands that trained it in its results, not this study's
    meta["train_commands"] = {k: c for k, c in meta["train_commands"].items() if k.split("/")[0] in agg}
    pair = paired(*args.paired, args) if args.paired else None  # study3
    (docs / "shaping_study.json").write_text(json.dumps({"meta": meta, "results": agg, "paired": pair}, indent=1))
    lines = ["setting,step,env_steps,seeds,win_random,win_random_ci,win_greedy,win_greedy_ci"]
    for setting, res in agg.items():
        for r in res["rows"]:
            lines.append(f"{setting},{r['step']},{r['env_steps']:.0f},{r['seeds']},{r['win_random']:.4f},"
                         f"{r['win_random_ci']:.4f},{r['win_greedy']:.4f},{r['win_greedy_ci']:.4f}")
    (docs / "shaping_study.csv").write_text("\n".join(lines) + "\n")
    every = {s: [r["step"] for r in res["rows"]] for s, res in agg.items()}  # study2: the whole curves too
    (docs / "shaping_study.md").write_text(markdown(agg) + "\nEvery evaluated checkpoint:\n\n" + markdown(agg, every)
                                           + ("\n" + paired_markdown(pair) if pair else ""))
    # study2: an algorithm with no rows in this report gets no (empty) plot
    if any(s.startswith("ppo:") and r["rows"] for s, r in agg.items()):
        plot(agg, "ppo", docs / "shaping_study_ppo.png", "env steps (vector env, all tables)")
    if any(s.startswith("sb3:") and r["rows"] for s, r in agg.items()):
        plot(agg, "sb3", docs / "shaping_study_sb3.png", "SB3 timesteps (learner decisions)")
    for setting, res in agg.items():
        if res["rows"]:
            last = res["rows"][-1]
            print(f"{setting:22s} step {last['step']:>8d} ({last['seeds']} seeds): vs random "
                  f"{last['win_random']:.3f} ± {last['win_random_ci']:.3f}, vs greedy {last['win_greedy']:.3f} ± "
                  f"{last['win_greedy_ci']:.3f}; 50% vs random at {res['to_50_vs_random']}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="runs/shaping_study", help="folder of the runs (default: %(default)s)")
    p.add_argument("--docs", default="research/notes/training",
                   help="folder of the table, JSON and plots (default: %(default)s)")
    p.add_argument("--previous", default=None,
                   help="an earlier report's shaping_study.json: settings with no run in --out are taken from it, "
                        "labelled '(earlier report)'")
    p.add_argument("--ppo-steps", type=int, default=1_000_000, help="env steps per PPO run (default: %(default)s)")
    p.add_argument("--sb3-steps", type=int, default=1_000_000, help="SB3 timesteps per run (default: %(default)s)")
    p.add_argument("--seeds", default="0,1,2", help="training seeds, comma separated (default: %(default)s)")
    p.add_argument("--settings", default=",".join(SETTINGS), help="algo:shaping list (default: %(default)s)")
    p.add_argument("--deals", type=int, default=50,
                   help="duplicate deals per evaluation, each in 4 rotations (default: %(default)s)")
    p.add_argument("--grid", default=",".join(map(str, GRID)),
                   help="fractions of the budget at which checkpoints are evaluated (default: %(default)s)")
    p.add_argument("--parallel", type=int, default=2, help="runs at once (default: %(default)s)")
    p.add_argument("--nice", type=int, default=10, help="niceness of the run processes (default: %(default)s)")
    p.add_argument("--sb3-args", default="",
                   help="more flags for examples/sb3_maskable_ppo.py in the sb3 runs, e.g. '--shaping-scale 1' "
                        "(default: none, the example's defaults)")
    p.add_argument("--eval-seeds", default=f"{EVAL_SEED_RANDOM},{EVAL_SEED_GREEDY}",
                   help="seeds of the evaluation deals against random and against greedy; other ones than the "
                        "default give deals that no model selection saw either (default: %(default)s)")
    p.add_argument("--report-only", action="store_true", help="only aggregate what is there")
    p.add_argument("--paired", default=None, metavar="A,B",
                   help="two of --settings: the report adds A minus B paired by training seed, per checkpoint and "
                        "averaged over the checkpoints, mean ± 95%% CI (paired t)")
    p.add_argument("--one", nargs=2, metavar=("SETTING", "SEED"), help=argparse.SUPPRESS)  # a worker
    args = p.parse_args(argv)
    args.seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    args.settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    args.grid = [float(f) for f in args.grid.split(",") if f.strip()]
    try:
        args.eval_seeds = [int(x) for x in args.eval_seeds.split(",")]
    except ValueError:
        args.eval_seeds = []
    if len(args.eval_seeds) != 2:
        raise ValueError(f"--eval-seeds must be two ints (random, greedy), got {args.eval_seeds!r}")
    if not args.grid or not all(0.0 < f <= 1.0 for f in args.grid):
        raise ValueError(f"--grid must be fractions in (0, 1], got {args.grid}")
    for s in args.settings:
        algo, _, shaping = s.partition(":")
        if algo not in ("ppo", "sb3") or shaping not in ("none", "deficiency", "deficiency_tiles"):
            raise ValueError(f"setting must be ppo|sb3:none|deficiency|deficiency_tiles, got {s!r}")
    if args.paired is not None:
        args.paired = [s.strip() for s in args.paired.split(",")]
        if len(args.paired) != 2 or args.paired[0] == args.paired[1] or not set(args.paired) <= set(args.settings):
            raise ValueError(f"--paired must be two different settings of --settings, got {args.paired!r}")
    for name in ("ppo_steps", "sb3_steps", "deals", "parallel"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive int, got {getattr(args, name)}")
    if args.one:
        one_run(args.one[0], int(args.one[1]), args)
        return
    if not args.report_only:
        queue = [(s, k) for s in args.settings for k in args.seeds]
        running: list[subprocess.Popen] = []
        passthrough = [a for a in (argv if argv is not None else sys.argv[1:])]
        while queue or running:
            running = [r for r in running if r.poll() is None]
            while queue and len(running) < args.parallel:
                setting, seed = queue.pop(0)
                cmd = ["nice", "-n", str(args.nice), sys.executable, __file__, *passthrough,
                       "--one", setting, str(seed)]
                d = run_dir(Path(args.out), setting, seed)
                d.mkdir(parents=True, exist_ok=True)
                log = open(d / "study.log", "a")
                running.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT,
                                                env={**os.environ, "OMP_NUM_THREADS": "1"}))
                print(f"started {setting} seed {seed}", flush=True)
            time.sleep(2)
        report(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
