#!/usr/bin/env bash
# Baseline matches for research/notes/bench/baselines.md (2-core shared machine: run in the background).
# Each run is split into chunks with different seeds so partial results survive; merge with
#   .venv/bin/mjenv eval --merge $CHUNKS/<name>_s*.json --out research/notes/bench/baselines --name <name>
# Usage: research/baselines_matches.sh NAME DEALS_PER_CHUNK CHUNKS AGENT AGENT [AGENT AGENT]
set -euo pipefail
name=$1; deals=$2; nchunks=$3; shift 3
out=research/notes/bench/baselines; chunks=${CHUNKS:-/tmp/mjenv_chunks}  # chunk files stay outside the repo
mkdir -p "$out" "$chunks"
for s in $(seq 1 "$nchunks"); do
  .venv/bin/mjenv eval "$@" --deals "$deals" --seed "$s" --workers 2 --no-progress --out "$chunks" --name "${name}_s${s}"
done
.venv/bin/mjenv eval --merge "$chunks/${name}"_s*.json --out "$out" --name "$name"
