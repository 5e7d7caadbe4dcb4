#!/usr/bin/env python3
"""Writes core/data/models.json from the Pollux per-model profiles and from
Gavel's measured throughput table.

Every number is either fitted from $VNSIM_SHARED/profiles/pollux/<model>/ or
$VNSIM_SHARED/profiles/gavel/simulation_throughputs.json, or comes from a
published fact listed in PUBLISHED / GAVEL_MODELS below; docs/MODELS.md
explains each rule and gives the resulting table. Standard library only, so
any python3 runs it.

Usage: VNSIM_SHARED=../shared python3 scripts/derive_model_catalog.py [OUT_JSON]
(VNSIM_SHARED defaults to ../shared relative to the repository root; OUT_JSON
to core/data/models.json).
"""
import ast
import csv
import json
import os
import pathlib
import re
import sys
from cli_help import answer_help

answer_help(__doc__)

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from derive_gpu_catalog import roofline_ratio  # noqa: E402  (same V100/T4 ratio as gpu_types.json)
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

# The Pollux OSDI'21 simulator (petuum/adaptdl osdi21-artifact,
# simulator/applications.py) overrides yolov3's largest local batch to 8.
MAX_LOCAL_OVERRIDE = {"yolov3": 8}

# An oracle fit of Pollux's throughput model (Qiao et al., OSDI'21, eq. 6-7) to
# all rows of each model's placements.csv and scalability.csv, kept
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


# Gavel (OSDI'20) job families that no Pollux model trains. Gavel's table
# measures them on K80, P100 and V100; the networks and their training
# scripts are those of Gavel's workloads/pytorch/ directory (paper, Table 2).
# default_local_batch is the script's own --batch_size default; "parameters"
# is counted from the architecture by the functions below.
def transformer_parameters():
    """Transformer of Gavel's translation workload (Vaswani et al. 2017 base
    configuration as the script's defaults: d_model 512, d_inner 2048, 8 heads
    of d_k = d_v = 64, 6 encoder and 6 decoder layers; Linear and Conv1d layers
    with biases, one LayerNorm per sub-layer; frozen sinusoidal position
    tables; -proj_share_weight ties the output projection to the target
    embedding). Vocabularies: Multi30k de-en with the script's min_word_count 5,
    taken as 5,400 German + 4,600 English words (not re-checked; 10% of the
    total)."""
    d, inner, layers = 512, 2048, 6
    attention = 4 * (d * d + d) + 2 * d
    feed_forward = d * inner + inner + inner * d + d + 2 * d
    encoder = layers * (attention + feed_forward)
    decoder = layers * (2 * attention + feed_forward)
    embeddings = (5400 + 4600) * d
    return float(encoder + decoder + embeddings)


def lm_parameters():
    """2-layer LSTM word language model (PyTorch examples word_language_model,
    Gavel's defaults: emsize 200, nhid 200, untied) on WikiText-2, whose
    vocabulary is 33,278 tokens (Merity et al. 2016)."""
    vocab, emb, hid, layers = 33278, 200, 200, 2
    lstm = sum(4 * (hid * (emb if i == 0 else hid) + hid * hid + 2 * hid) for i in range(layers))
    return float(vocab * emb + lstm + hid * vocab + vocab)


def cyclegan_parameters():
    """CycleGAN (Zhu et al. 2017): two ResNet generators with 9 residual
    blocks and two 70x70 PatchGAN discriminators, 3-channel images,
    InstanceNorm without affine parameters. 11,378,179 per generator and
    2,764,737 per discriminator, the counts the CycleGAN authors' code prints."""
    def conv(cin, cout, k):
        return cout * cin * k * k + cout
    generator = conv(3, 64, 7) + conv(64, 128, 3) + conv(128, 256, 3)
    generator += 9 * 2 * conv(256, 256, 3) + conv(256, 128, 3) + conv(128, 64, 3) + conv(64, 3, 7)
    discriminator = conv(3, 64, 4) + conv(64, 128, 4) + conv(128, 256, 4) + conv(256, 512, 4) + conv(512, 1, 4)
    return float(2 * generator + 2 * discriminator)


def a3c_parameters():
    """A3C-LSTM of Gavel's rl workload on Pong (one 80x80 grey frame in, four
    conv layers 1->32 5x5, 32->32 5x5, 32->64 4x4, 64->64 3x3, LSTMCell
    1024->512, critic 512->1, actor 512->6 actions of Pong)."""
    def conv(cin, cout, k):
        return cout * cin * k * k + cout
    convs = conv(1, 32, 5) + conv(32, 32, 5) + conv(32, 64, 4) + conv(64, 64, 3)
    lstm = 4 * (512 * 1024 + 512 * 512 + 2 * 512)
    return float(convs + lstm + 512 + 1 + 512 * 6 + 6)


GAVEL_MODELS = {
    "transformer": {"family": "Transformer", "parameters": transformer_parameters,
                    "optimizer": "Adam", "state_copies": 4, "default_batch": 64},
    "lm": {"family": "LM", "parameters": lm_parameters,
           "optimizer": "SGD (no momentum)", "state_copies": 2, "default_batch": 20},
    "cyclegan": {"family": "CycleGAN", "parameters": cyclegan_parameters,
                 "optimizer": "Adam", "state_copies": 4, "default_batch": 1},
    "a3c": {"family": "A3C", "parameters": a3c_parameters,
            "optimizer": "Adam (AMSGrad)", "state_copies": 5, "default_batch": 1},
}
# Gavel measured every batch size of its table on a 12 GB K80 (one GK210), so
# the largest one fits there: the memory rule uses that GPU, not the T4.
GAVEL_MEASURED_MEMORY_BYTES = 12 * GIB
# Largest scale factor in Gavel's table: max_global_batch = 8 x largest batch.
GAVEL_LARGEST_SCALE = 8


def gavel_points(table, family):
    """[(per-GPU batch, seconds per step)] of one family on the V100, isolated
    ("null" entry), scale factor 1. A family without "(batch size N)" in its
    name (CycleGAN, A3C) runs batch 1."""
    points = []
    for key, entry in table["v100"].items():
        job, scale = ast.literal_eval(key)
        if scale != 1:
            continue
        m = re.fullmatch(r"(.+) \(batch size (\d+)\)", job)
        name, batch = (m.group(1), int(m.group(2))) if m else (job, 1)
        # A V100 row slower than the same row on the P100 is an outlier of
        # the measurement (Transformer at batch 256: 0.63 s on the V100, 0.60 s
        # on the P100, 3.4x its own batch 128), so it is left out of the fit.
        if name == family and entry["null"] >= table["p100"][key]["null"]:
            points.append((batch, 1.0 / entry["null"]))
    if not points:
        raise SystemExit(f"Gavel table has no scale-1 V100 entry for {family}")
    return sorted(points)


def gavel_batches(table, family):
    """Every per-GPU batch Gavel ran the family with (outliers included: they ran)."""
    out = []
    for key in table["v100"]:
        job, scale = ast.literal_eval(key)
        m = re.fullmatch(r"(.+) \(batch size (\d+)\)", job)
        name, batch = (m.group(1), int(m.group(2))) if m else (job, 1)
        if name == family and scale == 1:
            out.append(batch)
    return out


def derive_gavel(table, name):
    spec = GAVEL_MODELS[name]
    points = gavel_points(table, spec["family"])
    # Times on the V100, converted to the reference T4 with the GPU catalog's
    # V100/T4 ratio, so that speed_for(V100) gives back Gavel's measurement.
    v100_over_t4 = roofline_ratio("V100", "T4")
    xs = [float(b) for b, _ in points]
    ys = [t * v100_over_t4 for _, t in points]
    if len(points) == 1:
        alpha, beta, rmse = ys[0], 0.0, 0.0
    else:
        alpha, beta, rmse = fit_line(xs, ys)
        if alpha < 0:
            # Least squares with alpha >= 0: at the bound, the line through the origin.
            alpha, beta = 0.0, sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
            rmse = (sum((beta * x - y) ** 2 for x, y in zip(xs, ys)) / len(xs)) ** 0.5
    if beta < 0:
        raise SystemExit(f"{name}: negative compute fit alpha={alpha} beta={beta}")
    params = spec["parameters"]()
    gradient_bytes = params * BYTES_PER_VALUE
    weight_state_bytes = gradient_bytes * spec["state_copies"]
    batches = gavel_batches(table, spec["family"])
    min_local, max_local = min(batches), max(batches)
    free = GAVEL_MEASURED_MEMORY_BYTES - FRAMEWORK_RESERVE_BYTES - weight_state_bytes
    if free <= 0:
        raise SystemExit(f"{name}: weights and optimizer state do not fit a K80")
    return {
        "alpha_compute_s": sig(alpha),
        "beta_compute_s": sig(beta),
        "gradient_bytes": round(gradient_bytes),
        "weight_state_bytes": round(weight_state_bytes),
        "memory_per_sample_bytes": round(free / max_local),
        "min_local_batch": min_local,
        "max_local_batch": max_local,
        "default_local_batch": spec["default_batch"],
        "initial_batch": min_local,
        "max_global_batch": max_local * GAVEL_LARGEST_SCALE,
        "overlap_gamma": 1.0,
        "parameter_count": round(params),
        "optimizer": spec["optimizer"],
        "state_copies": spec["state_copies"],
        "fit_points": len(points),
        "fit_rmse_s": sig(rmse, 3),
    }


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
        "profiles/gavel/simulation_throughputs.json (Gavel OSDI'20 artifact) for the Gavel-only models; "
        "parameter counts and optimizers as cited in docs/MODELS.md; "
        "overlap_gamma = oracle fit of Pollux's throughput model to placements.csv + scalability.csv (docs/MODELS.md)",
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
    gavel_table = json.loads((shared / "profiles" / "gavel" / "simulation_throughputs.json").read_text())
    print(f"{'gavel model':12} {'alpha_c':>9} {'beta_c':>10} {'rmse':>9} {'params':>12} {'mem/sample MiB':>15}")
    for name in sorted(GAVEL_MODELS):
        entry = derive_gavel(gavel_table, name)
        catalog["models"][name] = entry
        print(f"{name:12} {entry['alpha_compute_s']:9.4f} {entry['beta_compute_s']:10.3g} {entry['fit_rmse_s']:9.5f} "
              f"{entry['parameter_count']:12d} {entry['memory_per_sample_bytes'] / 2**20:15.1f}")
    out.write_text(json.dumps(catalog, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
