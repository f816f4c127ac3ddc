#!/usr/bin/env python3
"""`rooftop gate` with the run as the unit, end to end, on nights made from a kept run:
each benchmark drifts between nights (log sd 4%, the same draws every time), and one night
has one benchmark three times slower.

- A baseline of one run gates by repetition and says so (a note); `--unit run` refuses it.
- Appended to five runs, the baseline gates by run: the next A/A night exits 0, the
  slowed night exits 1 and FAILs that benchmark only.
- `--confirm` with an A/A re-run clears the FAIL (UNRESOLVED, still above tau: exit 6); a slowed re-run
  keeps it; a re-run of another tier is refused (exit 2).
- `--history` gates against the last nights of the history (exit 0 and 1 alike); a tier it
  has no nights of, or a history of one night, exits 3.
- Appending a run the baseline already holds is refused (exit 2).

usage: run_unit_gate_cli.py ROOFTOP RESULTS.json WORK_DIR
"""
import json
import math
import os
import random
import shutil
import sys

import cli_checks
from cli_checks import expect

rooftop, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
store = os.path.join(work, "baselines")
db = os.path.join(work, "history.sqlite")
rng = random.Random(11)
base = json.load(open(source))
victim = base["results"][0]["name"]


def run(*args):
    return cli_checks.run(rooftop, *args)


def night(n, slow=1.0, tier=None):
    d = json.loads(json.dumps(base))
    d["created"] = f"2026-10-{n + 1:02d}T02:17:00Z"
    d["complete"] = True
    if tier:
        d["tier"] = tier
    for r in d["results"]:
        factor = math.exp(rng.gauss(0, 0.04)) * (slow if r["name"] == victim else 1.0)
        r["samples"]["seconds_per_iteration"] = [t * factor for t in r["samples"]["seconds_per_iteration"]]
    path = os.path.join(work, f"night{n:02d}{'-slow' if slow != 1 else ''}{'-' + tier if tier else ''}.json")
    json.dump(d, open(path, "w"))
    return path


nights = [night(n) for n in range(5)]
aa, slow, rerun_aa, rerun_slow = night(5), night(6, 3.0), night(7), night(8, 3.0)

expect(0, "benchmarks added", run("history", "add", *nights, "--db", db))
expect(0, "wrote", run("baseline", "update", nights[0], "--baselines", store))
got = run("gate", "--baseline", store, aa)
if "keeps the medians of 1 run:" not in got[1]:
    sys.exit(f"a one-run baseline gated without the note that it cannot see drift:\n{got[1]}")
expect(2, "needs 2 or more", run("gate", "--baseline", store, aa, "--unit", "run"))

for n in nights[1:]:
    expect(0, "wrote", run("baseline", "update", "--append", n, "--baselines", store))
expect(0, "5 baseline runs as the unit", run("gate", "--baseline", store, aa))
verdicts = os.path.join(work, "slow.json")
got = run("gate", "--baseline", store, slow, "--json", verdicts)
expect(1, "1 FAIL", got)
failed = [c["name"] for c in json.load(open(verdicts))["comparisons"] if c["verdict"] == "FAIL"]
if failed != [victim]:
    sys.exit(f"FAILs {failed}, expected only {victim}:\n{got[1]}")

expect(6, "does not repeat", run("gate", "--baseline", store, slow, "--confirm", rerun_aa))
expect(1, "1 FAIL", run("gate", "--baseline", store, slow, "--confirm", rerun_slow))
expect(2, "same device and tier", run("gate", "--baseline", store, slow, "--confirm", night(9, tier="full")))

expect(0, "5 baseline runs as the unit", run("gate", "--history", db, aa))
expect(1, "1 FAIL", run("gate", "--history", db, slow, "--confirm", rerun_slow))
expect(3, "holds no run of", run("gate", "--history", db, night(10, tier="full")))
one_night = os.path.join(work, "one-night.sqlite")
expect(0, "benchmarks added", run("history", "add", nights[0], "--db", one_night))
expect(3, "holds 1 run of", run("gate", "--history", one_night, aa))
expect(2, "already in", run("baseline", "update", "--append", nights[1], "--baselines", store))
expect(2, "no such file", run("gate", "--history", os.path.join(work, "none.sqlite"), aa))
print("gate with the run as the unit: ok")
