#!/usr/bin/env python3
"""Concurrent `baseline update --append` into one store (issue 52, N3): eight appends started
at once each keep their run (the store's lock serialises them), and each says it wrote.
Without the lock two appends read the same old baseline and the later rename dropped the
other's run: 2 of 9 runs were left.

usage: baseline_concurrent_appends.py ROOFTOP RESULTS.json WORK_DIR"""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import fresh_dir  # noqa: E402

rooftop, results, work = sys.argv[1], sys.argv[2], fresh_dir(sys.argv[3])
store = os.path.join(work, "store")
run = json.load(open(results))
nights = []
for i in range(9):
    run["created"] = f"2026-01-01T00:00:{i:02d}Z"
    path = os.path.join(work, f"n{i}.json")
    json.dump(run, open(path, "w"))
    nights.append(path)
subprocess.run([rooftop, "baseline", "update", "--baselines", store, nights[0]], check=True, capture_output=True)
appends = [subprocess.Popen([rooftop, "baseline", "update", "--baselines", store, "--append", n],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for n in nights[1:]]
problems = []
for p in appends:
    out, _ = p.communicate(timeout=240)
    if p.returncode != 0 or "wrote" not in out:
        problems.append(f"an append exited {p.returncode}: {out}")
files = glob.glob(os.path.join(store, "*", "gemm.json"))
runs = json.load(open(files[0]))["baseline"]["runs"] if files else []
created = sorted(r["created"] for r in runs)
print(f"{len(appends)} concurrent appends: {len(runs)} runs in the baseline")
if len(runs) != 9 or len(set(created)) != 9:
    problems.append(f"expected the 9 runs, found {len(runs)}: {created}")
# The lock is the store folder's own: nothing is left beside the baselines.
left = [f for f in os.listdir(store) if f.startswith(".")]
if left:
    problems.append(f"files left in the store's folder: {left}")
for p in problems:
    print("FAILED:", p)
sys.exit(1 if problems else 0)
