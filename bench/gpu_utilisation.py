#!/usr/bin/env python3
"""GPU utilisation of a replay while its jobs arrive (issue 21 benches).

    bench/gpu_utilisation.py ALLOCATIONS_CSV TRACE_JSONL GPUS

Prints busy GPU-seconds (allocations.csv's take/release rows, weighted by
gpu_milli) between the first and the last submission of the trace, over
GPUS x that span, to three decimals. Used by bench/scale.sh and for the
multi-node-heavy trace at a given load (docs/PERFORMANCE.md).
"""
import csv, json, sys
import pathlib as _pathlib

sys.path.insert(0, str(_pathlib.Path(__file__).resolve().parents[1] / "scripts"))
from cli_help import answer_help  # noqa: E402

answer_help(__doc__)
# Busy GPU-seconds while jobs still arrive (first to last submission), over
# what the cluster had then: a long tail after the last arrival would
# otherwise dilute it.
submits = [json.loads(line)["submit_s"] for line in open(sys.argv[2])]
lo, hi = min(submits), max(submits)
def width(res):
    n = 0
    for part in res.split():
        a, _, b = part.partition("-")
        n += int(b or a) - int(a) + 1
    return n
busy, held = 0.0, {}
for r in csv.DictReader(open(sys.argv[1])):
    t, key = float(r["time"]), (r["job_id"], r["allocated_resources"])
    share = width(r["allocated_resources"]) * int(r["gpu_milli"]) / 1000
    if r["event"] == "take":
        held[key] = (t, share)
    elif key in held:
        start, share = held.pop(key)
        busy += share * max(0.0, min(t, hi) - max(start, lo))
print(f"{busy / (int(sys.argv[3]) * (hi - lo)):.3f}")
