#!/usr/bin/env bash
# Issue 39's target, measured: N quiet `characterize` runs, then M under a busy loop on one
# core, and each ceiling of the loaded runs against the quiet best (the table
# docs/PERFORMANCE.md shows). Run it at a quiet moment: the quiet runs are the reference.
#   ci/characterize-under-load.sh [ROOFTOP] [OUT_DIR]    (QUIET=3 LOADED=10 ARGS=--quick)
# TABLE_ONLY=1 prints the table of the runs already in OUT_DIR (quiet1.json.., load1.json..).
# REFERENCE='a.json b.json' takes the quiet best from these profiles (a quiet moment's) instead.
set -euo pipefail
rooftop=${1:-build/cli/rooftop}
out=${2:-characterize-under-load}
quiet=${QUIET:-3}
loaded=${LOADED:-10}
args=${ARGS:---quick}
[[ -n ${TABLE_ONLY:-} || -x $rooftop ]] || { echo "$0: no rooftop binary at $rooftop: build it, or name it as the first argument" >&2; exit 2; }
mkdir -p "$out"

run() {  # run NAME: one characterize, its log and the load average after it
  local start=$SECONDS
  # shellcheck disable=SC2086  # ARGS is a list of flags
  "$rooftop" characterize --backend cpu $args --out "$out/$1.json" >"$out/$1.log" 2>&1
  echo "seconds $((SECONDS - start)); $(uptime)" >>"$out/$1.log"
  echo "$1: $(tail -n 1 "$out/$1.log")"
}

if [[ -z ${TABLE_ONLY:-} ]]; then
for i in $(seq 1 "$quiet"); do run "quiet$i"; done
(while :; do :; done) &
loop=$!
trap 'kill $loop 2>/dev/null' EXIT
for i in $(seq 1 "$loaded"); do run "load$i"; done
kill $loop
trap - EXIT
fi

python3 - "$out" "$quiet" "$loaded" ${REFERENCE:-} <<'PY'
import json, sys
out, quiet, loaded, reference = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]

def ceilings(name):
    p = json.load(open(name if name.endswith(".json") else f"{out}/{name}.json"))
    m = p["measured"]
    values = {c["name"]: c["flops_per_s"] for c in m["compute"]}
    values.update({b["level"]: b["bytes_per_s"] for b in m["bandwidth"]})
    readings = p.get("conditions", {}).get("readings", [])
    others = [r["others_busy"] for r in readings if r.get("others_busy") is not None]
    load = [r["load1"] for r in readings if r.get("load1") is not None]
    return values, p.get("trials", {}).get("rounds"), others, load

quiet_runs = [ceilings(f"quiet{i}") for i in range(1, quiet + 1)]
loaded_runs = [ceilings(f"load{i}") for i in range(1, loaded + 1)]
reference_runs = [ceilings(r) for r in reference] or quiet_runs
names = list(reference_runs[0][0])
best = {n: max(q[0].get(n, 0) for q in reference_runs) for n in names}
best_label = f"reference best ({len(reference)} profiles)" if reference else f"quiet best ({quiet} runs)"
short = lambda n: n.replace("_vector_fma", "").replace("_matrix", "")
spread = lambda xs: f"{min(xs):.0%}-{max(xs):.0%}" if xs else "-"

print(f"| run | rounds | others busy | load1 | " + " | ".join(short(n) for n in names) + " |")
print("| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in names) + " |")
print(f"| {best_label} | | | | " + " | ".join(f"{best[n] / 1e9:.0f}" for n in names) + " |")
for label, runs in (("quiet", quiet_runs), ("load", loaded_runs)):
    for i, (values, rounds, others, load) in enumerate(runs, 1):
        cells = [f"{values.get(n, 0) / best[n]:.0%}" if best[n] else "-" for n in names]
        print(f"| {label}{i} | {rounds} | {spread(others)} | {f'{min(load):.1f}-{max(load):.1f}' if load else '-'} | "
              + " | ".join(cells) + " |")
within = {n: sum(1 for v, *_ in loaded_runs if best[n] and v.get(n, 0) >= 0.9 * best[n]) for n in names}
whole = sum(1 for v, *_ in loaded_runs if all(best[n] and v.get(n, 0) >= 0.9 * best[n] for n in names))
print()
print(f"Loaded runs within 10% of the {best_label}: " + ", ".join(f"{short(n)} {within[n]}" for n in names)
      + f" (of {loaded}); every ceiling of a run within 10%: {whole} of {loaded}.")
print("Quiet best in G/s (GFLOP/s, GOP/s, GB/s); the loaded runs as % of it; 'others busy' is the other processes'"
      " share of the CPUs over the run's readings.")
PY
