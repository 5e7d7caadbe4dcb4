#!/usr/bin/env python3
"""Optimus+Oracle and Tiresias as the Pollux simulator runs them, in a small
tick model, to tell apart the causes of the cross-check gaps (docs/POLICIES.md,
"What the gaps come from"). It is not part of vnsim: it re-states the
simulator's rules (reference/algorithms.md sections 4.3 and 10.1) with one
choice of step times, so that a mean JCT can be compared with the same
workload under a different choice.

Rules (Pollux simulator): every 60 s the policy decides; jobs advance at
1 / step time of their placement; every new allocation, the first included,
costs 30 s before work resumes; jobs keep their fixed batch, with
accumulation steps ceil(ceil(B / K) / max_local) - 1 (at least 1 on one GPU
when B exceeds the smallest validated batch).
- optimus: every active job gets 1 GPU in submission order, then GPUs go one
  at a time to the largest (t(K) - t(K + 1)) x remaining steps, K + 1 <=
  B / min_local (ncf: 1 GPU); t(K) on K GPUs packed 4 per node. Jobs whose
  count is unchanged keep their GPUs; the rest are placed smallest first on
  the nodes with the most free GPUs.
- tiresias: queues 0 and 1, demotion at 57,600 GPU-seconds of service; each
  round walks queue 0 then queue 1 and runs every job whose GPUs still fit
  (the others are preempted); new allocations on the most-free nodes.

Step times: `profile` interpolates profiles/pollux/<model>/placements.csv in
the local batch for a measured placement, and otherwise linearly between the
two measured node counts around it at the same GPUs per node (placements.csv
means and scalability.csv); the simulator uses a 3-D linear interpolation
there, so those placements (5 or more nodes) are approximate. `vnsim` runs
every (model, batch, GPUs) of the workload alone through `vnsim replay`
(fifo, pollux-16x4, 50 and 550 iterations; the difference / 500), so its
times do not depend on the placement's shape.

Usage: scripts/pollux_oracle_sim.py SHARED JOBS.jsonl [VNSIM_BINARY WORK_DIR]
JOBS.jsonl as written by scripts/pollux_workload_accumulation.py or
scripts/pollux_simulator_steps.py. Prints the mean JCT of each policy with
each step-time source and, with VNSIM_BINARY, of Optimus choosing GPUs by
the profile times while its jobs run at vnsim's.
"""
import bisect
import collections
import csv
import itertools
import json
import math
import pathlib
import subprocess
import sys

from pollux_workload_accumulation import catalog, max_micro_batch

NODES, PER_NODE, TICK_S, RESCALE_S, TIRESIAS_THRESHOLD = 16, 4, 60.0, 30.0, 57600.0
MAX_LOCAL_OVERRIDE = {"yolov3": 8}


def interp_rows(rows, x):
    """rows: sorted (x, step, sync); linear in x, clamped at the ends."""
    xs = [r[0] for r in rows]
    i = bisect.bisect_left(xs, x)
    if i < len(rows) and xs[i] == x:
        return rows[i][1:]
    if i == 0:
        return rows[0][1:]
    if i == len(rows):
        return rows[-1][1:]
    lo, hi = rows[i - 1], rows[i]
    t = (x - lo[0]) / (hi[0] - lo[0])
    return tuple(a + t * (b - a) for a, b in zip(lo[1:], hi[1:]))


class Profile:
    def __init__(self, shared, model):
        folder = pathlib.Path(shared, "profiles/pollux", model)
        self.exact = collections.defaultdict(list)
        groups = collections.defaultdict(list)
        for r in csv.DictReader((folder / "placements.csv").open()):
            p, local = r["placement"], int(r["local_bsz"])
            row = (local, float(r["step_time"]), float(r["sync_time"]))
            self.exact[p].append(row)
            groups[len(p), sum(map(int, p)), local].append(row[1:])
        self.curves = collections.defaultdict(list)  # (nodes, replicas) -> rows
        for (n, k, local), v in groups.items():
            self.curves[n, k].append((local, *(sum(c) / len(v) for c in zip(*v))))
        for r in csv.DictReader((folder / "scalability.csv").open()):
            self.curves[int(r["num_nodes"]), int(r["num_replicas"])].append(
                (int(r["local_bsz"]), float(r["step_time"]), float(r["sync_time"])))
        for rows in (*self.exact.values(), *self.curves.values()):
            rows.sort()
        locals_ = [r[0] for rows in self.exact.values() for r in rows]
        self.min_local = min(locals_)
        self.max_local = MAX_LOCAL_OVERRIDE.get(model, max(locals_))
        batches = sorted(int(p.stem.split("-")[1]) for p in folder.glob("validation-*.csv"))
        self.init_batch, self.max_batch = batches[0], batches[-1]

    def _on_nodes(self, n, k, local):
        pts = sorted((kk, interp_rows(rows, local)) for (nn, kk), rows in self.curves.items() if nn == n)
        return interp_rows([(kk, *v) for kk, v in pts], k)

    def step_sync(self, placement, local):
        p = tuple(x for x in placement if x)
        p = min(p[i:] + p[:i] for i in range(len(p)))
        key = "".join(map(str, p))
        if key in self.exact:
            return interp_rows(self.exact[key], local)
        n, k = min(len(p), 16), sum(p)
        counts = sorted({nn for nn, _ in self.curves})
        j = bisect.bisect_left(counts, n)
        if j < len(counts) and counts[j] == n:
            return self._on_nodes(n, k, local)
        n1, n2 = counts[j - 1], counts[min(j, len(counts) - 1)]
        a, b = self._on_nodes(n1, k * n1 / n, local), self._on_nodes(n2, k * n2 / n, local)
        t = (n - n1) / (n2 - n1) if n2 != n1 else 0.0
        return tuple(x + t * (y - x) for x, y in zip(a, b))

    def iteration_s(self, placement, batch):
        k = sum(placement)
        local = math.ceil(batch / k - 1e-8)
        accum = math.ceil(local / self.max_local - 1e-8) - 1
        if k == 1 and batch > self.init_batch:
            accum = max(1, accum)
        micro = min(math.ceil(local / (accum + 1) - 1e-8), int(self.max_batch / (k * (accum + 1))))
        step, sync = self.step_sync(placement, micro)
        return step + (step - sync) * accum


def max_gpus(job, profile):
    return 1 if job["model"] == "ncf" else min(NODES * PER_NODE, job["global_batch"] // profile.min_local)


def measure_vnsim(vnsim, work, shared, jobs, profiles):
    """Iteration time of each (model, batch, GPUs) alone in vnsim."""
    models, memory = catalog("T4")
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    trace = work / "alone.jsonl"
    submit = 0.0
    with trace.open("w") as out:
        for model, batch in sorted({(j["model"], j["global_batch"]) for j in jobs}):
            fit = max_micro_batch(models[model], memory)
            for k in range(1, max_gpus({"model": model, "global_batch": batch}, profiles[model]) + 1):
                for its in (50, 550):
                    out.write(json.dumps({"id": f"{model}-{batch}-{k}-{its}", "submit_s": submit, "model": model,
                                          "gpus": k, "virtual_nodes": k * math.ceil(batch / k / fit),
                                          "global_batch": batch, "iterations": its}) + "\n")
                    submit += 2e5  # far apart: every job runs alone
    subprocess.run([vnsim, "replay", "--cluster", "pollux-16x4", "--trace", str(trace), "--format", "jsonl",
                    "--policy", "fifo", "--seed", "0", "--out", str(work / "alone"), "--quiet"], check=True)
    run = {}
    for r in csv.DictReader((work / "alone/jobs.csv").open()):
        if r["final_state"] != "COMPLETED":
            sys.exit(f"{work}/alone/jobs.csv: {r['job_id']} did not complete ({r['reason']})")
        model, batch, k, its = r["job_id"].rsplit("-", 3)
        run[model, int(batch), int(k), int(its)] = float(r["execution_time"])
    return {(m, b, k): (run[m, b, k, 550] - run[m, b, k, 50]) / 500 for (m, b, k, its) in run if its == 550}


def packed(k):
    return tuple(min(PER_NODE, k - PER_NODE * i) for i in range((k + PER_NODE - 1) // PER_NODE))


def free_gpus(alloc):
    """GPUs left on each node once the allocations `alloc` (job -> node list) hold theirs."""
    free = [PER_NODE] * NODES
    for nodes in alloc.values():
        for n in nodes:
            free[n] -= 1
    return free


def most_free_place(free, gpus):
    nodes = []
    while len(nodes) < gpus:
        node = max(range(NODES), key=lambda i: (free[i], -i))
        take = min(free[node], gpus - len(nodes))
        nodes += [node] * take
        free[node] -= take
    return nodes


class Optimus:
    def __init__(self, time_of):
        self.time_of = time_of

    def __call__(self, active, now):
        left = NODES * PER_NODE
        k = {}
        for j in active:
            k[j["id"]] = 1 if left >= 1 else 0
            left -= k[j["id"]]

        def gain(j):
            n = k[j["id"]]
            if n == 0 or n + 1 > j["max_gpus"] or left < 1:
                return 0.0
            t = self.time_of(j, packed(n)) - self.time_of(j, packed(n + 1))
            return t * (j["iterations"] - j["done"])

        gains = {j["id"]: gain(j) for j in active}
        by_id = {j["id"]: j for j in active}
        while left > 0 and gains and max(gains.values()) > 0:
            best = max(gains, key=lambda i: gains[i])
            k[best] += 1
            left -= 1
            gains[best] = gain(by_id[best])
        alloc = {j["id"]: j["alloc"] for j in active if j["alloc"] and len(j["alloc"]) == k[j["id"]]}
        free = free_gpus(alloc)
        for j in sorted(active, key=lambda j: k[j["id"]]):
            if k[j["id"]] > 0 and j["id"] not in alloc:
                alloc[j["id"]] = most_free_place(free, k[j["id"]])
        return alloc


class Tiresias:
    def __init__(self):
        self.queues, self.running, self.last, self.service = ([], []), set(), {}, collections.Counter()

    def __call__(self, active, now):
        by_id = {j["id"]: j for j in active}
        self.queues = tuple([i for i in q if i in by_id] for q in self.queues)
        for j in active:
            i = j["id"]
            if i not in self.last:
                self.queues[0].append(i)
            elif i in self.running:
                self.service[i] += int(now - self.last[i])
                if i in self.queues[0] and self.service[i] * j["gpus"] >= TIRESIAS_THRESHOLD:
                    self.queues[0].remove(i)
                    self.queues[1].append(i)
            self.last[i] = now
        left = NODES * PER_NODE
        self.running = set()
        for q in self.queues:
            for i in q:
                if by_id[i]["gpus"] <= left:
                    self.running.add(i)
                    left -= by_id[i]["gpus"]
        alloc = {i: by_id[i]["alloc"] for i in self.running if by_id[i]["alloc"]}
        free = free_gpus(alloc)
        for q in self.queues:
            for i in q:
                if i in self.running and i not in alloc:
                    alloc[i] = most_free_place(free, by_id[i]["gpus"])
        return alloc


def simulate(jobs, policy, time_of):
    jobs = [dict(j, done=0.0, placement=(), alloc=[], rescale=0.0, end=None) for j in jobs]
    now = 0.0
    while any(j["end"] is None for j in jobs):
        for j in jobs:
            if not j["placement"] or j["end"] is not None:
                continue
            paused = min(j["rescale"], TICK_S)
            j["rescale"] -= paused
            it = time_of(j, j["placement"])
            left = j["iterations"] - j["done"]
            if left * it <= TICK_S - paused:
                j["end"] = now + paused + left * it
            else:
                j["done"] += (TICK_S - paused) / it
        now += TICK_S
        active = [j for j in jobs if j["submit_s"] <= now and j["end"] is None]
        alloc = policy(active, now)
        for j in active:
            nodes = alloc.get(j["id"], [])
            if nodes != j["alloc"]:
                j["alloc"] = nodes
                j["placement"] = tuple(len(list(g)) for _, g in itertools.groupby(nodes))
                j["rescale"] = RESCALE_S if nodes else 0.0
    return sum(j["end"] - j["submit_s"] for j in jobs) / len(jobs)


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    shared, path = sys.argv[1:3]
    jobs = [json.loads(line) for line in open(path)]
    profiles = {}
    for j in jobs:
        profiles.setdefault(j["model"], Profile(shared, j["model"]))
        j["max_gpus"] = max_gpus(j, profiles[j["model"]])
    sources = {"profile": lambda j, p: profiles[j["model"]].iteration_s(p, j["global_batch"])}
    if len(sys.argv) == 5:
        table = measure_vnsim(sys.argv[3], sys.argv[4], shared, jobs, profiles)
        sources["vnsim"] = lambda j, p: table[j["model"], j["global_batch"], sum(p)]
    print(f"| step times | optimus mean JCT (s) | tiresias mean JCT (s) |  ({path})")
    print("|---|---:|---:|")
    for name, time_of in sources.items():
        print(f"| {name} | {simulate(jobs, Optimus(time_of), time_of):.0f} | {simulate(jobs, Tiresias(), time_of):.0f} |")
    if "vnsim" in sources:
        # Optimus choosing GPUs by the profiles while its jobs run at vnsim's
        # speed: how much its pricing alone matters (Tiresias does not price).
        mixed = simulate(jobs, Optimus(sources["profile"]), sources["vnsim"])
        print(f"| vnsim, Optimus priced by profile | {mixed:.0f} | |")


if __name__ == "__main__":
    main()
