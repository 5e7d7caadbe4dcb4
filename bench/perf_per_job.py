#!/usr/bin/env python3
"""CPU per job by function, from two `perf script` dumps of `vnsim replay`.

Used to compare where a policy's cost per job grows between two sizes of the
scaling bench (docs/PERFORMANCE_HISTORY.md, "Sia's scaling curve: what grows
from 10k to 100k"). Record each run with a call graph that survives the build's
missing frame pointers, then dump it:

    perf record -F RATE --call-graph dwarf,16384 -o small.data build/vnsim replay ...
    perf script -i small.data > small.txt

    bench/perf_per_job.py small.txt RATE JOBS large.txt RATE JOBS [PATTERN]

For every function (vnsim, SimGrid and the allocator's), the microseconds per
job of the samples whose stack contains it (inclusive; each function counted
once per sample): samples / RATE / JOBS. Printed at both sizes with their
difference, largest growth first; PATTERN (a regular expression) keeps only
the functions it matches.
"""
import collections
import re
import sys
import pathlib as _pathlib

sys.path.insert(0, str(_pathlib.Path(__file__).resolve().parents[1] / "scripts"))
from cli_help import answer_help  # noqa: E402

answer_help(__doc__)

ALLOCATOR = ("malloc", "_int_malloc", "_int_free", "cfree", "malloc_consolidate", "unlink_chunk")


def stacks(path):
    """Each sample's frames, leaf first, as function names."""
    out, cur = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line[:1] in ("\t", " ") and line.strip():
                parts = line.strip().split(" ", 1)
                if len(parts) == 2:
                    name = re.sub(r"\+0x[0-9a-f]+ .*$", "", parts[1])
                    cur.append(name if "lambda" in name else re.sub(r"\(.*", "", name))
            elif cur:
                out.append(cur)
                cur = []
    if cur:
        out.append(cur)
    return out


def per_job(path, rate, jobs):
    counts = collections.Counter()
    for frames in stacks(path):
        for name in set(frames):
            if name.startswith(("vnsim::", "simgrid::", "sg_")) or name in ALLOCATOR:
                counts[name] += 1
    scale = 1e6 / rate / jobs
    return {name: n * scale for name, n in counts.items()}


def main(argv):
    if len(argv) not in (7, 8):
        sys.exit(__doc__)
    small = per_job(argv[1], float(argv[2]), int(argv[3]))
    large = per_job(argv[4], float(argv[5]), int(argv[6]))
    keep = re.compile(argv[7]) if len(argv) == 8 else None
    rows = []
    for name in set(small) | set(large):
        if keep is None or keep.search(name):
            a, b = small.get(name, 0.0), large.get(name, 0.0)
            rows.append((b - a, name, a, b))
    rows.sort(key=lambda r: (-r[0], r[1]))
    print(f"{'small':>8} {'large':>8} {'growth':>8}  function (us per job, inclusive)")
    for growth, name, a, b in rows:
        print(f"{a:8.1f} {b:8.1f} {growth:+8.1f}  {name[:120]}")


if __name__ == "__main__":
    main(sys.argv)
