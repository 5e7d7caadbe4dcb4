#!/usr/bin/env python3
"""Writes core/data/model_targets.json: samples each model trains on in its
Pollux profile, used to give pollux-workload jobs (which carry no duration)
a length in iterations (docs/TRACES.md, "Workload jobs").

For each model, M0 is the smallest global batch with a validation-<M>.csv;
the last row of validation-<M0>.csv is the end of training (max_epochs), so
target_samples = last `iteration` x M0.

Usage: scripts/derive_model_targets.py [PROFILES_DIR] [OUT_JSON]
defaults: ../shared/profiles/pollux and core/data/model_targets.json,
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


def last_iteration(path):
    rows = [r for r in csv.DictReader(path.open(newline="")) if r.get("iteration")]
    if not rows:
        sys.exit(f"{path}: no data rows")
    return int(float(rows[-1]["iteration"])), len(rows)


def derive(profiles):
    models = {}
    for model_dir in sorted(p for p in profiles.iterdir() if p.is_dir()):
        batches = []
        for f in model_dir.glob("validation-*.csv"):
            m = re.fullmatch(r"validation-(\d+)\.csv", f.name)
            if m:
                batches.append(int(m.group(1)))
        if not batches:
            continue
        m0 = min(batches)
        iters, epochs = last_iteration(model_dir / f"validation-{m0}.csv")
        models[model_dir.name] = {
            "initial_batch": m0,
            "epochs": epochs,
            "last_iteration": iters,
            "target_samples": iters * m0,
        }
    return models


def main():
    profiles = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/profiles/pollux"
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "core/data/model_targets.json"
    doc = {
        "source": "scripts/derive_model_targets.py from profiles/pollux/<model>/validation-<M0>.csv "
                  "(Pollux osdi21-artifact simulator/traces); target_samples = last iteration x M0",
        "models": derive(profiles),
    }
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {out} ({len(doc['models'])} models)")


if __name__ == "__main__":
    main()
