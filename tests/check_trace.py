#!/usr/bin/env python3
"""Runs `rooftop run ... --trace FILE` and checks the trace as Perfetto and chrome://tracing
read it: a JSON object with traceEvents; metadata events naming each process; complete
("X") events with numeric ts and dur >= 0; every stage inside its layer and every layer
inside its forward (same process, same forward), so the slices nest.

usage: check_trace.py TRACE_JSON -- ROOFTOP RUN_ARGS...
"""
import json
import subprocess
import sys

trace = sys.argv[1]
command = sys.argv[sys.argv.index("--") + 1:]
proc = subprocess.run(command + ["--trace", trace], capture_output=True, text=True, timeout=600)
if proc.returncode != 0:
    sys.exit(f"run failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
with open(trace) as f:
    doc = json.load(f)
problems = []
events = doc.get("traceEvents")
if not isinstance(events, list) or not events:
    sys.exit("no traceEvents list")
names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
spans = [e for e in events if e.get("ph") == "X"]
for e in spans:
    if not all(k in e for k in ("name", "ts", "dur", "pid", "tid")):
        problems.append(f"event without name/ts/dur/pid/tid: {e}")
    elif not isinstance(e["ts"], (int, float)) or not isinstance(e["dur"], (int, float)) or e["dur"] < 0:
        problems.append(f"bad ts/dur: {e}")
    elif e["pid"] not in names:
        problems.append(f"pid {e['pid']} has no process_name")


def inside(inner, outer):
    return outer["ts"] <= inner["ts"] + 1e-3 and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-3


# Nesting within a track: a point's process, its thread (one a rank where several ran it).
for e in spans:
    key = (e["pid"], e["tid"], e["args"]["forward"])
    if e["name"] == "forward":
        continue
    forwards = [f for f in spans if f["name"] == "forward" and (f["pid"], f["tid"], f["args"]["forward"]) == key]
    if len(forwards) != 1 or not inside(e, forwards[0]):
        problems.append(f"{e['name']} (pid {e['pid']}, tid {e['tid']}, forward {key[2]}) is not inside exactly one forward")
    if "layer" in e["args"] and e["name"] != "layer":
        layers = [l for l in spans if l["name"] == "layer" and (l["pid"], l["tid"], l["args"]["forward"]) == key
                  and l["args"]["layer"] == e["args"]["layer"]]
        if len(layers) != 1 or not inside(e, layers[0]):
            problems.append(f"{e['name']} of layer {e['args']['layer']} is not inside its layer")
stages = {e["name"] for e in spans}
for needed in ("forward", "layer", "qkv", "attention", "lm_head"):
    if needed not in stages:
        problems.append(f"no '{needed}' slice")
for p in problems[:20]:
    print("FAIL:", p)
print(f"trace: {len(spans)} slices in {len(names)} processes; {'valid' if not problems else f'{len(problems)} problem(s)'}")
sys.exit(1 if problems else 0)
