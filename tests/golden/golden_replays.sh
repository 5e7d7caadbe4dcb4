#!/usr/bin/env bash
# Behaviour guard for refactors: replays two small traces of this folder's own
# data under every policy and engine mode and compares each jobs.csv with
# the checked-in copy under expected/ (byte for byte), and allocations.csv
# too where expected/ has one.
#
#   tests/golden/golden_replays.sh build/vnsim            # check (ctest runs this)
#   tests/golden/golden_replays.sh build/vnsim --update   # rewrite expected/ after an intended change
#
# Cases, all on the `testbed` preset: the synthetic Philly-like trace
# `synthetic:40` under every policy; mixed.jsonl (ring jobs across nodes
# with V > GPUs, single-node jobs, half-GPU shares, jobs timed by a trace
# duration, DP x TP x PP layout jobs, parameter-server jobs) under the
# policies that take layout and parameter-server jobs, and elastic.jsonl
# (mixed.jsonl without those two kinds) under the others, each in every
# engine mode.
set -euo pipefail
vnsim=$(realpath "$1")
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

policies=(fifo fifo-backfill sjf srtf tiresias pollux optimus sia gavel themis gandiva vf-wfs)
# Pollux, Optimus, Sia and Gavel look every model up in the data-parallel
# catalog (no gpt-* layout model), so those take elastic.jsonl.
flow_policies=" fifo fifo-backfill sjf srtf tiresias themis gandiva vf-wfs "
# name|engine flags (fluid rings are the default ring engine)
modes=(
  "fluid|"
  "actors|--actor-rings"
  "quiet|--quiet-rings --contended-macro-s 60"
  "ckpt-failures|--checkpoint-interval 300 --failure-rate 0.5 --seed 3"
)
traces=("synthetic|synthetic:40" "mixed|$here/mixed.jsonl" "elastic|$here/elastic.jsonl")

failed=0
checked=0
mkdir -p "$here/expected"
for t in "${traces[@]}"; do
  tname=${t%%|*}
  tpath=${t#*|}
  for p in "${policies[@]}"; do
    for m in "${modes[@]}"; do
      mname=${m%%|*}
      flags=${m#*|}
      # The synthetic trace only in the default mode: it has no multi-node
      # special jobs, the mixed trace covers the modes.
      if [[ $tname == synthetic && $mname != fluid ]]; then continue; fi
      if [[ $tname == mixed && $flow_policies != *" $p "* ]]; then continue; fi
      if [[ $tname == elastic && $flow_policies == *" $p "* ]]; then continue; fi
      case_name="$tname.$p.$mname"
      out="$work/$case_name"
      # shellcheck disable=SC2086
      if ! "$vnsim" replay --cluster testbed --trace "$tpath" --policy "$p" $flags --out "$out" --quiet \
          >"$work/$case_name.log" 2>&1; then
        echo "FAIL $case_name: vnsim exited with an error:"
        cat "$work/$case_name.log"
        failed=$((failed + 1))
        continue
      fi
      expected="$here/expected/$case_name.jobs.csv"
      if [[ $update == --update ]]; then
        cp "$out/jobs.csv" "$expected"
      elif ! cmp -s "$out/jobs.csv" "$expected"; then
        echo "FAIL $case_name: jobs.csv differs from tests/golden/expected/$case_name.jobs.csv"
        diff "$expected" "$out/jobs.csv" | head -20 || true
        failed=$((failed + 1))
      fi
      # A few cases also guard allocations.csv byte for byte (preemptions,
      # node losses, resizes; the CLI streams it while the replay runs): those
      # whose expected/ holds one. --update refreshes only existing ones.
      expected_alloc="$here/expected/$case_name.allocations.csv"
      if [[ -f $expected_alloc ]]; then
        if [[ $update == --update ]]; then
          cp "$out/allocations.csv" "$expected_alloc"
        elif ! cmp -s "$out/allocations.csv" "$expected_alloc"; then
          echo "FAIL $case_name: allocations.csv differs from tests/golden/expected/$case_name.allocations.csv"
          diff "$expected_alloc" "$out/allocations.csv" | head -20 || true
          failed=$((failed + 1))
        fi
      fi
      checked=$((checked + 1))
    done
  done
done
echo "$checked cases, $failed failed"
[[ $failed -eq 0 ]]
