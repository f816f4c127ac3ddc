#!/usr/bin/env python3
"""`rooftop report --baseline` decides as `rooftop gate` does: a slowed copy of a kept run
against the run is a FAIL (exit 1, the report still written); a baseline of another device
is refused (exit 2); a --price for a device not in the report is refused (exit 2).

usage: report_baseline_cli.py ROOFTOP RESULTS.json OTHER_DEVICE_RESULTS.json WORK_DIR
"""
import json
import os
import shutil
import sys

from cli_checks import expect
import cli_checks

rooftop, source, other, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run(*args):
    return cli_checks.run(rooftop, *args)


slow = json.load(open(source))
for r in slow["results"]:
    samples = r.get("samples") or {}
    samples["seconds_per_iteration"] = [t * 1.3 for t in samples.get("seconds_per_iteration", [])]
slow_path = os.path.join(work, "slow.json")
json.dump(slow, open(slow_path, "w"))
html = os.path.join(work, "gated.html")
expect(1, "wrote", run("report", slow_path, "--baseline", source, "-o", html))
if "FAIL" not in open(html).read():
    sys.exit("the gated report shows no FAIL")
expect(0, "wrote", run("report", source, "--baseline", source, "-o", os.path.join(work, "same.html")))
expect(2, "another device", run("report", source, "--baseline", other, "-o", os.path.join(work, "x.html")))
if os.path.exists(os.path.join(work, "x.html")):
    sys.exit("a refused report was written")
expect(2, "no results file is of device", run("report", source, "--price", "cuda-nowhere=1000", "-o", os.path.join(work, "y.html")))
print("report --baseline and --price: ok")
