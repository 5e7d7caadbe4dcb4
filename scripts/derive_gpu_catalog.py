#!/usr/bin/env python3
"""Writes core/data/gpu_types.json: memory, peak flop/s and speed relative to
the T4 (the GPU on which the Pollux profiles, hence models.json, were timed).

Speeds are chained through the V100:
  speed(type, model) = [type / V100 for that model] x [V100 / T4]
- K80 and P100 per model: Gavel's measured isolated throughputs
  (profiles/gavel/simulation_throughputs.json), geometric mean over the batch
  sizes of the Gavel job family mapped to each Pollux model.
- A100 / V100: NVIDIA's published 1-GPU mixed-precision ResNet-50 training
  throughputs (2470 / 1200 img/s).
- V100 / T4, A10 / V100, H100 / A100, P40 / P100: no training benchmark at
  hand, so the geometric mean of the datasheet peak-compute ratio and the
  memory-bandwidth ratio (a roofline midpoint). On A100 / V100, where a
  measurement exists, this rule gives 2.38 against the measured 2.06.
Sources and caveats: docs/MODELS.md.

Usage: VNSIM_SHARED=../shared python3 scripts/derive_gpu_catalog.py [OUT_JSON]
"""
import ast
import json
import math
import os
import pathlib
import re
import sys
from cli_help import answer_help

answer_help(__doc__)

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Datasheet figures per CUDA device. peak_tflops = dense fp16 tensor-core rate
# where the GPU has tensor cores, else its fastest training precision (fp16
# for P100, fp32 for K80 and P40, whose fp16 is not faster). bandwidth in GB/s.
DATASHEET = {
    "K80": {"memory_gib": 12, "peak_tflops": 4.37, "bandwidth_GBps": 240, "fp32_tflops": 4.37},
    "P40": {"memory_gib": 24, "peak_tflops": 11.76, "bandwidth_GBps": 346, "fp32_tflops": 11.76},
    "P100": {"memory_gib": 16, "peak_tflops": 18.7, "bandwidth_GBps": 732, "fp32_tflops": 9.3},
    "V100": {"memory_gib": 16, "peak_tflops": 125, "bandwidth_GBps": 900, "fp32_tflops": 15.7},
    "T4": {"memory_gib": 16, "peak_tflops": 65, "bandwidth_GBps": 320, "fp32_tflops": 8.1},
    "A10": {"memory_gib": 24, "peak_tflops": 125, "bandwidth_GBps": 600, "fp32_tflops": 31.2},
    "A100": {"memory_gib": 80, "peak_tflops": 312, "bandwidth_GBps": 2039, "fp32_tflops": 19.5},
    "H100": {"memory_gib": 80, "peak_tflops": 989.4, "bandwidth_GBps": 3350, "fp32_tflops": 67},
}

# Board power (W) from the vendor datasheets: K80 is 300 W per board of two
# GK210 dies, and the catalog's K80 is one die; P100 is the 250 W PCIe card;
# V100 SXM2, A100 SXM4 and H100 SXM5. Busy = board power while a job holds the
# GPU (training keeps a board near its limit); idle = 15% of it, an assumption
# (typical idle readings are 10-15% of board power), not a datasheet figure.
BOARD_WATTS = {"K80": 150, "P40": 250, "P100": 250, "V100": 300, "T4": 70, "A10": 150, "A100": 400, "H100": 700}
IDLE_FRACTION = 0.15
# On-demand $/GPU-hour, public cloud list prices (us-east, Linux): AWS p2.xlarge
# (K80), Azure ND6s (P40), GCP per-GPU price (P100), AWS p3.2xlarge (V100),
# g4dn.xlarge (T4), g5.xlarge (A10G), p4d.24xlarge / 8 (A100), p5.48xlarge / 8
# (H100). Spot = 30% of on-demand, an assumption (discounts vary by region
# and hour). docs/ELASTICITY.md lists them.
USD_PER_GPU_HOUR = {"K80": 0.90, "P40": 2.07, "P100": 1.46, "V100": 3.06, "T4": 0.526, "A10": 1.006,
                    "A100": 4.097, "H100": 12.29}
SPOT_FRACTION = 0.3

# Pollux model -> Gavel job family (closest architecture / task).
POLLUX_FAMILY = {
    "bert": "Transformer",
    "cifar10": "ResNet-18",
    "deepspeech2": "LM",
    "imagenet": "ResNet-50",
    "ncf": "Recommendation",
    "yolov3": "ResNet-50",
}
# Catalog models derived from Gavel's table itself (scripts/derive_model_catalog.py):
# each is its own Gavel family, so its speeds are Gavel's measurements.
GAVEL_ONLY_FAMILY = {"transformer": "Transformer", "lm": "LM", "cyclegan": "CycleGAN", "a3c": "A3C"}
GAVEL_FAMILY = {**POLLUX_FAMILY, **GAVEL_ONLY_FAMILY}

A100_OVER_V100_MEASURED = 2470.0 / 1200.0  # NVIDIA DeepLearningExamples, PyTorch RN50 v1.5, AMP, 1 GPU


def roofline_ratio(a, b, flops_key="peak_tflops"):
    """Speed of a over b: geometric mean of peak-compute and bandwidth ratios."""
    da, db = DATASHEET[a], DATASHEET[b]
    return math.sqrt(da[flops_key] / db[flops_key] * da["bandwidth_GBps"] / db["bandwidth_GBps"])


def gavel_ratios(path):
    """{gpu: {family: geometric mean over batch sizes of rate(gpu)/rate(v100)}} at scale 1."""
    table = json.loads(path.read_text())
    out = {}
    for gpu in ("k80", "p100"):
        per_family = {}
        for key, entry in table["v100"].items():
            job, scale = ast.literal_eval(key)
            if scale != 1:
                continue
            family = re.sub(r" \(batch size \d+\)$", "", job)
            if family not in GAVEL_FAMILY.values():
                continue
            ratio = table[gpu][key]["null"] / entry["null"]
            per_family.setdefault(family, []).append(ratio)
        out[gpu.upper()] = {f: math.exp(sum(map(math.log, r)) / len(r)) for f, r in per_family.items()}
    return out


def geomean(values):
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values))


def rounded(x):
    return float(f"{x:.4g}")


def main():
    shared = pathlib.Path(os.environ.get("VNSIM_SHARED", ROOT.parent / "shared"))
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "core" / "data" / "gpu_types.json"
    gavel = gavel_ratios(shared / "profiles" / "gavel" / "simulation_throughputs.json")

    v100_over_t4 = roofline_ratio("V100", "T4")
    vs_v100 = {
        "V100": 1.0,
        "T4": 1.0 / v100_over_t4,
        "A100": A100_OVER_V100_MEASURED,
        "A10": roofline_ratio("A10", "V100"),
        "H100": A100_OVER_V100_MEASURED * roofline_ratio("H100", "A100"),
    }
    # Per-model factors vs V100 for the Pascal/Kepler types. A family that
    # Gavel measured faster on the older GPU than on the V100 (Recommendation)
    # is bound by the host, not the GPU: such models get no override and fall
    # back to the type's default speed.
    per_model_vs_v100 = {
        gpu: {m: gavel[gpu][fam] for m, fam in GAVEL_FAMILY.items() if gavel[gpu][fam] <= 1.0}
        for gpu in ("K80", "P100")
    }
    # P40 and P100 both train in fp32 here, so compare them on fp32 peak.
    p40_over_p100 = roofline_ratio("P40", "P100", flops_key="fp32_tflops")
    per_model_vs_v100["P40"] = {m: r * p40_over_p100 for m, r in per_model_vs_v100["P100"].items()}

    types = {}
    for name, sheet in DATASHEET.items():
        entry = {"memory_gib": sheet["memory_gib"], "peak_tflops": sheet["peak_tflops"]}
        if name in per_model_vs_v100:
            by_model = {m: rounded(r * v100_over_t4) for m, r in sorted(per_model_vs_v100[name].items())}
            # Default for models without an override: geometric mean over the
            # distinct Gavel families of the Pollux models, so ResNet-50 is not
            # counted twice (the Gavel-only families have their own overrides).
            fam_speed = {POLLUX_FAMILY[m]: s for m, s in by_model.items() if m in POLLUX_FAMILY}
            entry["relative_speed"] = rounded(geomean(fam_speed.values()))
            entry["speed_by_model"] = by_model
        else:
            entry["relative_speed"] = rounded(vs_v100[name] * v100_over_t4)
        entry["memory_bandwidth_GBps"] = sheet["bandwidth_GBps"]
        entry["busy_watts"] = BOARD_WATTS[name]
        entry["idle_watts"] = round(IDLE_FRACTION * BOARD_WATTS[name], 2)
        entry["usd_per_gpu_hour"] = USD_PER_GPU_HOUR[name]
        entry["spot_usd_per_gpu_hour"] = round(SPOT_FRACTION * USD_PER_GPU_HOUR[name], 4)
        types[name] = entry

    catalog = {
        "derived_by": "scripts/derive_gpu_catalog.py",
        "source": "vendor datasheets; profiles/gavel/simulation_throughputs.json; NVIDIA "
        "DeepLearningExamples ResNet-50 v1.5 training throughputs (see docs/MODELS.md)",
        "reference": "T4",
        "types": types,
    }
    out.write_text(json.dumps(catalog, indent=2) + "\n")
    print(f"V100/T4 = {v100_over_t4:.3f}; A100/V100 roofline {roofline_ratio('A100', 'V100'):.3f} "
          f"vs measured {A100_OVER_V100_MEASURED:.3f}; P40/P100 = {p40_over_p100:.3f}")
    for gpu, fams in gavel.items():
        print(gpu, "vs V100:", {f: round(r, 3) for f, r in sorted(fams.items())})
    for name, e in types.items():
        print(f"{name:5} speed {e['relative_speed']:7.3f} {e.get('speed_by_model', '')}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
