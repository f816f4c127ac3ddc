#!/usr/bin/env python3
"""The single-build gate measured on independent runs of this machine: each run in turn is
held out and gated against baselines promoted from k of the other runs (`rooftop baseline
update --append`, one run at a time), as is and slowed by a known factor, with the run as
the unit (`--unit run`), the same confirmed by a re-run (`--confirm`: another run outside
the baseline, slowed alike where the held-out run is) and, on the same baselines,
repetition against repetition (`--unit repetition`, the rule before). Every figure comes from the rooftop CLI's verdicts.

usage: run-unit-calibration.py ROOFTOP OUT_DIR RUN.json RUN.json ... [--baseline-runs K]
       [--baselines-per-run N] [--slowdown S[,S...]] [--alpha A]

Prints a Markdown table: A/A suite gates with any FAIL, benchmark FAILs, slowed benchmarks
caught (FAIL), UNRESOLVED, and the median slowdown each benchmark's test could detect.
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
if len(paths) < k + 1:
    sys.exit(f"need at least {k + 1} runs for baselines of {k} runs and one held out")
os.makedirs(out, exist_ok=True)


def slowed(path, slowdown):
    run = json.load(open(path))
    for r in run["results"]:
        r["samples"]["seconds_per_iteration"] = [s * (1 + slowdown) for s in r["samples"]["seconds_per_iteration"]]
    target = os.path.join(out, f"slowed{slowdown}-" + os.path.basename(path))
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
    if code not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {code}")
    return json.load(open(verdicts))["comparisons"]


rng = random.Random(1)
modes = {"run": ("run", False), "repetition": ("repetition", False), "run, confirmed by a re-run": ("run", True)}
tally = {mode: {"gates": 0, "gates_failed": 0, "aa": [], "slow": {s: [] for s in slowdowns}, "detectable": []}
         for mode in modes}
for held in range(len(paths)):
    others = [p for i, p in enumerate(paths) if i != held]
    combos = list(itertools.combinations(others, k))
    rng.shuffle(combos)
    slow = {s: slowed(paths[held], s) for s in slowdowns}
    for combo in combos[:per_run]:
        # The re-run: another run outside the baseline (the nightly makes it right after).
        rerun = rng.choice([p for p in others if p not in combo] or [None])
        store = os.path.join(out, "store")
        subprocess.run(["rm", "-rf", store], check=True)
        for p in combo:
            subprocess.run([rooftop, "baseline", "update", "--append", p, "--baselines", store], check=True,
                           stdout=subprocess.DEVNULL)
        for mode, t in tally.items():
            unit, confirmed = modes[mode]
            if confirmed and not rerun:
                continue
            aa = gate(store, paths[held], unit, rerun if confirmed else None)
            t["gates"] += 1
            t["gates_failed"] += any(c["verdict"] == "FAIL" for c in aa)
            t["aa"] += [c["verdict"] for c in aa]
            for s in slowdowns:
                t["slow"][s] += [c["verdict"] for c in gate(store, slow[s], unit, slowed(rerun, s) if confirmed else None)]
            t["detectable"] += [c["minimum_detectable_change"] for c in aa if c.get("minimum_detectable_change") is not None]

print(f"{len(paths)} runs, each held out against {per_run} baselines of {k} other runs"
      f"{'; alpha ' + alpha if alpha else ''}\n")
print("| unit | A/A suite gates with a FAIL | A/A benchmark FAILs | "
      + " | ".join(f"{100 * s:.0f}% slowdown FAILed" for s in slowdowns) + " | A/A UNRESOLVED | median detectable slowdown |")
print("| --- | ---: | ---: | " + "---: | " * len(slowdowns) + "---: | ---: |")
for mode, t in tally.items():
    n = len(t["aa"])
    if not n:
        continue
    fails = t["aa"].count("FAIL")
    caught = " | ".join(f"{v.count('FAIL')} of {len(v)} ({100 * v.count('FAIL') / len(v):.1f}%)" for v in t["slow"].values())
    unresolved = t["aa"].count("UNRESOLVED")
    finite = [d for d in t["detectable"] if isinstance(d, (int, float))]
    detect = f"{100 * statistics.median(finite):+.0f}%" if finite else "-"
    print(f"| {mode} | {t['gates_failed']} of {t['gates']} ({100 * t['gates_failed'] / t['gates']:.1f}%) | "
          f"{fails} of {n} ({100 * fails / n:.2f}%) | {caught} | "
          f"{100 * unresolved / n:.0f}% | {detect} |")
