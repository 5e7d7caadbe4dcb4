#!/usr/bin/env python3
"""Per-job speed of a vnsim replay against the Pollux profiles (docs/POLICIES.md,
"What the gaps come from"). For each job of the cross-check input: the step
time the Pollux simulator reads for the job's fixed (GPUs, batch) on an empty
16x4 cluster, from profiles/pollux/<model>/placements.csv (GPUs per node filled
4 at a time; step time interpolated linearly in the local batch, accumulation
steps adding step - sync each), times its iterations; against the job's run
time in the replay (gpu_seconds / GPUs). Jobs whose placement the profile
does not hold (imagenet on >= 3 nodes) are left out.
Usage: scripts/pollux_profile_runtime.py SHARED ACC.jsonl RUN_DIR
"""
import csv, json, sys, collections, bisect
shared, acc, run = sys.argv[1:4]
prof = {}
def profile(model):
    if model not in prof:
        rows = collections.defaultdict(list)
        for r in csv.DictReader(open(f"{shared}/profiles/pollux/{model}/placements.csv")):
            rows[r["placement"]].append((int(r["local_bsz"]), float(r["step_time"]), float(r["sync_time"])))
        for k in rows: rows[k].sort()
        prof[model] = rows
    return prof[model]
def step(model, gpus, local):
    rows = profile(model)
    key = "".join(str(min(4, gpus - 4 * i)) for i in range((gpus + 3) // 4))
    cands = [k for k in rows if sorted(k) == sorted(key)]
    if not cands: return None
    pts = rows[cands[0]]
    xs = [p[0] for p in pts]
    i = bisect.bisect_left(xs, local)
    if i == 0: lo = hi = pts[0]
    elif i == len(pts): lo = hi = pts[-1]
    else: lo, hi = pts[i - 1], pts[i]
    if hi[0] == lo[0]: return lo[1], lo[2]
    t = (local - lo[0]) / (hi[0] - lo[0])
    return lo[1] + t * (hi[1] - lo[1]), lo[2] + t * (hi[2] - lo[2])
jobs = {j["id"]: j for j in map(json.loads, open(acc))}
ran = {r["job_id"]: r for r in csv.DictReader(open(f"{run}/jobs.csv"))}
sums = collections.defaultdict(lambda: [0.0, 0.0, 0])
for jid, j in jobs.items():
    r = ran.get(jid)
    if r is None: continue
    vn = j.get("virtual_nodes", j["gpus"])
    s = vn // j["gpus"] - 1
    local = j["global_batch"] / vn
    st = step(j["model"], j["gpus"], local)
    if st is None: continue
    it = st[0] + s * (st[0] - st[1])
    for k in (j["model"], "all"):
        sums[k][0] += j["iterations"] * it
        sums[k][1] += float(r["gpu_seconds"]) / j["gpus"]
        sums[k][2] += 1
print("| model | jobs | Pollux-profile run time (h) | vnsim run time (h) | vnsim / profile |")
print("|---|---:|---:|---:|---:|")
for k, (p, v, n) in sorted(sums.items()):
    print(f"| {k} | {n} | {p/3600:.1f} | {v/3600:.1f} | {v/p:.2f} |")
