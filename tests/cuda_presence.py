#!/usr/bin/env python3
"""The CUDA backend where a GPU is and where none is: with a GPU, `info --backend cuda`
describes it; without one, `info` and `run --backend cuda` exit 4 with the reason and the
way out, and the CPU backend still runs.

usage: cuda_presence.py ROOFTOP
"""
import re
import subprocess
import sys

rooftop = sys.argv[1]


def run(*args):
    p = subprocess.run([rooftop, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


code, out = run("info", "--backend", "cuda")
if code == 0:
    assert re.search(r"fingerprint: cuda-", out), out
    print("a GPU is here:\n" + out)
    sys.exit(0)
problems = []
if code != 4 or not re.search(r"backend 'cuda' cannot run here: .+; the cpu backend still runs", out):
    problems.append(f"info --backend cuda: exit {code}, expected 4 and the reason:\n{out}")
code, out = run("run", "--suite", "gemm", "--backend", "cuda", "--tier", "smoke")
if code != 4 or "cannot run here" not in out:
    problems.append(f"run --backend cuda: exit {code}, expected 4:\n{out}")
code, out = run("run", "--suite", "gemm", "--backend", "cpu", "--shape", "32x32x32", "--dtype", "fp32", "--repetitions", "2")
if code != 0:
    problems.append(f"the CPU backend did not run beside an absent GPU: exit {code}\n{out}")
code, out = run("list", "--suite", "gemm", "--backend", "cuda", "--tier", "quick")
if code != 0 or "gemm/cuda/fp8/m8192_n8192_k8192" not in out:
    problems.append(f"the CUDA points cannot be listed without a GPU: exit {code}\n{out}")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("no GPU here: clear message, exit 4, CPU still runs, CUDA points listed")
