#!/usr/bin/env python3
"""Renders reports with `rooftop report` and checks them in headless Chromium.

1. The committed quick-tier results: no script errors, one point per plotted result, the
   table sorts, a row finds its point; a screenshot.
2. Two results files of different devices (the second a copy under another fingerprint, a
   test fixture): the comparison view is there, with one chart per device.
3. Bad input: a corrupt file fails naming it, and writes nothing.

usage: run_browser_test.py ROOFTOP RESULTS.json OUT_DIR   (exit 4: no Chromium, SKIP)
"""
import copy
import json
import os
import subprocess
import sys

rooftop, results_path, out = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)
problems = []

report = os.path.join(out, "report.html")
subprocess.run([rooftop, "report", results_path, "-o", report], check=True)
with open(results_path) as f:
    results = json.load(f)
plotted = sum(1 for r in results["results"] if r["throughput"] is not None)
size = os.path.getsize(report)
if size > 10 * 1024 * 1024:
    problems.append(f"report is {size} bytes")
node = subprocess.run(["node", os.path.join(here, "report_test.js"), report, str(plotted), os.path.join(out, "report.png")],
                      capture_output=True, text=True, cwd=here)
print(node.stdout + node.stderr)
if node.returncode == 4:
    sys.exit(4)
if node.returncode != 0:
    problems.append("browser checks failed")

other = copy.deepcopy(results)
other["device"]["fingerprint"] = "cpu-test-fixture-other-device-64c-00000000"
for r in other["results"]:
    r["samples"]["seconds_per_iteration"] = [s / 2 for s in r["samples"]["seconds_per_iteration"]]
other_path = os.path.join(out, "other-device.json")
with open(other_path, "w") as f:
    json.dump(other, f)
both = os.path.join(out, "comparison.html")
subprocess.run([rooftop, "report", results_path, other_path, "-o", both,
                "--price", "cpu-test-fixture-other-device-64c-00000000=20000"], check=True)
with open(both) as f:
    html = f.read()
if "Machine comparison" not in html or html.count('<svg class="roofline"') != 2 or "x2.00" not in html:
    problems.append("comparison report lacks the comparison view, two charts or the x2.00 ratio")

corrupt = os.path.join(out, "corrupt.json")
with open(corrupt, "w") as f:
    f.write('{"schema": 1, "results": [')
target = os.path.join(out, "must-not-exist.html")
bad = subprocess.run([rooftop, "report", corrupt, "-o", target], capture_output=True, text=True)
if bad.returncode != 2 or "corrupt.json" not in bad.stderr or os.path.exists(target):
    problems.append(f"corrupt input: exit {bad.returncode}, message {bad.stderr!r}, file written {os.path.exists(target)}")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print("browser test: all checks passed")
