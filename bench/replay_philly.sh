#!/usr/bin/env bash
# Wall time and peak memory of replaying the full Pollux-derived Philly trace
# (82,247 jobs) on the philly-2017 preset under FIFO. Usage:
#   bench/replay_philly.sh [BUILD_DIR] [REPEATS]
# Needs VNSIM_SHARED (or ../shared beside the project root).
set -euo pipefail
# shellcheck source=scripts/lib/help.sh
source "$(dirname "$0")/../scripts/lib/help.sh"
answer_help "$@"
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-"$root/build"}
repeats=${2:-3}
shared=${VNSIM_SHARED:-"$root/../shared"}
trace="$shared/traces/philly_2017_pollux_full.csv"
out=$(mktemp -d)
for i in $(seq "$repeats"); do
  /usr/bin/time -f "run $i: wall %e s, peak RSS %M KiB" \
    "$build/vnsim" replay --cluster philly-2017 --trace "$trace" --policy fifo --out "$out/run$i" --quiet
done
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print('jobs', s['counts'])" "$out/run1/summary.json"
rm -rf "$out"
