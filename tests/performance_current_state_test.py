#!/usr/bin/env python3
"""ci/performance-current-state.py takes each headline point's newest committed run: a
results file of one H200 and a newer run of the same point in another file; the table must
show the newer one's median and file, and a run made with an injected slowdown never.

usage: performance_current_state_test.py SOURCE_DIR OUT_DIR
"""
import json
import os
import shutil
import subprocess
import sys

source, out = sys.argv[1:3]
results = os.path.join(out, "docs", "results")
shutil.rmtree(out, ignore_errors=True)
os.makedirs(os.path.join(results, "later"))
older = json.load(open(os.path.join(source, "docs", "results", "cuda", "h200-quick-gemm.json")))
point = "gemm/cuda/bf16/m4096_n4096_k4096"
newer = json.loads(json.dumps(older))
newer["created"] = "2099-01-01T00:00:00Z"
newer["results"] = [r for r in newer["results"] if r["name"] == point]
newer["results"][0]["summary"]["median_s"] = 1.234e-4
injected = json.loads(json.dumps(newer))
injected["created"] = "2099-02-01T00:00:00Z"
injected["injected_slowdown"] = {"fraction": 0.05, "match": point}
injected["results"][0]["summary"]["median_s"] = 9.999e-4
for path, run in (("h200.json", older), ("later/h200-again.json", newer), ("later/h200-injected.json", injected)):
    json.dump(run, open(os.path.join(results, path), "w"))
table = subprocess.run([sys.executable, os.path.join(source, "ci", "performance-current-state.py"), out],
                       capture_output=True, text=True, check=True).stdout
row = [line for line in table.splitlines() if "`m4096_n4096_k4096`" in line]
print(table)
problems = []
if len(row) != 1 or "123.4 us" not in row[0]:
    problems.append(f"the newer run's 123.4 us is not the H200 row: {row}")
if "later/h200-again.json" not in table or "h200-injected" in table:
    problems.append("the table does not name the newer file, or names the injected one")
for p in problems:
    print("FAILED:", p)
sys.exit(1 if problems else 0)
