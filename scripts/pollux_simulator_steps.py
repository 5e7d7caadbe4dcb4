#!/usr/bin/env python3
"""Sets each job's iterations to the steps the Pollux simulator runs it for at
its fixed batch (docs/POLICIES.md, "Cross-check with published results").

The simulator ends every job after its model's last epoch (max_epochs, the
"epochs" of core/data/model_targets.json; no model has a target metric), where epoch e ends at progress P(e) = the
smallest `progress` of row e over the model's validation-<M>.csv files.
Progress grows by the gain (var + sqr) / (var / s + sqr) per step, s = M / M0,
with grad_sqr and grad_var of the job's own batch M during epoch e, each
linear in M between the two validated batches around it. So a fixed-batch
job needs sum over epochs of (P(e+1) - P(e)) / gain(M, e) steps.

vnsim's embedded noise model (core/data/noise_scale.json) takes phi from the
M0 run alone, under which the same jobs need 1.05-1.67x more steps
(scripts/pollux_workload_accumulation.py); the Tiresias and Optimus rows of
the cross-check replay the simulator's counts.

Usage: scripts/pollux_simulator_steps.py SHARED IN.jsonl OUT.jsonl
"""
import csv
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The simulator's max_epochs: the rows of validation-<M0>.csv, as
# scripts/derive_model_targets.py embeds them.
EPOCHS = {m: v["epochs"] for m, v in
          json.loads((ROOT / "core/data/model_targets.json").read_text())["models"].items()}


def load_runs(shared, model):
    runs = {}
    for path in sorted(pathlib.Path(shared, "profiles/pollux", model).glob("validation-*.csv")):
        batch = int(path.stem.split("-")[1])
        runs[batch] = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(path.open())]
    if not runs:
        sys.exit(f"{shared}/profiles/pollux/{model}: no validation-<batch>.csv")
    return dict(sorted(runs.items()))


def stat(runs, batch, epoch, column):
    lower = max((b for b in runs if b <= batch), default=None)
    upper = min((b for b in runs if b >= batch), default=None)
    if lower is None or upper is None:
        raise ValueError(f"batch {batch} is outside the validated batches {list(runs)}")
    lo, hi = runs[lower][epoch][column], runs[upper][epoch][column]
    return lo if lower == upper else ((batch - lower) * hi + (upper - batch) * lo) / (upper - lower)


def simulator_steps(runs, model, batch):
    epochs = EPOCHS[model]
    m0 = min(runs)

    def progress(e):
        return 0.0 if e == 0 else min(rows[e - 1]["progress"] for rows in runs.values())

    steps = 0.0
    for e in range(epochs):
        sqr, var = stat(runs, batch, e, "grad_sqr"), stat(runs, batch, e, "grad_var")
        gain = (var + sqr) / (var / (batch / m0) + sqr)
        steps += (progress(e + 1) - progress(e)) / gain
    return steps


def main():
    shared, src, dst = sys.argv[1:4]
    runs, memo = {}, {}
    with open(src) as f, open(dst, "w") as out:
        for line_no, line in enumerate(f, 1):
            job = json.loads(line)
            model, batch = job["model"], job["global_batch"]
            if model not in EPOCHS:
                sys.exit(f"{src}:{line_no}: model {model} has no Pollux profile")
            if (model, batch) not in memo:
                runs.setdefault(model, load_runs(shared, model))
                try:
                    memo[model, batch] = simulator_steps(runs[model], model, batch)
                except ValueError as e:
                    sys.exit(f"{src}:{line_no}: job {job.get('id', '?')}: {e}")
            job["iterations"] = max(1, round(memo[model, batch]))
            out.write(json.dumps(job) + "\n")
    for (model, batch), steps in sorted(memo.items()):
        print(f"{model} at batch {batch}: {steps:.0f} steps")


if __name__ == "__main__":
    main()
