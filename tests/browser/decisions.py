#!/usr/bin/env python3
"""The report's decisions as a reader takes them (issue 40), in headless Chromium
(decisions_test.js), from committed results bent the way real runs go wrong:

- low-ceiling: this CPU's run with its fp32 roof cut to a quarter (a characterize on a busy
  machine): one banner at the top names the ceiling and `rooftop characterize --backend cpu
  --merge`;
- gate-above-tau: three benchmarks +25% at an alpha no test reaches: each interval wholly above
  tau, none FAIL: the banner is amber with exit 6 and the count, never green; those three rows
  first;
- per-watt: the H100 inference run against a copy of itself with its energy fields removed (a
  measured board power against a datasheet TDP read x1.59 per W): TDP on both sides, x1.00;
  and against a copy without energy or datasheet: "not comparable";
- filter: typing a workload's name narrows the roofline's points, not just the results table;
  a row click brings its point into view.

usage: decisions.py ROOFTOP RESULTS_DIR OUT_DIR [--keep DIR]   (exit 4: no Chromium, SKIP)
  --keep DIR copies the screenshots there (docs/screenshots in the repository).
"""
import copy
import json
import os
import shutil
import subprocess
import sys

rooftop, results_dir, out = sys.argv[1:4]
keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)
problems = []


def load(name):
    with open(os.path.join(results_dir, name)) as f:
        return json.load(f)


def save(run, name):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        json.dump(run, f)
    return path


def report(name, files, *extra, expect_exit=0):
    html = os.path.join(out, name + ".html")
    run = subprocess.run([rooftop, "report", *files, "-o", html, *extra], capture_output=True, text=True)
    if run.returncode != expect_exit or not os.path.exists(html):
        problems.append(f"{name}: rooftop report exit {run.returncode} (expected {expect_exit}): {run.stderr.strip()}")
    return html


cpu_path = os.path.join(results_dir, "cpu-quick-gemm.json")
cpu = load("cpu-quick-gemm.json")

low = copy.deepcopy(cpu)
for c in low["ceilings"]["measured"]["compute"]:
    if c["dtype"] == "fp32":
        c["flops_per_s"] /= 4
low_html = report("low-ceiling", [save(low, "low-ceiling.json")])

slow = copy.deepcopy(cpu)
for r in slow["results"][5:8]:
    r["samples"]["seconds_per_iteration"] = [s * 1.25 for s in r["samples"]["seconds_per_iteration"]]
config = save({"alpha": 1e-12}, "gate.json")
gate_html = report("gate-above-tau", [save(slow, "slow.json")], "--baseline", cpu_path, "--config", config, expect_exit=6)
slowed = [r["name"] for r in slow["results"][5:8]]

h100 = load(os.path.join("cuda", "h100-full-inference.json"))
no_energy = copy.deepcopy(h100)
no_energy["device"]["fingerprint"] = "cuda-test-fixture-same-h100-no-energy-00000000"
for r in no_energy["results"]:
    r["samples"].pop("energy_j", None)
    r["samples"].pop("wall_s", None)
    r.pop("power", None)
h100_path = os.path.join(results_dir, "cuda", "h100-full-inference.json")
tdp_html = report("per-watt-tdp", [h100_path, save(no_energy, "h100-no-energy.json")])
no_power = copy.deepcopy(no_energy)
no_power["device"]["fingerprint"] = "cuda-test-fixture-same-h100-no-power-00000000"
no_power["ceilings"]["datasheet"] = None
refused_html = report("per-watt-refused", [h100_path, save(no_power, "h100-no-power.json")])

spec = {"low": low_html, "gate": gate_html, "slowed": slowed, "tdp": tdp_html, "refused": refused_html,
        "filter": report("filter", [cpu_path]), "shots": os.path.join(out, "screenshots")}
os.makedirs(spec["shots"], exist_ok=True)
spec_path = save(spec, "decisions.json")
node = subprocess.run(["node", os.path.join(here, "decisions_test.js"), spec_path], capture_output=True, text=True, cwd=here)
print(node.stdout + node.stderr)
if node.returncode == 4:
    sys.exit(4)
if node.returncode != 0:
    problems.append("browser checks failed")
if keep and not problems:
    os.makedirs(keep, exist_ok=True)
    for png in sorted(os.listdir(spec["shots"])):
        shutil.copy(os.path.join(spec["shots"], png), os.path.join(keep, png))
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("decisions: all checks passed")
