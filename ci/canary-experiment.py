#!/usr/bin/env python3
"""Does a machine-speed canary cancel the drift between runs on this machine?

Given N A/A runs of one build (the same suite and tier, made one after another with
--benchmark_enable_random_interleaving=true, so that every point's repetitions spread over
its whole run), each benchmark is read two ways:

- raw: its samples as they are;
- canary: its samples divided by the median of a canary point of the same run (a fixed
  compute-bound GEMM for points of high arithmetic intensity, a fixed memory-bound one for
  the rest), times that canary's median over all runs. The canaries' repetitions spread
  over the run as every point's do, so each canary saw the same stretch of machine speed
  as the points it corrects.

It prints, both ways: the between-run spread of each benchmark's median (the drift), and
the A/A suite gates over every pair of runs with `rooftop compare` (Holm, alpha 0.001):
how many pairs had any FAIL, and how many benchmarks. The canary points themselves are
left out of both ways' gates.

usage: canary-experiment.py ROOFTOP OUT_DIR RUN.json RUN.json [RUN.json ...]
       [--compute-canary NAME] [--memory-canary NAME]
"""
import copy
import itertools
import json
import math
import os
import statistics
import subprocess
import sys

args = sys.argv[1:]


def option(name, default):
    if name in args:
        i = args.index(name)
        value = args[i + 1]
        del args[i:i + 2]
        return value
    return default


compute_canary = option("--compute-canary", "gemm/cpu/fp32/m1024_n1024_k1024")
memory_canary = option("--memory-canary", "gemm/cpu/fp32/m1_n4096_k4096")
rooftop, out, paths = args[0], args[1], args[2:]
os.makedirs(out, exist_ok=True)
runs = [json.load(open(p)) for p in paths]
canaries = {compute_canary, memory_canary}


def median_of(r):
    return statistics.median(r["samples"]["seconds_per_iteration"])


def by_name(run):
    return {r["name"]: r for r in run["results"] if r["status"] == "ok" and r["samples"]["seconds_per_iteration"]}


for c in canaries:
    if any(c not in by_name(run) for run in runs):
        sys.exit(f"{c}: not in every run; name a canary that is (--compute-canary, --memory-canary)")
canary_centre = {c: statistics.median(median_of(by_name(run)[c]) for run in runs) for c in canaries}


def corrected(run):
    """The run with every point divided by its canary's speed in this run."""
    run = copy.deepcopy(run)
    named = by_name(run)
    kept = []
    for r in run["results"]:
        if r["name"] in canaries:
            continue
        if r["name"] in named:
            ai = r["work"]["arithmetic_intensity"] if r.get("work") else 0
            canary = compute_canary if ai >= 10 else memory_canary
            factor = canary_centre[canary] / median_of(named[canary])
            r["samples"]["seconds_per_iteration"] = [s * factor for s in r["samples"]["seconds_per_iteration"]]
        kept.append(r)
    run["results"] = kept
    return run


def without_canaries(run):
    run = copy.deepcopy(run)
    run["results"] = [r for r in run["results"] if r["name"] not in canaries]
    return run


def spread(ways):
    """Median over benchmarks of the between-run standard deviation of log-medians."""
    names = set.intersection(*(set(by_name(r)) for r in ways))
    sds = [statistics.stdev(math.log(median_of(by_name(r)[n])) for r in ways) for n in sorted(names)]
    return statistics.median(sds), max(sds)


def gates(ways, label):
    files = []
    for i, run in enumerate(ways):
        path = os.path.join(out, f"{label}-{i}.json")
        json.dump(run, open(path, "w"))
        files.append(path)
    suites_failed = benchmarks_failed = benchmarks = 0
    pairs = list(itertools.combinations(files, 2))
    for a, b in pairs:
        verdicts = os.path.join(out, f"{label}-verdicts.json")
        subprocess.run([rooftop, "compare", a, b, "--json", verdicts], capture_output=True, text=True)
        v = [c["verdict"] for c in json.load(open(verdicts))["comparisons"]]
        fails = v.count("FAIL")
        suites_failed += fails > 0
        benchmarks_failed += fails
        benchmarks += len(v)
    return len(pairs), suites_failed, benchmarks_failed, benchmarks


raw = [without_canaries(r) for r in runs]
fixed = [corrected(r) for r in runs]
print(f"{len(runs)} A/A runs; canaries: compute {compute_canary}, memory {memory_canary}\n")
print("| reading | between-run sd of log-medians (median, max over benchmarks) | A/A suite gates with a FAIL | "
      "benchmarks FAILed |")
print("| --- | --- | ---: | ---: |")
for label, ways in (("raw", raw), ("canary", fixed)):
    med, worst = spread(ways)
    n, suites, fails, total = gates(ways, label)
    print(f"| {label} | {100 * med:.1f}%, {100 * worst:.1f}% | {suites} of {n} ({100 * suites / n:.0f}%) | "
          f"{fails} of {total} ({100 * fails / total:.2f}%) |")
