#!/usr/bin/env bash
# scripts/pollux_simulator_steps.py on a two-epoch bert profile whose answers
# were worked out by hand. Epoch ends: P(1) = min(100, 120) = 100 and
# P(2) = min(300, 280) = 280; gain = (var + sqr) / (var / s + sqr), s = M / 12.
#   batch 12: var 2, s 1          -> gain 1   -> 280 steps
#   batch 24: var 2 + 12/36 * 6 = 4, s 2 -> gain 5/3 -> 168 steps
#   batch 48: var 8, s 4          -> gain 3   -> 93.3 -> 93 steps
# A batch outside the validated ones (96) must fail with a reason.
set -euo pipefail
root=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/profiles/pollux/bert"
printf 'progress,iteration,metric,grad_sqr,grad_var\n100,10,1,1,2\n300,30,2,1,2\n' \
  >"$tmp/profiles/pollux/bert/validation-12.csv"
printf 'progress,iteration,metric,grad_sqr,grad_var\n120,3,1,1,8\n280,7,2,1,8\n' \
  >"$tmp/profiles/pollux/bert/validation-48.csv"
for b in 12 24 48; do
  echo "{\"id\": \"j$b\", \"model\": \"bert\", \"gpus\": 1, \"global_batch\": $b, \"iterations\": 1}"
done >"$tmp/in.jsonl"
python3 "$root/scripts/pollux_simulator_steps.py" "$tmp" "$tmp/in.jsonl" "$tmp/out.jsonl" >/dev/null
got=$(python3 -c 'import json,sys; print(" ".join(str(json.loads(l)["iterations"]) for l in open(sys.argv[1])))' "$tmp/out.jsonl")
[ "$got" = "280 168 93" ] || { echo "iterations: got '$got', want '280 168 93'" >&2; exit 1; }
echo '{"id": "j96", "model": "bert", "gpus": 1, "global_batch": 96, "iterations": 1}' >"$tmp/bad.jsonl"
if python3 "$root/scripts/pollux_simulator_steps.py" "$tmp" "$tmp/bad.jsonl" "$tmp/bad_out.jsonl" 2>"$tmp/err"; then
  echo "batch 96 was accepted" >&2
  exit 1
fi
grep -q "outside the validated batches" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo "ok: 280 168 93, batch 96 rejected"
