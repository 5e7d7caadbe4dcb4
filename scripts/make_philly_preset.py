#!/usr/bin/env python3
"""Derives core/data/cluster-philly-2017.json from Philly's machine list.

Reads traces/philly_2017_machine_list_552.csv from $VNSIM_SHARED (or
../shared next to the repository) and writes the preset. The assumptions it
encodes (GPU types, links, rack size) are explained in docs/CLUSTER_SPEC.md.

Usage: scripts/make_philly_preset.py [output.json]
"""
import csv
import json
import os
import sys
from cli_help import answer_help

answer_help(__doc__)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSV_NAME = "philly_2017_machine_list_552.csv"
MACHINES_PER_RACK = 16
# Per-GPU memory in the list -> the GPU it implies (docs/CLUSTER_SPEC.md).
GPU_BY_MEMORY = {"12GB": "K80", "24GB": "P40"}


def shared_dir():
    env = os.environ.get("VNSIM_SHARED")
    return env if env else os.path.join(os.path.dirname(REPO), "shared")


def read_machines(path):
    machines = []
    with open(path, newline="") as f:
        rows = csv.reader(f)
        header = [h.strip() for h in next(rows)]
        if header != ["machineId", "number of GPUs", "single GPU mem"]:
            sys.exit(f"{path}:1: unexpected header {header}")
        for line, row in enumerate(rows, start=2):
            if not row:
                continue
            if len(row) != 3:
                sys.exit(f"{path}:{line}: expected 3 columns, got {len(row)}")
            name, gpus, mem = (c.strip() for c in row)
            if mem not in GPU_BY_MEMORY:
                sys.exit(f"{path}:{line}: unknown GPU memory '{mem}'")
            if not gpus.isdigit() or int(gpus) < 1:
                sys.exit(f"{path}:{line}: bad GPU count '{gpus}'")
            machines.append((name, int(gpus), GPU_BY_MEMORY[mem]))
    return machines


def preset(machines):
    racks = []
    for start in range(0, len(machines), MACHINES_PER_RACK):
        group = machines[start:start + MACHINES_PER_RACK]
        racks.append({
            "name": f"r{len(racks)}",
            "oversubscription": 2,
            "uplink_latency_us": 1,
            "nodes": [{"name": n, "gpus": g, "gpu_type": t} for n, g, t in group],
        })
    return {
        "name": "philly-2017",
        "description": "Derived by scripts/make_philly_preset.py from Philly's cluster_machine_list "
                       "(552 machines); GPU types, links and racks are assumptions, see docs/CLUSTER_SPEC.md",
        "defaults": {
            "intra": {"kind": "pcie", "bandwidth_gbps": 126, "latency_us": 1},
            "nic": {"bandwidth_gbps": 100, "count": 1, "latency_us": 1},
        },
        "racks": racks,
    }


def render(spec):
    # One node per line keeps the 552-machine file short and diffable.
    node_lists = [",\n".join("        " + json.dumps(n) for n in rack["nodes"]) for rack in spec["racks"]]
    skeleton = dict(spec, racks=[dict(rack, nodes="@NODES@") for rack in spec["racks"]])
    out = json.dumps(skeleton, indent=2)
    for nodes in node_lists:
        out = out.replace('"@NODES@"', "[\n" + nodes + "\n      ]", 1)
    return out + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "core", "data", "cluster-philly-2017.json")
    machines = read_machines(os.path.join(shared_dir(), "traces", CSV_NAME))
    with open(out, "w") as f:
        f.write(render(preset(machines)))
    gpus = sum(g for _, g, _ in machines)
    print(f"wrote {out}: {len(machines)} machines, {gpus} GPUs")


if __name__ == "__main__":
    main()
