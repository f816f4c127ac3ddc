#!/usr/bin/env python3
"""A GPU backend where its GPU is and where none is. With one, `info --backend B` describes
it. Without one, `info`, `characterize` and `run --backend B` exit 4 with the reason and the
way out, the backend's GEMM points can still be listed, and the CPU backend still runs.

usage: gpu_presence.py ROOFTOP cuda|hip
"""
import re
import subprocess
import sys

rooftop, backend = sys.argv[1], sys.argv[2]
# What each backend's absence names, and a point its quick tier lists.
REASON = {"cuda": r".+", "hip": r".*(AMD GPU|HIP).+"}[backend]
LISTED = {"cuda": "gemm/cuda/fp8/m8192_n8192_k8192", "hip": "gemm/hip/bf16/"}[backend]
GPU = {"cuda": "a GPU", "hip": "an AMD GPU"}[backend]


def run(*args):
    p = subprocess.run([rooftop, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


code, out = run("info", "--backend", backend)
if code == 0:
    assert re.search(rf"fingerprint: {backend}-", out), out
    print(f"{GPU} is here:\n{out}")
    sys.exit(0)
problems = []
if code != 4 or not re.search(rf"backend '{backend}' cannot run here: {REASON}; the cpu backend still runs", out):
    problems.append(f"info --backend {backend}: exit {code}, expected 4 and the reason:\n{out}")
for command in (["characterize", "--backend", backend, "--quick"],
                ["run", "--suite", "gemm", "--backend", backend, "--tier", "smoke"]):
    code, out = run(*command)
    if code != 4 or "cannot run here" not in out:
        problems.append(f"{' '.join(command)}: exit {code}, expected 4:\n{out}")
code, out = run("run", "--suite", "gemm", "--backend", "cpu", "--shape", "32x32x32", "--dtype", "fp32", "--repetitions", "2")
if code != 0:
    problems.append(f"the CPU backend did not run beside an absent GPU: exit {code}\n{out}")
code, out = run("list", "--suite", "gemm", "--backend", backend, "--tier", "quick")
if code != 0 or LISTED not in out:
    problems.append(f"the {backend} points cannot be listed without a GPU: exit {code}\n{out}")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"no {backend} GPU here: clear message, exit 4, CPU still runs, {backend} points listed")
