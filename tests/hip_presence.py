#!/usr/bin/env python3
"""The HIP backend where no AMD GPU is (this project's machines): `info`, `characterize` and
`run --backend hip` exit 4 with the reason, GEMM points can still be listed, and the CPU
backend still runs. With an AMD GPU, `info --backend hip` describes it.

usage: hip_presence.py ROOFTOP
"""
import re
import subprocess
import sys

rooftop = sys.argv[1]


def run(*args):
    p = subprocess.run([rooftop, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


code, out = run("info", "--backend", "hip")
if code == 0:
    assert re.search(r"fingerprint: hip-", out), out
    print("an AMD GPU is here:\n" + out)
    sys.exit(0)
problems = []
reason = r"backend 'hip' cannot run here: .*(AMD GPU|HIP).+; the cpu backend still runs"
if code != 4 or not re.search(reason, out):
    problems.append(f"info --backend hip: exit {code}, expected 4 and the reason:\n{out}")
code, out = run("characterize", "--backend", "hip", "--quick")
if code != 4 or "cannot run here" not in out:
    problems.append(f"characterize --backend hip: exit {code}, expected 4:\n{out}")
code, out = run("run", "--suite", "gemm", "--backend", "hip", "--tier", "smoke")
if code != 4 or "cannot run here" not in out:
    problems.append(f"run --backend hip: exit {code}, expected 4:\n{out}")
code, out = run("run", "--suite", "gemm", "--backend", "cpu", "--shape", "32x32x32", "--dtype", "fp32", "--repetitions", "2")
if code != 0:
    problems.append(f"the CPU backend did not run beside an absent GPU: exit {code}\n{out}")
code, out = run("list", "--suite", "gemm", "--backend", "hip", "--tier", "quick")
if code != 0 or "gemm/hip/bf16/" not in out:
    problems.append(f"the HIP points cannot be listed without a GPU: exit {code}\n{out}")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("no AMD GPU here: clear message, exit 4, CPU still runs, HIP points listed")
