#!/usr/bin/env python3
"""Do two results files hold the same points with the same fields? For a refactoring:
run the same command (same --seed) before and after, then compare. Timings, dates and the
build may differ; names, the key structure of every object, parameters, work, status and
the correctness verdict may not.

usage: same_results_layout.py BEFORE.json AFTER.json"""
import json
import sys

VARYING = {"created", "rooftop", "command", "samples", "summary", "throughput", "roofline", "host", "clock_mhz"}


def keys(value, path=""):
    """Every key path in `value` (lists: the union over their elements)."""
    out = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(f"{path}.{k}")
            out |= keys(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            out |= keys(v, f"{path}[]")
    return out


def main(before_path, after_path):
    before, after = (json.load(open(p)) for p in (before_path, after_path))
    problems = []
    if keys(before) != keys(after):
        problems.append(f"fields only before: {sorted(keys(before) - keys(after))}; "
                        f"only after: {sorted(keys(after) - keys(before))}")
    b = {r["name"]: r for r in before["results"]}
    a = {r["name"]: r for r in after["results"]}
    if set(b) != set(a):
        problems.append(f"points only before: {sorted(set(b) - set(a))}; only after: {sorted(set(a) - set(b))}")
    for name in sorted(set(a) & set(b)):
        for field in ("family", "backend", "dtype", "shape", "params", "work", "status", "implementation"):
            if b[name].get(field) != a[name].get(field):
                problems.append(f"{name}: {field} was {b[name].get(field)!r}, is {a[name].get(field)!r}")
        cb, ca = b[name].get("correctness") or {}, a[name].get("correctness") or {}
        for field in ("passed", "elements_checked", "elements_total", "tolerance"):
            if cb.get(field) != ca.get(field):
                problems.append(f"{name}: correctness.{field} was {cb.get(field)!r}, is {ca.get(field)!r}")
    for run in (before, after):  # process ids differ run to run
        run.get("device", {}).get("properties", {}).pop("placement", None)
    for k in before:
        if k not in VARYING and k != "results" and before[k] != after.get(k):
            problems.append(f"{k} differs: {before[k]!r} vs {after.get(k)!r}")
    for p in problems:
        print(p)
    print(f"{len(a)} points; {'the same layout' if not problems else f'{len(problems)} difference(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
