#!/usr/bin/env python3
"""The gate measured on independent real runs of this machine: each run in turn is held out
and gated against baselines promoted from k of the other runs (`rooftop baseline update
--append`, one run at a time; k = 1 reads one run's samples): as is (A/A), with one
benchmark slowed by a known factor (is it FAILed?), and with every benchmark slowed (does
the gate exit non-zero?). Every figure comes from the rooftop CLI's verdicts and exit codes.

usage: run-unit-calibration.py ROOFTOP OUT_DIR RUN.json RUN.json ... [--baseline-runs K]
       [--baselines-per-run N] [--slowdown S[,S...]] [--alpha A]

Prints a Markdown row: A/A suites that exit 1, benchmark FAILs, exit 6, the slowed
benchmark caught, the whole suite slowed caught, the median change one night can FAIL.
"""
import itertools
import json
import os
import random
import statistics
import subprocess
import sys

args = sys.argv[1:]


def option(name, default, kind=str):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return kind(value)
    return default


k = option("--baseline-runs", 5, int)
per_run = option("--baselines-per-run", 20, int)
slowdowns = [float(x) for x in option("--slowdown", "0.10").split(",")]
alpha = option("--alpha", None)
rooftop, out, paths = args[0], args[1], args[2:]
if len(paths) < k + 1 or k < 1:
    sys.exit(f"need at least {k + 1} runs for baselines of {k} runs and one held out")
os.makedirs(out, exist_ok=True)


def slowed(path, slowdown, victim=None):
    """The run with one benchmark (`victim`, an index) or every benchmark slowed."""
    run = json.load(open(path))
    for i, r in enumerate(run["results"]):
        if victim is None or i == victim:
            r["samples"]["seconds_per_iteration"] = [s * (1 + slowdown) for s in r["samples"]["seconds_per_iteration"]]
    target = os.path.join(out, f"slowed{slowdown}-{'all' if victim is None else victim}-" + os.path.basename(path))
    json.dump(run, open(target, "w"))
    return target


def gate(store, results, unit, confirm=None):
    verdicts = os.path.join(out, "verdicts.json")
    cmd = [rooftop, "gate", "--baseline", store, results, "--unit", unit, "--json", verdicts]
    if confirm:
        cmd += ["--confirm", confirm]
    if alpha:
        cmd += ["--alpha", alpha]
    code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if code not in (0, 1, 6):
        sys.exit(f"{' '.join(cmd)}: exit {code}")
    return code, json.load(open(verdicts))["comparisons"]


rng = random.Random(1)
unit = "run" if k >= 2 else "repetition"
t = {"gates": 0, "failed": 0, "exit6": 0, "aa": [], "caught": {s: 0 for s in slowdowns}, "all": {s: 0 for s in slowdowns},
     "detectable": []}
for held in range(len(paths)):
    others = [p for i, p in enumerate(paths) if i != held]
    combos = list(itertools.combinations(others, k))
    rng.shuffle(combos)
    count = len(json.load(open(paths[held]))["results"])
    for combo in combos[:per_run]:
        store = os.path.join(out, "store")
        subprocess.run(["rm", "-rf", store], check=True)
        for p in combo:
            subprocess.run([rooftop, "baseline", "update", "--append", p, "--baselines", store], check=True,
                           stdout=subprocess.DEVNULL)
        code, aa = gate(store, paths[held], unit)
        t["gates"] += 1
        t["failed"] += code == 1
        t["exit6"] += code == 6
        t["aa"] += [c["verdict"] for c in aa]
        t["detectable"] += [c["minimum_detectable_change"] for c in aa if c.get("minimum_detectable_change") is not None]
        for s in slowdowns:
            victim = rng.randrange(count)
            name = json.load(open(paths[held]))["results"][victim]["name"]
            _, one = gate(store, slowed(paths[held], s, victim), unit)
            t["caught"][s] += any(c["name"] == name and c["verdict"] == "FAIL" for c in one)
            code_all, _ = gate(store, slowed(paths[held], s), unit)
            t["all"][s] += code_all != 0

n = len(t["aa"])
fails = t["aa"].count("FAIL")
finite = [d for d in t["detectable"] if isinstance(d, (int, float))]
print(f"{len(paths)} runs, each held out against {per_run} baselines of {k} other run(s) (--unit {unit})"
      f"{'; alpha ' + alpha if alpha else ''}\n")
print("| baseline runs | gates | A/A suites FAIL | A/A benchmarks FAIL | A/A exit 6 | "
      + " | ".join(f"one +{100 * s:.0f}% FAILed | all +{100 * s:.0f}%: exit != 0" for s in slowdowns)
      + " | median change one night can FAIL |")
print("| ---: | ---: | ---: | ---: | ---: | " + "---: | ---: | " * len(slowdowns) + "---: |")
g = t["gates"]
print(f"| {k} | {g} | {t['failed']} ({100 * t['failed'] / g:.1f}%) | {fails} of {n} ({100 * fails / n:.2f}%) | "
      f"{100 * t['exit6'] / g:.0f}% | "
      + " | ".join(f"{100 * t['caught'][s] / g:.0f}% | {100 * t['all'][s] / g:.0f}%" for s in slowdowns)
      + f" | {100 * statistics.median(finite):+.0f}% |" if finite else " - |")
