#!/usr/bin/env bash
# Measures the adaptive `rooftop ab` on this machine: A/A runs (the build against itself:
# false alarms) and A/B runs with a slowdown injected into build B's every timed iteration
# (detection), each under a time budget. Prints, per run and pooled, the verdicts, the pairs
# each decision took and the time a pair took, for docs/PERFORMANCE.md.
#
#   ci/ab-calibrate.sh ROOFTOP OUT_DIR [TIER] [RUNS] [BUDGET] [SLOWDOWN] [SUITE]
# AB_REPETITIONS: repetitions a run (default 3, as the before-merge flow); AB_SLOW_MATCH: slow
# only the points whose names this pattern matches (a regression of some benchmarks).
set -euo pipefail
rooftop=$(realpath "${1:?usage: ci/ab-calibrate.sh ROOFTOP OUT_DIR [TIER] [RUNS] [BUDGET] [SLOWDOWN] [SUITE]}")
out=${2:?usage: ci/ab-calibrate.sh ROOFTOP OUT_DIR [TIER] [RUNS] [BUDGET] [SLOWDOWN] [SUITE]}
tier=${3:-smoke}
runs=${4:-2}
budget=${5:-10m}
slowdown=${6:-0.10}
read -r -a suites <<< "${7:-gemm}"  # SUITE: one or more, spaces between
mkdir -p "$out"
out=$(realpath "$out")
slow="$out/slow-rooftop"
printf '#!/bin/sh\nROOFTOP_INJECT_SLOWDOWN=%s ROOFTOP_INJECT_SLOWDOWN_MATCH='"'"'%s'"'"' exec %s "$@"\n' "$slowdown" \
  "${AB_SLOW_MATCH:-}" "$rooftop" > "$slow"
chmod +x "$slow"
for i in $(seq 1 "$runs"); do
  for kind in aa ab; do
    b=$rooftop
    [ "$kind" = ab ] && b=$slow
    "$rooftop" ab --a "$rooftop" --b "$b" --budget "$budget" --dir "$out/$kind$i-runs" --json "$out/$kind$i.json" \
      -- --suite "${suites[@]}" --backend cpu --tier "$tier" --repetitions "${AB_REPETITIONS:-3}" --min-time 0.05 > "$out/$kind$i.txt" 2> "$out/$kind$i.log" || { rc=$?; [ $rc -eq 1 ] || [ $rc -eq 6 ]; }  # FAIL, UNRESOLVED
  done
done
python3 - "$out" "$runs" "$slowdown" "$budget" "$tier" <<'PY'
import json, re, statistics, sys
out, runs, slowdown, budget, tier = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
print(f"| runs ({tier} tier, budget {budget}) | benchmarks | FAIL | PASS | IMPROVED | UNRESOLVED | median pairs to a verdict | s a pair | stopped after |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for kind, label in (("aa", "A/A"), ("ab", f"A/B +{float(slowdown):.0%}")):
    for i in range(1, runs + 1):
        j = json.load(open(f"{out}/{kind}{i}.json"))
        text = open(f"{out}/{kind}{i}.txt").read()
        m = re.search(r"(\d+) pairs in (\d+) s; stopped: (.*)", text)
        pairs, seconds, why = int(m.group(1)), int(m.group(2)), m.group(3)
        v = [c["verdict"] for c in j["comparisons"]]
        decided = [c["counts"][0] for c in j["comparisons"] if c["verdict"] in ("FAIL", "PASS", "IMPROVED")]
        med = statistics.median(decided) if decided else "-"
        print(f"| {label} #{i} | {len(v)} | {v.count('FAIL')} | {v.count('PASS')} | {v.count('IMPROVED')} | "
              f"{v.count('UNRESOLVED')} | {med} | {seconds / max(pairs, 1):.1f} | {pairs} pairs, {seconds} s: {why} |")
PY
