#!/usr/bin/env python3
"""Writes core/data/throughput_profiles.json: per Gavel job family and GPU
type, training throughput (samples/s) against the per-GPU batch, for the
heterogeneous split solver (core/include/vnsim/core/throughput_profile.hpp).

- K80, P100, V100: Gavel's isolated one-GPU throughputs ("null" entry of
  profiles/gavel/simulation_throughputs.json, steps/s) times the batch size.
- A100 = V100 x 2.058: NVIDIA DeepLearningExamples, PyTorch ResNet-50 v1.5,
  1-GPU mixed-precision training, 2470 img/s (A100 80GB) / 1200 img/s (V100
  16GB); the same ratio docs/MODELS.md uses for the GPU catalog.
- H100 = A100 x 2.283: roofline midpoint sqrt(989.4/312 x 3350/2039) of the
  datasheet dense fp16 peaks and memory bandwidths (docs/MODELS.md).
The factors are applied to every family and batch alike: an estimate, not a
measurement. Sources and caveats: docs/HETEROGENEITY.md.

Usage: VNSIM_SHARED=../shared python3 scripts/derive_throughput_profiles.py [OUT_JSON]
"""
import ast
import json
import os
import pathlib
import re
import sys
from cli_help import answer_help

answer_help(__doc__)

ROOT = pathlib.Path(__file__).resolve().parent.parent
FAMILIES = ["ResNet-18", "ResNet-50", "Transformer", "LM", "Recommendation", "CycleGAN", "A3C"]
MEASURED = {"K80": "k80", "P100": "p100", "V100": "v100"}
A100_OVER_V100 = 2470 / 1200
H100_OVER_A100 = ((989.4 / 312) * (3350 / 2039)) ** 0.5
# Catalog model -> Gavel family, as in docs/MODELS.md: the Pollux models by
# closest architecture, the Gavel-only models by the family they come from.
MODEL_FAMILY = {"cifar10": "ResNet-18", "imagenet": "ResNet-50", "yolov3": "ResNet-50",
                "bert": "Transformer", "deepspeech2": "LM", "ncf": "Recommendation",
                "transformer": "Transformer", "lm": "LM", "cyclegan": "CycleGAN", "a3c": "A3C"}


def main():
    shared = pathlib.Path(os.environ.get("VNSIM_SHARED", ROOT.parent / "shared"))
    table = json.loads((shared / "profiles/gavel/simulation_throughputs.json").read_text())
    out_path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "core/data/throughput_profiles.json"
    families = {}
    for family in FAMILIES:
        per_type = {}
        for ours, theirs in MEASURED.items():
            points = []
            for key, row in table[theirs].items():
                name, scale = ast.literal_eval(key)
                m = re.fullmatch(r"(.+) \(batch size (\d+)\)", name)
                # CycleGAN and A3C name no batch size: they run batch 1.
                name, batch = (m.group(1), int(m.group(2))) if m else (name, 1)
                if scale != 1 or name != family:
                    continue
                points.append([batch, round(row["null"] * batch, 3)])
            per_type[ours] = sorted(points)
        per_type["A100"] = [[b, round(s * A100_OVER_V100, 3)] for b, s in per_type["V100"]]
        per_type["H100"] = [[b, round(s * A100_OVER_V100 * H100_OVER_A100, 3)] for b, s in per_type["V100"]]
        families[family] = per_type
        print(family, {t: p for t, p in per_type.items()})
    doc = {
        "derived_by": "scripts/derive_throughput_profiles.py",
        "source": "profiles/gavel/simulation_throughputs.json (K80/P100/V100, isolated, scale factor 1); "
                  f"A100 = V100 x {A100_OVER_V100:.4f}, H100 = A100 x {H100_OVER_A100:.4f} (docs/HETEROGENEITY.md)",
        "unit": "samples per second against per-GPU batch",
        "model_family": MODEL_FAMILY,
        "families": families,
    }
    out_path.write_text(json.dumps(doc, indent=2) + "\n")
    print("wrote", out_path)


if __name__ == "__main__":
    main()
