#!/usr/bin/env bash
# SIMCAT Sec. 5 matches under taiwan16 for research/notes/bench/taiwan16.md (2-core shared machine: background,
# nice). Chunks of DEALS deals with seeds FIRST.. so partial results survive; merged at the end.
# Usage: research/taiwan16_matches.sh NAME DEALS_PER_CHUNK FIRST_SEED LAST_SEED AGENT AGENT
set -euo pipefail
name=$1; deals=$2; first=$3; last=$4; shift 4
out=research/notes/bench/taiwan16; chunks=${CHUNKS:-/tmp/mjenv_taiwan16_chunks}
mkdir -p "$out" "$chunks"
for s in $(seq "$first" "$last"); do
  nice -n 10 .venv/bin/mjenv eval "$@" --rules taiwan16 --deals "$deals" --seed "$s" --workers 1 --no-progress \
    --out "$chunks" --name "${name}_s${s}"
done
