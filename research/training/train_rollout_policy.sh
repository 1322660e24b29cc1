#!/usr/bin/env bash
# Rollout-based policy improvement of the shipped BC policy (result: OUT/selected.pt; not shipped, see the docs):
# approximate policy iteration with duplicate rollouts over determinizations (research.training.train_rollout;
# Tesauro & Galperin 1996). See research/notes/TRAINING.md ("The RL policy", "Round 3: rollout policy improvement").
#
#   bash research/training/train_rollout_policy.sh [OUT]     (default OUT=runs/rollout; run from the repository root)
#
# Per iteration n = 1..ITERS: play hands with the current policy in all seats (hand seeds SEED + ...), sample
# roots (decisions where >= 2 legal actions have policy probability >= 0.03, each with probability 0.5),
# screen: play each of the top-3 candidates in DETS determinized worlds and out with the current policy
# (argmax); a root whose best candidate beats the policy's choice by Z_SCREEN paired standard errors is
# confirmed on CONFIRM fresh worlds (those two candidates only); target = that candidate when the confirmation
# shows a gain of >= MARGIN points and Z standard errors, else the policy's choice;
# distil (cross-entropy + KL_COEF * KL to that iteration's start policy) -> OUT/iter_<n>/iter_<n>.pt; the next
# iteration starts from it. Distillation variants (VARIANTS) of the last iteration's roots are trained too
# (OUT/iter_<n>/iter_<n>_<name>.pt). Selection: every iteration's policy and every variant play the BC policy as
# teams on SELECT_DEALS duplicate deals of seed SELECT_SEED; the best win-rate difference -> OUT/selected.pt.
# Resumable: a chunk file already written is reused, a finished iteration and a cached selection are skipped.
# Each iteration collects for at most BUDGET seconds (default 2400) and then distils what it has, so a chunk
# of work stays far inside a 2-hour limit. Seeds: training hands 9000000 + ...; selection 53000 only;
# 818181, 828282, 838383 (and the earlier rounds' evaluation seeds) are for evaluations and never used here.
# Knobs (env): ITERS (1), BUDGET (2400), CHUNKS (1000), HANDS (8, per chunk), DETS (32), Z_SCREEN (0.5),
# CONFIRM (256), MARGIN (0.1), Z (2.0), KL_COEF (1.0), EPOCHS (4), LR (1e-4), VARIANTS (default
# "w10=--changed-weight 10 --epochs 4 --learning-rate 1e-4;w10_long=--changed-weight 10 --epochs 10
# --learning-rate 3e-4"; "" for none), SEED (9000000), INIT (baselines/data/pretrained_policy.pt),
# SELECT_SEED (53000), SELECT_DEALS (100), PYTHON (default .venv/bin/python).
set -euo pipefail
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
OUT=${1:-runs/rollout}
PY=${PYTHON:-.venv/bin/python}
ITERS=${ITERS:-1}
BUDGET=${BUDGET:-2400}
CHUNKS=${CHUNKS:-1000}
HANDS=${HANDS:-8}
DETS=${DETS:-32}
Z_SCREEN=${Z_SCREEN:-0.5}
CONFIRM=${CONFIRM:-256}
MARGIN=${MARGIN:-0.1}
Z=${Z:-2.0}
KL_COEF=${KL_COEF:-1.0}
EPOCHS=${EPOCHS:-4}
LR=${LR:-1e-4}
SEED=${SEED:-9000000}
INIT=${INIT:-baselines/data/pretrained_policy.pt}
VARIANTS=${VARIANTS-w10=--changed-weight 10 --epochs 4 --learning-rate 1e-4;w10_long=--changed-weight 10 --epochs 10 --learning-rate 3e-4}
SELECT_SEED=${SELECT_SEED:-53000}
SELECT_DEALS=${SELECT_DEALS:-100}
export OMP_NUM_THREADS=1
mkdir -p "$OUT"

start=$INIT
common=()
for ((n = 1; n <= ITERS; n++)); do
  dir=$OUT/iter_$n
  common=(--init "$start" --out-dir "$dir" --iteration "$n" --seed $((SEED + 100000 * n)) --chunks "$CHUNKS"
          --margin "$MARGIN" --z "$Z" --kl-coef "$KL_COEF")
  if [[ ! -f "$dir/iter_$n.pt" ]]; then
    $PY -m research.training.train_rollout "${common[@]}" --hands-per-chunk "$HANDS" --time-budget "$BUDGET" \
        --determinizations "$DETS" --z-screen "$Z_SCREEN" --confirm-worlds "$CONFIRM" --epochs "$EPOCHS" \
        --learning-rate "$LR"
  fi
  start=$dir/iter_$n.pt
done
candidates=()
for ((n = 1; n <= ITERS; n++)); do candidates+=("$OUT/iter_$n/iter_$n.pt"); done
# distillation variants of the last iteration's roots (no new games): NAME=OPTIONS;... -> iter_<n>_<NAME>.pt
IFS=';' read -ra specs <<< "$VARIANTS"
for spec in "${specs[@]}"; do
  [[ -n "$spec" ]] || continue
  dest=$OUT/iter_$ITERS/iter_${ITERS}_${spec%%=*}.pt
  if [[ ! -f "$dest" ]]; then
    # shellcheck disable=SC2086  # the variant's options are words
    $PY -m research.training.train_rollout "${common[@]}" --no-collect --dest "$dest" ${spec#*=} > /dev/null
  fi
  candidates+=("$dest")
done

# selection on seed SELECT_SEED only: every candidate against the BC policy as teams (scores cached)
$PY -m research.training.select_policy "${candidates[@]}" --against policy:bc --seed "$SELECT_SEED" \
    --deals "$SELECT_DEALS" --cache "$OUT/select/scores.json" --out-dir "$OUT/select" --dest "$OUT/selected.pt"
echo "done"
