#!/usr/bin/env python3
"""`rooftop report --baseline` decides as `rooftop gate` does: a copy of a kept run with one
benchmark slowed is a FAIL (exit 1, the report still written), one with all slowed exit 6; a baseline of another device
is refused (exit 2), as is one of another tier; a store without this device's baseline is
exit 3 (gate's, CTest's SKIP), writing nothing; the store's gate.json thresholds apply; a
--price for a device not in the report is refused (exit 2). The banner states the exit code
the report gave, computed by the same rule (harness/gate_exit.hpp).

usage: report_baseline_cli.py ROOFTOP RESULTS.json OTHER_DEVICE_RESULTS.json WORK_DIR
"""
import json
import os
import re
import shutil
import sys

from cli_checks import expect
import cli_checks

rooftop, source, other, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run(*args):
    return cli_checks.run(rooftop, *args)


def banner_matches(path, code):
    """The banner's "(gate exit N)" is the exit code the report gave."""
    said = re.search(r'id="gate-banner"><strong>[^<]*\(gate exit (\d+)\)', open(path).read())
    if not said or int(said.group(1)) != code:
        sys.exit(f"{path}: the banner says {said.group(0) if said else 'no exit code'}, the report exited {code}")


slow = json.load(open(source))
for r in slow["results"]:
    samples = r.get("samples") or {}
    samples["seconds_per_iteration"] = [t * 1.3 for t in samples.get("seconds_per_iteration", [])]
slow_path = os.path.join(work, "slow.json")
json.dump(slow, open(slow_path, "w"))
# One benchmark 50% slower is its FAIL; every benchmark 30% slower is the suite's shift,
# which one baseline run cannot tell from the machine's (exit 6 below).
one_slow = json.load(open(source))
first = one_slow["results"][0]["samples"]
first["seconds_per_iteration"] = [t * 1.5 for t in first["seconds_per_iteration"]]
one_slow_path = os.path.join(work, "one-slow.json")
json.dump(one_slow, open(one_slow_path, "w"))
html = os.path.join(work, "gated.html")
expect(1, "wrote", run("report", one_slow_path, "--baseline", source, "-o", html))
if "FAIL" not in open(html).read():
    sys.exit("the gated report shows no FAIL")
banner_matches(html, 1)
expect(0, "wrote", run("report", source, "--baseline", source, "-o", os.path.join(work, "same.html")))
banner_matches(os.path.join(work, "same.html"), 0)
# Every benchmark +30% against one baseline run: the machine or a change of everything, it
# cannot tell: exit 6, amber, never green.
amber = os.path.join(work, "amber.html")
expect(6, "wrote", run("report", slow_path, "--baseline", source, "-o", amber))
banner_matches(amber, 6)
if 'class="banner banner-amber"' not in open(amber).read():
    sys.exit("the report of exit 6 has no amber banner")
expect(2, "another device", run("report", source, "--baseline", other, "-o", os.path.join(work, "x.html")))
if os.path.exists(os.path.join(work, "x.html")):
    sys.exit("a refused report was written")
other_tier = json.load(open(source))
other_tier["tier"] = "smoke" if other_tier["tier"] != "smoke" else "quick"
other_tier_path = os.path.join(work, "other-tier.json")
json.dump(other_tier, open(other_tier_path, "w"))
expect(2, "gate like against like", run("report", source, "--baseline", other_tier_path, "-o", os.path.join(work, "t.html")))
empty_store = os.path.join(work, "empty-store")
os.makedirs(empty_store)
expect(3, "no baseline for device", run("report", source, "--baseline", empty_store, "-o", os.path.join(work, "z.html")))
if os.path.exists(os.path.join(work, "z.html")):
    sys.exit("a report without its baseline was written")
# A store with the baseline and a gate.json that forgives 40%: the slowed copy passes.
store = os.path.join(work, "store")
fingerprint = slow["device"]["fingerprint"]
os.makedirs(os.path.join(store, fingerprint))
suite = slow["results"][0]["family"]
shutil.copy(source, os.path.join(store, fingerprint, f"{suite}.json"))
json.dump({"tau_kernel": 0.4, "tau_system": 0.4}, open(os.path.join(store, fingerprint, "gate.json"), "w"))
expect(0, "wrote", run("report", slow_path, "--baseline", store, "-o", os.path.join(work, "forgiven.html")))
banner_matches(os.path.join(work, "forgiven.html"), 0)
expect(2, "no results file is of device", run("report", source, "--price", "cuda-nowhere=1000", "-o", os.path.join(work, "y.html")))
print("report --baseline and --price: ok")
