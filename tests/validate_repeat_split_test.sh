#!/bin/bash
# scripts/validate_repeat.py split in two, as on a GPU machine without the
# simulator: --runs-only calibrates and runs with vnexec alone (no vnsim in
# its --build) and validates nothing; --revalidate then validates those runs
# with vnsim, keeping the settings they were made with. The two flags
# together are a usage error.
# Usage: validate_repeat_split_test.sh SOURCE_DIR BUILD_DIR
# shellcheck source=tests/lib/script_test.sh
source "$(dirname "$0")/lib/script_test.sh"
script=$root/scripts/validate_repeat.py
mkdir "$tmp/exec_only" && ln -s "$build/vnexec" "$tmp/exec_only/vnexec"
cat >"$tmp/trace.jsonl" <<'EOF'
{"id": "a", "submit_s": 0, "gpus": 1, "model": "cifar10", "global_batch": 32, "iterations": 30}
{"id": "b", "submit_s": 0, "gpus": 1, "model": "cifar10", "global_batch": 32, "iterations": 10}
EOF
common=(--trace "$tmp/trace.jsonl" --policies fifo,sjf --out "$tmp/rep")
python3 "$script" "${common[@]}" --runs-only --build "$tmp/exec_only" --repeat 1 --workers 1 --realtime 0 \
  --models cifar10 --calibrate-repetitions 2 >"$tmp/runs.log" 2>&1 || fail "--runs-only exited $?: $(tail -5 "$tmp/runs.log")"
[[ -s $tmp/rep/rep1/runs/fifo/jobs.csv && -s $tmp/rep/rep1/runs/sjf/jobs.csv ]] || fail "--runs-only ran no policy"
[[ ! -e $tmp/rep/rep1/validation.json ]] || fail "--runs-only validated"
python3 - "$tmp/rep/repeat_summary.json" <<'PY' || fail "--runs-only summary: see above"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["settings"]["runs_only"] is True, s["settings"]
assert s["policies"] == {}, s["policies"]
assert len(s["repetitions"]) == 1 and "fifo" in s["repetitions"][0]["loads"], s["repetitions"]
PY
python3 "$script" "${common[@]}" --revalidate --build "$build" >"$tmp/reval.log" 2>&1 ||
  fail "--revalidate exited $?: $(tail -5 "$tmp/reval.log")"
python3 - "$tmp/rep/repeat_summary.json" <<'PY' || fail "--revalidate summary: see above"
import json, sys
s = json.load(open(sys.argv[1]))
st = s["settings"]
# The runs' settings, not the defaults of the validating command line.
assert st["workers"] == 1 and st["realtime"] == 0 and st["models"] == "cifar10", st
assert st["revalidate"] is True and st["runs_only"] is False, st
for p in ("fifo", "sjf"):
    mape = s["policies"][p]["iteration_mape"]["all"]
    assert mape is not None and mape["n"] == 1 and mape["median"] >= 0, (p, mape)
assert s["kendall_tau_b"]["all"]["n"] == 1, s["kendall_tau_b"]
PY
python3 "$script" "${common[@]}" --runs-only --revalidate >"$tmp/both.log" 2>&1
rc=$?
[[ $rc -eq 2 ]] || fail "--runs-only --revalidate exited $rc, expected 2"
echo "validate_repeat split: ok"
