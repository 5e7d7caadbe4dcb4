#!/usr/bin/env bash
# Writes the scaling bench's inputs for JOBS jobs (issue 21): DIR/cJOBS.json,
# JOBS / 800 nodes of 8 V100 in racks of 25 nodes with 2:1 uplinks, and
# DIR/tJOBS.jsonl, JOBS Philly-like jobs (`vnsim trace generate --kind
# philly`, seed 1) arriving at RATE_PER_GPU jobs per GPU-hour, so the load
# per GPU is the same at every size. A file already there is kept.
# Prints "nodes racks gpus" of the cluster.
#   bench/scale_inputs.sh BUILD_DIR JOBS DIR [RATE_PER_GPU (0.15)]
set -euo pipefail
# shellcheck source=scripts/lib/help.sh
source "$(dirname "$0")/../scripts/lib/help.sh"
answer_help "$@"
build=$1
jobs=$2
dir=$3
rate_per_gpu=${4:-0.15}
nodes=$(((jobs + 799) / 800))
racks=$(((nodes + 24) / 25))
gpus=$((nodes * 8))
mkdir -p "$dir"
if [[ ! -s "$dir/c$jobs.json" ]]; then
  python3 - "$dir/c$jobs.json" "$nodes" "$racks" <<'PY'
import json, sys
path, nodes, racks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spec = {"name": f"scale-{nodes}x8-v100",
        "description": "bench/scale.sh: racks of 25 nodes x 8 V100, 2:1 uplinks",
        "defaults": {"gpus": 8, "gpu_type": "V100",
                     "intra": {"kind": "nvlink", "bandwidth_gbps": 2400, "latency_us": 1},
                     "nic": {"bandwidth_gbps": 100, "latency_us": 1}},
        "racks": []}
left = nodes
for r in range(racks):
    n = min(25, left)
    left -= n
    spec["racks"].append({"name": f"r{r}", "oversubscription": 2, "uplink_latency_us": 1,
                          "nodes": [{"name_prefix": f"r{r}n", "count": n}]})
json.dump(spec, open(path, "w"), indent=1)
PY
fi
if [[ ! -s "$dir/t$jobs.jsonl" ]]; then
  rate=$(python3 -c "print($rate_per_gpu * $gpus)")
  "$build/vnsim" trace generate --kind philly --jobs "$jobs" --rate "$rate" --seed 1 \
    --out "$dir/t$jobs.jsonl" >/dev/null
fi
echo "$nodes $racks $gpus"
