#!/usr/bin/env bash
# Reproduces the SIGCOMM'18 simulation tables (SPEC §5.3) with the fast model: W1-W5 at 50 %
# and 80 % load on the paper's 144-host topology. Writes one JSON per run into OUT (default
# out/paper) and prints, per run, the p99 slowdown of the smallest bucket and of the buckets
# holding the P50, P90 and P99 message next to the paper's, with each run's wall time; an SVG
# chart per run (ours against the paper, p50 and p99 by message size) goes beside the JSON.
#
# Usage: scripts/paper-sim.sh [OUT] [SCALE]   SCALE multiplies the message counts (default 1).
# TRANSPORT=pfabric compares pFabric with the paper's pFabric rows instead of Homa with Homa's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/paper}
scale=${2:-1}
mkdir -p "$out"
bin=${HOMA_NIC:-target/release/homa-nic}
[ -x "$bin" ] || cargo build --release --quiet
# Messages per workload: enough for a stable p99 in the P99-size bucket, within minutes.
declare -A messages=([w1]=400000 [w2]=400000 [w3]=200000 [w4]=20000 [w5]=4000)
for wl in w1 w2 w3 w4 w5; do
  for load in 0.5 0.8; do
    n=$(( ${messages[$wl]} * scale ))
    echo "== $wl load $load: $n messages" >&2
    "$bin" sim --transport "${TRANSPORT:-homa}" --topology paper --workload "$wl" --load "$load" --messages "$n" \
      --json "$out/$wl-$load.json" --plot "$out/$wl-$load.svg" > "$out/$wl-$load.txt"
  done
done
python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
print(f"{'wl':3} {'load':>4} | {'smallest':>15} | {'P50':>15} | {'P90':>15} | {'P99':>15} | {'wall s':>7}")
print(f"{'':3} {'':>4} | {'ours/paper':>15} | {'ours/paper':>15} | {'ours/paper':>15} | {'ours/paper':>15} |")
for wl in ["w1", "w2", "w3", "w4", "w5"]:
    for load in ["0.5", "0.8"]:
        path = os.path.join(out, f"{wl}-{load}.json")
        if not os.path.exists(path):
            continue
        r = json.load(open(path))
        cells = []
        for row in r["paper_comparison"]:
            ours = row["p99_slowdown"]
            cells.append(f"{ours if ours is None else round(ours, 2)!s:>6}/{row['paper_p99_slowdown']:<6.2f}")
        print(f"{wl:3} {load:>4} | " + " | ".join(f"{c:>15}" for c in cells) + f" | {r['wall_seconds']:7.1f}")
PY
