#!/usr/bin/env bash
# Scaling bench (issue 21): N Philly-like jobs (`vnsim trace generate --kind
# philly`) on a V100 cluster scaled with N at constant load per GPU: N / 800
# nodes of 8 V100 (1,250 nodes = 50 racks x 25 nodes = 10,000 GPUs at 1M
# jobs), racks of 25 nodes with 2:1 uplinks, arrivals at RATE_PER_GPU jobs
# per GPU-hour. Prints wall, CPU, peak RSS and GPU utilisation (busy
# GPU-seconds between the first and the last submission) per policy. Generates the trace
# and the cluster in a scratch folder; commits nothing.
#   bench/scale.sh [BUILD_DIR] [JOBS (10000)] [POLICIES ("fifo tiresias gavel pollux sia")] [RATE_PER_GPU (0.15)]
# SCALE_TIMEOUT_S stops each run after that many seconds (default: none).
# SCALE_CSV=FILE appends one row per run to FILE (header written when FILE is
# new): jobs,gpus,policy,status,wall_s,user_cpu_s,peak_rss_mb,gpu_utilisation,
# cpu_us_per_job; status is "completed", "timeout" (killed at SCALE_TIMEOUT_S)
# or "failed:CODE"; an unfinished run keeps its wall, CPU and RSS up to the
# kill and leaves utilisation and CPU per job empty.
set -euo pipefail
# shellcheck source=scripts/lib/help.sh
source "$(dirname "$0")/../scripts/lib/help.sh"
answer_help "$@"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
jobs=${2:-10000}
policies=${3:-"fifo tiresias gavel pollux sia"}
rate_per_gpu=${4:-0.15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read -r nodes racks gpus < <("$root/bench/scale_inputs.sh" "$build" "$jobs" "$work" "$rate_per_gpu")
rate=$(python3 -c "print($rate_per_gpu * $gpus)")
cluster=$work/c$jobs.json
trace=$work/t$jobs.jsonl
echo "jobs=$jobs nodes=$nodes racks=$racks gpus=$gpus rate=${rate}/h"
csv=${SCALE_CSV:-}
if [[ -n "$csv" && ! -s "$csv" ]]; then
  echo "jobs,gpus,policy,status,wall_s,user_cpu_s,peak_rss_mb,gpu_utilisation,cpu_us_per_job" >"$csv"
fi
for p in $policies; do
  if /usr/bin/time -o "$work/time.txt" -f "%e %U %M" timeout "${SCALE_TIMEOUT_S:-0}" "$build/vnsim" replay --cluster "$cluster" \
      --trace "$trace" --policy "$p" --out "$work/$p" --quiet; then
    read -r wall cpu rss <"$work/time.txt"
    util=$(python3 "$root/bench/gpu_utilisation.py" "$work/$p/allocations.csv" "$trace" "$gpus")
    echo "policy=$p wall_s=$wall cpu_s=$cpu peak_rss_mb=$((rss / 1024)) gpu_utilisation=$util"
    per_job=$(python3 -c "print(f'{$cpu * 1e6 / $jobs:.1f}')")
    [[ -z "$csv" ]] || echo "$jobs,$gpus,$p,completed,$wall,$cpu,$((rss / 1024)),$util,$per_job" >>"$csv"
  else
    code=$?
    status="failed:$code"
    [[ $code -ne 124 ]] || status=timeout
    # /usr/bin/time still writes the measures, after a line naming the exit.
    read -r wall cpu rss < <(tail -n 1 "$work/time.txt")
    echo "policy=$p $status wall_s=$wall cpu_s=$cpu peak_rss_mb=$((rss / 1024))"
    [[ -z "$csv" ]] || echo "$jobs,$gpus,$p,$status,$wall,$cpu,$((rss / 1024)),," >>"$csv"
  fi
done
