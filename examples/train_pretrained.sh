#!/usr/bin/env bash
# Trains the shipped policy (mjenv/baselines/data/pretrained_policy.pt) from scratch; see research/notes/TRAINING.md.
#
#   bash examples/train_pretrained.sh [OUT]      (default OUT=runs/pretrained; run from the repository root)
#
# 1. behaviour cloning of four GreedyAgents (6000 hands): a near-exact greedy clone (99.9% held-out accuracy);
# 2. flat Monte Carlo teacher decisions: one FlatMCAgent seat (default budget) against three GreedyAgents,
#    CHUNKS x 300 hands (only the flat-MC seat's decisions are kept);
# 3. behaviour cloning of those decisions, starting from the greedy clone.
# Every step is seeded; the flat-MC budget is a simulation count, so the result does not depend on load.
# Budget: CHUNKS=1 bash examples/train_pretrained.sh (fewer flat-MC chunks; default 3). Needs the train extra.
set -euo pipefail
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
OUT=${1:-runs/pretrained}
CHUNKS=${CHUNKS:-3}
PY=${PYTHON:-.venv/bin/python}
start=$(date +%s)

$PY -m mjenv.baselines.train_bc --hands 6000 --num-envs 32 --epochs 10 --batch-size 256 \
    --out-dir "$OUT/bc_greedy" --eval-hands 0 --no-save-logs --no-progress

data=""
for k in $(seq 1 "$CHUNKS"); do
  $PY -m mjenv.baselines.train_bc --teacher flatmc --opponents greedy --hands 300 --num-envs 32 \
      --seed $((100 + k)) --epochs 0 --save-data --no-save-logs --no-progress --no-tensorboard \
      --out-dir "$OUT/flatmc_data/chunk_$k"
  data="${data:+$data,}$OUT/flatmc_data/chunk_$k/bc_data.npz"
done

$PY -m mjenv.baselines.train_bc --data "$data" --init "$OUT/bc_greedy/policy.pt" --epochs 6 --batch-size 256 \
    --learning-rate 3e-4 --out-dir "$OUT/bc_flatmc" --no-progress

echo "policy: $OUT/bc_flatmc/policy.pt ($(( $(date +%s) - start )) s)"
echo "ship it: cp $OUT/bc_flatmc/policy.pt baselines/data/pretrained_policy.pt"
