#!/usr/bin/env python3
"""Issue 52, paths that name the wrong thing: each refused with exit 2 and the path named.

n7  an output onto the device profile the run reads by default (it replaced the profile), and
    --trace o.json with --out ./o.json (one spelling relative, one not: the trace was lost).
n9  a baseline store ($ROOFTOP_BASELINES, --baselines, gate's --baseline) that is a file: exit
    3 "no baseline" before (perf-test's SKIP), now 2 "is not a folder", for every command.
n10 `history add` with ROOFTOP_HOME a file, `ab --dir` under a file: a raw filesystem error,
    exit 1, before.

usage: paths_cli.py ROOFTOP SOURCE_DIR WORK_DIR CASE
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cli_checks  # noqa: E402
from cli_checks import expect, fail  # noqa: E402

rooftop, source, work, case = cli_checks.case_setup(sys.argv)
home = os.environ["ROOFTOP_HOME"]
results = os.path.join(source, "docs", "results", "cpu-quick-gemm.json")
run = cli_checks.runner(rooftop)


def n7():
    code, out = run("info")
    match = re.search(r"fingerprint: (\S+)", out)
    if code != 0 or not match:
        fail(f"rooftop info gives no fingerprint: exit {code}\n{out}")
    profile = os.path.join(home, "profiles", match.group(1) + ".json")
    os.makedirs(os.path.dirname(profile))
    # A profile of this machine (another's ceilings, its fingerprint): the run reads it.
    kept = json.load(open(os.path.join(source, "docs", "results", "cpu-profile.json")))
    kept["fingerprint"] = match.group(1)
    json.dump(kept, open(profile, "w"))
    before = open(profile).read()
    expect(2, "is the same file as the device profile", run("run", "--suite", "gemm", "--shape", "64x64x64", "--dtype",
                                                            "fp32", "--out", profile))
    if open(profile).read() != before:
        fail("the device profile was written over")
    # Two outputs, neither there yet, spelt differently: refused before anything is read.
    os.chdir(work)
    expect(2, "are the same file", run("run", "--suite", "inference", "--shape", "tiny:prefill:1x8", "--dtype", "fp32",
                                       "--stages", "--trace", "o.json", "--out", "./o.json"))
    if os.path.exists("o.json"):
        fail("o.json was written for a refused run")


def n9():
    not_a_folder = os.path.join(work, "bf")
    open(not_a_folder, "w").write("")
    said = "baseline store " + not_a_folder + " is not a folder"
    expect(2, said, run("gate", results, "--baseline", not_a_folder))
    expect(2, said, run("baseline", "show", "--baselines", not_a_folder))
    expect(2, said, run("baseline", "update", results, "--baselines", not_a_folder))
    expect(2, said, run("perf-test", "--suite", "gemm", "--baselines", not_a_folder, "--out", os.path.join(work, "pt")),
           absent="SKIP")
    os.environ["ROOFTOP_BASELINES"] = not_a_folder
    expect(2, said, run("gate", results))
    if open(not_a_folder).read() != "":
        fail("the file named as the store was written")


def n10():
    not_a_folder = os.path.join(work, "home-is-a-file")
    open(not_a_folder, "w").write("")
    os.environ["ROOFTOP_HOME"] = not_a_folder
    expect(2, "cannot make its folder " + not_a_folder, run("history", "add", results), absent="filesystem error")
    # ab's folder for its runs, under a file: the same raw error before.
    under = os.path.join(not_a_folder, "runs")
    expect(2, f"--dir {under}: cannot make the folder", run("ab", "--a", rooftop, "--b", rooftop, "--dir", under, "--",
                                                             "--suite", "gemm"), absent="filesystem error")


{"n7": n7, "n9": n9, "n10": n10}[case]()
print(f"paths {case}: ok")
