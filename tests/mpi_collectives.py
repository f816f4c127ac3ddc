#!/usr/bin/env python3
"""The CPU collectives under `mpirun -np 2` (perf, mpi): every point of the smoke tier runs and
passes its exact check on both ranks, rank 0 writes a file that validates against the
schema with both ranks' placement, and ranks given different dtypes are refused (exit 2)
instead of deadlocking.

usage: mpi_collectives.py ROOFTOP SCHEMA_DIR OUT_DIR   (exit 4: no mpirun, SKIP)
"""
import json
import os
import shutil
import subprocess
import sys

rooftop, schema_dir, out = sys.argv[1:4]
mpirun = shutil.which("mpirun")
if not mpirun:
    print("mpirun not found: install openmpi-bin (ci/install-deps.sh does)")
    sys.exit(4)
os.makedirs(out, exist_ok=True)
# Root and oversubscription: CI runs as root on 2 cores.
launch = [mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2"]
problems = []

results = os.path.join(out, "collectives-cpu-smoke.json")
proc = subprocess.run(launch + [rooftop, "run", "--suite", "collectives", "--backend", "cpu", "--tier", "smoke",
                                "--out", results], capture_output=True, text=True, timeout=600)
print(proc.stdout[-3000:], proc.stderr[-3000:])
if proc.returncode != 0:
    problems.append(f"mpirun rooftop run exited {proc.returncode}")
else:
    with open(results) as f:
        data = json.load(f)
    try:
        import jsonschema
        with open(os.path.join(schema_dir, "results.schema.json")) as f:
            jsonschema.validate(data, json.load(f))
    except ImportError:
        problems.append("python3-jsonschema is missing")
    except jsonschema.ValidationError as e:
        problems.append(f"schema: {e.message}")
    props = data["device"]["properties"]
    if props.get("ranks") != 2 or len(props.get("placement", [])) != 2:
        problems.append(f"expected 2 ranks with their placement, got {props.get('ranks')}, {props.get('placement')}")
    names = set()
    for r in data["results"]:
        names.add(r["params"]["collective"])
        if r["status"] != "ok":
            problems.append(f"{r['name']}: {r['status']} {r['reason']}")
        elif r["correctness"]["elements_checked"] == 0:
            problems.append(f"{r['name']}: nothing checked")
        elif r["params"]["bus_factor"] > 0 and "bus_bytes_per_s" not in r["throughput"]:
            problems.append(f"{r['name']}: no busbw")
    if len(names) != 7:
        problems.append(f"expected the 7 collectives, got {sorted(names)}")

# Ranks with different arguments would deadlock: they must be refused.
mismatch = subprocess.run(launch + ["sh", "-c", f'exec {rooftop} run --suite collectives --backend cpu --tier smoke '
                                    '--dtype $([ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo fp32 || echo bf16)'],
                          capture_output=True, text=True, timeout=120)
if mismatch.returncode == 0 or "same arguments" not in mismatch.stderr:
    problems.append(f"mismatched ranks: exit {mismatch.returncode}, stderr {mismatch.stderr[-500:]}")

for p in problems:
    print("FAIL:", p)
print("mpi collectives:", "all checks passed" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
