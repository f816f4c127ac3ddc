#!/usr/bin/env python3
"""The nightly gate on real nights, resampled (docs/gate.md, "Calibration on real nights").

Each night in turn is held out; a rolling baseline is made of K other nights (`rooftop history
add` into a fresh history, as ci/nightly.sh does) and the held-out night is gated against it
with `rooftop gate --history` through the real CLI: as it is (A/A), with 5% (or --slowdown)
injected into --slowed random benchmarks (their samples multiplied), and with --broad of them
slowed by 20%. Every figure comes from the CLI's verdicts and exit codes.

usage: real-night-calibration.py ROOFTOP OUT_DIR NIGHT.json ... [--baseline-nights K]
       [--draws N] [--slowdown S] [--slowed M] [--seed S] [--label TEXT] [--gate-args "ARGS"]

A night is one results file, or several joined with '+' (the suites of one night, run one
after another: their results are merged into one file). Prints one Markdown row:
nights, benchmarks, K, gates, A/A exit 0 / 1 / 6, A/A benchmark FAILs, A/A benchmarks
UNRESOLVED, M at +S: nights that FAIL, and the slowed benchmarks FAILed.
"""
import argparse
import json
import os
import random
import subprocess
import sys

parser = argparse.ArgumentParser(description="The nightly gate on real nights, resampled.")
parser.add_argument("rooftop")
parser.add_argument("out")
parser.add_argument("specs", nargs="+", metavar="NIGHT.json")
parser.add_argument("--baseline-nights", type=int, default=3)
parser.add_argument("--draws", type=int, default=6)
parser.add_argument("--slowdown", type=float, default=0.05)
parser.add_argument("--slowed", type=int, default=4)
parser.add_argument("--seed", type=int, default=51)
parser.add_argument("--label", default="")
parser.add_argument("--gate-args", default="", help="more arguments for `rooftop gate`, e.g. \"--alpha 0.05\"")
parser.add_argument("--keep-verdicts", action="store_true",
                    help="keep every gate's --json verdicts in OUT_DIR/verdicts/ (held-draw-aa|slowed.json, the slowed named)")
a = parser.parse_args()
rooftop, out, specs, k, draws, slowdown, slowed_count, seed, label = (a.rooftop, a.out, a.specs, a.baseline_nights, a.draws,
                                                                      a.slowdown, a.slowed, a.seed, a.label)
if len(specs) < k + 1:
    sys.exit(f"need at least {k + 1} nights for baselines of {k} nights and one held out")
os.makedirs(out, exist_ok=True)
rng = random.Random(seed)


def load_night(spec, index):
    """One night: its files' results merged, a creation time of its own (the history's key)."""
    runs = [json.load(open(p)) for p in spec.split("+")]
    night = runs[0]
    for other in runs[1:]:
        night["results"] += other["results"]
    night["created"] = f"2026-01-01T00:{index // 60:02d}:{index % 60:02d}Z"
    path = os.path.join(out, f"night{index}.json")
    json.dump(night, open(path, "w"))
    return path, night


nights = [load_night(spec, i) for i, spec in enumerate(specs)]
names = [r["name"] for r in nights[0][1]["results"] if r["status"] == "ok"]


def with_slowdown(night, victims, factor, tag):
    run = json.loads(json.dumps(night))
    for r in run["results"]:
        if r["name"] in victims:
            r["samples"]["seconds_per_iteration"] = [s * factor for s in r["samples"]["seconds_per_iteration"]]
    path = os.path.join(out, f"current-{tag}.json")
    json.dump(run, open(path, "w"))
    return path


def gate(history, results, keep_as=None, slowed=()):
    verdicts = os.path.join(out, "verdicts.json")
    if os.path.exists(verdicts):
        os.remove(verdicts)
    code = subprocess.run([rooftop, "gate", "--history", history, "--history-runs", str(k), results, "--json", verdicts]
                          + a.gate_args.split(),
                          capture_output=True, text=True).returncode
    report = json.load(open(verdicts)) if os.path.exists(verdicts) else {"comparisons": []}
    if a.keep_verdicts and keep_as:
        os.makedirs(os.path.join(out, "verdicts"), exist_ok=True)
        report["calibration"] = {"exit": code, "slowed": sorted(slowed)}
        json.dump(report, open(os.path.join(out, "verdicts", keep_as), "w"))
    return code, {c["name"]: c["verdict"] for c in report["comparisons"]}


counts = {"gates": 0, "exit0": 0, "exit1": 0, "exit6": 0, "other": 0, "bench": 0, "bench_fail": 0, "bench_unresolved": 0,
          "aa_fails": [], "slowed_nights": 0, "slowed_nights_failed": 0, "slowed": 0, "slowed_caught": 0, "false_beside": 0}
for held in range(len(nights)):
    others = [i for i in range(len(nights)) if i != held]
    for draw in range(draws):
        chosen = sorted(rng.sample(others, k))
        history = os.path.join(out, "history.sqlite")
        if os.path.exists(history):
            os.remove(history)
        for i in chosen:
            subprocess.run([rooftop, "history", "add", nights[i][0], "--db", history], check=True, capture_output=True)
        code, verdicts = gate(history, nights[held][0], f"{held}-{draw}-aa.json")
        counts["gates"] += 1
        counts[{0: "exit0", 1: "exit1", 6: "exit6"}.get(code, "other")] += 1
        for name, verdict in verdicts.items():
            if verdict in ("NEW", "MISSING"):
                continue
            counts["bench"] += 1
            counts["bench_fail"] += verdict == "FAIL"
            if verdict == "FAIL":
                counts["aa_fails"].append(f"night {held} vs {chosen}: {name}")
            counts["bench_unresolved"] += verdict == "UNRESOLVED"
        victims = set(rng.sample(names, min(slowed_count, len(names))))
        code, verdicts = gate(history, with_slowdown(nights[held][1], victims, 1 + slowdown, "slowed"),
                              f"{held}-{draw}-slowed.json", victims)
        counts["slowed_nights"] += 1
        counts["slowed_nights_failed"] += code == 1
        for name in victims:
            counts["slowed"] += 1
            counts["slowed_caught"] += verdicts.get(name) == "FAIL"
        counts["false_beside"] += sum(v == "FAIL" for n, v in verdicts.items() if n not in victims)

c = counts
pct = lambda a, b: f"{100 * a / b:.1f}%" if b else "-"
print(f"| {label} | {len(nights)} | {len(names)} | {k} | {c['gates']} | {pct(c['exit0'], c['gates'])} | "
      f"{pct(c['exit1'], c['gates'])} | {pct(c['exit6'], c['gates'])} | {pct(c['bench_fail'], c['bench'])} | "
      f"{pct(c['bench_unresolved'], c['bench'])} | {pct(c['slowed_nights_failed'], c['slowed_nights'])} | "
      f"{pct(c['slowed_caught'], c['slowed'])} | {c['false_beside']} |")
json.dump(counts, open(os.path.join(out, "counts.json"), "w"), indent=1)
