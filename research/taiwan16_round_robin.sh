#!/usr/bin/env bash
# SIMCAT Sec. 5 experiments under taiwan16, round robin over the experiments so that every row grows
# evenly, one chunk of DEALS duplicate deals per experiment per round, until STOP (UTC, HH:MM): no
# chunk starts after it (time-boxed in advance; every chunk started before it counts). One worker
# process at a time under `nice -n 10` (2-core shared machine). Seeds were fixed before any run:
# experiment E uses seeds FIRST_E, FIRST_E+1, ... (never used for anything else).
# Usage: research/taiwan16_round_robin.sh STOP_HHMM ROUNDS [DEALS]
set -uo pipefail
stop=$1; rounds=$2; deals=${3:-3}
chunks=${CHUNKS:-/tmp/mjenv_taiwan16_chunks}
mkdir -p "$chunks"
# name first_seed agent_a agent_b
experiments=(
  "fp_vs_sp 9104 flatmc flatmc:sp"
  "flatmc_vs_greedy 9104 flatmc greedy"
  "pruning 9201 flatmc:twice=original flatmc:pruning=off,twice=original"
  "h2h1 9301 flatmc flatmc:twice=original"
  "h1 9401 flatmc:twice=h1 flatmc:twice=original"
  "final_vs_sp 9501 flatmc flatmc:sp,pruning=off,twice=original,prefilter=off"
  # Table 5 (added after the others had run 97 rounds): FP + pruning, no discard-twice heuristic
  "sims 9601 flatmc:sims=20000,twice=original flatmc:sims=10000,twice=original"
  # Table 5's 40,000 and 80,000 rows (added after the 20,000 row had run its 97 rounds)
  "sims40k 9701 flatmc:sims=40000,twice=original flatmc:sims=10000,twice=original"
  "sims80k 9801 flatmc:sims=80000,twice=original flatmc:sims=10000,twice=original"
)
for r in $(seq 0 $((rounds - 1))); do
  for e in "${experiments[@]}"; do
    read -r name first a b <<<"$e"
    if [[ $(date -u +%H:%M) > "$stop" || $(date -u +%H:%M) == "$stop" ]]; then
      echo "stop time $stop reached"; exit 0
    fi
    s=$((first + r))
    [[ -f "$chunks/${name}_s${s}.json" ]] && continue
    echo "$(date -u +%T) start $name seed $s"
    nice -n 10 .venv/bin/mjenv eval "$a" "$b" --rules taiwan16 --deals "$deals" --seed "$s" --workers 1 \
      --no-progress --out "$chunks" --name "${name}_s${s}" >/dev/null || echo "FAILED $name $s"
  done
done
