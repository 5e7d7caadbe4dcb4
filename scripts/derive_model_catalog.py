#!/usr/bin/env python3
"""Writes core/data/models.json from the Pollux per-model profiles.

Every number is either fitted from $VNSIM_SHARED/profiles/pollux/<model>/ or
comes from a published fact listed in PUBLISHED below; docs/MODELS.md explains
each rule and gives the resulting table. Standard library only, so any
python3 runs it.

Usage: VNSIM_SHARED=../shared python3 scripts/derive_model_catalog.py [OUT_JSON]
(VNSIM_SHARED defaults to ../shared relative to the repository root; OUT_JSON
to core/data/models.json).
"""
import csv
import json
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = ["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"]

GIB = 1024.0**3
REFERENCE_GPU = "T4"
REFERENCE_MEMORY_BYTES = 16 * GIB
# Memory a training process cannot use for the model: CUDA context, cuDNN /
# cuBLAS workspaces and allocator slack. A modelling choice, not a
# measurement (docs/MODELS.md, "Caveats").
FRAMEWORK_RESERVE_BYTES = 1 * GIB
BYTES_PER_VALUE = 4  # fp32 weights and gradients

# Published parameter counts and the optimizer each training script uses;
# state_copies = fp32 tensors of parameter size resident per GPU
# (weights + gradients + optimizer slots). Sources in docs/MODELS.md.
PUBLISHED = {
    "bert": {"parameters": 110e6, "optimizer": "AdamW", "state_copies": 4},
    "cifar10": {"parameters": 11.17e6, "optimizer": "SGD+momentum", "state_copies": 3},
    "deepspeech2": {"parameters": 38e6, "optimizer": "SGD+momentum", "state_copies": 3},
    "imagenet": {"parameters": 25.56e6, "optimizer": "SGD+momentum", "state_copies": 3},
    "ncf": {"parameters": None, "optimizer": "Adam", "state_copies": 4},
    "yolov3": {"parameters": 61.9e6, "optimizer": "SGD+momentum", "state_copies": 3},
}

# algorithms.md §7.8: the Pollux simulator overrides yolov3's largest local batch.
MAX_LOCAL_OVERRIDE = {"yolov3": 8}

# algorithms.md §7.9 (oracle fit of Pollux's model to all placements), kept
# for the comparison in docs/MODELS.md; gamma is used as overlap_gamma.
ORACLE = {
    "bert": {"alpha_c": 0.172, "beta_c": 0.0586, "gamma": 1.90},
    "cifar10": {"alpha_c": 0.0174, "beta_c": 7.0e-4, "gamma": 2.07},
    "deepspeech2": {"alpha_c": 0.311, "beta_c": 0.0238, "gamma": 1.41},
    "imagenet": {"alpha_c": 0.0642, "beta_c": 0.00448, "gamma": 2.47},
    "ncf": {"alpha_c": 0.0071, "beta_c": 0.0, "gamma": 1.25},
    "yolov3": {"alpha_c": 0.187, "beta_c": 0.0254, "gamma": 1.11},
}


def ncf_parameters():
    """NeuMF-end as in AdaptDL's examples/NCF (factor_num 32, 3 MLP layers) on
    MovieLens-1M (6,040 users, 3,706 items, as published with the dataset)."""
    users, items, factor, layers = 6040, 3706, 32, 3
    mlp_embed = factor * 2 ** (layers - 1)
    total = (users + items) * factor  # GMF embeddings
    total += (users + items) * mlp_embed  # MLP embeddings
    width = 2 * mlp_embed
    for _ in range(layers):
        total += width * (width // 2) + width // 2
        width //= 2
    total += 2 * factor + 1  # predict layer over [GMF, MLP] outputs
    return float(total)


def sig(x, digits=6):
    return float(f"{x:.{digits}g}")


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fit_line(xs, ys):
    """Ordinary least squares y = a + b x; returns (a, b, rmse)."""
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        raise SystemExit(f"need at least two distinct local batches to fit, got {xs}")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    b = sxy / sxx
    a = my - b * mx
    rmse = (sum((a + b * x - y) ** 2 for x, y in zip(xs, ys)) / n) ** 0.5
    return a, b, rmse


def validated_batches(model_dir):
    batches = []
    for p in model_dir.glob("validation-*.csv"):
        m = re.fullmatch(r"validation-(\d+)\.csv", p.name)
        if m:
            batches.append(int(m.group(1)))
    if not batches:
        raise SystemExit(f"{model_dir}: no validation-<M>.csv files")
    return min(batches), max(batches)


def derive(model_dir, name):
    rows = read_rows(model_dir / "placements.csv")
    local = [int(r["local_bsz"]) for r in rows]
    single = [r for r in rows if r["placement"] == "1"]
    xs = [float(r["local_bsz"]) for r in single]
    ys = [float(r["step_time"]) for r in single]
    alpha, beta, rmse = fit_line(xs, ys)
    if alpha < 0 or beta < 0:
        raise SystemExit(f"{name}: negative compute fit alpha={alpha} beta={beta}")

    pub = PUBLISHED[name]
    params = pub["parameters"] if pub["parameters"] is not None else ncf_parameters()
    gradient_bytes = params * BYTES_PER_VALUE
    weight_state_bytes = gradient_bytes * pub["state_copies"]

    min_local = min(local)
    max_local = MAX_LOCAL_OVERRIDE.get(name, max(local))
    m0, max_global = validated_batches(model_dir)
    free = REFERENCE_MEMORY_BYTES - FRAMEWORK_RESERVE_BYTES - weight_state_bytes
    if free <= 0:
        raise SystemExit(f"{name}: weights and optimizer state do not fit the reference GPU")
    per_sample = free / max_local
    default_local = min(max(m0, min_local), max_local)

    return {
        "alpha_compute_s": sig(alpha),
        "beta_compute_s": sig(beta),
        "gradient_bytes": round(gradient_bytes),
        "weight_state_bytes": round(weight_state_bytes),
        "memory_per_sample_bytes": round(per_sample),
        "min_local_batch": min_local,
        "max_local_batch": max_local,
        "default_local_batch": default_local,
        "initial_batch": m0,
        "max_global_batch": max_global,
        "overlap_gamma": ORACLE[name]["gamma"],
        "parameter_count": round(params),
        "optimizer": pub["optimizer"],
        "state_copies": pub["state_copies"],
        "fit_points": len(xs),
        "fit_rmse_s": sig(rmse, 3),
    }


def implied_bandwidth(model_dir, gradient_bytes):
    """Bytes/s implied by the exposed sync time of 2 nodes x 1 GPU ("11") at the
    smallest local batch, where the least compute hides the all-reduce: a ring
    of 2 moves S bytes per rank, so B = S / t."""
    rows = [r for r in read_rows(model_dir / "placements.csv") if r["placement"] == "11"]
    if not rows:
        return None
    first = min(rows, key=lambda r: int(r["local_bsz"]))
    return gradient_bytes / float(first["sync_time"])


def main():
    shared = pathlib.Path(os.environ.get("VNSIM_SHARED", ROOT.parent / "shared"))
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "core" / "data" / "models.json"
    profiles = shared / "profiles" / "pollux"
    catalog = {
        "derived_by": "scripts/derive_model_catalog.py",
        "source": "profiles/pollux/<model>/{placements,validation-*}.csv (Pollux OSDI'21 artifact); "
        "parameter counts and optimizers as cited in docs/MODELS.md; "
        "overlap_gamma = oracle fit, reference/algorithms.md section 7.9",
        "reference_gpu": REFERENCE_GPU,
        "models": {},
    }
    print(f"{'model':12} {'alpha_c':>9} {'oracle':>9} {'beta_c':>10} {'oracle':>9} {'rmse':>9} {'B_11 GB/s':>10}")
    for name in MODELS:
        entry = derive(profiles / name, name)
        catalog["models"][name] = entry
        bw = implied_bandwidth(profiles / name, entry["gradient_bytes"])
        o = ORACLE[name]
        print(
            f"{name:12} {entry['alpha_compute_s']:9.4f} {o['alpha_c']:9.4f} {entry['beta_compute_s']:10.3g} "
            f"{o['beta_c']:9.3g} {entry['fit_rmse_s']:9.5f} {bw / 1e9 if bw else float('nan'):10.3f}"
        )
    out.write_text(json.dumps(catalog, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
