#!/usr/bin/python3
"""Writes and executes notebooks_out/network_busbw/busbw.ipynb (and its HTML
and PNG), which plots the simulated ring all-reduce busbw of dgx-h100
(busbw_<gpus>.csv, from bench/busbw_sweep) next to the published NCCL figures.
Debian python3 with matplotlib, nbformat, nbconvert.
Usage, from the repository root after a build:
    /usr/bin/python3 experiments/network_busbw/make_notebook.py [--sweep [BENCH]]
Without --sweep it plots the CSVs already in notebooks_out/network_busbw. With
--sweep it first runs BENCH (default build/bench/busbw_sweep) at 8, 64 and 512
GPUs and rewrites them; the 512-GPU cluster is the dgx-h100 preset with 4 racks
of 16 nodes, written to a temporary file."""
import pathlib as _pathlib
import sys

sys.path.insert(0, str(_pathlib.Path(__file__).resolve().parents[2] / "scripts"))
from cli_help import answer_help  # noqa: E402

answer_help(__doc__)  # before the notebook imports, so any python3 answers it

import json
import os
import subprocess
import sys
import tempfile

import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import ExecutePreprocessor

INTRO = """# Ring all-reduce busbw on `dgx-h100`: vnsim vs published figures

Simulated with `bench/busbw_sweep` (SimGrid, ring forced, idle network) on the
`dgx-h100` preset: 18 NVLink4 links x 200 Gbit/s at efficiency 0.824, and
8 x 400G NICs per node at efficiency 0.94 (docs/CLUSTER_SPEC.md, "Calibration knobs").
The 512-GPU cluster is the same preset with 4 racks of 16 nodes (experiments/network_busbw/make_notebook.py).

Published (NVIDIA/nccl-tests GitHub issues #212 and #290, answers by NVIDIA engineers):
- 8 x H100 over NVLink, ring: about 370 GB/s (NCCL with ~20% protocol overhead on 450 GB/s);
- 400G NDR InfiniBand: 46-48 GB/s per NIC, so 368-384 GB/s busbw across nodes with 8 NICs per node."""

CODE = """import csv
import matplotlib
%matplotlib inline
import matplotlib.pyplot as plt

runs = {}
for gpus in (8, 64, 512):
    with open(f"busbw_{gpus}.csv") as f:
        rows = list(csv.DictReader(f))
    runs[gpus] = ([float(r["bytes"]) for r in rows], [float(r["busbw_GBps"]) for r in rows],
                  [float(r["simulated_s"]) / float(r["analytic_s"]) for r in rows])

fig, ax = plt.subplots(figsize=(8, 5))
for gpus, (sizes, busbw, _) in runs.items():
    ax.plot(sizes, busbw, marker="o", label=f"vnsim, {gpus} GPUs")
ax.axhline(370, color="gray", linestyle="--", label="published 8 GPUs NVLink ring (~370)")
ax.axhspan(368, 384, color="orange", alpha=0.2, label="published multi-node, 8 x 46-48 GB/s")
ax.set_xscale("log", base=2)
ax.set_xlabel("message size (bytes)")
ax.set_ylabel("busbw (GB/s)")
ax.set_title("dgx-h100 ring all-reduce busbw")
ax.grid(True, which="both", alpha=0.3)
ax.legend(loc="upper left")
fig.tight_layout()
fig.savefig("busbw.png", dpi=120)
plt.show()

# Published: 370 GB/s in one node; 368-384 GB/s (8 NICs x 46-48) across nodes.
published = {8: (370, 370), 64: (368, 384), 512: (368, 384)}
print(f"{'GPUs':>5} {'bytes':>12} {'busbw GB/s':>11} {'sim/analytic':>13} {'vs published':>14}")
for gpus, (sizes, busbw, ratio) in runs.items():
    lo, hi = published[gpus]
    for s, b, r in zip(sizes, busbw, ratio):
        if s in (2**20, 2**26, 2**30, 2**32):
            vs = f"{b / lo:.2f}" if lo == hi else f"{b / hi:.2f}-{b / lo:.2f}"
            print(f"{gpus:>5} {s:>12.0f} {b:>11.2f} {r:>13.4f} {vs:>14}")"""



def dgx_h100_512(root, path):
    """The dgx-h100 preset with 4 racks of 16 nodes (512 GPUs), written to `path`."""
    with open(os.path.join(root, "core", "data", "cluster-dgx-h100.json")) as f:
        c = json.load(f)
    c["name"] = "dgx-h100-512"
    c["racks"] = [dict(c["racks"][0], name=f"r{r}", nodes=[{"name_prefix": f"r{r}n", "count": 16}]) for r in range(4)]
    with open(path, "w") as f:
        json.dump(c, f)


def sweep(root, bench):
    """Rewrites busbw_<gpus>.csv in the current folder from bench/busbw_sweep."""
    if not os.access(bench, os.X_OK):
        sys.exit(f"make_notebook.py: {bench} is not an executable (build first, or pass the bench's path)")
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "dgx-h100-512.json")
        dgx_h100_512(root, big)
        for cluster, gpus in (("dgx-h100", 8), ("dgx-h100", 64), (big, 512)):
            with open(f"busbw_{gpus}.csv", "w") as f:
                subprocess.run([bench, cluster, str(gpus)], check=True, stdout=f)


root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
args = sys.argv[1:]
bench = None
if args and args[0] == "--sweep":
    bench = os.path.abspath(args[1] if len(args) > 1 else os.path.join(root, "build", "bench", "busbw_sweep"))
elif args:
    sys.exit("usage: make_notebook.py [--sweep [BENCH]]")
out = os.path.join(root, "notebooks_out", "network_busbw")
os.makedirs(out, exist_ok=True)
os.chdir(out)
if bench is not None:
    sweep(root, bench)

nb = nbformat.v4.new_notebook()
nb.cells = [nbformat.v4.new_markdown_cell(INTRO), nbformat.v4.new_code_cell(CODE)]
ExecutePreprocessor(timeout=120, kernel_name="python3").preprocess(nb, {"metadata": {"path": "."}})
nbformat.write(nb, "busbw.ipynb")
html, _ = HTMLExporter().from_notebook_node(nb)
with open("busbw.html", "w", encoding="utf-8") as f:
    f.write(html)
print("wrote", out, ": busbw.ipynb, busbw.html, busbw.png")
