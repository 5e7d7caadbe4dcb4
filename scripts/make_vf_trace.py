#!/usr/bin/env python3
"""Writes a VirtualFlow-style elasticity trace as jsonl (docs/ELASTICITY.md, "Experiments").

Shape of VirtualFlow's deploy/scheduler_traces/medium20_*jph.json (andrewor14/models,
branch virtual; job fields arrival_time, workload, priority in {1, 5, 10}, gpu_demand,
num_virtual_nodes_per_device 2 or 4; the trace files themselves are not used): 20 jobs,
Poisson arrivals at 12 jobs/hour, each with a GPU demand (power of 2) and 2 or 4
virtual nodes per device, so V = demand x vn_per_device stays fixed under
resizes. Durations (alone on the demanded GPUs) are log-uniform in [30, 120] min
and become iterations through vnsim's assign_work on the replay cluster.
Models: bert, imagenet (ResNet-50) and deepspeech2 (the catalog has no
Transformer-base; bert stands in for it). Seeded: same seed, same file.

usage: make_vf_trace.py OUT.jsonl [--seed N] [--jobs N] [--rate JOBS_PER_HOUR]
"""
import argparse
import json
import math
import random

MIN_LOCAL_BATCH = {"bert": 4, "imagenet": 20, "deepspeech2": 10}  # core/data/models.json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=20)
    ap.add_argument("--rate", type=float, default=12.0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    t = 0.0
    with open(a.out, "w") as f:
        for i in range(a.jobs):
            model = rng.choice(sorted(MIN_LOCAL_BATCH))
            demand = rng.choice([1, 2, 4, 4, 8, 8])
            vn_per_device = rng.choice([2, 4])
            v = demand * vn_per_device
            duration = math.exp(rng.uniform(math.log(1800), math.log(7200)))
            row = {"id": f"vf-{i}", "submit_s": round(t, 3), "gpus": demand, "model": model,
                   "virtual_nodes": v, "global_batch": v * MIN_LOCAL_BATCH[model],
                   "trace_duration_s": round(duration, 1)}
            f.write(json.dumps(row) + "\n")
            t += rng.expovariate(a.rate / 3600.0)


if __name__ == "__main__":
    main()
