#!/usr/bin/env python3
"""One Ctrl-C ends a serve point while it waits for an arrival far away (issue 52, N2): exit
130 within a second or two, the results file valid and marked incomplete. The wait was one sleep to
the arrival, and the interrupt was seen only when the repetition ended (here, minutes later).

usage: serve_wait_interrupt.py ROOFTOP WORK_DIR"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import fresh_dir  # noqa: E402

rooftop, work = sys.argv[1], fresh_dir(sys.argv[2])
out = os.path.join(work, "serve.json")
# 0.01 requests/s: the warm-up's first request arrives about 100 s in.
proc = subprocess.Popen([rooftop, "run", "--suite", "inference", "--dtype", "fp32", "--repetitions", "1", "--shape",
                         "tiny:serve:0.01x2:fixed=16/6:window=0", "--out", out],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def cpu_ticks(pid):
    """User and system time of the process so far, in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


# The file is written empty once the run has planned and taken over SIGINT; then the point is
# set up and checked (seconds on a busy machine), and waits: its CPU time stops growing.
deadline = time.monotonic() + 120
while not os.path.exists(out) and time.monotonic() < deadline and proc.poll() is None:
    time.sleep(0.05)
idle_since, ticks = time.monotonic(), -1
while time.monotonic() < deadline and proc.poll() is None and time.monotonic() - idle_since < 0.5:
    now = cpu_ticks(proc.pid)
    if now != ticks:
        idle_since, ticks = time.monotonic(), now
    time.sleep(0.05)
sent = time.monotonic()
proc.send_signal(signal.SIGINT)
try:
    _, err = proc.communicate(timeout=20)
except subprocess.TimeoutExpired:
    proc.kill()
    sys.exit("FAIL: still running 20 s after one SIGINT")
took = time.monotonic() - sent
results = json.load(open(out))
print(f"exit {proc.returncode} {took:.2f} s after the SIGINT; complete={results['complete']}")
if proc.returncode != 130 or took > 2 or results["complete"] is not False:
    sys.exit(f"FAIL: expected exit 130 within 2 s and an incomplete results file\n{err}")
