#!/usr/bin/python3
"""Builds, executes and exports the notebook of one vnsim sweep.

Usage: make_report.py RESULTS_DIR --out DIR   (called by `vnsim report`)

Writes DIR/report.ipynb (executed), DIR/report.html and DIR/*.png. The
notebook reads RESULTS_DIR/results.csv and each run's jobs.csv through a path
relative to DIR, so a committed sweep folder stays self-contained.
"""
import argparse
import csv
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
    sys.stderr.write(f"make_report.py: missing Python module ({e}); run scripts/setup\n")
    sys.exit(MISSING_EXIT)

SETUP = r'''
import os, glob, json, re
import numpy as np
import pandas as pd
import matplotlib
import matplotlib.pyplot as plt

RESULTS = {results!r}
GANTT_MAX_JOBS = 200
# A CDF's curves end at the top right, so its lower right is free; matplotlib's
# "best" searches every plotted point, which on a whole trace's jobs is slow
# enough to print a warning into the report.
CDF_LEGEND = "lower right"
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
# One panel per cluster or trace when those vary (at most 4 values), so loads and clusters are not pooled.
panel_axis = next((a for a in ["cluster", "trace"] if a in AXES and ok[a].nunique() <= 4), None)
panels = sorted(ok[panel_axis].unique(), key=str) if panel_axis else [None]
fig, axs = plt.subplots(1, len(panels), figsize=(7 if len(panels) == 1 else 5 * len(panels), 4), sharey=True,
                        squeeze=False)
for ax, value in zip(axs[0], panels):
    subset = ok if value is None else ok[ok[panel_axis] == value]
    for policy, runs in subset.groupby("policy", sort=True):
        jct = pd.concat([load_jobs(r)["turnaround_time"].dropna() for _, r in runs.iterrows()])
        x = np.sort(jct.to_numpy())
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=f"{{policy}} ({{len(runs)}} runs, {{len(x)}} jobs)")
    ax.set_xscale("log"); ax.set_xlabel("JCT (s, log scale)"); ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc=CDF_LEGEND)
    ax.set_title("JCT CDF per policy" + (f"\n{{panel_axis}}: {{value}}" if value is not None else " (runs pooled)"),
                 fontsize=9)
axs[0][0].set_ylabel("fraction of completed jobs")
save(fig, "jct_cdf")
'''

JCT_BY_AXIS = r'''
def spread(frame, index, metric):
    """Mean and range across seeds: each seed's value (averaged over the axes not in `index`), then the mean,
    min and max of those per-seed values."""
    per_seed = frame.groupby(index + ["seed"])[metric].mean()
    return per_seed.groupby(level=list(range(len(index)))).agg(["mean", "min", "max"])

def plot_spread(a, stats, axis, kind):
    """stats: (axis value, policy) -> mean/min/max. One line (or bar group) per policy, error bars = range."""
    values = list(dict.fromkeys(v for v, _ in stats.index))
    policies = sorted(set(p for _, p in stats.index))
    width = 0.8 / max(1, len(policies))
    for k, policy in enumerate(policies):
        rows = [stats.loc[(v, policy)] if (v, policy) in stats.index else None for v in values]
        xs = np.arange(len(values)) + (k - (len(policies) - 1) / 2) * (width if kind == "bar" else 0.03)
        mean = np.array([r["mean"] if r is not None else np.nan for r in rows])
        # Clipped at 0: with equal seeds the mean can round a hair past min or max.
        lo = np.clip(np.array([r["mean"] - r["min"] if r is not None else np.nan for r in rows]), 0, None)
        hi = np.clip(np.array([r["max"] - r["mean"] if r is not None else np.nan for r in rows]), 0, None)
        if kind == "bar":
            a.bar(xs, mean, width, yerr=[lo, hi], capsize=3, label=policy)
        else:
            a.errorbar(xs, mean, yerr=[lo, hi], marker="o", capsize=3, label=policy)
    a.set_xticks(np.arange(len(values)))
    a.set_xticklabels([str(v) for v in values], rotation=20 if len(values) > 2 else 0, fontsize=7)
    a.set_xlabel(axis); a.legend(fontsize=7)

SEEDS = ok.seed.nunique()
for axis in AXES or ["policy"]:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for metric, a in zip(["jct_mean_s", "jct_p99_s"], axes):
        if axis == "seed":  # each seed on its own: the spread the other plots summarise
            table = ok.pivot_table(index=axis, columns="policy", values=metric, aggfunc="mean")
            table.plot(ax=a, marker="o", kind="line" if len(table) > 1 else "bar")
            a.set_title(f"{{metric}} by seed (mean over other axes)", fontsize=9)
        elif axis == "policy":
            stats = spread(ok.assign(all="all runs"), ["all", "policy"], metric)
            plot_spread(a, stats, "policy", "bar")
            a.set_title(f"{{metric}}: mean, bars = range over {{SEEDS}} seed(s)", fontsize=9)
        else:
            stats = spread(ok, [axis, "policy"], metric)
            plot_spread(a, stats, axis, "line")
            a.set_title(f"{{metric}} by {{axis}}: mean, bars = range over {{SEEDS}} seed(s)", fontsize=9)
        a.set_ylabel(metric.replace("_s", " (s)")); a.grid(alpha=0.3)
    save(fig, f"jct_by_{{axis}}")
display(spread(ok, ["trace", "policy"], "jct_mean_s").rename(columns=lambda c: f"jct_mean_s {{c}} over seeds"))
'''

WAIT_CDF = r'''
# Waiting time (first start - submission) of completed jobs, pooled over seeds; one panel per trace or cluster.
def cdf(ax, values, label):
    x = np.sort(np.asarray(values, dtype=float))
    if len(x):
        ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=label)

fig, axs = plt.subplots(1, len(panels), figsize=(7 if len(panels) == 1 else 5 * len(panels), 4), sharey=True,
                        squeeze=False)
for ax, value in zip(axs[0], panels):
    subset = ok if value is None else ok[ok[panel_axis] == value]
    for policy, runs in subset.groupby("policy", sort=True):
        w = pd.concat([load_jobs(r).query("final_state == 'COMPLETED'")["waiting_time"] for _, r in runs.iterrows()])
        cdf(ax, w, f"{{policy}} (mean {{w.mean():,.0f}} s, {{(w > 0).mean():.0%}} wait)")
    ax.set_xscale("symlog", linthresh=1); ax.set_xlabel("waiting time (s, log scale above 1 s)")
    ax.grid(alpha=0.3); ax.legend(fontsize=7, loc=CDF_LEGEND)
    ax.set_title("Wait-time CDF per policy" + (f"\n{{panel_axis}}: {{value}}" if value is not None else ""),
                 fontsize=9)
axs[0][0].set_ylabel("fraction of completed jobs")
save(fig, "wait_cdf")

# Per VC (jobs.csv `vc`): the heaviest trace axis value (last panel), each policy in its own panel, the 8 VCs
# with the most jobs.
last = ok if panels[-1] is None else ok[ok[panel_axis] == panels[-1]]
jobs_by_policy = {{p: pd.concat([load_jobs(r) for _, r in runs.iterrows()]) for p, runs in last.groupby("policy")}}
if any("vc" in j.columns and j.vc.notna().any() for j in jobs_by_policy.values()):
    n = len(jobs_by_policy)
    cols = min(n, 4)
    fig, axs = plt.subplots((n + cols - 1) // cols, cols, figsize=(4.2 * cols, 3.4 * ((n + cols - 1) // cols)),
                            sharey=True, squeeze=False)
    for ax, (policy, jobs) in zip(axs.flat, sorted(jobs_by_policy.items())):
        done = jobs[jobs.final_state == "COMPLETED"].assign(vc=lambda d: d.vc.fillna("-"))
        for vc in done.vc.value_counts().index[:8]:
            w = done[done.vc == vc].waiting_time
            cdf(ax, w, f"{{vc}} ({{len(w)}} jobs, mean {{w.mean():,.0f}} s)")
        ax.set_xscale("symlog", linthresh=1); ax.grid(alpha=0.3); ax.legend(fontsize=6, loc=CDF_LEGEND)
        ax.set_title(f"{{policy}}" + (f", {{panels[-1]}}" if panels[-1] is not None else ""), fontsize=8)
        ax.set_xlabel("waiting time (s)")
    for ax in list(axs.flat)[n:]:
        ax.axis("off")
    fig.suptitle("Wait-time CDF per VC (8 VCs with the most jobs; seeds pooled)", fontsize=10)
    save(fig, "wait_cdf_by_vc")
else:
    print("No per-VC wait plot: the jobs have no VC (jobs.csv `vc` is empty).")
'''

TIMELINE = r'''
def timeline(jobs):
    """Busy GPUs and queued jobs over time. A job counts as running from its first start to its finish
    with its mean allocation, gpu_seconds / (finish - first start): its requested GPUs for a rigid job
    that was never preempted, what it really held on average for elastic and preempted jobs."""
    started = jobs.dropna(subset=["starting_time", "finish_time"])
    span = started.finish_time - started.starting_time
    gpus = np.where(span > 0, started.gpu_seconds / span.where(span > 0, 1), started.requested_number_of_resources)
    events = [(t, g, 0) for t, g in zip(started.starting_time, gpus)]
    events += [(t, -g, 0) for t, g in zip(started.finish_time, gpus)]
    events += [(t, 0, 1) for t in jobs.submission_time]
    events += [(t, 0, -1) for t in jobs.starting_time.dropna()]
    ev = pd.DataFrame(events, columns=["t", "gpus", "queue"]).groupby("t").sum().sort_index().cumsum()
    return ev.index.to_numpy(), ev.gpus.to_numpy(), ev.queue.to_numpy()

first = ok.sort_values(["policy", "run_index"]).groupby("policy", sort=True).head(1)
fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
last_start = 0.0
for _, run in first.iterrows():
    jobs = load_jobs(run)
    last_start = max(last_start, jobs.starting_time.max())
    t, busy, queue = timeline(jobs)
    total = load_summary(run)["run"]["total_gpus"]
    label = f"{{run.policy}} (seed {{run.seed}}, {{run.trace}})"
    a1.step(t / 3600, busy / total, where="post", label=label)
    a2.step(t / 3600, queue, where="post", label=label)
a1.set_ylabel("GPU utilisation"); a2.set_ylabel("queued jobs"); a2.set_xlabel("time (h)")
# Until the last job starts: afterwards the queue is empty and only long jobs run out.
if last_start > 0:
    a2.set_xlim(0, last_start * 1.05 / 3600)
a1.set_title("GPU utilisation and queue length over time, until the last start (first run of each policy)")
# A fixed place: "best" searches every step of every run (slow on a whole trace, and a warning in the report).
a1.legend(fontsize=7, loc="upper right"); a1.grid(alpha=0.3); a2.grid(alpha=0.3)
save(fig, "utilisation_queue")
'''

ALLOCATIONS = r'''
TOP_JOBS = 3  # the jobs with the most GPU-seconds get their own band: large long jobs decide who waits

def held_gpus(text):
    n = 0
    for part in str(text).split():
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n

def allocation_path(run):
    return os.path.join(RESULTS, run["run_dir"], "allocations.csv")

order = ok.sort_values("run_index")
traces = list(dict.fromkeys(order.trace))[:4]
policies = list(dict.fromkeys(order.policy))[:6]
firsts = order.groupby(["policy", "trace"], sort=False).head(1)
firsts = firsts[firsts.trace.isin(traces) & firsts.policy.isin(policies)]
firsts = firsts[[os.path.exists(allocation_path(r)) for _, r in firsts.iterrows()]]
if firsts.empty:
    print("No allocation timeline: no run folder has allocations.csv.")
else:
    palette, colour_of = plt.cm.tab10.colors, {{}}  # one colour per job across panels
    fig, axs = plt.subplots(len(policies), len(traces), figsize=(3.8 * len(traces) + 1, 2.5 * len(policies) + 0.5),
                            squeeze=False, sharex="col", sharey=True)
    for i, policy in enumerate(policies):
        for j, trace in enumerate(traces):
            ax = axs[i][j]
            sel = firsts[(firsts.policy == policy) & (firsts.trace == trace)]
            if sel.empty:
                ax.axis("off")
                continue
            run = sel.iloc[0]
            a = pd.read_csv(allocation_path(run), keep_default_na=False, na_values=[""])
            sign = np.where(a.event == "take", 1.0, -1.0)
            a["held"] = [held_gpus(x) for x in a.allocated_resources] * a.gpu_milli / 1000 * sign
            jobs = load_jobs(run)
            top = jobs.nlargest(TOP_JOBS, "gpu_seconds")
            times = np.sort(a.time.unique())
            bands, labels, colours = [], [], []
            for _, job in top.iterrows():
                colours.append(colour_of.setdefault(job.job_id, palette[len(colour_of) % len(palette)]))
                held = a[a.job_id == job.job_id].groupby("time").held.sum().reindex(times, fill_value=0).cumsum()
                bands.append(held.to_numpy())
                labels.append(f"{{job.job_id}} ({{job.requested_number_of_resources:.0f}} GPUs, wait {{job.waiting_time:,.0f}} s)")
            rest = a[~a.job_id.isin(top.job_id)].groupby("time").held.sum().reindex(times, fill_value=0).cumsum()
            bands.append(rest.to_numpy())
            labels.append("all other jobs")
            colours.append("silver")
            ax.stackplot(times / 3600, *bands, labels=labels, colors=colours, step="post", alpha=0.85)
            t, _, queue = timeline(jobs)
            q = ax.twinx()
            q.step(t / 3600, queue, where="post", color="black", lw=0.8)
            q.set_ylim(bottom=0)
            q.tick_params(labelsize=7)
            if j == len(traces) - 1:
                q.set_ylabel("queued jobs (line)", fontsize=7)
            ax.set_title(f"{{policy}}, {{trace}}: mean JCT {{run.jct_mean_s:,.0f}} s", fontsize=8)
            ax.legend(fontsize=5.5, loc="upper right")
            ax.tick_params(labelsize=7)
            if j == 0:
                ax.set_ylabel("GPUs held", fontsize=8)
            if i == len(policies) - 1:
                ax.set_xlabel("time (h)", fontsize=8)
    fig.suptitle("GPUs held over time from allocations.csv (bands: the " + str(TOP_JOBS) + " jobs with the most "
                 "GPU-seconds, then the rest) and queue length (line); first run of each policy and trace", fontsize=9)
    save(fig, "allocation_timeline")
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
    save(fig, re.sub(r"[^A-Za-z0-9._-]+", "_", f"gantt_{{run.policy}}_seed{{run.seed}}"))
'''

LOAD = r'''
def load_of(options):
    # The load factor of a trace axis value: its load-scale, else its arrival-scale, else 1.
    opts = dict(kv.split("=", 1) for kv in str(options).split() if "=" in kv) if isinstance(options, str) else {{}}
    for key in ["load-scale", "arrival-scale"]:
        if key in opts:
            return key, float(opts[key])
    return None, 1.0

loads = ok.assign(load_key=[load_of(o)[0] for o in ok.trace_options], load=[load_of(o)[1] for o in ok.trace_options])
keys = set(loads.load_key.dropna())
if "trace" in AXES and keys and loads.load.nunique() > 1:
    key = " / ".join(sorted(keys))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for metric, a in zip(["jct_mean_s", "jct_p99_s"], axes):
        stats = spread(loads, ["load", "policy"], metric)
        for policy in sorted(set(p for _, p in stats.index)):
            st = stats.xs(policy, level="policy").sort_index()
            a.errorbar(st.index, st["mean"], yerr=[np.clip(st["mean"] - st["min"], 0, None), np.clip(st["max"] - st["mean"], 0, None)], marker="o",
                       capsize=3, label=policy)
        a.set_xlabel(f"load ({{key}})"); a.set_ylabel(metric.replace("_s", " (s)")); a.set_yscale("log")
        a.set_title(f"{{metric}} against load: mean, bars = range over {{SEEDS}} seed(s)", fontsize=9)
        a.grid(alpha=0.3); a.legend(fontsize=7)
    save(fig, "jct_vs_load")
else:
    print("No load axis: the traces do not differ by a load-scale or arrival-scale option.")
'''

FAIRNESS = r'''
def ftf_rho_estimate(jobs, total_gpus):
    # Themis's finish-time fairness rho = T_shared / T_alone (Mahajan et al., NSDI'20), from jobs.csv:
    # T_shared = JCT; T_alone = the job's run time on an equal 1/N share of the cluster, where
    # N = the mean number of jobs in the system (submitted, not finished) during the job's life and
    # its run time at the requested size is gpu_seconds / requested GPUs (held GPU time; linear scaling
    # when the share is smaller than the request). An estimate: interference and elastic speed-ups
    # are folded into gpu_seconds.
    done = jobs[(jobs.final_state == "COMPLETED") & (jobs.gpu_seconds > 0)]
    if done.empty:
        return pd.Series(dtype=float)
    t = np.concatenate([done.submission_time.to_numpy(), done.finish_time.to_numpy()])
    d = np.concatenate([np.ones(len(done)), -np.ones(len(done))])
    order = np.argsort(t, kind="stable")
    t, n = t[order], np.cumsum(d[order])          # n[i]: jobs in the system just after event i
    area = np.concatenate([[0.0], np.cumsum(n[:-1] * np.diff(t))])   # integral of n up to t[i]
    s, f = done.submission_time.to_numpy(), done.finish_time.to_numpy()
    life = f - s
    mean_n = np.where(life > 0, (np.interp(f, t, area) - np.interp(s, t, area)) / np.where(life > 0, life, 1), 1.0)
    share = total_gpus / np.maximum(mean_n, 1.0)
    gpus = done.requested_number_of_resources.to_numpy()
    alone = done.gpu_seconds.to_numpy() / gpus * np.maximum(1.0, gpus / share)
    return pd.Series(done.turnaround_time.to_numpy() / alone)

jobs0 = load_jobs(ok.iloc[0]) if len(ok) else pd.DataFrame()
if len(ok) and ("ftf_rho" in jobs0.columns or "gpu_seconds" in jobs0.columns):
    measured = "ftf_rho" in jobs0.columns
    fig, ax = plt.subplots(figsize=(7, 4))
    for policy, runs in ok.groupby("policy", sort=True):
        parts = []
        for _, r in runs.iterrows():
            jobs = load_jobs(r)
            parts.append(jobs["ftf_rho"].dropna() if measured else ftf_rho_estimate(jobs, load_summary(r)["run"]["total_gpus"]))
        x = np.sort(pd.concat(parts).to_numpy())
        if len(x):
            ax.plot(x, np.arange(1, len(x) + 1) / len(x),
                    label=f"{{policy}} (median {{np.median(x):.2f}}, p99 {{np.percentile(x, 99):.1f}}, max {{x[-1]:.1f}})")
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log"); ax.set_xlabel("finish-time fairness rho (log scale; <= 1 is fair)")
    ax.set_ylabel("fraction of completed jobs"); ax.legend(fontsize=8, loc=CDF_LEGEND); ax.grid(alpha=0.3)
    ax.set_title("Finish-time fairness rho CDF" + ("" if measured else " (estimated from jobs.csv, see text)"))
    save(fig, "ftf_rho_cdf")
else:
    print("No finish-time-fairness plot: jobs.csv has neither 'ftf_rho' nor 'gpu_seconds'.")
'''

COST = r'''
def cost_energy(run):
    s = load_summary(run)
    return (s.get("cost_usd") or {{}}).get("total"), (s.get("energy_j") or {{}}).get("total")

rows = [(r.policy, r[AXES[0]] if AXES else "all runs", *cost_energy(r)) for _, r in ok.iterrows()]
ce = pd.DataFrame(rows, columns=["policy", "axis", "cost_usd", "energy_kwh"])
ce["energy_kwh"] = ce.energy_kwh / 3.6e6
if ce[["cost_usd", "energy_kwh"]].notna().any().any() and (ce[["cost_usd", "energy_kwh"]].fillna(0) > 0).any().any():
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for metric, label, a in zip(["cost_usd", "energy_kwh"], ["GPU cost ($)", "GPU energy (kWh)"], axes):
        table = ce.pivot_table(index="axis", columns="policy", values=metric, aggfunc="mean")
        table.plot(ax=a, kind="bar", rot=0 if len(table) < 4 else 30)
        a.set_xlabel(AXES[0] if AXES else ""); a.set_ylabel(label); a.grid(alpha=0.3, axis="y")
        a.set_title(f"{{label}} per run (summary.json; mean over other axes)", fontsize=9)
        a.legend(fontsize=7)
    save(fig, "cost_energy")
    display(ce.groupby("policy")[["cost_usd", "energy_kwh"]].mean())
else:
    print("No cost or energy plot: summary.json has no cost_usd / energy_j totals above 0.")
'''


def build(results_rel, any_ok, notes):
    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    nb.cells = [
        md("# vnsim sweep report\nGenerated by `vnsim report` from `results.csv` and each run's `jobs.csv` "
           "(docs/EXPERIMENTS.md, docs/OUTPUTS.md)."),
        code(SETUP.format(results=results_rel)),
        md("## Results table\nOne row per run; failed runs keep their error."), code(TABLE),
    ]
    if notes:  # the config's "notes": what this experiment's results mean
        nb.cells.insert(1, md("## About this experiment\n" + "\n".join(notes)))
    if not any_ok:  # every plot below reads the jobs.csv of ok runs
        nb.cells.append(md("No run has status `ok`, so there is nothing to plot; see the `error` column."))
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        return nb
    nb.cells += [
        md("## JCT CDF per policy"), code(JCT_CDF.format()),
        md("## Mean and p99 JCT against each varying axis\nWith several seeds, each point is the mean over "
           "seeds of the per-seed value and the error bar spans the smallest to the largest per-seed value."),
        code(JCT_BY_AXIS.format()),
        md("## Waiting-time CDF per policy and per VC\nWaiting time = first start − submission (jobs.csv "
           "`waiting_time`) of completed jobs, every seed pooled. The per-VC panels use the VC of each job "
           "(jobs.csv `vc`)."), code(WAIT_CDF.format()),
        md("## GPU utilisation and queue length over time"), code(TIMELINE.format()),
        md("## Allocation timeline: who holds the GPUs\nExact GPUs held over time, replayed from each run's "
           "`allocations.csv` (docs/OUTPUTS.md): one band for each of the jobs with the most GPU-seconds, one "
           "for all the others, and the number of queued jobs. A large, long job that starts before a burst of "
           "arrivals holds its GPUs through it; one that waits until the burst has drained does not."),
        code(ALLOCATIONS.format()),
        md("## Mean and p99 JCT against load\nWhen the traces differ by their `load-scale` (or `arrival-scale`) "
           "option, the factor is the x axis."), code(LOAD.format()),
        md("## Gantt chart of GPU allocation (runs with at most 200 jobs)"), code(GANTT.format()),
        md("## Finish-time fairness\nρ = T_shared / T_alone (Themis): the JCT over the run time the job would "
           "have on an equal 1/N share of the cluster, N = mean number of jobs in the system during its life. "
           "When jobs.csv has no `ftf_rho` column, T_alone is estimated from the job's `gpu_seconds` "
           "(its run time at the requested size = gpu_seconds / requested GPUs, scaled linearly when the share "
           "is smaller than the request). ρ ≤ 1 means the job did at least as well as on its fair share."),
        code(FAIRNESS.format()),
        md("## Cost and energy\nTotals of each run's summary.json (`cost_usd.total`, `energy_j.total` = busy + "
           "idle GPU energy)."), code(COST.format()),
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
    with open(os.path.join(results, "results.csv"), newline="", encoding="utf-8") as f:
        any_ok = any(row.get("status") == "ok" for row in csv.DictReader(f))
    notes = []
    config = os.path.join(results, "config.json")
    if os.path.isfile(config):  # the sweep's copy of its config
        with open(config, encoding="utf-8") as f:
            notes = json.load(f).get("notes", [])
    nb = build(os.path.relpath(results, out), any_ok, notes)
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
