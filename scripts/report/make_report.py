#!/usr/bin/python3
"""Builds, executes and exports the notebook of one vnsim sweep.

Usage: make_report.py RESULTS_DIR --out DIR   (called by `vnsim report`)

Writes DIR/report.ipynb (executed), DIR/report.html and DIR/*.png. The
notebook reads RESULTS_DIR/results.csv and each run's jobs.csv through a path
relative to DIR, so a committed sweep folder stays self-contained.
"""
import argparse
import os
import sys

MISSING_EXIT = 2

try:
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor
except ImportError as e:  # a clear line instead of a traceback
    sys.stderr.write(f"make_report.py: missing Python module ({e}); run scripts/setup\n")
    sys.exit(MISSING_EXIT)

SETUP = r'''
import os, glob, json
import numpy as np
import pandas as pd
import matplotlib
import matplotlib.pyplot as plt

RESULTS = {results!r}
GANTT_MAX_JOBS = 200
results = pd.read_csv(os.path.join(RESULTS, "results.csv"), keep_default_na=False, na_values=[""])
ok = results[results["status"] == "ok"]
AXES = [c for c in ["cluster", "trace", "macro_iterations", "seed"] if results[c].nunique(dropna=False) > 1]

def load_jobs(run):
    return pd.read_csv(os.path.join(RESULTS, run["run_dir"], "jobs.csv"), keep_default_na=False, na_values=[""])

def load_summary(run):
    with open(os.path.join(RESULTS, run["run_dir"], "summary.json")) as f:
        return json.load(f)

def save(fig, name):
    fig.tight_layout()
    fig.savefig(name + ".png", dpi=90)
    plt.show()

print(f"{{len(results)}} runs: {{(results.status == 'ok').sum()}} ok, {{(results.status == 'failed').sum()}} failed, "
      f"{{(results.status == 'not-run').sum()}} not run; axes varying besides policy: {{AXES or 'none'}}")
'''

TABLE = r'''
cols = ["run_id", "cluster", "trace", "policy", "macro_iterations", "seed", "status", "completed",
        "jct_mean_s", "jct_p99_s", "wait_mean_s", "makespan_s", "gpu_utilisation", "error"]
results[cols]
'''

JCT_CDF = r'''
fig, ax = plt.subplots(figsize=(7, 4))
for policy, runs in ok.groupby("policy", sort=True):
    jct = pd.concat([load_jobs(r)["turnaround_time"].dropna() for _, r in runs.iterrows()])
    x = np.sort(jct.to_numpy())
    ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=f"{{policy}} ({{len(runs)}} runs, {{len(x)}} jobs)")
ax.set_xscale("log"); ax.set_xlabel("JCT (s, log scale)"); ax.set_ylabel("fraction of completed jobs")
ax.set_title("JCT CDF per policy (all runs of the policy pooled)"); ax.legend(); ax.grid(alpha=0.3)
save(fig, "jct_cdf")
'''

JCT_BY_AXIS = r'''
for axis in AXES or ["policy"]:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for metric, a in zip(["jct_mean_s", "jct_p99_s"], axes):
        table = ok.pivot_table(index=axis, columns="policy", values=metric, aggfunc="mean")
        table.plot(ax=a, marker="o", kind="line" if len(table) > 1 else "bar")
        a.set_ylabel(metric.replace("_s", " (s)")); a.set_title(f"{{metric}} by {{axis}} (mean over other axes)")
        a.grid(alpha=0.3)
    save(fig, f"jct_by_{{axis}}")
'''

TIMELINE = r'''
def timeline(jobs):
    """Busy GPUs and queued jobs over time, from each job's first start and finish
    (a job restarted after preemption is counted as running throughout)."""
    started = jobs.dropna(subset=["starting_time"])
    events = [(t, g, 0) for t, g in zip(started.starting_time, started.requested_number_of_resources)]
    events += [(t, -g, 0) for t, g in zip(started.finish_time.dropna(),
                                          started.dropna(subset=["finish_time"]).requested_number_of_resources)]
    events += [(t, 0, 1) for t in jobs.submission_time] + [(t, 0, -1) for t in started.starting_time]
    ev = pd.DataFrame(events, columns=["t", "gpus", "queue"]).groupby("t").sum().sort_index().cumsum()
    return ev.index.to_numpy(), ev.gpus.to_numpy(), ev.queue.to_numpy()

first = ok.sort_values(["policy", "run_index"]).groupby("policy", sort=True).head(1)
fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
for _, run in first.iterrows():
    t, busy, queue = timeline(load_jobs(run))
    total = load_summary(run)["run"]["total_gpus"]
    label = f"{{run.policy}} (seed {{run.seed}}, {{run.trace}})"
    a1.step(t / 3600, busy / total, where="post", label=label)
    a2.step(t / 3600, queue, where="post", label=label)
a1.set_ylabel("GPU utilisation"); a2.set_ylabel("queued jobs"); a2.set_xlabel("time (h)")
a1.set_title("GPU utilisation and queue length over time (first run of each policy)")
a1.legend(); a1.grid(alpha=0.3); a2.grid(alpha=0.3)
save(fig, "utilisation_queue")
'''

GANTT = r'''
def gpu_ids(text):
    ids = []
    for part in str(text).split():
        lo, _, hi = part.partition("-")
        ids += range(int(lo), int(hi or lo) + 1)
    return ids

small = [r for _, r in first.iterrows() if r.submitted <= GANTT_MAX_JOBS]
if not small:
    print(f"No Gantt chart: every run has more than {{GANTT_MAX_JOBS}} jobs.")
for run in small:
    jobs = load_jobs(run).dropna(subset=["starting_time", "finish_time", "allocated_resources"])
    fig, ax = plt.subplots(figsize=(10, 4))
    colors = plt.cm.tab20.colors
    for k, job in enumerate(jobs.itertuples()):
        for g in gpu_ids(job.allocated_resources):
            ax.broken_barh([(job.starting_time / 3600, (job.finish_time - job.starting_time) / 3600)],
                           (g - 0.4, 0.8), color=colors[k % len(colors)])
    ax.set_xlabel("time (h)"); ax.set_ylabel("GPU id")
    ax.set_title(f"GPU allocation, {{run.policy}} seed {{run.seed}} ({{len(jobs)}} jobs; last allocation of each job)")
    save(fig, f"gantt_{{run.policy}}_seed{{run.seed}}")
'''

FAIRNESS = r'''
jobs0 = load_jobs(ok.iloc[0]) if len(ok) else pd.DataFrame()
if "ftf_rho" in jobs0.columns:
    fig, ax = plt.subplots(figsize=(7, 4))
    for policy, runs in ok.groupby("policy", sort=True):
        x = np.sort(pd.concat([load_jobs(r)["ftf_rho"].dropna() for _, r in runs.iterrows()]).to_numpy())
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=policy)
    ax.set_xlabel("finish-time fairness rho"); ax.set_ylabel("fraction of jobs"); ax.legend(); ax.grid(alpha=0.3)
    save(fig, "ftf_rho_cdf")
else:
    print("No finish-time-fairness plot: rho = JCT / JCT with a 1/N share of the cluster needs each job's "
          "isolated-share running time, which jobs.csv does not record (no 'ftf_rho' column).")
extra = [c for c in ["cost", "energy_j", "consumed_energy"] if c in jobs0.columns]
print("Cost/energy columns: " + (", ".join(extra) if extra else "none in jobs.csv, so no cost or energy plot."))
'''


def build(results_rel):
    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    nb.cells = [
        md("# vnsim sweep report\nGenerated by `vnsim report` from `results.csv` and each run's `jobs.csv` "
           "(docs/EXPERIMENTS.md, docs/OUTPUTS.md)."),
        code(SETUP.format(results=results_rel)),
        md("## Results table\nOne row per run; failed runs keep their error."), code(TABLE),
        md("## JCT CDF per policy"), code(JCT_CDF.format()),
        md("## Mean and p99 JCT against each varying axis"), code(JCT_BY_AXIS.format()),
        md("## GPU utilisation and queue length over time"), code(TIMELINE.format()),
        md("## Gantt chart of GPU allocation (runs with at most 200 jobs)"), code(GANTT.format()),
        md("## Finish-time fairness, cost and energy"), code(FAIRNESS.format()),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results_dir")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    results = os.path.abspath(a.results_dir)
    out = os.path.abspath(a.out)
    if not os.path.isfile(os.path.join(results, "results.csv")):
        sys.stderr.write(f"make_report.py: {results}: no results.csv\n")
        return MISSING_EXIT
    os.makedirs(out, exist_ok=True)
    nb = build(os.path.relpath(results, out))
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # quiets ipykernel debugger noise
    try:
        ExecutePreprocessor(timeout=600, kernel_name="python3").preprocess(nb, {"metadata": {"path": out}})
    except Exception as e:  # the cell error is in the message; keep the partial notebook for debugging
        nbformat.write(nb, os.path.join(out, "report.ipynb"))
        sys.stderr.write(f"make_report.py: notebook failed: {e}\n")
        return 1
    nbformat.write(nb, os.path.join(out, "report.ipynb"))
    html, _ = HTMLExporter().from_notebook_node(nb)
    with open(os.path.join(out, "report.html"), "w", encoding="utf-8") as f:
        f.write(html)
    pngs = sorted(f for f in os.listdir(out) if f.endswith(".png"))
    print(f"report: {out}/report.ipynb, report.html, {len(pngs)} PNGs ({', '.join(pngs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
