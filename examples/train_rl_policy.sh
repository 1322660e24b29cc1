#!/usr/bin/env bash
# Fine-tunes the shipped BC policy by PPO into the RL policy (baselines/data/rl_policy.pt, package mjenv.baselines); see docs/TRAINING.md.
#
#   bash examples/train_rl_policy.sh [OUT]       (default OUT=runs/rl_policy; run from the repository root)
#
# Resumable: run the same command again after an interruption (or after a chunk's time box ends) and it
# goes on from OUT/ppo/checkpoint.pt; a finished stage is skipped. Each call runs at most CHUNK_SECONDS
# (default 6600 s, inside a 2-hour limit) of PPO, then selects and stops; call it until it prints "done".
# 1. PPO from the BC policy (--init): potential-based --shaping deficiency, a KL penalty toward the frozen
#    BC policy (--kl-to-init), small learning rate (annealed to 0), value-head warm-up, opponents greedy + past
#    selves + self; a policy copy is kept at every checkpoint (OUT/ppo/policies/step_*.pt).
# 2. model selection: every kept policy against three GreedyAgents on SELECT_DEALS duplicate deals of seed
#    SELECT_SEED (51000; never an evaluation seed: 616161, 626262, 636363, 646464 are kept for docs/TRAINING.md);
#    the best win rate is copied to OUT/selected.pt.
# Budget knobs (env): STEPS (PPO env steps, default 1000000; the learning rate anneals linearly to 0 over them),
# SELECT_DEALS (default 50), SELECT_LAST (newest kept policies compared, default 10), CHUNK_SECONDS, KL (default
# 0.1), LR (default 1e-4). The defaults are the run that made the shipped rl_policy.pt (about 28 minutes of PPO on
# a loaded 2-core machine; docs/TRAINING.md).
set -euo pipefail
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
OUT=${1:-runs/rl_policy}
PY=${PYTHON:-.venv/bin/python}
STEPS=${STEPS:-1000000}
KL=${KL:-0.1}
LR=${LR:-1e-4}
SELECT_SEED=${SELECT_SEED:-51000}
SELECT_DEALS=${SELECT_DEALS:-50}
SELECT_LAST=${SELECT_LAST:-10}
CHUNK_SECONDS=${CHUNK_SECONDS:-6600}
NUM_ENVS=${NUM_ENVS:-16}
NUM_STEPS=${NUM_STEPS:-128}
export OMP_NUM_THREADS=1
mkdir -p "$OUT"
INIT=$($PY -c "from mjenv.baselines.policy import pretrained_path; print(pretrained_path('bc'))")

if [[ ! -f "$OUT/ppo.done" ]]; then
  resume=()
  [[ -f "$OUT/ppo/checkpoint.pt" ]] && resume=(--resume)
  rc=0
  timeout "$CHUNK_SECONDS" $PY -m mjenv.baselines.train_ppo "${resume[@]}" --init "$INIT" \
      --shaping deficiency --kl-to-init "$KL" --learning-rate "$LR" --value-warmup 5 \
      --opponents greedy,past,self --num-envs "$NUM_ENVS" --num-steps "$NUM_STEPS" \
      --total-timesteps "$STEPS" --seed 7 --torch-threads 1 --eval-hands 0 --keep-policies \
      --checkpoint-every 5 --snapshot-every 10 --no-progress --no-tensorboard --out-dir "$OUT/ppo" || rc=$?
  if [[ $rc -eq 124 ]]; then
    echo "PPO chunk time box reached; run the same command again to resume"
    exit 0
  fi
  [[ $rc -eq 0 ]] || exit $rc
  touch "$OUT/ppo.done"
fi

$PY - "$OUT" "$SELECT_SEED" "$SELECT_DEALS" "$SELECT_LAST" <<'PY'
import json, shutil, sys
from pathlib import Path
from mjenv.baselines.train_ppo import evaluate_vs_greedy

out, seed, deals, last = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cache = out / "selection.json"
scores = json.loads(cache.read_text()) if cache.is_file() else {}
for p in sorted((out / "ppo" / "policies").glob("step_*.pt"))[-last:]:
    if p.name not in scores:  # cached, so an interrupted selection resumes
        r = evaluate_vs_greedy(str(p), hands=deals, seed=seed)
        scores[p.name] = [r["policy_win_rate"], r["win_rate_diff"]]
        cache.write_text(json.dumps(scores, indent=1))
        print(f"{p.name}: win rate {r['policy_win_rate']:.3f} ({r['win_rate_diff']:+.3f} vs greedy)", flush=True)
best = max(scores, key=lambda k: (scores[k][1], k))
shutil.copy(out / "ppo" / "policies" / best, out / "selected.pt")
print(f"selected {best}: {out / 'selected.pt'}")
PY
echo "done; ship it: cp $OUT/selected.pt baselines/data/rl_policy.pt"
