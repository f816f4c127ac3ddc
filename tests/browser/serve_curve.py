#!/usr/bin/env python3
"""The serving views in headless Chromium: renders the report of the tiny model's measured
--sweep-rate point (tests/data/serve/tiny-sweep.json) beside a copy under another device
(priced, with energy), then serve_curve_test.js checks the curve reads at 1366 px.

usage: serve_curve.py ROOFTOP FIXTURE.json OUT_DIR [--keep DIR]   (exit 4: no Chromium, SKIP)
"""
import copy
import json
import os
import subprocess
import sys

rooftop, fixture, out = sys.argv[1:4]
keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else out
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)
with open(fixture) as f:
    results = json.load(f)
other = copy.deepcopy(results)
other["device"]["fingerprint"] = "cpu-test-fixture-other-device-64c-00000000"
for r in other["results"]:
    r["samples"]["wall_s"] = [2.0 for _ in r["samples"]["seconds_per_iteration"]]
    r["samples"]["energy_j"] = [100.0 for _ in r["samples"]["seconds_per_iteration"]]
other_path = os.path.join(out, "other-device.json")
with open(other_path, "w") as f:
    json.dump(other, f)
report = os.path.join(out, "serve.html")
subprocess.run([rooftop, "report", fixture, other_path, "-o", report, "--price", f"{results['device']['fingerprint']}=3000",
                "--price", f"{other['device']['fingerprint']}=6000"], check=True)
runs = results["results"][0]["outputs"]["sweep"]["runs"]
spec = {"report": report, "shots": keep, "rates": len(runs), "invalid": sum(1 for t in runs if not t["valid"]),
        "steps": len(results["results"][0]["outputs"]["decode_steps"])}
spec_path = os.path.join(out, "spec.json")
with open(spec_path, "w") as f:
    json.dump(spec, f)
node = subprocess.run(["node", os.path.join(here, "serve_curve_test.js"), spec_path], capture_output=True, text=True, cwd=here)
print(node.stdout + node.stderr)
sys.exit(node.returncode)
