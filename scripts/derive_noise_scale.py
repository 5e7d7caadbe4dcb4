#!/usr/bin/env python3
"""Writes core/data/noise_scale.json: each model's pre-conditioned gradient
noise scale phi as a function of training progress, the input of the
statistical-efficiency model (core/goodput.hpp, docs/POLICIES.md "Goodput").

For each model, M0 is the smallest global batch with a validation-<M>.csv.
Each row of validation-<M0>.csv is one epoch: `progress` is the cumulative
scale-invariant iterations and grad_sqr / grad_var are the gradient
statistics normalised to M0 (petuum/adaptdl osdi21-artifact,
simulator/goodput.py), so
    phi = M0 * grad_var / grad_sqr.

It also writes every validated batch's own statistics ("per_batch"), the
model of the Pollux simulator (osdi21-artifact simulator/applications.py):
epoch e ends at progress epoch_end[e] = the smallest `progress` of row e
over the model's validation-<M>.csv files, and during epoch e a job at batch
M has grad_sqr and grad_var of row e, linear in M between the two validated
batches around it. total_progress = epoch_end of the last epoch: the
simulator ends every job after its model's last epoch (no model has a target
metric), so this is the training target in progress units.

Usage: scripts/derive_noise_scale.py [PROFILES_DIR] [OUT_JSON]
defaults: ../shared/profiles/pollux and core/data/noise_scale.json,
relative to the repository root.
"""
import csv
import json
import pathlib
import re
import sys
from cli_help import answer_help

answer_help(__doc__)

ROOT = pathlib.Path(__file__).resolve().parent.parent


def knots(path, m0):
    out = []
    skipped = 0
    for row in csv.DictReader(path.open(newline="")):
        sqr = float(row["grad_sqr"])
        var = float(row["grad_var"])
        if var < 0:
            sys.exit(f"{path}: grad_var must be >= 0 (row {row})")
        if sqr <= 0:
            # phi is unbounded there (pure noise); the row is left out and
            # phi is interpolated from its neighbours instead.
            skipped += 1
            continue
        out.append([float(row["progress"]), m0 * var / sqr])
    if skipped:
        print(f"{path}: {skipped} row(s) with grad_sqr <= 0 left out")
    if not out:
        sys.exit(f"{path}: no data rows")
    last_iteration = int(float(row["iteration"]))
    return out, last_iteration


def per_batch_stats(model_dir, batches):
    rows = {}
    for m in batches:
        path = model_dir / f"validation-{m}.csv"
        rows[m] = list(csv.DictReader(path.open(newline="")))
        if len(rows[m]) != len(rows[batches[0]]):
            sys.exit(f"{path}: {len(rows[m])} epochs, validation-{batches[0]}.csv has {len(rows[batches[0]])}")
        for i, row in enumerate(rows[m]):
            if float(row["grad_var"]) < 0:
                sys.exit(f"{path}: row {i + 2}: grad_var must be >= 0")
    epochs = len(rows[batches[0]])
    ends = [min(float(rows[m][e]["progress"]) for m in batches) for e in range(epochs)]
    return {
        "epoch_end": [round(x, 3) for x in ends],
        "batches": batches,
        "grad_sqr": [[float(f"{float(r['grad_sqr']):.6g}") for r in rows[m]] for m in batches],
        "grad_var": [[float(f"{float(r['grad_var']):.6g}") for r in rows[m]] for m in batches],
    }


def derive(profiles):
    models = {}
    for model_dir in sorted(p for p in profiles.iterdir() if p.is_dir()):
        batches = sorted(int(m.group(1)) for f in model_dir.glob("validation-*.csv")
                         if (m := re.fullmatch(r"validation-(\d+)\.csv", f.name)))
        if not batches:
            continue
        m0 = batches[0]
        points, _ = knots(model_dir / f"validation-{m0}.csv", m0)
        per_batch = per_batch_stats(model_dir, batches)
        models[model_dir.name] = {
            "initial_batch": m0,
            "max_batch": batches[-1],
            "total_progress": per_batch["epoch_end"][-1],
            "phi": [[round(p, 3), float(f"{phi:.6g}")] for p, phi in points],
            "per_batch": per_batch,
        }
        phis = [phi for _, phi in points]
        print(f"{model_dir.name}: M0={m0} max M={batches[-1]} epochs={len(points)} "
              f"phi first={phis[0]:.3g} mid={phis[len(phis) // 2]:.3g} last={phis[-1]:.3g}")
    return models


def main():
    profiles = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/profiles/pollux"
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "core/data/noise_scale.json"
    doc = {
        "source": "scripts/derive_noise_scale.py from profiles/pollux/<model>/validation-<M0>.csv "
                  "(Pollux osdi21-artifact simulator/traces); phi = M0 * grad_var / grad_sqr per epoch, "
                  "keyed by cumulative progress (scale-invariant iterations); per_batch: every "
                  "validation-<M>.csv's grad_sqr/grad_var per epoch, epoch ends = smallest progress of each row",
        "models": derive(profiles),
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out} ({len(doc['models'])} models)")


if __name__ == "__main__":
    main()
