#!/usr/bin/env bash
# Decision cost per call against active jobs (issue 21): each policy on the
# scaling bench's inputs (bench/scale_inputs.sh: constant load per GPU, the
# cluster scaled with the trace), one `vnsim replay` after another, and per
# run the policy's decide() calls, the mean active jobs a call is handed
# (queued + running), the process CPU time inside decide() per call, and
# that per call over active x log2(active + 2), from run.json's scheduler_*
# fields (docs/OUTPUTS.md). Every policy of `vnsim policies` runs at the
# sizes below 1M; at 1M only POLICIES_1M.
#   bench/decision_cost.sh [BUILD_DIR] [CSV (notebooks_out/scaling/decision_cost.csv)]
# Environment: DECISION_SIZES ("10000 100000 1000000"), DECISION_POLICIES
# (all of `vnsim policies`), DECISION_POLICIES_1M ("fifo tiresias gavel sia
# pollux"), DECISION_INPUTS=DIR keeps the generated inputs there (default: a
# scratch folder), DECISION_TIMEOUT_S stops a run after that many seconds
# (600; status "timeout", the scheduler columns left empty).
# CSV columns: jobs,gpus,policy,status,wall_s,user_cpu_s,calls,
# active_jobs_mean,scheduler_wall_s,scheduler_cpu_s,wall_us_per_call,
# cpu_us_per_call,ns_per_call_per_active_log,unchanged_calls,
# unchanged_cpu_us_per_call,idle_calls,idle_cpu_us_per_call. ns_per_call_per_active_log is
# the mean CPU per call over mean active x log2(mean active + 2), a ratio of
# means; unchanged calls are those told of no changed job (a round with
# nothing changed since the last call), idle calls those of them that
# also decided nothing.
set -euo pipefail
# shellcheck source=scripts/lib/help.sh
source "$(dirname "$0")/../scripts/lib/help.sh"
answer_help "$@"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
csv=${2:-"$root/notebooks_out/scaling/decision_cost.csv"}
sizes=${DECISION_SIZES:-"10000 100000 1000000"}
all=${DECISION_POLICIES:-$("$build/vnsim" policies | sed -n 's/^\([a-z][a-z0-9-]*\)$/\1/p' | tr '\n' ' ')}
large=${DECISION_POLICIES_1M:-"fifo tiresias gavel sia pollux"}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
inputs=${DECISION_INPUTS:-"$scratch"}
echo "jobs,gpus,policy,status,wall_s,user_cpu_s,calls,active_jobs_mean,scheduler_wall_s,scheduler_cpu_s,wall_us_per_call,cpu_us_per_call,ns_per_call_per_active_log,unchanged_calls,unchanged_cpu_us_per_call,idle_calls,idle_cpu_us_per_call" >"$csv"
for jobs in $sizes; do
  read -r _ _ gpus < <("$root/bench/scale_inputs.sh" "$build" "$jobs" "$inputs")
  policies=$all
  [[ $jobs -lt 1000000 ]] || policies=$large
  for p in $policies; do
    status=completed
    nice -n 5 /usr/bin/time -o "$scratch/time.txt" -f "%e %U" timeout "${DECISION_TIMEOUT_S:-600}" \
      "$build/vnsim" replay --cluster "$inputs/c$jobs.json" --trace "$inputs/t$jobs.jsonl" --policy "$p" \
      --out "$scratch/out" --quiet || status=$?
    [[ $status != 124 ]] || status=timeout
    [[ $status == completed || $status == timeout ]] || status=failed:$status
    read -r wall cpu < <(tail -n 1 "$scratch/time.txt")
    row=",,,,,,,,,,"
    if [[ $status == completed ]]; then
      row=$(python3 - "$scratch/out/run.json" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))
calls, active, cpu = r["scheduler_calls"], r["scheduler_active_jobs_mean"], r["scheduler_cpu_s"]
wall = r["scheduler_wall_s"]
per_call = cpu / calls if calls else 0.0
wall_per_call = wall / calls if calls else 0.0
quiet = r["scheduler_unchanged_calls"]
quiet_per_call = r["scheduler_unchanged_cpu_s"] / quiet if quiet else 0.0
idle = r["scheduler_idle_calls"]
idle_per_call = r["scheduler_idle_cpu_s"] / idle if idle else 0.0
norm = per_call / (active * math.log2(active + 2)) if active > 0 else 0.0
print(f"{calls},{active:.3f},{wall:.3f},{cpu:.3f},{wall_per_call * 1e6:.3f},{per_call * 1e6:.3f},{norm * 1e9:.2f},{quiet},{quiet_per_call * 1e6:.2f},{idle},{idle_per_call * 1e6:.2f}")
PY
)
    fi
    echo "$jobs,$gpus,$p,$status,$wall,$cpu,$row" | tee -a "$csv"
    rm -rf "$scratch/out"
  done
done
