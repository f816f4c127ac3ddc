#!/usr/bin/env python3
"""Every view of the report as its users meet it, rendered by `rooftop report` from committed
results and checked in headless Chromium (views_test.js), with screenshots at 1366 and 390 px:

- single: one device's run (this CPU's quick GEMM suite);
- comparison: a real procurement comparison, the H100 against this CPU, priced: the summary
  names both devices and reads speed, per $ and per W; both devices share one roofline;
- gate: a gated run with injected regressions: a red banner, exit 1 (the gate's), FAILs first;
- gate-amber: every benchmark +30% against one baseline run: the suite's shift, UNRESOLVED, an
  amber banner, exit 6, never green;
- collectives: 2 x H200 NCCL results: bus bandwidth against size, no FLOP roofline, no NaN;
- runs: two nights of one H200, two files of one device: compared as two runs, each named by
  its file, date and commit.

usage: views.py ROOFTOP RESULTS_DIR OUT_DIR [--keep DIR]   (exit 4: no Chromium, SKIP)
  --keep DIR copies the screenshots there (docs/screenshots in the repository).
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys

rooftop, results_dir, out = sys.argv[1:4]
keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
here = os.path.dirname(os.path.abspath(__file__))
shots = os.path.join(out, "screenshots")
os.makedirs(shots, exist_ok=True)
problems = []


def load(name):
    with open(os.path.join(results_dir, name)) as f:
        return json.load(f)


def plotted(run):
    return sum(1 for r in run["results"] if r["throughput"] is not None and r["throughput"].get("flops_per_s", 0) > 0)


def report(name, files, *extra, expect_exit=0):
    html = os.path.join(out, name + ".html")
    run = subprocess.run([rooftop, "report", *files, "-o", html, *extra], capture_output=True, text=True)
    if run.returncode != expect_exit or not os.path.exists(html):
        problems.append(f"{name}: rooftop report exit {run.returncode} (expected {expect_exit}): {run.stderr.strip()}")
    return html


cpu_path = os.path.join(results_dir, "cpu-quick-gemm.json")
h100_path = os.path.join(results_dir, "cuda", "h100-quick-gemm.json")
collectives_path = os.path.join(results_dir, "cuda", "h200x2-quick-collectives-bf16.json")
cpu, h100 = load("cpu-quick-gemm.json"), load(os.path.join("cuda", "h100-quick-gemm.json"))

specs = [{"name": "single", "html": report("single", [cpu_path]), "section": "h1",
          "counts": {".roofline .point": plotted(cpu), "#results tbody tr": len(cpu["results"])}}]

# The comparison: the H100 first (the reference), this CPU second, both priced.
h100_fp, cpu_fp = h100["device"]["fingerprint"], cpu["device"]["fingerprint"]
comparison = report("comparison", [h100_path, cpu_path], "--price", f"{h100_fp}=30000", "--price", f"{cpu_fp}=4000")
specs.append({"name": "comparison", "html": comparison, "section": "h2:has-text('Machine comparison')",
              "counts": {"#procurement tbody tr": 2, "svg.overlay .point": plotted(h100) + plotted(cpu),
                         "svg.overlay .point[id]": 0, "svg.roofline:not(.overlay) .point": plotted(h100) + plotted(cpu)},
              "starts": {"#procurement tbody tr td": "NVIDIA H100"}})
with open(comparison) as f:
    html = f.read()
for needed in ["Intel", "x1.00 (datasheet TDP, both)", "$30000", "throttled"]:
    if needed not in html:
        problems.append(f"comparison: '{needed}' not in the page")
if re.search(r"\bnan\b", html, re.IGNORECASE):
    problems.append("comparison: 'nan' in the page")

# The gate: a copy of the CPU run with three benchmarks made 50% slower, against the run itself.
slow = copy.deepcopy(cpu)
for r in slow["results"][5:8]:
    r["samples"]["seconds_per_iteration"] = [s * 1.5 for s in r["samples"]["seconds_per_iteration"]]
slow_path = os.path.join(out, "cpu-quick-gemm-slowed.json")
with open(slow_path, "w") as f:
    json.dump(slow, f)
specs.append({"name": "gate", "html": report("gate", [slow_path], "--baseline", cpu_path, expect_exit=1),
              "section": "#gate-banner",
              "counts": {"#gate .v-FAIL": 3, ".banner-red": 1},
              "starts": {"#gate-banner": "FAIL: 3 regressions (gate exit 1)", "#gate tbody tr td": "FAIL"}})

# The amber gate: every benchmark 30% slower against one baseline run: the suite's shift,
# which one run cannot tell from the machine's: exit 6, amber, never green.
slower = copy.deepcopy(cpu)
for r in slower["results"]:
    r["samples"]["seconds_per_iteration"] = [s * 1.3 for s in r["samples"]["seconds_per_iteration"]]
slower_path = os.path.join(out, "cpu-quick-gemm-slower.json")
with open(slower_path, "w") as f:
    json.dump(slower, f)
specs.append({"name": "gate-amber",
              "html": report("gate-amber", [slower_path], "--baseline", cpu_path, expect_exit=6),
              "section": "#gate-banner",
              "counts": {".banner-amber": 1, ".banner-green": 0, ".banner-red": 0, "#gate .v-FAIL": 0},
              "starts": {"#gate-banner": "UNRESOLVED: the whole suite moved +30"}})

# Two nights of one H200 (two files of one device): two runs compared, each named by its file,
# date and commit, never merged onto one roofline with rows in identical pairs.
nights = [os.path.join(results_dir, "issue51", "h200-gemm-nights", f"gemmnight{n}-gemm.json") for n in (1, 2)]
night1 = load(os.path.join("issue51", "h200-gemm-nights", "gemmnight1-gemm.json"))
specs.append({"name": "runs", "html": report("runs", nights), "section": "h2:has-text('Run and machine comparison')",
              "counts": {"#procurement tbody tr": 2, "#runs-of-one-device": 1, "svg.roofline:not(.overlay)": 2,
                         "svg.overlay .point": 2 * plotted(night1)},
              "starts": {"#procurement tbody tr td": "NVIDIA H200 · gemmnight1-gemm.json, 2026-11-28"}})

# Collectives: bandwidth against size, on no FLOP roofline.
coll = load(os.path.join("cuda", "h200x2-quick-collectives-bf16.json"))
specs.append({"name": "collectives", "html": report("collectives", [collectives_path]), "section": "h3:has-text('Collectives')",
              "counts": {"svg.bandwidth": 1, "svg.roofline:not(.bandwidth)": 0, "h2:has-text('Roofline:')": 0,
                         "svg.bandwidth .point": sum(1 for r in coll["results"] if r["throughput"] is not None)},
              "starts": {"h2:has-text('Collectives:')": "Collectives: NVIDIA H200"}})
with open(specs[-1]["html"]) as f:
    html = f.read()
# Each row held against its link (bus bandwidth, % of the link), never sent to characterize a roofline.
for needed in ["bus bandwidth at", " bus</td>", "<td>link</td>", "nvlink (datasheet"]:
    if needed not in html:
        problems.append(f"collectives: '{needed}' not in the page")
if "characterize" in html:
    problems.append("collectives: the page tells a collectives run to characterize a roofline")

spec_path = os.path.join(out, "views.json")
for s in specs:
    s["shots"] = shots
with open(spec_path, "w") as f:
    json.dump(specs, f)
node = subprocess.run(["node", os.path.join(here, "views_test.js"), spec_path], capture_output=True, text=True, cwd=here)
print(node.stdout + node.stderr)
if node.returncode == 4:
    sys.exit(4)
if node.returncode != 0:
    problems.append("browser checks failed")
if keep and not problems:
    os.makedirs(keep, exist_ok=True)
    for png in sorted(os.listdir(shots)):
        shutil.copy(os.path.join(shots, png), os.path.join(keep, png))
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("views: all checks passed")
