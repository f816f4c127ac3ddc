#!/usr/bin/env python3
"""`rooftop history add` and `check` end to end, on nights made from a kept run: a flat
stretch, then every benchmark 30% slower. The check must name the new regression (exit 1);
adding a night twice is refused (exit 2); a missing history is a usage error (exit 2).
`rooftop report --history` draws each benchmark's trend with the step marked.

usage: history_cli.py ROOFTOP RESULTS.json WORK_DIR
"""
import json
import os
import shutil
import sys

from cli_checks import expect
import cli_checks

rooftop, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
db = os.path.join(work, "history.sqlite")


def run(*args):
    return cli_checks.run(rooftop, *args)


expect(2, "no such file", run("history", "check", "--db", db))
base = json.load(open(source))
nights = []
for night in range(12):
    d = json.loads(json.dumps(base))
    d["created"] = f"2026-10-{night + 1:02d}T02:17:00Z"
    d["complete"] = True
    factor = (1.3 if night >= 9 else 1.0) * (1 + 0.002 * (night % 3))  # a step on night 9
    for r in d["results"]:
        samples = r.get("samples") or {}
        samples["seconds_per_iteration"] = [t * factor for t in samples.get("seconds_per_iteration", [])]
    path = os.path.join(work, f"night{night:02d}.json")
    json.dump(d, open(path, "w"))
    nights.append(path)
expect(0, "benchmarks added", run("history", "add", *nights[:6], "--db", db))
expect(0, "0 new regressions", run("history", "check", "--db", db))
expect(0, "benchmarks added", run("history", "add", *nights[6:], "--db", db))
expect(2, "already in the history", run("history", "add", nights[0], "--db", db))
got = run("history", "check", "--db", db)
expect(1, "REGRESSION", got)
if "+30.0%" not in got[1]:
    sys.exit(f"the step's size is not +30.0%:\n{got[1]}")
if "2026-10-10" not in got[1] or "2026-10-09" in got[1]:  # night 9 is the first of the new level
    sys.exit(f"the step is not named by its first night (2026-10-10):\n{got[1]}")
html = os.path.join(work, "trend.html")
expect(0, "wrote", run("report", nights[-1], "--history", db, "-o", html))
page = open(html).read()
if "Trends in the nightly history" not in page or 'class="change slower"' not in page or "+30.0%" not in page:
    sys.exit("the report's trend charts do not mark the +30% step")
expect(2, "no such file", run("report", nights[-1], "--history", os.path.join(work, "none.sqlite"), "-o", html + ".x"))
if os.path.exists(os.path.join(work, "none.sqlite")):
    sys.exit("report --history made a history file")
print("history add/check, report --history: ok")
