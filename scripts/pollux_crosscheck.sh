#!/usr/bin/env bash
# Cross-check with published results (docs/POLICIES.md): replays Pollux's
# workload-6 on the pollux-16x4 preset under pollux, tiresias (configured as
# the Pollux simulator's: 2 queues, threshold 16 GPU-hours = 57,600 GPU-s) and
# optimus, prints mean JCTs beside the Pollux artifact's, and fails when the
# ordering differs (published: pollux < tiresias < optimus).
# Usage: scripts/pollux_crosscheck.sh [VNSIM_BINARY=build/vnsim] [OUT_DIR=/tmp/vnsim-pollux-crosscheck]
# Needs VNSIM_SHARED (the ../shared folder) for the trace.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
vnsim="${1:-$root/build/vnsim}"
out="${2:-/tmp/vnsim-pollux-crosscheck}"
shared="${VNSIM_SHARED:?set VNSIM_SHARED to the shared data folder}"
mkdir -p "$out"
"$vnsim" trace convert "$shared/traces/pollux_philly_derived_workload-6.csv" --format pollux-workload \
  --to jsonl --out "$out/workload-6.jsonl" --quiet
# Accumulation steps so every batch fits a T4, and iterations to reach each
# model's training target at the job's fixed batch (statistical efficiency).
python3 "$root/scripts/pollux_workload_accumulation.py" "$out/workload-6.jsonl" "$out/workload-6-acc.jsonl" T4
run() {  # name policy [params...]
  local name=$1 policy=$2
  shift 2
  rm -rf "${out:?}/$name"
  "$vnsim" replay --cluster pollux-16x4 --trace "$out/workload-6-acc.jsonl" --format jsonl \
    --policy "$policy" "$@" --seed 0 --out "$out/$name" --quiet
}
run pollux pollux
run tiresias tiresias --policy-param thresholds=57600
run optimus optimus
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
published = {"pollux": 2446, "tiresias": 3470, "optimus": 5302}
mean = {}
print("| policy | vnsim mean JCT (s) | published (s) | vnsim / published | completed |")
print("|---|---:|---:|---:|---:|")
for p, ref in published.items():
    s = json.load(open(f"{out}/{p}/summary.json"))
    mean[p] = s["jct_s"]["mean"]
    print(f"| {p} | {mean[p]:.0f} | {ref} | {mean[p] / ref:.2f} | {s['counts']['completed']}/{s['counts']['submitted']} |")
ok = mean["pollux"] < mean["tiresias"] < mean["optimus"]
print("ordering pollux < tiresias < optimus:", "matches" if ok else "DIFFERS")
sys.exit(0 if ok else 1)
PY
