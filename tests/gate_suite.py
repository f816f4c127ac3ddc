#!/usr/bin/env python3
"""The perf gate of one suite and backend, for `ctest -L perf`: skips (exit 3) with the exact
command to make a baseline when this machine has none (or its GPU is absent); otherwise runs the suite at the
quick tier and gates it against the stored baseline (exit 0 pass, 1 regression).

usage: gate_suite.py ROOFTOP STORE SUITE BACKEND OUT_DIR
"""
import os
import subprocess
import sys

rooftop, store, suite, backend, out = sys.argv[1:6]
os.makedirs(out, exist_ok=True)
show = subprocess.run([rooftop, "baseline", "show", "--suite", suite, "--backend", backend, "--baselines", store],
                      capture_output=True, text=True)
print(show.stdout + show.stderr)
if show.returncode in (3, 4):
    sys.exit(3)  # CTest: SKIP (no baseline here, or the backend's device is not here)
if show.returncode != 0:
    sys.exit(show.returncode)
results = os.path.join(out, f"gate-{suite}-{backend}.json")
# Google Benchmark interleaves the repetitions of its kernel loop; suites with a loop of their
# own (collectives, inference) refuse the flag.
listing = subprocess.run([rooftop, "list"], capture_output=True, text=True).stdout.split("\n")
measured = next((listing[i + 1] for i, line in enumerate(listing[:-1]) if line.split()[:1] == [suite]), "")
interleave = ["--benchmark_enable_random_interleaving=true"] if "measured: kernel loop" in measured else []
run = subprocess.run([rooftop, "run", "--suite", suite, "--backend", backend, "--tier", "quick", *interleave,
                      "--out", results], text=True)
if run.returncode not in (0, 1):
    sys.exit(run.returncode)
gate = subprocess.run([rooftop, "gate", "--baseline", store, results,
                       "--markdown", os.path.join(out, f"gate-{suite}-{backend}.md"),
                       "--junit", os.path.join(out, f"gate-{suite}-{backend}.xml")], text=True)
sys.exit(1 if run.returncode == 1 else gate.returncode)
