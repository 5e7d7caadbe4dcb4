#!/usr/bin/python3
"""Repeats calibration -> run -> validate N times and reports each error with its spread.

Usage (from the repository root, after building vnexec and vnsim):

  scripts/validate_repeat.py --trace TRACE.jsonl --policies fifo,tiresias,vf-wfs,pollux \
      --out DIR [--repeat 5] [--build build] [--workers 2] [--time-scale 1] \
      [--models cifar10,ncf,imagenet] [--calibrate-repetitions 15] [--pin] \
      [--backend cpu|cuda] [--gradient-fraction F] [--compute-scale FLOPS] [--realtime PRIO] \
      [--policy-param POLICY:key=value]... [--load-threshold L] [--runs-only | --revalidate]

Each repetition r writes DIR/rep<r>/{cal,runs/<policy>,validation.json}: it
calibrates the testbed (`vnexec calibrate`), runs the trace under every
policy with the calibrated cluster spec, model profile and gradient noise
(`vnexec run --noise`), and validates all runs together (`vnsim validate`,
which also ranks the policies). While each calibration and run executes, the
1-minute load average (/proc/loadavg) is sampled every second; a run whose
highest sample exceeds --load-threshold (default: workers + 2, the run's own
ranks and one more runnable task) is flagged as loaded.

Each repetition validates twice: with the all-reduce predicted from each
run's own transport probe (vnexec run's transport.json, the default of
`vnsim validate`; validation.json) and from the calibration's links
(`--calibrated-links`; validation_calibrated_links.json).

DIR/repeat_summary.json then holds, per policy and metric, the median and
range over the repetitions, over all of them and over the unloaded ones
only, and every repetition's values with their load. Metrics: iteration-time
MAPE (per step and per segment), all-reduce MAPE (per step, per segment, the
steps' noise floor, and per step from the calibration's links), mean JCT
error (|predicted - measured| / measured),
per-job JCT error p90, and Kendall's tau-b of the policy ranking. A table is
printed (docs/VALIDATION.md, "Errors with their spread").

--runs-only calibrates and runs every repetition but validates none, so
that only vnexec is needed: for a testbed without the simulator (a GPU
machine given a bundle of vnexec and Open MPI, scripts/bundle_runtime).
repeat_summary.json then holds the settings and each repetition's loads;
copy DIR to a machine with vnsim and run --revalidate there.

--revalidate runs nothing new: it validates the repetitions already in DIR
again with the current `vnsim validate` (both ways) and rewrites
repeat_summary.json, keeping each repetition's recorded loads. It needs the
runs' step logs (measurements.jsonl).

--pin binds worker rank r (r >= 1) to CPU core r-1 with taskset; the
controller (rank 0) is left unbound. It needs at least as many cores as
workers: with 2 workers on a 2-core machine every worker has a core of its
own and nothing is oversubscribed except the mostly sleeping controller.

--realtime PRIO (default 10; 0 turns it off) gives `vnexec calibrate` and
`vnexec run` their --realtime PRIO: the workers run under SCHED_RR, the
controller one priority above, so that other work on a shared machine does
not deschedule them inside a step (docs/VALIDATION.md, "Honest on a shared
machine"). Use it with --pin. Where SCHED_RR is not permitted (no root or
CAP_SYS_NICE), the script says so once and measures at normal priority;
repeat_summary.json records the priority each repetition's calibration
actually ran at. While they run, real-time workers leave everything else on
their cores the kernel's throttling share only (5% by default).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

METRICS = [
    ("iteration_mape", "iteration-time MAPE"),
    ("iteration_segment_mape", "iteration-time MAPE per segment"),
    ("allreduce_mape", "all-reduce MAPE"),
    ("allreduce_segment_mape", "all-reduce MAPE per segment"),
    ("allreduce_noise_floor", "all-reduce step noise floor"),
    ("allreduce_mape_calibrated", "all-reduce MAPE from the calibration's links"),
    ("mean_jct_error", "mean JCT error"),
    ("jct_p90", "per-job JCT error p90"),
]


def fail(message):
    sys.stderr.write(f"validate_repeat.py: {message}\n")
    sys.exit(2)


class LoadSampler:
    """Samples the 1-minute load average every second while it runs."""

    def __init__(self):
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self._stop.is_set():
            with open("/proc/loadavg", encoding="ascii") as f:
                self.samples.append(float(f.read().split()[0]))
            self._stop.wait(1.0)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def summary(self):
        if not self.samples:
            return {"mean": None, "max": None}
        return {"mean": statistics.fmean(self.samples), "max": max(self.samples)}


def mpirun(args, ranks, vnexec, pin):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)]
    if pin:
        # Worker rank r on core r-1; the controller (rank 0) unbound.
        wrapper = ('r=$OMPI_COMM_WORLD_RANK; if [ "$r" -gt 0 ]; then exec taskset -c $((r-1)) "$@"; '
                   'else exec "$@"; fi')
        cmd += ["--bind-to", "none", "bash", "-c", wrapper, "_"]
    return cmd + [vnexec] + args


def run_logged(cmd, log_path):
    with LoadSampler() as sampler, open(log_path, "w", encoding="utf-8") as log:
        code = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    if code != 0:
        fail(f"{' '.join(cmd)} exited {code}; see {log_path}")
    return sampler.summary()


def spread(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def one_repetition(a, rep_dir, policy_params):
    vnexec = os.path.join(a.build, "vnexec")
    ranks = a.workers + 1
    cal = os.path.join(rep_dir, "cal")
    # The same backend and emulation scale for calibration and runs (vnexec's defaults when not given).
    scale = ["--backend", a.backend]
    if a.gradient_fraction is not None:
        scale += ["--gradient-fraction", str(a.gradient_fraction)]
    if a.compute_scale is not None:
        scale += ["--compute-scale", str(a.compute_scale)]
    if a.realtime > 0:
        scale += ["--realtime", str(a.realtime)]
    loads = {}
    loads["calibrate"] = run_logged(
        mpirun(["calibrate", "--models", a.models, "--repetitions", str(a.calibrate_repetitions), "--out", cal]
               + scale, ranks, vnexec, a.pin), os.path.join(rep_dir, "calibrate.log"))
    with open(os.path.join(cal, "calibration.json"), encoding="utf-8") as f:
        realtime_priority = json.load(f).get("realtime_priority", 0)
    for policy in a.policies:
        run = os.path.join(rep_dir, "runs", policy)
        args = ["run", "--trace", a.trace, "--cluster", os.path.join(cal, "cluster.json"),
                "--profile", os.path.join(cal, "models.json"), "--noise", os.path.join(cal, "noise.json"),
                "--policy", policy, "--time-scale", str(a.time_scale), "--out", run] + scale
        for kv in policy_params.get(policy, []):
            args += ["--policy-param", kv]
        loads[policy] = run_logged(mpirun(args, ranks, vnexec, a.pin), os.path.join(rep_dir, f"run_{policy}.log"))
        shutil.rmtree(os.path.join(run, "checkpoints"), ignore_errors=True)
    rep = {"policies": {}, "kendall_tau_b": None} if a.runs_only else validate_repetition(a, rep_dir)
    rep.update({"loads": loads, "realtime_priority": realtime_priority})
    return rep


def validate_repetition(a, rep_dir):
    """Validates a repetition's runs both ways; its per-policy errors and ranking."""
    vnsim = os.path.join(a.build, "vnsim")
    # The default prediction (the all-reduce from each run's own transport
    # probe), and the same with the calibration's links, for comparison.
    summaries = {}
    for name, extra in (("validation", []), ("validation_calibrated_links", ["--calibrated-links"])):
        out = os.path.join(rep_dir, f"{name}.json")
        cmd = [vnsim, "validate", "--run", os.path.join(rep_dir, "runs"), "--out", out] + extra
        with open(os.path.join(rep_dir, f"{name}.log"), "w", encoding="utf-8") as log:
            if subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT) != 0:
                fail(f"{' '.join(cmd)} failed; see {rep_dir}/{name}.log")
        with open(out, encoding="utf-8") as f:
            summaries[name] = json.load(f)
    summary = summaries["validation"]
    calibrated = {r["policy"]: r for r in summaries["validation_calibrated_links"]["runs"]}
    per_policy = {}
    for r in summary["runs"]:
        measured = r["measured_mean_jct_s"]
        allreduces = r["allreduce_time"]["count"] > 0
        segments = {key: r[key].get("segments", {}) for key in ("iteration_time", "allreduce_time")}
        per_policy[r["policy"]] = {
            "iteration_mape": r["iteration_time"]["mape"],
            "iteration_segment_mape": segments["iteration_time"].get("median_mape"),
            "allreduce_mape": r["allreduce_time"]["mape"] if allreduces else None,
            "allreduce_segment_mape": segments["allreduce_time"].get("median_mape") if allreduces else None,
            "allreduce_noise_floor": segments["allreduce_time"].get("noise_floor_mape") if allreduces else None,
            "allreduce_mape_calibrated": (calibrated[r["policy"]]["allreduce_time"]["mape"]
                                          if calibrated[r["policy"]]["allreduce_time"]["count"] else None),
            "transport": r.get("transport"),
            "mean_jct_error": abs(r["mean_jct_error"]) if measured else None,
            "jct_p90": r["jct"]["p90"],
            "measured_mean_jct_s": measured,
            "predicted_mean_jct_s": r["predicted_mean_jct_s"],
        }
    tau = summary.get("ranking", {}).get("kendall_tau_b")
    return {"policies": per_policy, "kendall_tau_b": tau}


def write_summary(out, summary):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "repeat_summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trace", required=True)
    p.add_argument("--policies", required=True, help="comma-separated, at least 2 for a ranking")
    p.add_argument("--out", required=True)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--build", default="build")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--time-scale", type=float, default=1.0)
    p.add_argument("--models", default="cifar10,ncf,imagenet")
    p.add_argument("--calibrate-repetitions", type=int, default=15)
    p.add_argument("--pin", action="store_true")
    p.add_argument("--backend", choices=["cpu", "cuda"], default="cpu",
                   help="vnexec's backend for calibration and runs (cuda: one worker per GPU)")
    p.add_argument("--gradient-fraction", type=float)
    p.add_argument("--compute-scale", type=float)
    p.add_argument("--policy-param", action="append", default=[], help="POLICY:key=value")
    p.add_argument("--realtime", type=int, default=10, help="SCHED_RR priority of the workers; 0: off")
    p.add_argument("--revalidate", action="store_true",
                   help="run nothing: validate the repetitions already in --out again (after a change to "
                        "vnsim validate) and rewrite repeat_summary.json, keeping their recorded loads")
    p.add_argument("--runs-only", action="store_true",
                   help="calibrate and run only (no vnsim needed); validate later with --revalidate")
    p.add_argument("--load-threshold", type=float, default=None,
                   help="a run is loaded when the 1-minute load average exceeded it (default: the run's own "
                        "ranks, workers + 1, plus 1)")
    a = p.parse_args()
    a.policies = [x for x in a.policies.split(",") if x]
    if len(a.policies) < 2:
        p.error("--policies: give two or more (each repetition ranks them)")
    if a.load_threshold is None:
        # The run's own ranks keep the load average near workers + 1 on an
        # otherwise idle machine; more than one runnable task beyond them is
        # other work competing for the cores.
        a.load_threshold = a.workers + 2.0
    if a.runs_only and a.revalidate:
        p.error("--runs-only and --revalidate exclude each other")
    if a.repeat < 1:
        fail("--repeat must be >= 1")
    if a.pin and a.workers > (os.cpu_count() or 1):
        fail(f"--pin: {a.workers} workers but {os.cpu_count()} cores")
    if not 0 <= a.realtime <= 98:
        fail("--realtime: expected a priority of 0-98")
    if a.realtime > 0:
        probe = subprocess.run(["chrt", "-r", str(a.realtime), "true"], capture_output=True, text=True)
        if probe.returncode != 0:
            reason = (probe.stderr.strip().splitlines() or ["chrt failed"])[-1]
            sys.stderr.write(f"validate_repeat.py: --realtime {a.realtime}: SCHED_RR is not permitted here "
                             f"({reason}); measuring at normal priority, so on a loaded machine the errors "
                             "include the workers' waits for a CPU\n")
            a.realtime = 0
        elif not a.pin:
            sys.stderr.write("validate_repeat.py: --realtime without --pin: real-time workers may share a core\n")
    policy_params = {}
    for item in a.policy_param:
        if ":" not in item or "=" not in item:
            fail(f"--policy-param: expected POLICY:key=value, got '{item}'")
        policy, kv = item.split(":", 1)
        policy_params.setdefault(policy, []).append(kv)
    # --runs-only needs only the executor, --revalidate only the simulator.
    tools = ["vnexec"] if a.runs_only else ["vnsim"] if a.revalidate else ["vnexec", "vnsim"]
    for tool in tools:
        if not os.path.exists(os.path.join(a.build, tool)):
            fail(f"{a.build}/{tool} not found (build it, or give --build)")

    recorded = []
    settings = dict(vars(a))
    if a.revalidate:
        path = os.path.join(a.out, "repeat_summary.json")
        if not os.path.exists(path):
            fail(f"--revalidate: {path} not found (no earlier repetitions to validate again)")
        with open(path, encoding="utf-8") as f:
            earlier = json.load(f)
        recorded = earlier["repetitions"]
        a.repeat = len(recorded)
        # The runs were made with the recorded settings (backend, scale,
        # workers, maybe on another machine); only the validation is new.
        settings = dict(earlier["settings"], revalidate=True, runs_only=False, build=a.build,
                        load_threshold=a.load_threshold)
    reps = []
    for r in range(1, a.repeat + 1):
        rep_dir = os.path.join(a.out, f"rep{r}")
        if a.revalidate:
            old = recorded[r - 1]
            rep = validate_repetition(a, rep_dir)
            rep.update({key: old[key] for key in ("loads", "realtime_priority", "wall_s")})
        else:
            if os.path.exists(rep_dir):
                shutil.rmtree(rep_dir)
            os.makedirs(rep_dir)
            started = time.time()
            rep = one_repetition(a, rep_dir, policy_params)
            rep["wall_s"] = time.time() - started
        for policy, values in rep["policies"].items():
            load = rep["loads"][policy]["max"]
            values["load_max"] = load
            values["load_mean"] = rep["loads"][policy]["mean"]
            values["loaded"] = load is not None and load > a.load_threshold
        rep["loaded"] = any(v["loaded"] for v in rep["policies"].values()) or (
            (rep["loads"]["calibrate"]["max"] or 0) > a.load_threshold)
        reps.append(rep)
        print(f"repetition {r}/{a.repeat}: {rep['wall_s']:.0f} s, loaded: {rep['loaded']}, "
              f"real-time priority: {rep['realtime_priority']}", flush=True)

    summary = {"settings": settings, "repetitions": reps, "policies": {}}
    # Real-time throttling: each core running real-time workers is stalled
    # for (period - runtime) of every period (50 ms of each second by
    # default), which a run's job completion times include.
    for knob in ("sched_rt_runtime_us", "sched_rt_period_us"):
        if a.revalidate and knob in settings:
            continue  # the machine the runs were made on, not this one
        try:
            with open(f"/proc/sys/kernel/{knob}", encoding="ascii") as f:
                summary["settings"][knob] = int(f.read().strip())
        except OSError:
            summary["settings"][knob] = None
    if a.runs_only:
        write_summary(a.out, summary)
        print(f"runs only: validate them with --revalidate --out {a.out} where vnsim is built")
        return
    for policy in a.policies:
        entry = {}
        for key, _ in METRICS:
            values = [rep["policies"][policy][key] for rep in reps]
            idle = [rep["policies"][policy][key] for rep in reps if not rep["policies"][policy]["loaded"]]
            entry[key] = {"all": spread(values), "unloaded": spread(idle)}
        summary["policies"][policy] = entry
    taus = [rep["kendall_tau_b"] for rep in reps]
    summary["kendall_tau_b"] = {"all": spread(taus),
                                "unloaded": spread([rep["kendall_tau_b"] for rep in reps if not rep["loaded"]])}
    write_summary(a.out, summary)

    def fmt(s, pct=True):
        if s is None:
            return "n/a"
        scale = 100 if pct else 1
        unit = "%" if pct else ""
        return (f"{s['median'] * scale:.2f}{unit} [{s['min'] * scale:.2f}-{s['max'] * scale:.2f}] "
                f"(n={s['n']})")

    print(f"median [range] over {a.repeat} repetitions (unloaded only in the second line of each policy):")
    for policy in a.policies:
        e = summary["policies"][policy]
        for which in ("all", "unloaded"):
            cells = "; ".join(f"{label} {fmt(e[key][which])}" for key, label in METRICS)
            print(f"  {policy:10s} {which:8s} {cells}")
    print(f"  Kendall tau-b: all {fmt(summary['kendall_tau_b']['all'], False)}, "
          f"unloaded {fmt(summary['kendall_tau_b']['unloaded'], False)}")
    print(f"output: {os.path.join(a.out, 'repeat_summary.json')}")


if __name__ == "__main__":
    main()
