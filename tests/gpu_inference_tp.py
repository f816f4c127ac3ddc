#!/usr/bin/env python3
"""Tensor-parallel inference over NCCL on 2 GPUs (gpu): `rooftop run --ranks 2 --backend cuda`
of tp2 points passes each point's check against the double-precision reference; a generation
at tp2 gives the greedy tokens of tp1 (bf16, the same seed: the same weights) for the tiny
model (the generic kernels) and the 1B's layout (the split-KV kernel, a graph, the fused
step); --stages gives each all-reduce a point with its bus bandwidth. The tp2 runs go twice:
the one-shot all-reduce over peer memory (ROOFTOP_TP_ALL_REDUCE=peer; its decode steps, NCCL's
for the prompts) and NCCL's alone; each implementation text must name the one it ran.

usage: gpu_inference_tp.py ROOFTOP OUT_DIR   (exit 4: fewer than 2 GPUs, SKIP)
"""
import json
import os
import subprocess
import sys

rooftop, out = sys.argv[1:3]
try:
    gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout.count("GPU ")
except (OSError, subprocess.TimeoutExpired):
    gpus = 0
if gpus < 2:
    print(f"{gpus} GPU(s) visible: tensor parallel over NCCL needs 2")
    sys.exit(4)
os.makedirs(out, exist_ok=True)
env = dict(os.environ, NCCL_NVLS_ENABLE="0")
common = ["run", "--suite", "inference", "--backend", "cuda", "--dtype", "bf16", "--seed", "7", "--repetitions", "1",
          "--comm-timeout", "60"]
generates = ["tiny:generate:2x16x8", "llama-3.2-1b:generate:2x16x8:graph"]
problems = []


def run(cmd, timeout=600, **knobs):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(env, **knobs))
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


def check_tp2(algorithm, single):
    two = os.path.join(out, f"tp2-{algorithm}.json")
    p2 = run([rooftop] + common[:1] + ["--ranks", "2"] + common[1:] +
             ["--stages", "--shape", ",".join(g + ":tp2" for g in generates + ["llama-3.2-1b:decode:1x256:graph:fused"]),
              "--out", two], ROOFTOP_TP_ALL_REDUCE=algorithm)
    if p2.returncode != 0:
        problems.append(f"tp2 ({algorithm}) exited {p2.returncode}")
        return
    with open(two) as f:
        data = json.load(f)
    points = {r["name"]: r for r in data["results"] if "stage" not in r["params"]}
    said = {"peer": "one-shot all-reduce over peer memory for", "nccl": "NCCL's all-reduce (no one-shot"}[algorithm]
    for name, r in points.items():
        if r["status"] != "ok" or not r["correctness"]["passed"] or r["correctness"]["elements_checked"] == 0:
            problems.append(f"{name} ({algorithm}): {r['status']} {r['reason']} {r.get('correctness', {}).get('worst_element')}")
        elif "tp2" not in r["implementation_label"]:
            problems.append(f"{name}: implementation {r['implementation_label']!r} does not say tp2")
        elif said not in r["implementation"]:
            problems.append(f"{name}: implementation does not say {said!r}: {r['implementation'][-400:]}")
    for name, ref in single.items():
        got = points.get(name + "_tp2")
        if not got:
            problems.append(f"no tp2 twin of {name}: {sorted(points)}")
        elif got["outputs"]["greedy_tokens"] != ref["outputs"]["greedy_tokens"]:
            problems.append(f"{name} ({algorithm}): tp2 tokens {got['outputs']['greedy_tokens']} != tp1 "
                            f"{ref['outputs']['greedy_tokens']}")
    reduces = [r for r in data["results"] if r["params"].get("stage", "").endswith("_all_reduce")]
    if not reduces:
        problems.append("no all-reduce stage points")
    for r in reduces:
        if r["status"] != "ok" or r["params"].get("collective") != "all_reduce" or "bus_bytes_per_s" not in r["throughput"]:
            problems.append(f"{r['name']}: no all-reduce bus bandwidth: {r['status']} {r.get('throughput')}")
    print(f"tp2 with {algorithm}: {len(points)} points checked")


one = os.path.join(out, "tp1.json")
p1 = run([rooftop] + common + ["--shape", ",".join(generates), "--out", one])
if p1.returncode != 0:
    problems.append(f"tp1 exited {p1.returncode}")
else:
    with open(one) as f:
        single = {r["name"]: r for r in json.load(f)["results"]}
    for algorithm in ("peer", "nccl"):
        check_tp2(algorithm, single)

for p in problems:
    print("FAIL:", p)
print("gpu tensor parallel:", "all checks passed" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
