#!/usr/bin/env python3
"""Writes core/data/interference.json: how much of its isolated throughput a
job keeps when it shares one GPU with another job (GPU sharing, issue 6).

Source: Gavel's profiles/gavel/simulation_throughputs.json. For GPU type t,
job A (scale factor 1) and co-located job B, the entry [rate_A, rate_B] gives
A's steps/s next to B; A's "null" entry is its isolated steps/s. The fraction
for families (FA, FB) on t is the geometric mean of rate_A / null_A over the
batch sizes of FA and FB whose pair ran (rate > 0). A pair that never ran
together (every entry 0: Gavel's marker for "does not fit") gets 0.
default_fraction = geometric mean of every non-zero fraction of every type;
it is used for types (A100, H100, ...) and families Gavel did not measure.

Usage: VNSIM_SHARED=../shared python3 scripts/derive_interference.py [OUT_JSON]
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
TYPES = {"K80": "k80", "P100": "p100", "V100": "v100"}


def family(key):
    name, scale = ast.literal_eval(key)
    if scale != 1:
        return None
    m = re.fullmatch(r"(.+) \(batch size (\d+)\)", name)
    return m.group(1) if m else name


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    shared = pathlib.Path(os.environ.get("VNSIM_SHARED", ROOT.parent / "shared"))
    table = json.loads((shared / "profiles/gavel/simulation_throughputs.json").read_text())
    out_path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "core/data/interference.json"
    types = {}
    every = []
    for ours, theirs in TYPES.items():
        ratios, seen = {}, set()
        for key, row in table[theirs].items():
            fa = family(key)
            if fa is None:
                continue
            for partner, rates in row.items():
                if partner == "null":
                    continue
                fb = family(partner)
                if fb is None:
                    continue
                seen.add((fa, fb))
                if rates[0] > 0:
                    ratios.setdefault((fa, fb), []).append(rates[0] / row["null"])
        per_family = {}
        for fa, fb in sorted(seen):
            value = round(geomean(ratios[(fa, fb)]), 4) if (fa, fb) in ratios else 0.0
            per_family.setdefault(fa, {})[fb] = value
            if value > 0:
                every.append(value)
        types[ours] = per_family
    default = round(geomean(every), 4)
    print("default_fraction", default, "over", len(every), "family pairs")
    doc = {
        "derived_by": "scripts/derive_interference.py",
        "source": "profiles/gavel/simulation_throughputs.json, co-located pair throughputs / isolated",
        "default_fraction": default,
        "types": types,
    }
    out_path.write_text(json.dumps(doc, indent=2) + "\n")
    print("wrote", out_path)


if __name__ == "__main__":
    main()
