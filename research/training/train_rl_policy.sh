#!/usr/bin/env bash
# Trains the RL policy (baselines/data/rl_policy.pt, package mjenv.baselines) from the shipped BC policy by PPO,
# in two stages; see research/notes/TRAINING.md ("The RL policy").
#
#   bash research/training/train_rl_policy.sh [OUT]       (default OUT=runs/rl_policy; run from the repository root)
#
# Resumable: run the same command again after an interruption (or after a chunk's time box ends) and it
# goes on from the running stage's checkpoint.pt; a finished stage is skipped and a finished selection is
# read from its cache. Each call runs at most CHUNK_SECONDS (default 6600 s, inside a 2-hour limit) of PPO,
# then stops; call it until it prints "done".
# 1. Stage 1, PPO from the BC policy (--init): potential-based --shaping deficiency, a KL penalty toward the
#    frozen BC policy (--kl-to-init KL), small learning rate (annealed to 0), value-head warm-up, opponents
#    greedy + past selves + self, the score changes as reward; a policy copy is kept at every checkpoint
#    (OUT/ppo/policies/step_*.pt). Selection: the SELECT_LAST newest kept policies against three GreedyAgents
#    on SELECT_DEALS duplicate deals of seed SELECT_SEED; the best win-rate difference -> OUT/selected.pt.
# 2. Stage 2, PPO from OUT/selected.pt (skipped when STEPS2=0): a weaker KL penalty toward that policy (KL2),
#    the reward of a won hand only (--win-reward WIN_REWARD2; the must-shows rank by win rate), bigger rollouts
#    (NUM_ENVS2 games), STEPS2 env steps; out in OUT/ppo2. Selection on SELECT2_DEALS deals of seed SELECT2_SEED
#    among the SELECT2_LAST newest kept policies AND the stage's starting policy (so a stage that made nothing
#    better hands back its start) -> OUT/selected2.pt, the policy to ship.
# Seeds: selection uses 51000 and 52000 only; 616161, 626262, 636363, 646464, 717171, 727272, 737373 are kept
# for the evaluations in research/notes/TRAINING.md and must never be used here.
# Knobs (env): STEPS (stage 1 env steps, default 1000000; the learning rate anneals linearly to 0 over them),
# KL (0.1), LR (1e-4), NUM_ENVS (16), NUM_STEPS (128), SELECT_SEED (51000), SELECT_DEALS (50), SELECT_LAST (10);
# STEPS2 (3000000), KL2 (0.02), LR2 (1e-4), WIN_REWARD2 (3), NUM_ENVS2 (32), SELECT2_SEED (52000),
# SELECT2_DEALS (150), SELECT2_LAST (8); INIT2=PATH takes PATH as stage 1's result (copied to OUT/selected.pt)
# and skips stage 1 (the documented run started stage 2 from the stage-1 policy shipped before it);
# CHUNK_SECONDS; PYTHON (default .venv/bin/python).
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
NUM_ENVS=${NUM_ENVS:-16}
NUM_STEPS=${NUM_STEPS:-128}
SELECT_SEED=${SELECT_SEED:-51000}
SELECT_DEALS=${SELECT_DEALS:-50}
SELECT_LAST=${SELECT_LAST:-10}
STEPS2=${STEPS2:-3000000}
KL2=${KL2:-0.02}
LR2=${LR2:-1e-4}
WIN_REWARD2=${WIN_REWARD2:-3}
NUM_ENVS2=${NUM_ENVS2:-32}
SELECT2_SEED=${SELECT2_SEED:-52000}
SELECT2_DEALS=${SELECT2_DEALS:-150}
SELECT2_LAST=${SELECT2_LAST:-8}
CHUNK_SECONDS=${CHUNK_SECONDS:-6600}
export OMP_NUM_THREADS=1
mkdir -p "$OUT"
t_end=$((SECONDS + CHUNK_SECONDS))

# ppo_stage DIR INIT KL LR STEPS NUM_ENVS [extra train_ppo options]: one resumable PPO stage; returns 3 when
# the chunk's time box ends before the stage does
ppo_stage() {
  local dir=$1 init=$2 kl=$3 lr=$4 steps=$5 envs=$6
  shift 6
  [[ -f "$dir.done" ]] && return 0
  local left=$((t_end - SECONDS)) resume=() rc=0
  (( left > 0 )) || return 3
  [[ -f "$dir/checkpoint.pt" ]] && resume=(--resume)
  timeout "$left" $PY -m mjenv.baselines.train_ppo "${resume[@]}" --init "$init" \
      --shaping deficiency --kl-to-init "$kl" --learning-rate "$lr" --value-warmup 5 \
      --opponents greedy,past,self --num-envs "$envs" --num-steps "$NUM_STEPS" \
      --total-timesteps "$steps" --seed 7 --torch-threads 1 --eval-hands 0 --keep-policies \
      --checkpoint-every 5 --snapshot-every 10 --no-progress --no-tensorboard --out-dir "$dir" "$@" || rc=$?
  [[ $rc -eq 124 ]] && return 3
  [[ $rc -eq 0 ]] || exit $rc
  touch "$dir.done"
}

# select DIR SEED DEALS LAST DEST [START]: the best of DIR's LAST newest kept policies (and START, when given)
# against three GreedyAgents, copied to DEST; scores cached in DIR.selection.json
select_best() {
  local stage=$1 seed=$2 deals=$3 last=$4 dest=$5 start=${6:-} f
  local cands=()
  while IFS= read -r f; do cands+=("$(basename "$f")=$f"); done < <(ls "$stage"/policies/step_*.pt | sort | tail -n "$last")
  [[ -z "$start" ]] || cands+=("start=$start")
  $PY -m research.training.select_policy "${cands[@]}" --against greedy --seed "$seed" --deals "$deals" \
      --cache "$stage.selection.json" --dest "$dest"
}

stopped() { echo "PPO chunk time box reached; run the same command again to resume"; exit 0; }

if [[ -n "${INIT2:-}" && ! -f "$OUT/selected.pt" ]]; then
  cp "$INIT2" "$OUT/selected.pt"
fi
if [[ ! -f "$OUT/selected.pt" ]]; then
  BC=$($PY -c "from mjenv.baselines.policy import pretrained_path; print(pretrained_path('bc'))")
  ppo_stage "$OUT/ppo" "$BC" "$KL" "$LR" "$STEPS" "$NUM_ENVS" || stopped
  select_best "$OUT/ppo" "$SELECT_SEED" "$SELECT_DEALS" "$SELECT_LAST" "$OUT/selected.pt"
fi
if [[ "$STEPS2" -eq 0 ]]; then
  echo "done; ship it: cp $OUT/selected.pt baselines/data/rl_policy.pt"
  exit 0
fi
ppo_stage "$OUT/ppo2" "$OUT/selected.pt" "$KL2" "$LR2" "$STEPS2" "$NUM_ENVS2" --win-reward "$WIN_REWARD2" || stopped
select_best "$OUT/ppo2" "$SELECT2_SEED" "$SELECT2_DEALS" "$SELECT2_LAST" "$OUT/selected2.pt" "$OUT/selected.pt"
echo "done; ship it: cp $OUT/selected2.pt baselines/data/rl_policy.pt"
