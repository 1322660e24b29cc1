"""Smoke runs of the shaping study and the sb3 / RLlib examples: --help and a tiny budget, as a user runs them."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}

#: why the RLlib tests skip without Ray RLlib
RLLIB_MISSING = "Ray RLlib is not in the Quick start's install: pip install -e '.[rllib]' (CI installs it)"


def run_recipe(script: str, out: Path, env: dict) -> str:
    """Runs a bash recipe of examples/ on ``out`` with ``env``; its stdout (asserts it succeeded)."""
    proc = subprocess.run(["bash", script, str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def run(*args: str, timeout: int = 120) -> str:
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.parametrize(("script", "flag"), [("examples/sb3_maskable_ppo.py", "--torch-threads"),
                                              ("examples/rllib_ppo.py", "--torch-threads"),
                                              ("research/shaping_study.py", "--ppo-steps"),
                                              ("benchmarks/train_ppo_throughput.py", "--steps"),
                                              ("benchmarks/cold_start.py", "--cold-cache")])
def test_help_works(script, flag):
    out = run(script, "--help")
    assert out.startswith("usage:") and flag in out


def test_sb3_example_trains_a_tiny_budget_saves_and_prints_its_evaluation(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = run("examples/sb3_maskable_ppo.py", "--timesteps", "128", "--n-steps", "64", "--save-at", "64,128",
              "--eval-deals", "1", "--out-dir", str(tmp_path))
    assert "trained 128 decisions" in out and "shaping deficiency, gamma 0.99" in out
    assert "win rate vs three random agents" in out and "win rate vs three greedy agents" in out
    meta = json.loads((tmp_path / "models" / "step_000000128.json").read_text())
    assert meta["timesteps"] == 128 and meta["env_steps"] > 128  # forced steps are played between decisions
    assert (tmp_path / "model.zip").is_file()


def test_sb3_example_rejects_bad_flags():
    for flags, message in ((["--timesteps", "0"], "--timesteps must be a positive int"),
                           (["--observation", "scaled"], "--policy policynet reads the raw observation"),
                           (["--shaping-scale", "0"], "--shaping-scale and --learning-rate must be > 0"),
                           (["--net", "64,x"], "--net must be comma-separated positive ints")):
        proc = subprocess.run([sys.executable, "examples/sb3_maskable_ppo.py", *flags], cwd=ROOT, env=ENV,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0 and message in proc.stderr, flags


def _example():
    import importlib.util

    spec = importlib.util.spec_from_file_location("sb3_example", ROOT / "examples" / "sb3_maskable_ppo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sb3_policynet_policy_is_policynet_and_a_saved_model_acts_legally_on_raw_observations(tmp_path):
    """--policy policynet: sb3's logits are PolicyNet's (masked by MaskablePPO), and SB3Agent loads it back.
    An MLP trained on the scaled observation gets the harness's raw observations scaled by SB3Agent."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import numpy as np
    import torch
    from mjenv.wrappers import ObservationScaler, SingleAgentEnv

    ex = _example()
    env = SingleAgentEnv(opponents="random", seat=None, shaping="deficiency", gamma=0.99, shaping_scale=1 / 15)
    model = sb3_contrib.MaskablePPO(ex.policy_net_policy(), env, n_steps=32, batch_size=16, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32, 32]})
    model.learn(32)
    obs, _ = env.reset(seed=11)
    mask = env.action_masks()
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs[None]), action_masks=mask[None])
        net = model.policy.mlp_extractor.net
        logits, _ = net(torch.as_tensor(obs[None]), torch.as_tensor(mask[None]))
    torch.testing.assert_close(dist.distribution.probs, torch.softmax(logits, dim=1))
    model.save(str(tmp_path / "pn"))
    agent = ex.SB3Agent.load(str(tmp_path / "pn.zip"))
    assert agent.scaler is None and mask[agent.act({"observation": obs, "action_mask": mask.astype(np.int8)})]

    scaled_env = SingleAgentEnv(opponents="random", seat=None, scale_observation=True)
    mlp = sb3_contrib.MaskablePPO("MlpPolicy", scaled_env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    mlp.save(str(tmp_path / "mlp"))
    agent = ex.SB3Agent.load(str(tmp_path / "mlp.zip"))
    raw, _ = env.reset(seed=12)
    mask = env.action_masks()
    want, _ = mlp.predict(ObservationScaler("basic")(raw), action_masks=mask, deterministic=True)
    assert agent.scaler is not None and agent.act({"observation": raw, "action_mask": mask}) == int(want)


def test_rllib_example_runs_one_tiny_iteration_with_shaping(tmp_path):
    pytest.importorskip("ray.rllib", reason=RLLIB_MISSING)
    out = run("examples/rllib_ppo.py", "--iterations", "1", "--train-batch-size", "64", "--shaping", "deficiency",
              "--num-cpus", "1", "--out", str(tmp_path / "p.pt"))
    assert "iteration 1: env steps" in out and (tmp_path / "p.pt").is_file()


def test_shaping_study_runs_two_seeds_of_the_variant_and_reports_cis(tmp_path):
    docs = tmp_path / "docs"
    out = run("research/shaping_study.py", "--settings", "ppo:deficiency_tiles", "--seeds", "0,1", "--ppo-steps",
              "2048", "--deals", "1", "--nice", "0", "--out", str(tmp_path / "runs"), "--docs", str(docs))
    assert "ppo:deficiency_tiles" in out
    rows = list(csv.DictReader((docs / "shaping_study.csv").open()))
    assert [r["setting"] for r in rows] == ["ppo:deficiency_tiles"] and rows[0]["seeds"] == "2"
    assert 0.0 <= float(rows[0]["win_random"]) <= 1.0 and rows[0]["win_random_ci"] != "nan"
    meta = json.loads((docs / "shaping_study.json").read_text())["meta"]
    assert meta["eval_seed_random"] == 424_242 and meta["eval_seed_greedy"] == 434_343
    assert (docs / "shaping_study_ppo.png").stat().st_size > 1000
    assert not (docs / "shaping_study_sb3.png").exists()  # no empty plot for an algorithm not run
    # each setting's own budget is in the table; the margin over a greedy seat is taken per seed
    assert "| ppo:deficiency_tiles | 2,048 | 2 |" in (docs / "shaping_study.md").read_text()
    res = json.loads((docs / "shaping_study.json").read_text())["results"]["ppo:deficiency_tiles"]
    assert res["budget"] == 2048
    evals = [json.loads((tmp_path / "runs" / f"ppo_deficiency_tiles_s{k}" / "evals.json").read_text()) for k in (0, 1)]
    last = [max(e.values(), key=lambda r: r["step"]) for e in evals]
    assert res["rows"][-1]["margin_greedy_per_seed"] == pytest.approx(
        [r["win_greedy"] - r["greedy_seat_win_greedy"] for r in last])
    # a setting with no run here is carried over from an earlier report, labelled, with its own budget
    row = {"step": 499712, "seeds": 3, "env_steps": 499712.0, "win_random": 0.882, "win_random_ci": 0.05,
           "win_random_per_seed": [0.9, 0.85, 0.895], "random_seat_win_random": 0.04, "win_greedy": 0.248,
           "win_greedy_ci": 0.05, "win_greedy_per_seed": [0.26, 0.23, 0.255], "greedy_seat_win_greedy": 0.251}
    cmd = ["python", "-m", "mjenv.baselines.train_ppo", "--total-timesteps", "500000", "--shaping", "deficiency"]
    earlier = {"meta": {"train_commands": {f"ppo:deficiency/{k}": cmd for k in range(3)}},
               "results": {"ppo:deficiency": {"rows": [row], "seeds": [0, 1, 2],
                                              "to_50_vs_random": {"mean": 98304, "per_seed": {}}}}}
    (tmp_path / "earlier.json").write_text(json.dumps(earlier))
    run("research/shaping_study.py", "--report-only", "--settings", "ppo:deficiency_tiles,ppo:deficiency", "--seeds",
        "0,1", "--deals", "1", "--out", str(tmp_path / "runs"), "--docs", str(docs), "--previous",
        str(tmp_path / "earlier.json"))
    table = (docs / "shaping_study.md").read_text()
    assert "| ppo:deficiency (earlier report) | 500,000 | 3 | 499,712 | 88.2% ± 5.0% | 24.8% ± 5.0% | 25.1% | n/a |" \
        in table and "| ppo:deficiency_tiles | 2,048 | 2 |" in table


def test_train_ppo_throughput_benchmark_prints_its_breakdown_and_the_peer():
    out = run("benchmarks/train_ppo_throughput.py", "--parts", "--steps", "2048", "--env-steps", "64",
              "--num-envs", "4")
    assert "env steps per CPU-second" in out and "| env (vector env step) |" in out
    assert "| opponents' decisions |" in out and "bare vector env" in out


def test_train_ppo_throughput_benchmark_compares_two_trees():
    # this tree as both "before" and "after" (the default "before" is a worktree of an older commit)
    out = run("benchmarks/train_ppo_throughput.py", "--steps", "2048", "--num-envs", "4", "--repeats", "1",
              "--base-tree", str(ROOT), "--base-python", sys.executable, timeout=300)
    assert "| before |" in out and "| after |" in out and "after / before:" in out
    assert "--torch-threads 1" in out  # the command both trees run


def test_cold_start_benchmark_compares_two_trees(tmp_path):
    out = run("benchmarks/cold_start.py", "--repeats", "1", "--figures", "deficiency,parallel_env,riichi parallel_env",
              "--cold-cache", "--base-tree", str(ROOT), "--base-python", sys.executable, timeout=300)
    assert "| deficiency | <= 0.1 |" in out and "| parallel_env | <= 0.5 |" in out and "empty table cache" in out
    assert "| riichi parallel_env | <= 0.5 | n/a |" in out  # this tree only: the "before" commit has no Riichi


def test_cold_start_benchmark_times_riichi_without_a_before_tree():
    # Riichi's figures alone: no "before" tree is built (the default "before" commit has no Riichi env)
    out = run("benchmarks/cold_start.py", "--repeats", "1", "--figures", "riichi vector_env(64)", timeout=300)
    row = next(line for line in out.splitlines() if line.startswith("| riichi vector_env(64) |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:3] == ["<= 0.6", "n/a"] and float(cells[3].split()[0]) > 0


@pytest.mark.heavy
def test_rl_policy_recipe_trains_selects_and_resumes_with_tiny_budgets(tmp_path):
    env = {**ENV, "PYTHON": sys.executable, "STEPS": "64", "NUM_ENVS": "2", "NUM_STEPS": "16",
           "SELECT_DEALS": "1", "SELECT_LAST": "2", "STEPS2": "64", "NUM_ENVS2": "2", "SELECT2_DEALS": "1",
           "SELECT2_LAST": "1"}
    rl = tmp_path / "rl"

    def recipe() -> str:
        return run_recipe("research/training/train_rl_policy.sh", rl, env)

    out = recipe()
    assert "selected step_" in out and "done" in out
    assert (rl / "selected.pt").is_file() and (rl / "selected2.pt").is_file()
    for stage in ("ppo", "ppo2"):
        with open(rl / stage / "ppo_log.csv") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == 2 and all(float(r["kl_to_init"]) >= 0 for r in rows)
    assert json.loads((rl / "ppo" / "args.json").read_text())["win_reward"] == 0
    args2 = json.loads((rl / "ppo2" / "args.json").read_text())
    assert args2["win_reward"] == 3 and args2["kl_to_init"] == 0.02 and args2["init"] == str(rl / "selected.pt")
    assert list(json.loads((rl / "ppo.selection.json").read_text())) == ["step_000000064.pt"]  # the one kept
    # stage 2 also scores the policy it started from: a stage that made nothing better hands back its start
    assert sorted(json.loads((rl / "ppo2.selection.json").read_text())) == ["start", "step_000000064.pt"]
    # a second call skips the finished PPO stages and reuses the cached selections
    out2 = recipe()
    assert "resumed" not in out2 and "win rate" not in out2 and "selected" in out2


def test_shaping_study_rejects_bad_eval_seeds():
    from research.shaping_study import main

    for bad in ("1", "1,x", "1,2,3"):
        with pytest.raises(ValueError, match="--eval-seeds must be two ints"):
            main(["--eval-seeds", bad, "--report-only"])


def _write_evals(out: Path, setting: str, seed: int, wins: dict[int, tuple[float, float]]) -> None:
    """A run's evals.json with the given win rates (against random, against greedy) per step."""
    d = out / setting.replace(":", "_")
    d = d.with_name(f"{d.name}_s{seed}")
    d.mkdir(parents=True)
    rows = {f"{s}:1": {"step": s, "env_steps": 7 * s, "deals": 1, "win_random": r, "win_random_ci": 0.1,
                       "random_seat_win_random": 0.0, "score_random": 0.0, "win_greedy": g, "win_greedy_ci": 0.1,
                       "greedy_seat_win_greedy": 0.25, "score_greedy": 0.0} for s, (r, g) in wins.items()}
    (d / "evals.json").write_text(json.dumps(rows))


def test_shaping_study_paired_report_takes_differences_per_seed_and_over_the_checkpoints(tmp_path):
    """--paired A,B: A minus B per training seed, per checkpoint and averaged over the checkpoints, with the
    paired t-interval (n - 1 df). Values chosen so the answers are known by hand."""
    from research.shaping_study import main

    out, docs = tmp_path / "runs", tmp_path / "docs"
    shaped = {10: {2048: (0.5, 0.1), 4096: (0.7, 0.2)}, 11: {2048: (0.4, 0.0), 4096: (0.6, 0.1)},
              12: {2048: (0.3, 0.1), 4096: (0.9, 0.3)}}
    plain = {10: {2048: (0.4, 0.1), 4096: (0.6, 0.1)}, 11: {2048: (0.2, 0.0), 4096: (0.6, 0.1)},
             12: {2048: (0.3, 0.0), 4096: (0.6, 0.2)}}
    for seed in shaped:
        _write_evals(out, "sb3:deficiency", seed, shaped[seed])
        _write_evals(out, "sb3:none", seed, plain[seed])
    _write_evals(out, "sb3:deficiency", 13, {2048: (1.0, 1.0), 4096: (1.0, 1.0)})  # no partner: left out
    main(["--report-only", "--settings", "sb3:deficiency,sb3:none", "--seeds", "10,11,12,13", "--deals", "1",
          "--sb3-steps", "4096", "--out", str(out), "--docs", str(docs), "--paired", "sb3:deficiency,sb3:none"])
    res = json.loads((docs / "shaping_study.json").read_text())["paired"]
    assert res["seeds"] == [10, 11, 12] and res["steps"] == [2048, 4096]
    first, second, auc = res["rows"]
    assert first["diff_random_per_seed"] == pytest.approx([0.1, 0.2, 0.0])
    assert first["diff_random"] == pytest.approx(0.1)
    assert first["diff_random_ci"] == pytest.approx(4.303 * 0.1 / 3 ** 0.5, abs=1e-4)  # sd 0.1, t(2) = 4.303
    assert second["diff_random_per_seed"] == pytest.approx([0.1, 0.0, 0.3])
    # the area under the curve: each run's mean over the two checkpoints, then shaped minus unshaped
    assert auc["step"] == "mean" and auc["diff_random_per_seed"] == pytest.approx([0.1, 0.1, 0.15])
    assert auc["random_a"] == pytest.approx((0.6 + 0.5 + 0.6) / 3) and auc["pairs"] == 3
    assert auc["diff_random_t"] == pytest.approx((0.35 / 3) / (0.05 / 3 ** 0.5 / 3 ** 0.5), rel=1e-6)
    assert auc["diff_greedy_per_seed"] == pytest.approx([0.05, 0.0, 0.1])
    table = (docs / "shaping_study.md").read_text()
    assert "Paired by training seed (3 pairs, seeds 10, 11, 12)" in table
    assert "| mean | 56.7% | 45.0% | +11.7 ± 7.2 pp *, t = 7.00 |" in table


def test_shaping_study_rejects_a_bad_paired_flag():
    from research.shaping_study import main

    for bad in ("sb3:none", "sb3:none,sb3:none", "sb3:none,ppo:none"):
        with pytest.raises(ValueError, match="--paired must be two different settings of --settings"):
            main(["--report-only", "--settings", "sb3:none,sb3:deficiency", "--paired", bad])


def test_rollout_policy_recipe_collects_distils_selects_and_resumes_with_tiny_budgets(tmp_path):
    env = {**ENV, "PYTHON": sys.executable, "CHUNKS": "1", "HANDS": "1", "DETS": "2", "CONFIRM": "4",
           "Z_SCREEN": "-100", "SELECT_DEALS": "1", "VARIANTS": "w3=--changed-weight 3 --epochs 1"}
    out = tmp_path / "rollout"
    first = run_recipe("research/training/train_rollout_policy.sh", out, env)
    assert "selected" in first and "done" in first and (out / "selected.pt").is_file()
    # the iteration's policy and the variant distilled from its roots are both selection candidates
    assert (out / "iter_1" / "iter_1_w3.pt").is_file() and first.count("win-rate difference against policy:bc") == 2
    log = [json.loads(line) for line in (out / "iter_1" / "log.jsonl").read_text().splitlines()]
    # Z_SCREEN=-100 confirms every root whose screening best is not the policy's own choice
    assert log[0]["chunk"] == 0 and 0 < log[0]["confirmed"] <= log[0]["roots"]
    assert log[-1]["iteration"] == 1 and log[-1]["roots"] == log[0]["roots"]
    chunk = np.load(out / "iter_1" / "iter1_chunk_000.npz")
    assert chunk["returns"].shape[1:] == (2, 3) and chunk["confirm_returns"].shape[1:] == (4, 2)
    # a second call reuses the distilled policy and the cached selection: nothing is played again
    second = run_recipe("research/training/train_rollout_policy.sh", out, env)
    assert "selected" in second and (out / "iter_1" / "log.jsonl").read_text().count("\n") == len(log)
