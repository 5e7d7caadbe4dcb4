#!/usr/bin/env python3
"""Gives each job of a jsonl trace (e.g. Pollux's workload-6 converted with
`vnsim trace convert --to jsonl`) the gradient-accumulation steps its batch
needs to fit GPU memory, as the Pollux simulator's jobs do: virtual_nodes =
gpus x ceil(global_batch / gpus / max_micro_batch), where max_micro_batch is
the largest micro-batch the model fits in the GPU's memory
((memory - weight_state_bytes) / memory_per_sample_bytes, capped at the
model's max_local_batch; core/data/models.json and gpu_types.json).

It also sets iterations to the steps the job needs at its fixed batch to
reach its model's training target (total_progress of core/data/noise_scale.json,
in steps at the initial batch M0), with the statistical efficiency
(phi + M0) / (phi + M) of each step: the Pollux simulator runs every job,
whatever its policy, until that progress. The integration is the one of
core/src/goodput.cpp (steps_between): 4 pieces per knot interval, phi
log-linear between knots and taken at each piece's middle.

Usage: scripts/pollux_workload_accumulation.py IN.jsonl OUT.jsonl [GPU_TYPE=T4]
"""
import json
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def phi_at(profile, x):
    knots = profile["phi"]
    if x <= knots[0][0]:
        return knots[0][1]
    if x >= knots[-1][0]:
        return knots[-1][1]
    for (x0, p0), (x1, p1) in zip(knots, knots[1:]):
        if x <= x1:
            t = (x - x0) / (x1 - x0)
            return math.exp(math.log(p0) + t * (math.log(p1) - math.log(p0)))
    return knots[-1][1]


def steps_to_target(profile, batch):
    m0 = profile["initial_batch"]
    target = profile["total_progress"]
    knots = [k[0] for k in profile["phi"]]
    pieces = [(0.0, knots[0], profile["phi"][0][1])]
    for a, b in zip(knots, knots[1:]):
        w = (b - a) / 4
        for i in range(4):
            lo = a + w * i
            hi = b if i == 3 else lo + w
            pieces.append((lo, hi, phi_at(profile, 0.5 * (lo + hi))))
    pieces.append((knots[-1], math.inf, profile["phi"][-1][1]))
    steps = 0.0
    for lo, hi, phi in pieces:
        b = min(hi, target)
        if b > lo:
            steps += (b - lo) / (batch / m0 * (phi + m0) / (phi + batch))
        if hi >= target:
            break
    return steps


def catalog(gpu_type):
    """The embedded model catalog and the memory of `gpu_type` in bytes."""
    models = json.loads((ROOT / "core/data/models.json").read_text())["models"]
    memory = json.loads((ROOT / "core/data/gpu_types.json").read_text())["types"][gpu_type]["memory_gib"] * 2**30
    return models, memory


def max_micro_batch(model, memory):
    """The largest micro-batch `model` (a models.json entry) fits in `memory` bytes."""
    return min(model["max_local_batch"],
               math.floor((memory - model["weight_state_bytes"]) / model["memory_per_sample_bytes"]))


def main():
    src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    gpu_type = sys.argv[3] if len(sys.argv) > 3 else "T4"
    models, memory = catalog(gpu_type)
    noise = json.loads((ROOT / "core/data/noise_scale.json").read_text())["models"]
    changed = 0
    with src.open() as f, dst.open("w") as out:
        for line in f:
            job = json.loads(line)
            fit = max_micro_batch(models[job["model"]], memory)
            if fit < 1:
                sys.exit(f"{src}: job {job['id']}: model {job['model']} does not fit one sample on {gpu_type}")
            gpus = job["gpus"]
            steps = math.ceil(job["global_batch"] / gpus / fit)
            vn = gpus * steps
            if vn != max(job.get("virtual_nodes", 0), gpus):
                changed += 1
            job["virtual_nodes"] = vn
            job["iterations"] = max(1, round(steps_to_target(noise[job["model"]], job["global_batch"])))
            out.write(json.dumps(job) + "\n")
    print(f"wrote {dst}: {changed} job(s) given accumulation steps")


if __name__ == "__main__":
    main()
