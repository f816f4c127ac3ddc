#!/usr/bin/env python3
"""Tensor-parallel inference on 2 MPI ranks (cli, mpi): `mpirun -np 2 rooftop run --suite
inference --backend cpu --shape tiny:decode:1x128:tp2` passes its check against the
reference; a generation at tp2 gives the same greedy tokens and top logits as on one rank
(fp32, the same seed: the same weights); a transformers checkpoint with 3 query heads a kv
head gives transformers' greedy tokens at tp2 and at tp6 (each kv head on 3 ranks); --stages gives each all-reduce a point with its
bus bandwidth and --trace a track per rank; a tp other than the ranks launched is refused
(exit 2); and a rank stopped mid-step ends the job with exit 5 within --comm-timeout (its
first point, run without --seed, checked: the ranks agree on the weights' seed).

usage: mpi_inference_tp.py ROOFTOP OUT_DIR   (exit 4: no mpirun, SKIP)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

rooftop, out = sys.argv[1:3]
mpirun = shutil.which("mpirun")
if not mpirun:
    print("mpirun not found: install openmpi-bin (ci/install-deps.sh does)")
    sys.exit(4)
os.makedirs(out, exist_ok=True)
# Root and oversubscription: CI runs as root on 2 cores. One thread a rank: 2 ranks share 2 cores.
launch = [mpirun, "--allow-run-as-root", "--oversubscribe", "-x", "OMP_NUM_THREADS=1", "-np", "2"]
env = dict(os.environ, OMP_NUM_THREADS="1")
base = ["run", "--suite", "inference", "--backend", "cpu"]
common = base + ["--seed", "7", "--repetitions", "1"]
fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "hf", "llama-group3-d80")
problems = []


def run(cmd, timeout=120):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


one = os.path.join(out, "tp1.json")
two = os.path.join(out, "tp2.json")
trace = os.path.join(out, "tp2-trace.json")
generate = "tiny:generate:2x16x8"
p1 = run([rooftop] + common + ["--dtype", "fp32", "--shape", generate, "--out", one])
p2 = run(launch + [rooftop] + common + ["--dtype", "fp32", "--shape", f"tiny:decode:1x128:tp2,{generate}:tp2",
                                        "--stages", "--trace", trace, "--out", two])
if p1.returncode != 0 or p2.returncode != 0:
    problems.append(f"runs exited {p1.returncode} (tp1) and {p2.returncode} (tp2)")
else:
    with open(one) as f:
        single = {r["name"]: r for r in json.load(f)["results"]}
    with open(two) as f:
        data = json.load(f)
    props = data["device"]["properties"]
    if props.get("ranks") != 2 or len(props.get("placement", [])) != 2:
        problems.append(f"expected 2 ranks with their placement, got {props.get('ranks')}, {props.get('placement')}")
    points = {r["name"]: r for r in data["results"] if "stage" not in r["params"]}
    for name, r in points.items():
        if r["status"] != "ok" or not r["correctness"]["passed"] or r["correctness"]["elements_checked"] == 0:
            problems.append(f"{name}: {r['status']} {r['reason']}")
    ref = single.get("inference/cpu/fp32/tiny_generate_b2_p16_g8")
    got = points.get("inference/cpu/fp32/tiny_generate_b2_p16_g8_tp2")
    if not ref or not got:
        problems.append(f"missing generate points: {sorted(single)} {sorted(points)}")
    else:
        if got["outputs"]["greedy_tokens"] != ref["outputs"]["greedy_tokens"]:
            problems.append(f"tp2 tokens {got['outputs']['greedy_tokens']} != tp1 {ref['outputs']['greedy_tokens']}")
        for a, b in zip(got["outputs"]["top_logits"], ref["outputs"]["top_logits"]):
            if a["ids"] != b["ids"] or max(abs(x - y) for x, y in zip(a["logits"], b["logits"])) > 1e-4:
                problems.append(f"tp2 top logits {a} differ from tp1 {b}")
    reduces = [r for r in data["results"] if r["params"].get("stage", "").endswith("_all_reduce")]
    if len(reduces) != 2:  # the decode point's o_proj and down all-reduces
        problems.append(f"expected 2 all-reduce stage points, got {[r['name'] for r in reduces]}")
    for r in reduces:
        if r["status"] != "ok" or r["params"].get("collective") != "all_reduce" or \
                "bus_bytes_per_s" not in r["throughput"]:
            problems.append(f"{r['name']}: no all-reduce bus bandwidth: {r['status']} {r.get('throughput')}")
    with open(trace) as f:
        tracks = {e["args"]["name"] for e in json.load(f)["traceEvents"] if e.get("name") == "thread_name"}
    if tracks != {"rank 0", "rank 1"}:
        problems.append(f"trace tracks {tracks}, expected one a rank")

# transformers' own tokens from a GQA checkpoint of 6 query and 2 kv heads (3 a group, head dim 80).
with open(os.path.join(fixture, "expected.json")) as f:
    expected = json.load(f)
for tp in (2, 6):  # 6: fewer kv heads (2) than ranks, each replicated on 3
    hf = os.path.join(out, f"tp{tp}-group3.json")
    p3 = run(launch[:-1] + [str(tp), rooftop] + common + ["--dtype", "fp32", "--shape", f"{fixture}:generate:1x40x24:tp{tp}",
                                                         "--prompt", ",".join(map(str, expected["prompt"])), "--out", hf])
    if p3.returncode != 0:
        problems.append(f"the group-3 checkpoint at tp{tp} exited {p3.returncode}")
        continue
    with open(hf) as f:
        r = json.load(f)["results"][0]
    if r["outputs"]["greedy_tokens"][0] != expected["greedy_tokens"]:
        problems.append(f"group-3 checkpoint at tp{tp}: tokens {r['outputs']['greedy_tokens'][0]}, "
                        f"transformers {expected['greedy_tokens']}")

# A tp other than the ranks launched: refused on every rank before anything runs.
wrong = run(launch + [rooftop] + common + ["--shape", "tiny:decode:1x16:tp4"], timeout=60)
if wrong.returncode != 2 or "asks for tp4, but 2 ranks were launched" not in wrong.stderr:
    problems.append(f"tp4 on 2 ranks: exit {wrong.returncode}, stderr {wrong.stderr[-400:]}")

# A rank stopped mid-step: the other gives up after --comm-timeout (exit 5), the finished point kept.
hang = os.path.join(out, "tp2-hang.json")
if os.path.exists(hang):
    os.remove(hang)
job = subprocess.Popen(launch + [rooftop] + base + ["--repetitions", "200", "--comm-timeout", "2", "--shape",
                                                          "tiny:decode:1x16:tp2,tiny:generate:1x16x2000:tp2",
                                                          "--out", hang],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
stopped = None
deadline = time.time() + 60
while time.time() < deadline and job.poll() is None and stopped is None:
    time.sleep(0.1)
    try:
        with open(hang) as f:
            saved = json.load(f)
        if not saved["results"]:
            raise ValueError("no point finished yet")
        stopped = int(re.search(r"pid (\d+)", saved["device"]["properties"]["placement"][1]).group(1))
        os.kill(stopped, signal.SIGSTOP)
    except (OSError, ValueError, KeyError, IndexError, AttributeError):
        stopped = None
start = time.time()
try:
    log, _ = job.communicate(timeout=30)
except subprocess.TimeoutExpired:
    job.kill()
    log, _ = job.communicate()
    problems.append("a stopped rank was not detected within 30 s")
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
    problems.append(f"stopped rank: exit {job.returncode} after {time.time() - start:.0f} s; log {log[-400:]}")
else:
    with open(hang) as f:
        kept = json.load(f)
    if kept["complete"] or not any(r["status"] == "ok" for r in kept["results"]):
        problems.append("stopped rank: the finished point was not kept")

for p in problems:
    print("FAIL:", p)
print("mpi tensor parallel:", "all checks passed" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
