#!/usr/bin/env python3
"""Ctrl-C during `rooftop run` exits 130 and keeps the points that finished, in a valid file.

usage: interrupt_keeps_results.py ROOFTOP OUT_JSON
"""
import json
import os
import signal
import subprocess
import sys
import time

rooftop, out = sys.argv[1:3]
if os.path.exists(out):
    os.remove(out)
proc = subprocess.Popen([rooftop, "run", "--suite", "gemm", "--tier", "quick", "--dtype", "fp32", "--out", out],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
deadline = time.time() + 120
finished = 0
while time.time() < deadline and finished < 2:  # wait until two points are in the file
    time.sleep(0.2)
    try:
        with open(out) as f:
            finished = len(json.load(f)["results"])
    except (OSError, ValueError):
        pass
proc.send_signal(signal.SIGINT)
_, err = proc.communicate(timeout=120)
with open(out) as f:
    results = json.load(f)
kept = len(results["results"])
ok = proc.returncode == 130 and kept >= 2 and results["complete"] is False and "interrupted" in err
print(f"exit {proc.returncode}, {kept} results kept, complete={results['complete']}")
sys.exit(0 if ok else 1)
