#!/usr/bin/env python3
"""Issue 52, results files the stores and the gate must not take at their word; each case
fails on 9605003.

n8  ROOFTOP_INJECT_SLOWDOWN: '0.05abc' was read as 0.05; a slowed run left no mark in its
    results, and `baseline update` and `history add` took it (exit 0). Now the value must be
    a number and nothing else (exit 2), the results say `injected_slowdown`, both commands
    refuse the run (exit 2; `history add --allow-injected` takes it), gate and compare read it.
n13 a results file (`run --out`) or stored baseline (`baseline update`) made 0600 became
    0644 at its next write; now a rewrite keeps the file's mode.
n14 20,000 samples in one point: compare took 55 s and 3 GB (the median of all 2 x 10^8 Walsh
    averages, and a median interval summed afresh for every rank); now compare, gate and
    report each take well under a second (CTest's TIMEOUT, 20 s, fails the old code).
n17 a results file created 2099-01-01 went into the history (exit 0) and stayed the newest
    night of its series for ever; now `history add` refuses a run dated more than a day
    ahead of the clock, or not in UTC as rooftop writes it (exit 2), and takes the next.

usage: results_cli.py ROOFTOP SOURCE_DIR WORK_DIR CASE
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402
from cli_checks import expect, fail  # noqa: E402

rooftop, source, work, case = sys.argv[1:5]
work = cli_checks.fresh_dir(os.path.join(work, case))
os.environ["ROOFTOP_HOME"] = os.path.join(work, "home")
for variable in ("ROOFTOP_BASELINES", "ROOFTOP_INJECT_SLOWDOWN", "ROOFTOP_INJECT_SLOWDOWN_MATCH"):
    os.environ.pop(variable, None)
kept = os.path.join(source, "docs", "results", "cpu-quick-gemm.json")
run = cli_checks.runner(rooftop)
# One small GEMM, briefly: what is checked is what the results say, not the times.
SMALL_RUN = ("run", "--suite", "gemm", "--shape", "64x64x64", "--dtype", "fp32", "--repetitions", "3",
             "--benchmark_min_time=0.01")


def n8():
    for value in ("0.05abc", "abc", "nan", "inf", "0", "10", " 0.05"):
        os.environ["ROOFTOP_INJECT_SLOWDOWN"] = value
        out = os.path.join(work, "refused.json")
        expect(2, f"ROOFTOP_INJECT_SLOWDOWN='{value}' is not a fraction", run(*SMALL_RUN, "--out", out))
        if os.path.exists(out):
            fail(f"ROOFTOP_INJECT_SLOWDOWN='{value}': results written for a refused run")
    os.environ["ROOFTOP_INJECT_SLOWDOWN"] = "0.5"
    os.environ["ROOFTOP_INJECT_SLOWDOWN_MATCH"] = "m64_"
    slowed = os.path.join(work, "slowed.json")
    expect(0, "injecting a 50.0% slowdown", run(*SMALL_RUN, "--out", slowed))
    del os.environ["ROOFTOP_INJECT_SLOWDOWN"], os.environ["ROOFTOP_INJECT_SLOWDOWN_MATCH"]
    mark = json.load(open(slowed)).get("injected_slowdown")
    if mark != {"fraction": 0.5, "match": "m64_"}:
        fail(f"the slowed run's results say injected_slowdown {mark!r}, not fraction 0.5 and match 'm64_'")
    said = "made with an injected slowdown (ROOFTOP_INJECT_SLOWDOWN=0.5 of the points matching 'm64_'"
    store = os.path.join(work, "store")
    expect(2, said, run("baseline", "update", slowed, "--baselines", store))
    if os.path.exists(store) and any(files for _, _, files in os.walk(store)):
        fail("baseline update wrote a baseline of the slowed run")
    db = os.path.join(work, "h.sqlite")
    expect(2, said, run("history", "add", slowed, "--db", db))
    expect(0, "1 benchmarks added", run("history", "add", "--allow-injected", slowed, "--db", db))
    # The gate and compare still read it (the calibration's comparisons) against a run
    # without the mark; a file written before the mark existed is taken as before.
    reference = os.path.join(work, "reference.json")
    expect(0, "m64_n64_k64", run(*SMALL_RUN, "--out", reference))
    if "injected_slowdown" in json.load(open(reference)):
        fail("a run without ROOFTOP_INJECT_SLOWDOWN says injected_slowdown")
    for got in (run("compare", reference, slowed), run("gate", slowed, "--baseline", reference)):
        if got[0] not in (0, 1, 6):
            fail(f"a slowed run was not read by the gate (exit {got[0]}):\n{got[1]}")
    expect(0, "benchmarks added", run("history", "add", reference, kept, "--db", os.path.join(work, "h2.sqlite")))


def mode(path):
    return os.stat(path).st_mode & 0o7777


def n13():
    os.umask(0o022)
    out = os.path.join(work, "o.json")
    open(out, "w").write("{}\n")
    os.chmod(out, 0o600)
    expect(0, "m64_n64_k64", run(*SMALL_RUN, "--out", out))
    if "results" not in json.load(open(out)) or mode(out) != 0o600:
        fail(f"run --out over a 0600 file left mode {mode(out):o}")
    store = os.path.join(work, "store")
    expect(0, "wrote", run("baseline", "update", kept, "--baselines", store))
    stored = [os.path.join(d, f) for d, _, files in os.walk(store) for f in files]
    if len(stored) != 1:
        fail(f"baseline update wrote {stored}, not one baseline")
    os.chmod(stored[0], 0o640)
    expect(0, "wrote", run("baseline", "update", kept, "--baselines", store))
    if mode(stored[0]) != 0o640:
        fail(f"baseline update over a 0640 baseline left mode {mode(stored[0]):o}")


def n14():
    base = json.load(open(kept))
    base["results"] = base["results"][:1]
    files = []
    for name, scale in (("a.json", 1.0), ("b.json", 1.01)):
        n = 20000
        # Deterministic spread of 2% (a coarse timer repeats values, as it does here).
        seconds = [1e-4 * scale * (1 + 0.02 * ((i * 7919) % 1000) / 1000) for i in range(n)]
        base["results"][0]["samples"] = {"seconds_per_iteration": seconds, "iterations": [100] * n, "clock_mhz": [0] * n}
        base["created"] = "2026-11-28T0%d:00:00Z" % len(files)
        files.append(os.path.join(work, name))
        json.dump(base, open(files[-1], "w"))
    a, b = files
    for got in (run("compare", a, b), run("gate", b, "--baseline", a),
                run("report", a, b, "-o", os.path.join(work, "r.html"))):
        if got[0] not in (0, 1, 6):
            fail(f"20,000 samples a point: exit {got[0]}\n{got[1]}")


def n17():
    db = os.path.join(work, "h.sqlite")
    night = json.load(open(kept))
    for created, said in (("2099-01-01T03:00:00Z", "created 2099-01-01T03:00:00Z is more than a day after this "
                                                    "machine's clock"),
                          ("yesterday", "created 'yesterday' is not a UTC time")):
        night["created"] = created
        odd = os.path.join(work, "odd.json")
        json.dump(night, open(odd, "w"))
        expect(2, said, run("history", "add", odd, "--db", db))
    expect(0, "benchmarks added", run("history", "add", kept, "--db", db))
    expect(0, "series", run("history", "check", "--db", db), absent="2099")


{"n8": n8, "n13": n13, "n14": n14, "n17": n17}[case]()
print(f"results {case}: ok")
