#!/bin/bash
# Two rooftop builds on the same points, run in alternation (OLD, NEW, OLD, NEW, ...), and a
# table of each point's median rate over the rounds: GB/s for decode points, GFLOP/s else.
# For quick side-by-side figures of a kernel change (docs/PERFORMANCE.md); `rooftop ab`
# is the statistical verdict.
#
#   ci/ab-binaries.sh OLD/rooftop NEW/rooftop OUT_DIR ROUNDS -- RUN_ARGS...
set -euo pipefail
old=$1 new=$2 out=$3 rounds=$4
shift 5
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for side in old new; do
    bin=$([ "$side" = old ] && echo "$old" || echo "$new")
    "$bin" run "$@" --out "$out/$side-$r.json" > "$out/$side-$r.txt" 2>&1 || true
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
for r in range(1, rounds + 1):
    for side in ("old", "new"):
        for x in json.load(open(f"{out}/{side}-{r}.json"))["results"]:
            if x["status"] != "ok":
                continue
            rate = x["throughput"]["bytes_per_s" if "decode" in x["name"] else "flops_per_s"]
            rows.setdefault(x["name"], {}).setdefault(side, []).append(rate)
            rows[x["name"]]["label_" + side] = x["implementation_label"]
for name, v in rows.items():
    o, n = (statistics.median(v.get(s, [0])) / 1e9 for s in ("old", "new"))
    unit = "GB/s" if "decode" in name else "GFLOP/s"
    print(f"{name:66s} {v.get('label_old', ''):18s} {o:8.1f}  {v.get('label_new', ''):18s} {n:8.1f} {unit}"
          f"  x{n / o if o else 0:.2f}")
PY
