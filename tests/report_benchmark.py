#!/usr/bin/env python3
"""Benchmark, not a test: how long `rooftop report` takes for a large results file, and
how big the page is. The file is made from a real one, its results repeated under new
shape names (the work, samples and ceilings stay real) up to N results.

usage: report_benchmark.py ROOFTOP RESULTS.json [N]   (docs/PERFORMANCE.md records it)
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

rooftop, source = sys.argv[1:3]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
with open(source) as f:
    doc = json.load(f)
base = doc["results"]
doc["results"] = []
for i in range(n):
    r = copy.deepcopy(base[i % len(base)])
    r["shape"] = f"{r['shape']}_copy{i}"
    r["name"] = f"{r['family']}/{r['backend']}/{r['dtype']}/{r['shape']}"
    doc["results"].append(r)
with tempfile.TemporaryDirectory() as d:
    big = os.path.join(d, "big.json")
    with open(big, "w") as f:
        json.dump(doc, f)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([rooftop, "report", big, "-o", os.path.join(d, "big.html")], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    size = os.path.getsize(os.path.join(d, "big.html"))
times.sort()
print(f"{n} results: report in {times[len(times) // 2]:.3f} s (median of 5, min {times[0]:.3f} s), {size / 1e6:.2f} MB")
