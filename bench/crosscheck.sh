#!/usr/bin/env bash
# Cross-check with published results (docs/POLICIES.md): replays Pollux's
# workload-6 as published (pollux_philly_derived_workload-6.csv, 160 jobs) on
# the pollux-16x4 preset under pollux, tiresias and optimus with vnsim flags
# only, and prints the mean JCTs beside the Pollux artifact's published ones.
# They run on experiments/configs/pollux/pollux-16x4-overlap.json with
# --model-calibration pollux-overlap: link efficiencies and each model's
# compute/all-reduce overlap fitted together to the Pollux profiles' step
# times (vnsim calibrate --fit-overlap; docs/MODELS.md). Tiresias runs as the
# Pollux simulator configured it: 2 queues, threshold 16 GPU-hours = 57,600
# GPU-s (--policy-param thresholds=57600); Pollux with the simulator's growth
# cap, at most twice the most GPUs a job has run on (growth_limit=2).
# (python3 only reads summary.json; the replays take the input as published.)
# Exits 1 when a job is not completed or the ordering differs from the
# published one (pollux < tiresias < optimus).
# With SIA_WORKLOAD, the path of the Sia artifact's workloads/philly/workload-6.csv
# (siasosp23/artifacts, sia-simulator/; not part of this project), it also
# replays that file on the pollux-16x4 preset (the artifact's homogeneous cluster, 16
# nodes x 4 T4) under sia and gavel (max-min fairness, vnsim's default), with
# the artifact's per-model slowdowns (--model-calibration sia-artifact) and
# without, beside the reference simulator's means (sia 6,368 and 3,545 s,
# gavel 20,012 and 7,867 s); then both again with the artifact's per-model
# start charges (sia-artifact-full, sia-artifact-charges), which the reference
# pays on every start and placement change.
# Usage: bench/crosscheck.sh [BUILD_DIR=build] [OUT_DIR=a temporary folder, removed] [SIA_WORKLOAD]
# Needs VNSIM_SHARED (or ../shared beside the project root).
set -euo pipefail
# shellcheck source=scripts/lib/help.sh
source "$(dirname "$0")/../scripts/lib/help.sh"
answer_help "$@"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
shared=${VNSIM_SHARED:-"$root/../shared"}
trace="$shared/traces/pollux_philly_derived_workload-6.csv"
if [ -n "${2:-}" ]; then
  out=$2
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
# Prints "completed submitted mean" of a replay's summary.json.
summary() {
  python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["counts"]["completed"], s["counts"]["submitted"], s["jct_s"]["mean"])' "$1/summary.json"
}
# name policy published_mean_jct_s [flags...]
calibrated="--cluster $root/experiments/configs/pollux/pollux-16x4-overlap.json --model-calibration pollux-overlap"
runs=(
  "pollux pollux 2446 --policy-param growth_limit=2"
  "tiresias tiresias 3470 --policy-param thresholds=57600"
  "optimus optimus 5302"
)
printf '| policy | vnsim mean JCT (s) | published (s) | vnsim / published | completed | wall (s) |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
status=0
prev=0
for run in "${runs[@]}"; do
  read -r name policy published flags <<<"$run"
  rm -rf "${out:?}/$name"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086  # flags are words
  "$build/vnsim" replay $calibrated --trace "$trace" --policy "$policy" $flags --out "$out/$name" --quiet
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  read -r completed submitted mean < <(summary "$out/$name")
  ratio=$(echo "scale=4; $mean / $published" | bc)
  label=$name
  [ -n "$flags" ] && label="$name ($flags)"
  printf '| %s | %.0f | %s | %.2f | %s/%s | %.1f |\n' "$label" "$mean" "$published" "$ratio" "$completed" "$submitted" "$wall"
  [ "$completed" = "$submitted" ] || status=1
  if [ "$(echo "$mean <= $prev" | bc)" = 1 ]; then status=1; fi
  prev=$mean
done
[ $status = 0 ] && echo "every job completed; ordering pollux < tiresias < optimus matches" ||
  echo "FAILED: a job was not completed or the ordering differs from the published one"
sia_workload=${3:-}
if [ -n "$sia_workload" ]; then
  printf '\n| policy (Sia workload-6) | slowdowns | start charges | vnsim mean JCT (s) | reference (s) | vnsim / reference | completed | wall (s) |\n'
  printf '|---|---|---|---:|---:|---:|---:|---:|\n'
  # policy reference_mean_jct_s calibration (- for none)
  for run in "sia 6368 sia-artifact" "gavel 20012 sia-artifact" "sia 3545 -" "gavel 7867 -" \
    "sia 6368 sia-artifact-full" "gavel 20012 sia-artifact-full" "sia 3545 sia-artifact-charges" \
    "gavel 7867 sia-artifact-charges"; do
    read -r policy reference calibration <<<"$run"
    flags=""
    [ "$calibration" != - ] && flags="--model-calibration $calibration"
    name="sia-w6-$policy-$calibration"
    rm -rf "${out:?}/$name"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086  # flags are words
    "$build/vnsim" replay --cluster pollux-16x4 --trace "$sia_workload" --format pollux-workload --policy "$policy" \
      $flags --out "$out/$name" --quiet
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    read -r completed submitted mean < <(summary "$out/$name")
    ratio=$(echo "scale=4; $mean / $reference" | bc)
    slowdowns=none
    charges=none
    case $calibration in
    sia-artifact) slowdowns=sia-artifact ;;
    sia-artifact-full) slowdowns=sia-artifact charges=sia-artifact ;;
    sia-artifact-charges) charges=sia-artifact ;;
    esac
    printf '| %s | %s | %s | %.0f | %s | %.2f | %s/%s | %.1f |\n' "$policy" "$slowdowns" "$charges" \
      "$mean" "$reference" "$ratio" "$completed" "$submitted" "$wall"
    [ "$completed" = "$submitted" ] || status=1
  done
fi
exit $status
