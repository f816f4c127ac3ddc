#!/usr/bin/env python3
"""The CPU collectives under `mpirun -np 2` (perf, mpi): every point of the smoke tier runs and
passes its exact check on both ranks, rank 0 writes a file that validates against the
schema with both ranks' placement; ranks given different dtypes are refused (exit 2)
instead of deadlocking; and a rank that hangs (SIGSTOP) ends the job with exit 5 within
the communicator timeout, the finished points kept.

usage: mpi_collectives.py ROOFTOP SCHEMA_DIR OUT_DIR   (exit 4: no mpirun, SKIP)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

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

# Small points right after large points of other collectives (the order that once read wrong
# data on two GPUs): every point exact on both ranks.
order = os.path.join(out, "collectives-large-then-small.json")
proc = subprocess.run(launch + [rooftop, "run", "--suite", "collectives", "--backend", "cpu", "--dtype", "bf16",
                                "--shape", "all_reduce:64M,all_gather:1M,alltoall:64M,reduce_scatter:1M,all_gather:64M,"
                                "sendrecv:1M,reduce_scatter:64M,all_reduce:1M,sendrecv:64M,alltoall:1M",
                                "--repetitions", "1", "--min-time", "0.001", "--out", order],
                      capture_output=True, text=True, timeout=600)
if proc.returncode != 0:
    problems.append(f"large-then-small sweep exited {proc.returncode}: {proc.stderr[-800:]}")
else:
    with open(order) as f:
        points = json.load(f)["results"]
    if len(points) != 10:
        problems.append(f"large-then-small sweep: {len(points)} points, expected 10")
    for r in points:
        if r["status"] != "ok" or r["correctness"]["elements_checked"] == 0:
            problems.append(f"large-then-small sweep: {r['name']}: {r['status']} {r['reason']}")

# Ranks with different arguments would deadlock: they must be refused.
mismatch = subprocess.run(launch + ["sh", "-c", f'exec {rooftop} run --suite collectives --backend cpu --tier smoke '
                                    '--dtype $([ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo fp32 || echo bf16)'],
                          capture_output=True, text=True, timeout=120)
if mismatch.returncode == 0 or "same arguments" not in mismatch.stderr:
    problems.append(f"mismatched ranks: exit {mismatch.returncode}, stderr {mismatch.stderr[-500:]}")
# Ranks with other counts of the same points: another rank count of repetitions would wait
# forever, another minimum time would call the collective a different number of times.
for flag, mine, theirs in (("--repetitions", "2", "5"), ("--min-time", "0.001", "0.2")):
    counts = subprocess.run(launch + ["sh", "-c", f'exec {rooftop} run --suite collectives --backend cpu --tier smoke '
                                      f'--shape all_reduce:1K --comm-timeout 10 {flag} '
                                      f'$([ "$OMPI_COMM_WORLD_RANK" = 0 ] && echo {mine} || echo {theirs})'],
                            capture_output=True, text=True, timeout=120)
    if counts.returncode != 2 or "same arguments" not in counts.stderr:
        problems.append(f"ranks with other {flag}: exit {counts.returncode}, stderr {counts.stderr[-500:]}")

# A hung rank: stop rank 1 once the first points are saved; the other must give up within
# --comm-timeout and the launcher end the job, keeping what finished.
hang = os.path.join(out, "collectives-hang.json")
if os.path.exists(hang):
    os.remove(hang)
job = subprocess.Popen(launch + [rooftop, "run", "--suite", "collectives", "--backend", "cpu", "--shape", "all_reduce:4K-64M:f4",
                                 "--repetitions", "50", "--min-time", "0.05", "--comm-timeout", "5", "--out", hang],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
stopped = None
deadline = time.time() + 60
while time.time() < deadline and job.poll() is None and stopped is None:
    time.sleep(0.2)
    try:
        with open(hang) as f:
            saved = json.load(f)
        if not saved["results"]:  # the file is written from the start; wait for a finished point
            raise ValueError("no point finished yet")
        placement = saved["device"]["properties"]["placement"]
        stopped = int(re.search(r"pid (\d+)", placement[1]).group(1))
        os.kill(stopped, signal.SIGSTOP)
    except (OSError, ValueError, KeyError, IndexError, AttributeError):
        stopped = None
start = time.time()
try:
    log, _ = job.communicate(timeout=60)
except subprocess.TimeoutExpired:
    job.kill()
    log, _ = job.communicate()
    problems.append("a hung rank was not detected within 60 s")
finally:
    if stopped:
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.kill(stopped, sig)
            except OSError:
                pass
if stopped is None:
    problems.append("could not find rank 1 to stop")
elif job.returncode != 5 or "did not finish in time" not in log:
    problems.append(f"hung rank: exit {job.returncode} after {time.time() - start:.0f} s; log {log[-400:]}")
else:
    with open(hang) as f:
        kept = json.load(f)
    if kept["complete"] or not any(r["status"] == "ok" for r in kept["results"]):
        problems.append("hung rank: the finished points were not kept")



def first_points_saved(path, job, timeout=60):
    """Waits until the run has saved a finished point; returns the ranks' pids from it."""
    deadline = time.time() + timeout
    while time.time() < deadline and job.poll() is None:
        time.sleep(0.2)
        try:
            with open(path) as f:
                saved = json.load(f)
            if saved["results"]:
                return [int(re.search(r"pid (\d+)", p).group(1)) for p in saved["device"]["properties"]["placement"]]
        except (OSError, ValueError, KeyError, AttributeError):
            pass
    return None


# What mpirun allows (Open MPI 4.1, docs/cli.md's exit codes): a rank killed by a signal
# makes mpirun exit 128 + the signal; Ctrl-C to mpirun ends every rank and mpirun exits 1.
# Either way the finished points were kept, marked incomplete.
for case in ("killed rank", "ctrl-c"):
    path = os.path.join(out, f"collectives-{case.replace(' ', '-')}.json")
    if os.path.exists(path):
        os.remove(path)
    job = subprocess.Popen(launch + [rooftop, "run", "--suite", "collectives", "--backend", "cpu", "--shape",
                                     "all_reduce:4K-64M:f4", "--repetitions", "50", "--min-time", "0.05", "--out", path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    pids = first_points_saved(path, job)
    if not pids:
        job.kill()
        problems.append(f"{case}: no point was saved within 60 s")
        continue
    if case == "killed rank":
        os.kill(pids[1], signal.SIGKILL)
        expected = 128 + signal.SIGKILL
    else:
        os.killpg(job.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches mpirun's process group
        expected = 1
    try:
        log, _ = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        log, _ = job.communicate()
        problems.append(f"{case}: the job did not end within 60 s")
        continue
    with open(path) as f:
        kept = json.load(f)
    if job.returncode != expected:
        problems.append(f"{case}: mpirun exit {job.returncode}, docs/cli.md says {expected}; log {log[-300:]}")
    if kept["complete"] or not any(r["status"] == "ok" for r in kept["results"]):
        problems.append(f"{case}: the finished points were not kept (or the file says complete)")

for p in problems:
    print("FAIL:", p)
print("mpi collectives:", "all checks passed" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
