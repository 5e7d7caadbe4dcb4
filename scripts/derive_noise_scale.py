#!/usr/bin/env python3
"""Writes core/data/noise_scale.json: each model's pre-conditioned gradient
noise scale phi as a function of training progress, the input of the
statistical-efficiency model (core/goodput.hpp, docs/POLICIES.md "Goodput").

For each model, M0 is the smallest global batch with a validation-<M>.csv.
Each row of validation-<M0>.csv is one epoch: `progress` is the cumulative
scale-invariant iterations and grad_sqr / grad_var are the gradient
statistics normalised to M0 (algorithms.md 7.2), so
    phi = M0 * grad_var / grad_sqr.
total_progress = last `iteration` of that file (= target_samples / M0 in
model_targets.json), the end of training in the Pollux simulator.

Usage: scripts/derive_noise_scale.py [PROFILES_DIR] [OUT_JSON]
defaults: ../shared/profiles/pollux and core/data/noise_scale.json,
relative to the repository root.
"""
import csv
import json
import pathlib
import re
import sys

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


def derive(profiles):
    models = {}
    for model_dir in sorted(p for p in profiles.iterdir() if p.is_dir()):
        batches = sorted(int(m.group(1)) for f in model_dir.glob("validation-*.csv")
                         if (m := re.fullmatch(r"validation-(\d+)\.csv", f.name)))
        if not batches:
            continue
        m0 = batches[0]
        points, last_iteration = knots(model_dir / f"validation-{m0}.csv", m0)
        models[model_dir.name] = {
            "initial_batch": m0,
            "max_batch": batches[-1],
            "total_progress": last_iteration,
            "phi": [[round(p, 3), float(f"{phi:.6g}")] for p, phi in points],
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
                  "keyed by cumulative progress (scale-invariant iterations)",
        "models": derive(profiles),
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out} ({len(doc['models'])} models)")


if __name__ == "__main__":
    main()
