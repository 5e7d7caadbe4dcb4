#!/usr/bin/python3
"""Builds, executes and exports the notebook of one `vnsim validate` call.

Usage: make_validation_report.py DIR   (called by `vnsim validate --report DIR`)

Reads DIR/validation_summary.json (written by vnsim validate: the statistics
of every run and, with several runs, the policy ranking) and each run's
validation_iterations.csv and validation_jobs.csv; writes DIR/validation.ipynb
(executed), DIR/validation.html and DIR/*.png. Run folders are referenced by
paths relative to DIR, so a committed report stays self-contained.
"""
import json
import os
import sys
import pathlib as _pathlib

sys.path.insert(0, str(_pathlib.Path(__file__).resolve().parents[1]))
from cli_help import answer_help  # noqa: E402

answer_help(__doc__)  # before the notebook imports, so any python3 answers it

MISSING_EXIT = 2

try:
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor
except ImportError as e:  # a clear line instead of a traceback
    sys.stderr.write(f"make_validation_report.py: missing Python module ({e}); run scripts/setup\n")
    sys.exit(MISSING_EXIT)

SETUP = r'''
import os, json
import numpy as np
import pandas as pd
import matplotlib
import matplotlib.pyplot as plt

with open("validation_summary.json") as f:
    summary = json.load(f)
runs = summary["runs"]
label = {r["run"]: r["policy"] if len({x["policy"] for x in runs}) == len(runs) else os.path.basename(r["run"])
         for r in runs}
iters = {r["run"]: pd.read_csv(os.path.join(r["run"], "validation_iterations.csv"), keep_default_na=False)
         for r in runs}
jobs = {r["run"]: pd.read_csv(os.path.join(r["run"], "validation_jobs.csv"), keep_default_na=False)
        for r in runs}

def save(fig, name):
    fig.tight_layout()
    fig.savefig(name + ".png", dpi=90)
    plt.show()

print(f"{len(runs)} run(s) validated; the first {summary['skip_first']} step(s) of every segment are warm-up")
'''

TABLE = r'''
rows = []
for r in runs:
    row = {"run": label[r["run"]]}
    for key, name in [("iteration_time", "iter"), ("compute_time", "compute"), ("allreduce_time", "allreduce"),
                      ("jct", "jct")]:
        s = r[key]
        row[f"{name} n"] = s["count"]
        for stat in ["mape", "p90", "max", "mean_signed"]:
            row[f"{name} {stat} %"] = round(100 * s[stat], 2)
        if "segments" in s:  # the segment's median step against its one prediction
            g = s["segments"]
            row[f"{name} segments"] = g["count"]
            row[f"{name} per-segment mape %"] = round(100 * g["median_mape"], 2)
            row[f"{name} step noise floor %"] = round(100 * g["noise_floor_mape"], 2)
    row["mean JCT measured s"] = round(r["measured_mean_jct_s"], 3)
    row["mean JCT predicted s"] = round(r["predicted_mean_jct_s"], 3)
    row["mean JCT error %"] = round(100 * r["mean_jct_error"], 2)
    row["makespan measured s"] = round(r["measured_makespan_s"], 3)
    row["makespan predicted s"] = round(r["predicted_makespan_s"], 3)
    row["makespan error %"] = round(100 * r["makespan_error"], 2)
    rows.append(row)
pd.DataFrame(rows).set_index("run").T
'''

RANKING = r'''
rk = summary.get("ranking")
if rk is None:
    print("One run: no policy ranking (validate one run per policy of the same trace to get one).")
else:
    tau = rk["kendall_tau_b"]
    print("measured  order (best mean JCT first):", " < ".join(rk["measured_order"]))
    print("predicted order (best mean JCT first):", " < ".join(rk["predicted_order"]))
    print(f"Kendall tau-b: {'undefined' if tau is None else f'{tau:+.3f}'}; rankings "
          f"{'agree' if rk['agree'] else 'differ'} (concordant {rk['concordant_pairs']}, discordant "
          f"{rk['discordant_pairs']}, tied {rk['tied_measured_only']}/{rk['tied_predicted_only']}/{rk['tied_both']})")
    fig, ax = plt.subplots(figsize=(6, 3.5))
    x = np.arange(len(runs))
    ax.bar(x - 0.2, [r["measured_mean_jct_s"] for r in runs], 0.4, label="measured")
    ax.bar(x + 0.2, [r["predicted_mean_jct_s"] for r in runs], 0.4, label="predicted")
    ax.set_xticks(x, [label[r["run"]] for r in runs]); ax.set_ylabel("mean JCT (s)")
    ax.set_title("Mean JCT per policy"); ax.legend(); ax.grid(alpha=0.3, axis="y")
    save(fig, "mean_jct_by_policy")
'''

SCATTER = r'''
fig, axes = plt.subplots(1, len(runs), figsize=(5 * len(runs), 4.5), squeeze=False)
for ax, r in zip(axes[0], runs):
    d = iters[r["run"]]
    for job, g in d.groupby("job", sort=True):
        ax.scatter(g.measured_s * 1e3, g.predicted_s * 1e3, s=10, label=job)
    if len(d):
        lo = 0.9 * min(d.measured_s.min(), d.predicted_s.min()) * 1e3
        hi = 1.1 * max(d.measured_s.max(), d.predicted_s.max()) * 1e3
        ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="predicted = measured")
        ax.set_xscale("log"); ax.set_yscale("log")
    ax.set_xlabel("measured step time (ms)"); ax.set_ylabel("predicted step time (ms)")
    ax.set_title(f"{label[r['run']]}: iteration time, MAPE {100 * r['iteration_time']['mape']:.2f}%")
    ax.legend(fontsize=7); ax.grid(alpha=0.3)
save(fig, "iteration_scatter")
'''

ITER_ERRORS = r'''
fig, ax = plt.subplots(figsize=(7, 4))
for r in runs:
    d = iters[r["run"]]
    e = np.sort(np.abs(d.predicted_s - d.measured_s) / d.measured_s * 100)
    ax.plot(e, np.arange(1, len(e) + 1) / len(e), label=f"{label[r['run']]} ({len(e)} steps)")
ax.axvline(5, color="grey", ls=":", label="5% target")
ax.set_xlabel("|predicted - measured| / measured step time (%)"); ax.set_ylabel("fraction of steps")
ax.set_title("CDF of per-iteration relative error"); ax.legend(); ax.grid(alpha=0.3)
save(fig, "iteration_error_cdf")
'''

JCT_CDF = r'''
fig, ax = plt.subplots(figsize=(7, 4))
for r in runs:
    d = jobs[r["run"]]
    e = np.sort(np.abs(d.predicted_jct_s - d.measured_jct_s) / d.measured_jct_s * 100)
    ax.step(e, np.arange(1, len(e) + 1) / len(e), where="post", label=f"{label[r['run']]} ({len(e)} jobs)")
ax.set_xlabel("|predicted - measured| / measured JCT (%)"); ax.set_ylabel("fraction of jobs")
ax.set_title("CDF of per-job JCT error"); ax.legend(); ax.grid(alpha=0.3)
save(fig, "jct_error_cdf")
pd.concat([jobs[r["run"]].assign(run=label[r["run"]]) for r in runs]).assign(
    error_pct=lambda d: (100 * (d.predicted_jct_s - d.measured_jct_s) / d.measured_jct_s).round(2))
'''


def build():
    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    nb.cells = [
        md("# vnsim validation report\nGenerated by `vnsim validate --report` from `validation_summary.json` and "
           "each run's `validation_iterations.csv` / `validation_jobs.csv` (docs/VALIDATION.md). Relative errors "
           "are (predicted - measured) / measured; MAPE is their mean absolute value."),
        code(SETUP),
        md("## Error statistics per run"), code(TABLE),
        md("## Policy ranking by mean JCT (Kendall tau-b)"), code(RANKING),
        md("## Predicted vs measured iteration time"), code(SCATTER),
        md("## Per-iteration error distribution"), code(ITER_ERRORS),
        md("## Per-job JCT error"), code(JCT_CDF),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: make_validation_report.py DIR\n")
        return MISSING_EXIT
    out = os.path.abspath(sys.argv[1])
    if not os.path.isfile(os.path.join(out, "validation_summary.json")):
        sys.stderr.write(f"make_validation_report.py: {out}: no validation_summary.json\n")
        return MISSING_EXIT
    nb = build()
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # quiets ipykernel debugger noise
    try:
        ExecutePreprocessor(timeout=600, kernel_name="python3").preprocess(nb, {"metadata": {"path": out}})
    except Exception as e:  # the cell error is in the message; keep the partial notebook for debugging
        nbformat.write(nb, os.path.join(out, "validation.ipynb"))
        sys.stderr.write(f"make_validation_report.py: notebook failed: {e}\n")
        return 1
    nbformat.write(nb, os.path.join(out, "validation.ipynb"))
    html, _ = HTMLExporter().from_notebook_node(nb)
    with open(os.path.join(out, "validation.html"), "w", encoding="utf-8") as f:
        f.write(html)
    pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
    print(f"report: {out}/validation.ipynb, validation.html, {len(pngs)} PNGs ({', '.join(pngs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
