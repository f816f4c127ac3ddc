#!/usr/bin/env python3
"""Sums an `ncu --csv` log of one decode step by kernel kind: launches, time, DRAM bytes.

usage: ncu_table.py NCU.csv [step_ms]
Each kernel's time here is its own, measured alone (ncu serialises launches), so the sum
against the step's measured time says how much the launches overlap or wait on each other.
"""
import csv
import re
import sys
from collections import OrderedDict


def kind(name):
    """The kernel's own name: namespaces, template and call arguments dropped."""
    name = re.sub(r"^void ", "", name)
    depth, plain = 0, ""
    for ch in name:  # drop <...> (nested) and (...) groups
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            plain += ch
    return plain.split("::")[-1].strip() or name


def main():
    rows = OrderedDict()
    kernels = {}
    with open(sys.argv[1], newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for r in csv.DictReader(lines):
        kernels.setdefault(r["ID"], {"name": r["Kernel Name"]})[r["Metric Name"]] = (r["Metric Unit"], r["Metric Value"])
    scale = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0,
             "second": 1.0, "byte": 1, "Kbyte": 1e3, "KB": 1e3, "Mbyte": 1e6, "MB": 1e6, "Gbyte": 1e9, "GB": 1e9}
    def value(k, metric):
        unit, v = k.get(metric, ("", "0"))
        return float(v.replace(",", "")) * scale.get(unit, 1)
    total_t = total_b = 0
    for k in kernels.values():
        t = value(k, "gpu__time_duration.sum")
        if "gemv_kernel" in k["name"]:  # one row per GEMV size: which projection it is
            k["name"] = f"gemv_kernel grid {k.get('launch__grid_size', ('', '?'))[1]}"
        b = value(k, "dram__bytes_read.sum") + value(k, "dram__bytes_write.sum")
        e = rows.setdefault(kind(k["name"]), [0, 0.0, 0.0])
        e[0] += 1
        e[1] += t
        e[2] += b
        total_t += t
        total_b += b
    print(f"{'kernel':<34} {'launches':>8} {'time us':>9} {'share':>6} {'DRAM MB':>9} {'TB/s':>6}")
    for name, (n, t, b) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        print(f"{name[:34]:<34} {n:>8} {t * 1e6:>9.1f} {t / total_t:>6.1%} {b / 1e6:>9.1f} {b / t / 1e12 if t else 0:>6.2f}")
    print(f"{'sum':<34} {len(kernels):>8} {total_t * 1e6:>9.1f} {'':>6} {total_b / 1e6:>9.1f} {total_b / total_t / 1e12:>6.2f}")
    if len(sys.argv) > 2:
        step = float(sys.argv[2]) * 1e-3
        print(f"measured step {step * 1e6:.1f} us: the kernels alone sum to {total_t / step:.1%} of it")


if __name__ == "__main__":
    main()
